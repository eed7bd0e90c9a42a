/* fileio: whole-file reads and writes with errors that name the file. */
#ifndef SPADMAP_FILEIO_H
#define SPADMAP_FILEIO_H

#include <stddef.h>

#include "status.h"

Status FileIO_read(const char *path, char **text, size_t *len, SpError *err); /* NUL-terminated */
/* Writes via a temporary file and rename, so a failed write never leaves half a file. */
Status FileIO_write(const char *path, const char *text, size_t len, SpError *err);
/* 1-based line and column of byte offset pos in text. */
void FileIO_lineColumn(const char *text, size_t pos, int *line, int *col);
/* The error for JSON that failed to parse at `end` (cJSON's error position):
 * "label:line:col: malformed JSON", or the end-of-file position when the text
 * stops inside a string or with brackets still open (a truncated file). */
Status FileIO_jsonSyntaxError(SpError *err, const char *label, const char *text, size_t len, const char *end);
/* After a successful parse that stopped at `end`: SP_OK if only whitespace follows,
 * else the error for the text after the document ("label:line:col: ..."). cJSON
 * itself stops after the first value and ignores the rest. */
Status FileIO_jsonTrailing(SpError *err, const char *label, const char *text, size_t len, const char *end);
/* The first key that appears twice in a cJSON object (cJSON keeps both and
 * returns the first), or NULL. */
struct cJSON;
const char *FileIO_jsonDuplicateKey(const struct cJSON *object);
/* "data/networks/resnet50.json" -> "resnet50" (static buffer). */
const char *FileIO_stem(const char *path);

#endif

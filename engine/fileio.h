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
/* "data/networks/resnet50.json" -> "resnet50", written into buf (returned). */
const char *FileIO_stem(const char *path, char *buf, size_t n);

#endif

/* fileio: whole-file reads and writes with errors that name the file. */
#ifndef SPADMAP_FILEIO_H
#define SPADMAP_FILEIO_H

#include <stddef.h>

#include "status.h"

/* Files larger than this are refused before (regular files) or while (pipes,
 * devices) they are read: network and plan files are a few MB; /dev/zero is not. */
#define FILEIO_MAX_READ ((size_t)256 << 20)

/* Reads the whole file, NUL-terminated. Directories and files over
 * FILEIO_MAX_READ are SP_ERR_IO with a message saying so. */
Status FileIO_read(const char *path, char **text, size_t *len, SpError *err);
/* Writes via a temporary file and rename, so a failed write never leaves half a file. */
Status FileIO_write(const char *path, const char *text, size_t len, SpError *err);
/* 1-based line and column of byte offset pos in text. */
void FileIO_lineColumn(const char *text, size_t pos, int *line, int *col);
/* "data/networks/resnet50.json" -> "resnet50", written into buf (returned). */
const char *FileIO_stem(const char *path, char *buf, size_t n);

#endif

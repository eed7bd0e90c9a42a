/* fileio: whole-file reads and writes with errors that name the file. */
#ifndef SPADMAP_FILEIO_H
#define SPADMAP_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "status.h"

/* The kinds of input file, each with its own size cap: a file over its kind's
 * cap is refused before it is read (regular files) or as soon as the cap is
 * passed (pipes, devices: /dev/zero), so memory stays bounded by the cap. */
typedef enum {
  FILE_NETWORK, /* network JSON, or the COSMA authors' DAG JSON */
  FILE_ONNX,    /* an ONNX model (.onnx, or a protobuf's first byte) */
  FILE_PLAN,    /* spadmap-plan JSON */
  FILE_OFFCHIP, /* spadmap-offchip JSON */
  FILE_CSV,     /* minimalloc CSV: an instance or a solution */
  FILE_ARCH,    /* an architecture file (layer --arch) */
  FILE_LESSON,  /* a lesson (data/lessons) */
  FILE_KINDS
} FileKind;

/* The cap in bytes, and the kind's name in messages ("network or DAG JSON"). */
size_t FileIO_cap(FileKind kind);
const char *FileIO_kindName(FileKind kind);

/* Reads the whole file, NUL-terminated. Directories, unreadable files and files
 * over the kind's cap are SP_ERR_IO with a message naming the file: "F: 300 MiB
 * is larger than the 1 MiB cap for architecture files". */
Status FileIO_read(const char *path, FileKind kind, char **text, size_t *len, SpError *err);

/* Output files (every --out: plans, CSV, snapshots). A regular file (or a new
 * name) is written to a temporary in the same directory and renamed over it at
 * commit, so an interrupted or failed run never leaves half a file; through a
 * symlink, the file it points to is replaced. Anything else -- a device, a FIFO,
 * /dev/stdout, "-" (standard output) -- is written in place: nothing is ever
 * renamed over /dev/null. Every write error (ENOSPC from /dev/full, ...) is
 * reported at commit, and the temporary is removed on every failure. */
typedef struct {
  FILE *f;          /* write here between FileIO_open and FileIO_commit/abort */
  char *path;       /* what the user named */
  char *target;     /* the file replaced at commit (symlinks resolved) */
  char *tmp;        /* the temporary, or NULL when written in place */
  bool is_stdout;
  int pending;      /* its slot + 1 among the temporaries a signal removes (0: none) */
} FileOut;

Status FileIO_open(const char *path, FileOut *o, SpError *err);
/* Flushes and closes; renames the temporary into place. Errors name the file. */
Status FileIO_commit(FileOut *o, SpError *err);
/* Pushes what was written so far to the file: a file that cannot take it
 * (/dev/full) fails here, before a long run prints results it could not keep.
 * On an error the file is given up (FileIO_abort) and the error names it. */
Status FileIO_flush(FileOut *o, SpError *err);
/* Gives up: closes and removes the temporary (an in-place target is left as is). */
void FileIO_abort(FileOut *o);
/* Open + write + commit. */
Status FileIO_write(const char *path, const char *text, size_t len, SpError *err);
/* Writes n files (at most 8) all or nothing: each to its temporary, all complete
 * on disk before the first replaces its old file; when one cannot be written,
 * every temporary is removed and every old file stays (--export-timeloop's
 * three). Only a rename failing after others succeeded (the temporaries are
 * in the targets' folders, so only a disk failing then) can leave a mix. */
Status FileIO_writeAll(int n, const char *const *paths, const char *const *texts, SpError *err);
/* Removes the temporaries being written, if any: async-signal-safe, for a front
 * end's handler of SIGINT/SIGTERM/SIGHUP before it re-raises the signal. The
 * three signals are blocked while a temporary is made and while it is renamed,
 * so none is ever on disk unknown to the handler.
 * Test hook: SPADMAP_TEST_PAUSE_WRITE=FIFO makes the Nth temporary
 * (SPADMAP_TEST_PAUSE_WRITE_AT=N, default 1) say "PID TEMPORARY" on FIFO, then
 * wait for a signal (tests/cli_attacks.sh interrupts writes with no sleep). */
void FileIO_removeTempOnSignal(void);
/* 1-based line and column of byte offset pos in text. */
void FileIO_lineColumn(const char *text, size_t pos, int *line, int *col);
/* "data/networks/resnet50.json" -> "resnet50", written into buf (returned). */
const char *FileIO_stem(const char *path, char *buf, size_t n);

#endif

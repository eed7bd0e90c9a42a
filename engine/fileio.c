#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

/* Each cap is the largest legitimate file of its kind, measured, with room
 * (docs/results/reliability.md has the figures):
 *  - JSON (networks and DAGs, plans, off-chip plans): the readers take at most
 *    16 M values (JSON_MAX_VALUES), which is what bounds their memory; the files
 *    we write take 4 to 13 bytes a value, so 16 M values are 67 to 204 MiB.
 *    `bench scale`'s largest graph (1,000,000 ops: 9.3 MB and 0.8 M values per
 *    50,006 ops) is about 186 MB, its plan about 106 MB; nasnet_a, the largest
 *    bundled network, is 0.26 MB.
 *  - ONNX: the importer reads the weights too; VGG-19 with its weights is
 *    548 MB, and protobuf refuses a message past 2 GiB.
 *  - CSV: a network's lifetimes are 30 bytes a row (bench scale's 50,006 ops:
 *    1.5 MB), so 30 MB at a million ops, twice that with params and wider sizes.
 *  - architecture files: at most 8 levels; the bundled ones are 2 KB.
 *  - lessons: a few stages of text; the bundled ones are at most 3.2 KB. */
static const struct {
  const char *name;
  size_t mib;
} FileIO_kinds[FILE_KINDS] = {
    [FILE_NETWORK] = {"network or DAG JSON", 256}, [FILE_ONNX] = {"ONNX model", 1024},
    [FILE_PLAN] = {"plan", 256},                   [FILE_OFFCHIP] = {"off-chip plan", 256},
    [FILE_CSV] = {"CSV", 128},                     [FILE_ARCH] = {"architecture", 1},
    [FILE_LESSON] = {"lesson", 1},
};

size_t FileIO_cap(FileKind kind) { return FileIO_kinds[kind].mib << 20; }
const char *FileIO_kindName(FileKind kind) { return FileIO_kinds[kind].name; }

Status FileIO_read(const char *path, FileKind kind, char **text, size_t *len, SpError *err) {
  *text = NULL;
  *len = 0;
  size_t max = FileIO_cap(kind);
  FILE *f = fopen(path, "rb");
  if (!f) return SpError_set(err, SP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat sb;
  size_t cap = 1 << 16, n = 0;
  if (fstat(fileno(f), &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) {
      fclose(f);
      return SpError_set(err, SP_ERR_IO, "%s: is a directory (expected a file)", path);
    }
    if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > max) {
      fclose(f);
      return SpError_set(err, SP_ERR_IO, "%s: %.1f MiB is larger than the %zu MiB cap for %s files", path,
                         (double)sb.st_size / (1 << 20), max >> 20, FileIO_kinds[kind].name);
    }
    /* one allocation of the file's size (+1 to see the end): doubling would peak at twice it */
    if (S_ISREG(sb.st_mode) && (size_t)sb.st_size + 2 > cap) cap = (size_t)sb.st_size + 2;
  }
  char *buf = malloc(cap);
  bool too_big = false;
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (ferror(f)) {
      int e = errno;
      free(buf);
      fclose(f);
      return SpError_set(err, SP_ERR_IO, "%s: read error: %s", path, strerror(e));
    }
    if (feof(f)) break;
    if (n > max) { /* a pipe or device that keeps going */
      too_big = true;
      break;
    }
    if (n + 1 >= cap) {
      size_t more = cap * 2 > max + 2 ? max + 2 : cap * 2; /* never past the cap (+2: to see it passed) */
      char *bigger = realloc(buf, more);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap = more;
    }
  }
  fclose(f);
  if (too_big) {
    free(buf);
    return SpError_set(err, SP_ERR_IO, "%s: larger than the %zu MiB cap for %s files (stopped reading)", path,
                       max >> 20, FileIO_kinds[kind].name);
  }
  if (!buf) return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory reading the file", path);
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return SP_OK;
}

/* The temporaries being written, for FileIO_removeTempOnSignal: a few at once
 * (--export-timeloop holds three until all are complete). A slot is FREE, being
 * filled (BUSY) or READY; the handler removes READY ones only, and the flags are
 * lock-free atomics, so it is async-signal-safe. Past FILEIO_PENDING_MAX the
 * write still works, its temporary just is not removed by a signal. */
enum { FILEIO_PENDING_MAX = 8, PENDING_FREE = 0, PENDING_BUSY = 1, PENDING_READY = 2 };
static char FileIO_pendingTmp[FILEIO_PENDING_MAX][4096];
static atomic_int FileIO_pendingState[FILEIO_PENDING_MAX];

void FileIO_removeTempOnSignal(void) {
  for (int i = 0; i < FILEIO_PENDING_MAX; i++)
    if (atomic_load(&FileIO_pendingState[i]) == PENDING_READY) unlink(FileIO_pendingTmp[i]);
}

/* Registers tmp; returns its slot + 1 (0: not registered). */
static int FileIO_addPending(const char *tmp) {
  size_t len = strlen(tmp);
  if (len >= sizeof FileIO_pendingTmp[0]) return 0;
  for (int i = 0; i < FILEIO_PENDING_MAX; i++) {
    int expect = PENDING_FREE;
    if (!atomic_compare_exchange_strong(&FileIO_pendingState[i], &expect, PENDING_BUSY)) continue;
    memcpy(FileIO_pendingTmp[i], tmp, len + 1);
    atomic_store(&FileIO_pendingState[i], PENDING_READY);
    return i + 1;
  }
  return 0;
}

static void FileIO_dropPending(FileOut *o) {
  if (o->pending > 0) atomic_store(&FileIO_pendingState[o->pending - 1], PENDING_FREE);
  o->pending = 0;
}

/* The signals a front end's handler removes temporaries on: blocked while a
 * temporary is made and registered, and while it is renamed and forgotten, so
 * none is ever on disk and unknown to the handler. */
static void FileIO_blockSignals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Test hook (tests/cli_attacks.sh): with SPADMAP_TEST_PAUSE_WRITE=FIFO, the
 * Nth temporary made (SPADMAP_TEST_PAUSE_WRITE_AT=N, default 1) is announced on
 * FIFO as "PID TEMPORARY\n", then the process waits for a signal: a test
 * interrupts a write at a known point, without sleeping. Called with the
 * signals blocked; sigsuspend unblocks them and waits in one step. */
static void FileIO_testPause(const char *tmp, const sigset_t *unblocked) {
  const char *fifo = getenv("SPADMAP_TEST_PAUSE_WRITE");
  if (!fifo || !*fifo) return;
  static int made;
  const char *at = getenv("SPADMAP_TEST_PAUSE_WRITE_AT");
  if (++made != (at && atoi(at) > 0 ? atoi(at) : 1)) return;
  int fd = open(fifo, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  dprintf(fd, "%ld %s\n", (long)getpid(), tmp);
  close(fd);
  sigsuspend(unblocked);
}

static void FileIO_release(FileOut *o) {
  free(o->path), free(o->target), free(o->tmp);
  memset(o, 0, sizeof *o);
}

/* Whether path names a regular file (or nothing yet) that may be replaced by
 * rename; *target gets the file to replace (malloc'd). */
static bool FileIO_replaceable(const char *path, char **target) {
  struct stat st;
  *target = NULL;
  if (lstat(path, &st) != 0) {
    if (errno != ENOENT) return false;
    *target = strdup(path); /* a new file */
    return *target != NULL;
  }
  if (S_ISREG(st.st_mode)) {
    *target = strdup(path);
    return *target != NULL;
  }
  if (!S_ISLNK(st.st_mode)) return false;
  char *real = realpath(path, NULL); /* /dev/stdout -> /proc/self/fd/1 -> a pipe, a tty, a file */
  if (!real) return false;
  bool reg = stat(real, &st) == 0 && S_ISREG(st.st_mode) && strncmp(real, "/proc/", 6) != 0 &&
             strncmp(real, "/dev/", 5) != 0;
  if (!reg) {
    free(real);
    return false;
  }
  *target = real;
  return true;
}

Status FileIO_open(const char *path, FileOut *o, SpError *err) {
  memset(o, 0, sizeof *o);
  if (!path || !*path) return SpError_set(err, SP_ERR_ARG, "empty output file name");
  o->path = strdup(path);
  if (!o->path) return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", path);
  if (strcmp(path, "-") == 0) {
    o->is_stdout = true;
    o->f = stdout;
    return SP_OK;
  }
  if (!FileIO_replaceable(path, &o->target)) {
    /* a device, FIFO, socket or a link to one: in place, never replaced */
    int fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666); /* O_CREAT: a dangling link */
    if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
      int e = errno;
      if (fd >= 0) close(fd);
      FileIO_release(o);
      return SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    return SP_OK;
  }
  /* a short temporary name in the target's directory: a 255-byte name still works */
  const char *slash = strrchr(o->target, '/');
  size_t dirlen = slash ? (size_t)(slash - o->target) + 1 : 0;
  o->tmp = malloc(dirlen + 32);
  if (!o->tmp) {
    FileIO_release(o);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", path);
  }
  memcpy(o->tmp, o->target, dirlen);
  memcpy(o->tmp + dirlen, ".spadmap-out-XXXXXX", sizeof ".spadmap-out-XXXXXX");
  sigset_t old_mask;
  FileIO_blockSignals(&old_mask);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    FileIO_release(o);
    return SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", path, strerror(e));
  }
  o->pending = FileIO_addPending(o->tmp);
  FileIO_testPause(o->tmp, &old_mask);
  pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
  /* mkstemp makes 0600: give the file what a plain fopen would (or the old file's mode) */
  struct stat old;
  mode_t mask = umask(022);
  umask(mask);
  mode_t mode = stat(o->target, &old) == 0 ? (old.st_mode & 07777) : (0666 & ~mask);
  if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "wb"))) {
    int e = errno;
    close(fd);
    unlink(o->tmp);
    FileIO_dropPending(o);
    FileIO_release(o);
    return SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", path, strerror(e));
  }
  return SP_OK;
}

/* The first half of a commit: everything written reaches the file (the
 * temporary: the disk), and it is closed. 0 or the errno of the failure. */
static int FileIO_finish(FileOut *o) {
  int e = 0;
  /* errno is not cleared: a buffered write that failed earlier left its reason
   * (ENOSPC on /dev/full), which ferror alone does not keep */
  if (fflush(o->f) != 0 || ferror(o->f)) e = errno ? errno : EIO;
  if (o->is_stdout) {
    clearerr(o->f);
  } else {
    /* a temporary reaches the disk before it replaces the old file: a crash after
     * the rename cannot leave an empty file under the name (EIO, ENOSPC late) */
    if (!e && o->tmp && fsync(fileno(o->f)) != 0) e = errno;
    if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
  }
  o->f = NULL;
  return e;
}

/* The second half: the temporary renamed into place (with the signals blocked,
 * so the handler never removes a name that is the file itself now), or removed
 * when e says the file failed. Reports e (or the rename's error) naming the file. */
static Status FileIO_place(FileOut *o, int e, SpError *err) {
  if (o->tmp) {
    sigset_t old;
    FileIO_blockSignals(&old);
    if (!e && rename(o->tmp, o->target) != 0) e = errno;
    if (e) unlink(o->tmp);
    FileIO_dropPending(o);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  Status st = SP_OK;
  if (e)
    st = SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", o->is_stdout ? "standard output" : o->path, strerror(e));
  FileIO_release(o);
  return st;
}

Status FileIO_commit(FileOut *o, SpError *err) { return FileIO_place(o, FileIO_finish(o), err); }

Status FileIO_flush(FileOut *o, SpError *err) {
  errno = 0;
  if (fflush(o->f) == 0 && !ferror(o->f)) return SP_OK;
  int e = errno ? errno : EIO;
  Status st = SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", o->is_stdout ? "standard output" : o->path,
                          strerror(e));
  FileIO_abort(o);
  return st;
}

void FileIO_abort(FileOut *o) {
  if (o->f && !o->is_stdout) fclose(o->f);
  if (o->tmp) {
    unlink(o->tmp);
    FileIO_dropPending(o);
  }
  FileIO_release(o);
}

Status FileIO_write(const char *path, const char *text, size_t len, SpError *err) {
  FileOut o;
  Status st = FileIO_open(path, &o, err);
  if (st) return st;
  errno = 0;
  if (len && fwrite(text, 1, len, o.f) != len) {
    int e = errno ? errno : EIO;
    FileIO_abort(&o);
    return SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", path, strerror(e));
  }
  return FileIO_commit(&o, err);
}

Status FileIO_writeAll(int n, const char *const *paths, const char *const *texts, SpError *err) {
  FileOut o[FILEIO_PENDING_MAX];
  if (n < 0 || n > FILEIO_PENDING_MAX) return SpError_set(err, SP_ERR_ARG, "FileIO_writeAll: %d files (at most %d)", n, FILEIO_PENDING_MAX);
  int opened = 0;
  Status st = SP_OK;
  for (; opened < n; opened++) {
    if ((st = FileIO_open(paths[opened], &o[opened], err))) break;
    size_t len = strlen(texts[opened]);
    errno = 0;
    int e = len && fwrite(texts[opened], 1, len, o[opened].f) != len ? (errno ? errno : EIO) : FileIO_finish(&o[opened]);
    if (e) {
      st = SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", paths[opened], strerror(e));
      FileIO_abort(&o[opened]); /* closes it if fwrite failed; finish closed it already (f NULL) */
      break;
    }
  }
  if (st) { /* one failed: every temporary goes, every old file stays */
    for (int i = 0; i < opened; i++) FileIO_place(&o[i], EIO, NULL);
    return st;
  }
  for (int i = 0; i < n; i++) { /* all complete on disk: now each replaces its old file */
    SpError e2;
    Status s2 = FileIO_place(&o[i], 0, st ? &e2 : err);
    if (!st) st = s2;
  }
  return st;
}

void FileIO_lineColumn(const char *text, size_t pos, int *line, int *col) {
  int l = 1, c = 1;
  for (size_t i = 0; i < pos && text[i]; i++) {
    if (text[i] == '\n') l++, c = 1;
    else c++;
  }
  *line = l;
  *col = c;
}

const char *FileIO_stem(const char *path, char *buf, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(buf, n, "%s", base);
  char *dot = strrchr(buf, '.');
  if (dot && dot != buf) *dot = '\0';
  return buf;
}


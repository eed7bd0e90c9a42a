#include "fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

Status FileIO_read(const char *path, char **text, size_t *len, SpError *err) {
  *text = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return SpError_set(err, SP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) {
      fclose(f);
      return SpError_set(err, SP_ERR_IO, "%s: is a directory (expected a file)", path);
    }
    if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > FILEIO_MAX_READ) {
      fclose(f);
      return SpError_set(err, SP_ERR_IO, "%s: %jd bytes is larger than the %zu MiB limit for input files", path,
                         (intmax_t)sb.st_size, FILEIO_MAX_READ >> 20);
    }
  }
  size_t cap = 1 << 16, n = 0;
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
    if (n > FILEIO_MAX_READ) { /* a pipe or device that keeps going */
      too_big = true;
      break;
    }
    if (n + 1 >= cap) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (too_big) {
    free(buf);
    return SpError_set(err, SP_ERR_IO, "%s: more than the %zu MiB limit for input files (stopped reading)", path,
                       FILEIO_MAX_READ >> 20);
  }
  if (!buf) return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory reading the file", path);
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return SP_OK;
}

Status FileIO_write(const char *path, const char *text, size_t len, SpError *err) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", path);
  snprintf(tmp, plen + 16, "%s.tmp%d", path, (int)getpid() % 1000000);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    int e = errno;
    free(tmp);
    return SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", path, strerror(e));
  }
  size_t w = fwrite(text, 1, len, f);
  int bad = w != len || fflush(f) != 0;
  int e = errno;
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    if (!bad) e = errno;
    remove(tmp);
    free(tmp);
    return SpError_set(err, SP_ERR_IO, "%s: cannot write: %s", path, strerror(e));
  }
  free(tmp);
  return SP_OK;
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


#include "fileio.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Status FileIO_read(const char *path, char **text, size_t *len, SpError *err) {
  *text = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return SpError_set(err, SP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (ferror(f)) {
      int e = errno;
      free(buf);
      fclose(f);
      return SpError_set(err, SP_ERR_IO, "%s: read error: %s", path, strerror(e));
    }
    if (feof(f)) break;
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
  snprintf(tmp, plen + 16, "%s.tmp%05d", path, (int)(rand() % 100000));
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

const char *FileIO_stem(const char *path) {
  static char buf[256];
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(buf, sizeof buf, "%s", base);
  char *dot = strrchr(buf, '.');
  if (dot && dot != buf) *dot = '\0';
  return buf;
}

/* True when the text ends inside a string or with an object/array still open,
 * every closer so far having matched its opener: a wrong or extra closer is a
 * mistake at its own place (cJSON's position), not a cut-off file. */
static bool FileIO_jsonTruncated(const char *text, size_t len) {
  char open[1024]; /* deeper than cJSON's nesting limit (1000) is an error of its own */
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (depth == sizeof open) return false;
      open[depth++] = c;
    } else if (c == '}' || c == ']') {
      if (depth == 0 || open[--depth] != (c == '}' ? '{' : '[')) return false;
    }
  }
  return in_string || depth > 0;
}

Status FileIO_jsonSyntaxError(SpError *err, const char *label, const char *text, size_t len, const char *end) {
  size_t pos = end && end >= text ? (size_t)(end - text) : 0;
  if (pos > len) pos = len;
  bool truncated = pos >= len || FileIO_jsonTruncated(text, len);
  if (truncated) pos = len;
  int line, col;
  FileIO_lineColumn(text, pos, &line, &col);
  return SpError_set(err, SP_ERR_SYNTAX, "%s:%d:%d: malformed JSON%s", label, line, col,
                     truncated ? ": unexpected end of file (truncated?)" : "");
}

Status FileIO_jsonTrailing(SpError *err, const char *label, const char *text, size_t len, const char *end) {
  size_t pos = end && end >= text ? (size_t)(end - text) : len;
  while (pos < len && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) pos++;
  if (pos >= len || text[pos] == '\0') return SP_OK;
  int line, col;
  FileIO_lineColumn(text, pos, &line, &col);
  return SpError_set(err, SP_ERR_SYNTAX, "%s:%d:%d: malformed JSON: unexpected text after the end of the document",
                     label, line, col);
}

const char *FileIO_jsonDuplicateKey(const cJSON *obj) {
  for (const cJSON *a = obj ? obj->child : NULL; a; a = a->next)
    for (const cJSON *b = a->next; b; b = b->next)
      if (a->string && b->string && strcmp(a->string, b->string) == 0) return a->string;
  return NULL;
}

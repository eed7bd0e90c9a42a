#include "json.h"

#include <string.h>

#include "fileio.h"

/* True when the text ends inside a string or with an object/array still open,
 * every closer so far having matched its opener: a wrong or extra closer is a
 * mistake at its own place (cJSON's position), not a cut-off file. */
static bool Json_truncated(const char *text, size_t len) {
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

static Status Json_syntaxError(SpError *err, const char *label, const char *text, size_t len, const char *end) {
  size_t pos = end && end >= text ? (size_t)(end - text) : 0;
  if (pos > len) pos = len;
  bool truncated = pos >= len || Json_truncated(text, len);
  if (truncated) pos = len;
  int line, col;
  FileIO_lineColumn(text, pos, &line, &col);
  return SpError_set(err, SP_ERR_SYNTAX, "%s:%d:%d: malformed JSON%s", label, line, col,
                     truncated ? ": unexpected end of file (truncated?)" : "");
}

static Status Json_trailing(SpError *err, const char *label, const char *text, size_t len, const char *end) {
  size_t pos = end && end >= text ? (size_t)(end - text) : len;
  while (pos < len && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) pos++;
  if (pos >= len || text[pos] == '\0') return SP_OK;
  int line, col;
  FileIO_lineColumn(text, pos, &line, &col);
  return SpError_set(err, SP_ERR_SYNTAX, "%s:%d:%d: malformed JSON: unexpected text after the end of the document",
                     label, line, col);
}

const char *Json_duplicateKey(const cJSON *obj) {
  for (const cJSON *a = obj ? obj->child : NULL; a; a = a->next)
    for (const cJSON *b = a->next; b; b = b->next)
      if (a->string && b->string && strcmp(a->string, b->string) == 0) return a->string;
  return NULL;
}

bool Json_exactInt(const cJSON *v, int64_t *out) {
  if (!cJSON_IsNumber(v)) return false;
  double d = v->valuedouble;
  if (d != d || d > 9007199254740992.0 || d < -9007199254740992.0 || d != (double)(int64_t)d) return false;
  *out = (int64_t)d;
  return true;
}

Status Json_parse(const char *text, size_t len, const char *label, cJSON **root, SpError *err) {
  const char *end = NULL;
  *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
  if (!*root) return Json_syntaxError(err, label, text, len, end);
  Status st = Json_trailing(err, label, text, len, end);
  if (st) {
    cJSON_Delete(*root);
    *root = NULL;
  }
  return st;
}

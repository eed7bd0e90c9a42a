#include "json.h"

#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fileio.h"

/* ---- the grammar check (cJSON accepts control bytes between tokens, \uZZZZ
 * as U+0000, and says nothing about why it stopped) ---- */

typedef struct {
  size_t number;   /* index among the document's numbers, in text order */
  size_t pos, len; /* the token in the text */
} JsonLongInt;

typedef struct {
  const unsigned char *s;
  size_t len, pos;
  const char *label;
  SpError *err;
  size_t values, numbers;
  JsonLongInt *longs; /* integer tokens a double cannot hold */
  size_t nlongs, caplongs;
  bool nomem;
} JsonScan;

static Status Scan_fail(JsonScan *sc, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Status Scan_fail(JsonScan *sc, size_t pos, const char *fmt, ...) {
  char why[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  int line, col;
  FileIO_lineColumn((const char *)sc->s, pos, &line, &col);
  return SpError_set(sc->err, SP_ERR_SYNTAX, "%s:%d:%d: malformed JSON: %s", sc->label, line, col, why);
}

static Status Scan_eof(JsonScan *sc) { return Scan_fail(sc, sc->len, "unexpected end of file (truncated?)"); }

/* A byte that cannot start or continue a token here. */
static Status Scan_unexpected(JsonScan *sc, const char *expected) {
  unsigned c = sc->s[sc->pos];
  if (c == 0) return Scan_fail(sc, sc->pos, "NUL byte (expected %s)", expected);
  if (c < 0x20 || c == 0x7F) return Scan_fail(sc, sc->pos, "control character 0x%02x (expected %s)", c, expected);
  if (c >= 0x80) return Scan_fail(sc, sc->pos, "byte 0x%02x (expected %s)", c, expected);
  return Scan_fail(sc, sc->pos, "unexpected '%c' (expected %s)", (char)c, expected);
}

static void Scan_space(JsonScan *sc) {
  while (sc->pos < sc->len) {
    unsigned char c = sc->s[sc->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
    sc->pos++;
  }
}

static int Scan_hex4(const unsigned char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/* Length of the valid UTF-8 sequence at p (at most avail bytes), or 0. */
static int Scan_utf8(const unsigned char *p, size_t avail) {
  unsigned c = p[0];
  int n;
  unsigned min, v;
  if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, v = c & 0x07, min = 0x10000;
  else return 0;
  if ((size_t)n > avail) return 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  return v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) ? 0 : n;
}

static Status Scan_string(JsonScan *sc) {
  sc->pos++; /* the opening quote */
  for (;;) {
    if (sc->pos >= sc->len) return Scan_eof(sc);
    unsigned char c = sc->s[sc->pos];
    if (c == '"') {
      sc->pos++;
      return SP_OK;
    }
    if (c == 0) return Scan_fail(sc, sc->pos, "NUL byte inside a string");
    if (c < 0x20) return Scan_fail(sc, sc->pos, "control character 0x%02x inside a string (write it as \\u%04x)", c, c);
    if (c >= 0x80) {
      int n = Scan_utf8(sc->s + sc->pos, sc->len - sc->pos);
      if (!n) return Scan_fail(sc, sc->pos, "invalid UTF-8 (byte 0x%02x) inside a string", c);
      sc->pos += (size_t)n;
      continue;
    }
    if (c != '\\') {
      sc->pos++;
      continue;
    }
    size_t at = sc->pos;
    if (sc->pos + 1 >= sc->len) return Scan_eof(sc);
    unsigned char e = sc->s[sc->pos + 1];
    if (strchr("\"\\/bfnrt", e) && e) {
      sc->pos += 2;
      continue;
    }
    if (e != 'u') {
      if (e < 0x20 || e >= 0x7F) return Scan_fail(sc, at, "invalid escape: a backslash before byte 0x%02x", e);
      return Scan_fail(sc, at, "invalid escape \\%c (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", (char)e);
    }
    if (sc->len - sc->pos < 6) return Scan_eof(sc);
    int u = Scan_hex4(sc->s + sc->pos + 2);
    if (u < 0) return Scan_fail(sc, at, "invalid escape \\u%.4s (expected 4 hex digits)", (const char *)sc->s + sc->pos + 2);
    if (u == 0) return Scan_fail(sc, at, "\\u0000 (NUL) is not allowed in a string");
    sc->pos += 6;
    if (u >= 0xDC00 && u <= 0xDFFF) return Scan_fail(sc, at, "\\u%04x is the second half of a UTF-16 pair with no first half", u);
    if (u >= 0xD800 && u <= 0xDBFF) {
      int lo = sc->len - sc->pos >= 6 && sc->s[sc->pos] == '\\' && sc->s[sc->pos + 1] == 'u' ? Scan_hex4(sc->s + sc->pos + 2) : -1;
      if (lo < 0xDC00 || lo > 0xDFFF) return Scan_fail(sc, at, "\\u%04x is the first half of a UTF-16 pair with no second half", u);
      sc->pos += 6;
    }
  }
}

static bool Scan_digit(const JsonScan *sc) { return sc->pos < sc->len && sc->s[sc->pos] >= '0' && sc->s[sc->pos] <= '9'; }

static Status Scan_number(JsonScan *sc) {
  size_t start = sc->pos;
  bool integer = true;
  if (sc->s[sc->pos] == '-') sc->pos++;
  if (!Scan_digit(sc)) return sc->pos >= sc->len ? Scan_eof(sc) : Scan_fail(sc, start, "malformed number (expected a digit after '-')");
  if (sc->s[sc->pos] == '0') {
    sc->pos++;
    if (Scan_digit(sc)) return Scan_fail(sc, start, "malformed number (no leading zeros)");
  } else {
    while (Scan_digit(sc)) sc->pos++;
  }
  if (sc->pos < sc->len && sc->s[sc->pos] == '.') {
    integer = false;
    sc->pos++;
    if (!Scan_digit(sc)) return Scan_fail(sc, start, "malformed number (expected digits after '.')");
    while (Scan_digit(sc)) sc->pos++;
  }
  if (sc->pos < sc->len && (sc->s[sc->pos] == 'e' || sc->s[sc->pos] == 'E')) {
    integer = false;
    sc->pos++;
    if (sc->pos < sc->len && (sc->s[sc->pos] == '+' || sc->s[sc->pos] == '-')) sc->pos++;
    if (!Scan_digit(sc)) return Scan_fail(sc, start, "malformed number (expected digits in the exponent)");
    while (Scan_digit(sc)) sc->pos++;
  }
  size_t n = sc->pos - start;
  if (n > 63) return Scan_fail(sc, start, "number longer than 63 characters");
  if (integer && n >= 16) { /* may pass 2^53: keep the text */
    if (sc->nlongs == sc->caplongs) {
      size_t cap = sc->caplongs ? 2 * sc->caplongs : 16;
      JsonLongInt *l = realloc(sc->longs, cap * sizeof *l);
      if (!l) {
        sc->nomem = true;
        return SpError_set(sc->err, SP_ERR_NOMEM, "%s: out of memory", sc->label);
      }
      sc->longs = l, sc->caplongs = cap;
    }
    sc->longs[sc->nlongs++] = (JsonLongInt){sc->numbers, start, n};
  }
  sc->numbers++;
  return SP_OK;
}

static Status Scan_literal(JsonScan *sc, const char *word) {
  size_t n = strlen(word);
  for (size_t i = 0; i < n; i++) {
    if (sc->pos + i >= sc->len) return Scan_eof(sc);
    if (sc->s[sc->pos + i] != (unsigned char)word[i]) return Scan_fail(sc, sc->pos, "malformed literal (expected %s)", word);
  }
  sc->pos += n;
  return SP_OK;
}

/* The whole document, iteratively: `open` holds the containers entered. */
static Status Scan_document(JsonScan *sc) {
  char open[JSON_MAX_DEPTH];
  int depth = 0;
  Status st;
  if (sc->len >= 3 && memcmp(sc->s, "\xEF\xBB\xBF", 3) == 0) sc->pos = 3;
  for (;;) {
    /* a value */
    Scan_space(sc);
    if (sc->pos >= sc->len) return Scan_eof(sc);
    if (++sc->values > JSON_MAX_VALUES)
      return Scan_fail(sc, sc->pos, "more than %d values (the limit, which bounds memory)", JSON_MAX_VALUES);
    unsigned char c = sc->s[sc->pos];
    bool opened = false;
    st = SP_OK;
    if (c == '{' || c == '[') {
      if (depth == JSON_MAX_DEPTH) return Scan_fail(sc, sc->pos, "nesting deeper than %d levels (the limit)", JSON_MAX_DEPTH);
      open[depth++] = (char)c;
      sc->pos++;
      Scan_space(sc);
      if (sc->pos >= sc->len) return Scan_eof(sc);
      if (sc->s[sc->pos] == (c == '{' ? '}' : ']')) {
        depth--;
        sc->pos++;
      } else {
        opened = true;
      }
    } else if (c == '"') st = Scan_string(sc);
    else if (c == '-' || (c >= '0' && c <= '9')) st = Scan_number(sc);
    else if (c == 't') st = Scan_literal(sc, "true");
    else if (c == 'f') st = Scan_literal(sc, "false");
    else if (c == 'n') st = Scan_literal(sc, "null");
    else return Scan_unexpected(sc, "a value");
    if (st) return st;
    if (opened && open[depth - 1] == '[') continue; /* the array's first value */
    /* after a value: a separator, a closer, or the end; then, inside an object
     * (or right after its '{'), the next key and its ':' */
    bool want_key = opened;
    for (;;) {
      if (want_key) {
        want_key = false;
        if (sc->s[sc->pos] != '"') return Scan_unexpected(sc, "a key in double quotes");
        if ((st = Scan_string(sc))) return st;
        Scan_space(sc);
        if (sc->pos >= sc->len) return Scan_eof(sc);
        if (sc->s[sc->pos] != ':') return Scan_unexpected(sc, "':' after the key");
        sc->pos++;
        break;
      }
      Scan_space(sc);
      if (depth == 0) {
        if (sc->pos < sc->len) {
          if (sc->s[sc->pos] < 0x20 || sc->s[sc->pos] >= 0x7F) return Scan_unexpected(sc, "the end of the document");
          return Scan_fail(sc, sc->pos, "unexpected text after the end of the document");
        }
        return SP_OK;
      }
      if (sc->pos >= sc->len) return Scan_eof(sc);
      c = sc->s[sc->pos];
      char closer = open[depth - 1] == '{' ? '}' : ']';
      if (c == closer) {
        depth--;
        sc->pos++;
        continue;
      }
      if (c != ',') return Scan_unexpected(sc, closer == '}' ? "',' or '}'" : "',' or ']'");
      sc->pos++;
      if (closer == ']') break;
      Scan_space(sc);
      if (sc->pos >= sc->len) return Scan_eof(sc);
      want_key = true;
    }
  }
}

/* Gives the long integer tokens their text, walking numbers in document order. */
static bool Json_attach(cJSON *item, const JsonScan *sc, size_t *number, size_t *next) {
  for (; item && *next < sc->nlongs; item = item->next) {
    if (cJSON_IsNumber(item)) {
      if (*number == sc->longs[*next].number) {
        const JsonLongInt *l = &sc->longs[(*next)++];
        char *t = cJSON_malloc(l->len + 1);
        if (!t) return false;
        memcpy(t, sc->s + l->pos, l->len);
        t[l->len] = '\0';
        item->valuestring = t; /* cJSON_Delete frees it */
      }
      (*number)++;
    }
    if (item->child && !Json_attach(item->child, sc, number, next)) return false;
  }
  return true;
}

Status Json_parse(const char *text, size_t len, const char *label, cJSON **root, SpError *err) {
  *root = NULL;
  JsonScan sc = {(const unsigned char *)text, len, 0, label, err, 0, 0, NULL, 0, 0, false};
  Status st = Scan_document(&sc);
  if (!st) {
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    size_t number = 0, next = 0;
    if (!*root || !Json_attach(*root, &sc, &number, &next)) {
      cJSON_Delete(*root);
      *root = NULL;
      st = SpError_set(err, SP_ERR_NOMEM, "%s: out of memory parsing the file", label);
    }
  }
  free(sc.longs);
  return st;
}

/* ---- the same tree in one arena (Json_parseArena) ----
 * After Scan_document has checked the grammar, a second pass builds the cJSON
 * nodes cJSON would build, but in one arena: a large network is about a million
 * values, and cJSON's malloc and free per node (and per string) took most of
 * the time to load one. The nodes are ordinary cJSON structs, so every cJSON
 * reader works on them; only freeing differs (Json_freeArena). */

typedef struct {
  Arena arena; /* the arena this holder lives in (updated after the build) */
  cJSON root;
} JsonHolder;

typedef struct {
  const unsigned char *s;
  size_t pos, len;
  Arena *a;
  const JsonScan *sc;
  size_t number, next_long; /* numbers seen; next long integer token */
  char point;               /* the locale's decimal point, as cJSON uses it for strtod */
  bool nomem;
} JsonBuild;

static void Build_space(JsonBuild *b) {
  while (b->pos < b->len) {
    unsigned char c = b->s[b->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
    b->pos++;
  }
}

static cJSON *Build_node(JsonBuild *b) {
  cJSON *n = Arena_alloc(b->a, sizeof *n);
  if (!n) b->nomem = true;
  return n;
}

/* The string at b->pos (its opening quote), unescaped to UTF-8 as cJSON does. */
static char *Build_string(JsonBuild *b) {
  size_t start = ++b->pos, end = start;
  bool plain = true;
  while (b->s[end] != '"') {
    if (b->s[end] == '\\') plain = false, end++;
    end++;
  }
  char *out = Arena_alloc(b->a, end - start + 1);
  if (!out) {
    b->nomem = true;
    return NULL;
  }
  b->pos = end + 1;
  if (plain) {
    memcpy(out, b->s + start, end - start);
    return out;
  }
  size_t o = 0;
  for (size_t i = start; i < end; i++) {
    unsigned char c = b->s[i];
    if (c != '\\') {
      out[o++] = (char)c;
      continue;
    }
    c = b->s[++i];
    switch (c) {
    case 'b': out[o++] = '\b'; break;
    case 'f': out[o++] = '\f'; break;
    case 'n': out[o++] = '\n'; break;
    case 'r': out[o++] = '\r'; break;
    case 't': out[o++] = '\t'; break;
    case 'u': {
      unsigned long u = (unsigned long)Scan_hex4(b->s + i + 1);
      i += 4;
      if (u >= 0xD800 && u <= 0xDBFF) { /* the grammar check saw its second half */
        unsigned long lo = (unsigned long)Scan_hex4(b->s + i + 3);
        i += 6;
        u = 0x10000 + (((u & 0x3FF) << 10) | (lo & 0x3FF));
      }
      if (u < 0x80) out[o++] = (char)u;
      else if (u < 0x800) out[o++] = (char)(0xC0 | (u >> 6)), out[o++] = (char)(0x80 | (u & 0x3F));
      else if (u < 0x10000)
        out[o++] = (char)(0xE0 | (u >> 12)), out[o++] = (char)(0x80 | ((u >> 6) & 0x3F)), out[o++] = (char)(0x80 | (u & 0x3F));
      else
        out[o++] = (char)(0xF0 | (u >> 18)), out[o++] = (char)(0x80 | ((u >> 12) & 0x3F)),
        out[o++] = (char)(0x80 | ((u >> 6) & 0x3F)), out[o++] = (char)(0x80 | (u & 0x3F));
      break;
    }
    default: out[o++] = (char)c; break; /* \" \\ \/ */
    }
  }
  out[o] = '\0';
  return out;
}

static void Build_number(JsonBuild *b, cJSON *n) {
  size_t start = b->pos;
  bool integer = true;
  while (b->pos < b->len) {
    unsigned char c = b->s[b->pos];
    if (c >= '0' && c <= '9') b->pos++;
    else if (c == '-' || c == '+') b->pos++;
    else if (c == '.' || c == 'e' || c == 'E') b->pos++, integer = false;
    else break;
  }
  size_t len = b->pos - start;
  double d;
  if (integer && len - (b->s[start] == '-') <= 15) { /* at most 15 digits: exact, the value strtod gives */
    bool neg = b->s[start] == '-';
    int64_t mag = 0;
    for (size_t i = start + neg; i < b->pos; i++) mag = mag * 10 + (b->s[i] - '0');
    d = neg ? -(double)mag : (double)mag;
  } else { /* what cJSON does: the token with the locale's decimal point, strtod */
    char buf[64]; /* the grammar check refuses numbers over 63 characters */
    memcpy(buf, b->s + start, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)
      if (buf[i] == '.') buf[i] = b->point;
    d = strtod(buf, NULL);
  }
  n->type = cJSON_Number;
  n->valuedouble = d;
  n->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
  const JsonScan *sc = b->sc;
  if (b->next_long < sc->nlongs && sc->longs[b->next_long].number == b->number) {
    const JsonLongInt *l = &sc->longs[b->next_long++];
    char *t = Arena_alloc(b->a, l->len + 1);
    if (!t) b->nomem = true;
    else memcpy(t, b->s + l->pos, l->len);
    n->valuestring = t;
  }
  b->number++;
}

static cJSON *Build_value(JsonBuild *b);

/* The members or elements of the container at b->pos (its opening bracket). */
static void Build_children(JsonBuild *b, cJSON *parent, bool object) {
  char closer = object ? '}' : ']';
  b->pos++;
  Build_space(b);
  cJSON *last = NULL;
  while (!b->nomem && b->s[b->pos] != closer) {
    char *key = NULL;
    if (object) {
      key = Build_string(b);
      Build_space(b);
      b->pos++; /* ':' */
    }
    cJSON *v = Build_value(b);
    if (!v) return;
    v->string = key;
    if (last) last->next = v, v->prev = last;
    else parent->child = v;
    last = v;
    Build_space(b);
    if (b->s[b->pos] == ',') {
      b->pos++;
      Build_space(b);
    }
  }
  b->pos++;
  if (parent->child) parent->child->prev = last; /* cJSON's convention: the head's prev is the tail */
}

static cJSON *Build_fill(JsonBuild *b, cJSON *n) {
  Build_space(b);
  unsigned char c = b->s[b->pos];
  if (c == '{' || c == '[') {
    n->type = c == '{' ? cJSON_Object : cJSON_Array;
    Build_children(b, n, c == '{');
  } else if (c == '"') {
    n->type = cJSON_String;
    n->valuestring = Build_string(b);
  } else if (c == 't') {
    n->type = cJSON_True, n->valueint = 1, b->pos += 4;
  } else if (c == 'f') {
    n->type = cJSON_False, b->pos += 5;
  } else if (c == 'n') {
    n->type = cJSON_NULL, b->pos += 4;
  } else {
    Build_number(b, n);
  }
  return b->nomem ? NULL : n;
}

static cJSON *Build_value(JsonBuild *b) {
  cJSON *n = Build_node(b);
  return n ? Build_fill(b, n) : NULL;
}

Status Json_parseArena(const char *text, size_t len, const char *label, cJSON **root, SpError *err) {
  *root = NULL;
  JsonScan sc = {(const unsigned char *)text, len, 0, label, err, 0, 0, NULL, 0, 0, false};
  Status st = Scan_document(&sc);
  if (!st) {
    Arena a = {0};
    JsonHolder *h = Arena_alloc(&a, sizeof *h);
    const struct lconv *lc = localeconv();
    JsonBuild b = {.s = (const unsigned char *)text, .len = len, .a = &a, .sc = &sc, .nomem = h == NULL};
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) b.pos = 3; /* a BOM, as cJSON skips it */
    b.point = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
    if (h && Build_fill(&b, &h->root)) {
      h->arena = a;
      *root = &h->root;
    } else {
      Arena_free(&a);
      st = SpError_set(err, SP_ERR_NOMEM, "%s: out of memory parsing the file", label);
    }
  }
  free(sc.longs);
  return st;
}

void Json_freeArena(cJSON *root) {
  if (!root) return;
  JsonHolder *h = (JsonHolder *)((char *)root - offsetof(JsonHolder, root));
  Arena a = h->arena; /* the holder itself lives in the arena */
  Arena_free(&a);
}

/* ---- values ---- */

const char *Json_numberText(const cJSON *v) { return cJSON_IsNumber(v) ? v->valuestring : NULL; }

bool Json_exactInt(const cJSON *v, int64_t *out) {
  if (!cJSON_IsNumber(v)) return false;
  const char *t = v->valuestring;
  if (t) { /* the exact text of a long integer */
    bool neg = *t == '-';
    uint64_t mag = 0;
    for (const char *p = t + neg; *p; p++) {
      if (*p < '0' || *p > '9') return false;
      if (mag > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return false;
      mag = mag * 10 + (uint64_t)(*p - '0');
    }
    if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX) return false;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return true;
  }
  double d = v->valuedouble;
  if (d != d || d > 9007199254740992.0 || d < -9007199254740992.0 || d != (double)(int64_t)d) return false;
  *out = (int64_t)d;
  return true;
}

cJSON *Json_createInt(int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%" PRId64, v);
  return cJSON_CreateRaw(buf);
}

typedef struct {
  const char *key;
  int index;
} JsonKey;

static int JsonKey_cmp(const void *a, const void *b) {
  const JsonKey *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

const char *Json_duplicateKey(const cJSON *obj) {
  int n = 0;
  for (const cJSON *a = obj ? obj->child : NULL; a; a = a->next) n++;
  JsonKey *keys = n > 16 ? malloc(sizeof(JsonKey) * (size_t)n) : NULL;
  if (!keys) { /* small objects (or no memory): pairwise */
    for (const cJSON *a = obj ? obj->child : NULL; a; a = a->next)
      for (const cJSON *b = a->next; b; b = b->next)
        if (a->string && b->string && strcmp(a->string, b->string) == 0) return a->string;
    return NULL;
  }
  int k = 0;
  for (const cJSON *a = obj->child; a; a = a->next, k++) keys[k] = (JsonKey){a->string ? a->string : "", k};
  qsort(keys, (size_t)n, sizeof *keys, JsonKey_cmp);
  const char *first = NULL;
  int first_index = n;
  for (int i = 1; i < n; i++)
    if (strcmp(keys[i].key, keys[i - 1].key) == 0 && keys[i - 1].index < first_index)
      first = keys[i - 1].key, first_index = keys[i - 1].index;
  free(keys);
  return first;
}

void Json_pathIndex(char *buf, size_t n, const char *prefix, int i) {
  char digits[16];
  int d = 0;
  unsigned u = (unsigned)i;
  do digits[d++] = (char)('0' + u % 10), u /= 10;
  while (u);
  size_t len = strlen(prefix);
  if (len + (size_t)d + 3 > n) { /* never for the readers' fixed prefixes */
    if (snprintf(buf, n, "%s[%d]", prefix, i) >= (int)n) buf[n - 1] = '\0'; /* cut: still a usable path */
    return;
  }
  memcpy(buf, prefix, len);
  buf[len++] = '[';
  while (d) buf[len++] = digits[--d];
  buf[len++] = ']';
  buf[len] = '\0';
}

void Json_pathKey(char *buf, size_t n, const char *path, const char *key) {
  size_t a = strlen(path), b = strlen(key);
  if (a + b + 2 > n) {
    if (snprintf(buf, n, "%s.%s", path, key) >= (int)n) buf[n - 1] = '\0';
    return;
  }
  memcpy(buf, path, a);
  buf[a] = '.';
  memcpy(buf + a + 1, key, b + 1);
}

#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void StrBuf_printf(StrBuf *b, const char *fmt, ...) {
  if (b->nomem) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->nomem = true;
      return;
    }
    if (b->s && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap ? b->cap * 2 : 4096; /* doubling: appends stay linear overall */
    while (cap <= b->len + (size_t)n) cap *= 2;
    char *g = realloc(b->s, cap);
    if (!g) {
      b->nomem = true;
      return;
    }
    b->s = g;
    b->cap = cap;
  }
}

void StrBuf_jsonString(StrBuf *b, const char *s) {
  StrBuf_printf(b, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      StrBuf_printf(b, "\\%c", *c);
    else if (*c < 0x20)
      StrBuf_printf(b, "\\u%04x", *c);
    else
      StrBuf_printf(b, "%c", *c);
  }
  StrBuf_printf(b, "\"");
}

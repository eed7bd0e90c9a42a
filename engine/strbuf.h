/* strbuf: a growing text buffer for writers that print a file format piece by
 * piece (the off-chip plan, the tiled network). Out of memory is remembered and
 * reported once, by the caller, at the end. */
#ifndef SPADMAP_STRBUF_H
#define SPADMAP_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char *s;     /* NUL-terminated text (malloc'd; the caller frees it), NULL while empty */
  size_t len, cap;
  bool nomem;  /* an append failed: the text is incomplete */
} StrBuf;

void StrBuf_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string: quotes, backslashes and control characters escaped. */
void StrBuf_jsonString(StrBuf *b, const char *s);

#endif

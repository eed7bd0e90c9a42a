#include "text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4) with its code point, or 0 when
 * the bytes are not UTF-8 (overlong, surrogate, beyond U+10FFFF, cut short). */
static int Text_decode(const unsigned char *s, uint32_t *cp) {
  unsigned c = s[0];
  int n;
  uint32_t v, min;
  if (c < 0x80) return *cp = c, 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, v = c & 0x07, min = 0x10000;
  else return 0;
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the NUL */
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

/* Code points a terminal acts on or that reorder what is shown. */
static int Text_unsafe(uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

char *Text_escape(const char *s, char *buf, size_t n) {
  if (!n) return buf;
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t used = 0;
  while (*p) {
    uint32_t cp = 0;
    int len = Text_decode(p, &cp);
    char piece[12];
    size_t plen;
    if (len == 0) plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", *p), len = 1;
    else if (Text_unsafe(cp) && cp < 0x80) plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", (unsigned)cp);
    else if (Text_unsafe(cp)) plen = (size_t)snprintf(piece, sizeof piece, "\\u%04x", (unsigned)cp);
    else memcpy(piece, p, (size_t)len), plen = (size_t)len;
    if (used + plen >= n) break;
    memcpy(buf + used, piece, plen);
    used += plen;
    p += len;
  }
  buf[used] = '\0';
  return buf;
}

int Text_isUtf8(const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    uint32_t cp;
    int len = Text_decode(p, &cp);
    if (!len) return 0;
    p += len;
  }
  return 1;
}

int Text_needsEscape(const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    uint32_t cp;
    int len = Text_decode(p, &cp);
    if (!len || Text_unsafe(cp)) return 1;
    p += len;
  }
  return 0;
}

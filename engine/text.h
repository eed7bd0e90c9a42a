/* text: the one function that makes untrusted text (names from files, paths)
 * safe to show on a terminal. Everything the CLI prints and the explorer draws
 * that came from an input file passes through it. */
#ifndef SPADMAP_TEXT_H
#define SPADMAP_TEXT_H

#include <stddef.h>

/* Copies s into buf (n bytes, always NUL-terminated when n > 0), writing visibly
 * what a terminal would act on or mis-show: C0 control bytes and DEL as \xHH
 * ("x\x1b[2J"), C1 controls and bidirectional overrides as \uHHHH, and every byte
 * of invalid UTF-8 as \xHH. Valid printable UTF-8 is kept. Truncation never cuts
 * an escape or a character. Returns buf. s may be NULL (written as ""). */
char *Text_escape(const char *s, char *buf, size_t n);
/* True when s is valid UTF-8 (what a JSON file may carry). */
int Text_isUtf8(const char *s);
/* True when Text_escape would change s. */
int Text_needsEscape(const char *s);

#endif

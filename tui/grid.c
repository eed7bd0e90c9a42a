#include "grid.h"

#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <wchar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

Grid *Grid_new(int w, int h, bool unicode) {
  Grid *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->unicode = unicode;
  if (!Grid_resize(g, w, h)) {
    free(g);
    return NULL;
  }
  return g;
}

void Grid_free(Grid *g) {
  if (!g) return;
  free(g->cells);
  free(g);
}

bool Grid_resize(Grid *g, int w, int h) {
  if (w < 1) w = 1;
  if (h < 1) h = 1;
  if (w != g->w || h != g->h || !g->cells) {
    Cell *c = malloc(sizeof(Cell) * (size_t)w * (size_t)h);
    if (!c) return false;
    free(g->cells);
    g->cells = c;
    g->w = w;
    g->h = h;
  }
  Grid_clear(g);
  return true;
}

void Grid_clear(Grid *g) {
  for (int i = 0; i < g->w * g->h; i++) g->cells[i] = (Cell){' ', ROLE_DEFAULT, ROLE_DEFAULT, 0};
}

Cell *Grid_at(Grid *g, int x, int y) {
  if (x < 0 || y < 0 || x >= g->w || y >= g->h) return NULL;
  return &g->cells[y * g->w + x];
}

void Grid_put(Grid *g, int x, int y, uint32_t ch, Role fg, int attr) {
  Cell *c = Grid_at(g, x, y);
  if (c) *c = (Cell){Grid_glyph(g, ch), (uint8_t)fg, ROLE_DEFAULT, (uint8_t)attr};
}

void Grid_fill(Grid *g, int x, int y, int w, int h, uint32_t ch, Role fg, int attr) {
  for (int j = y; j < y + h; j++)
    for (int i = x; i < x + w; i++) Grid_put(g, i, j, ch, fg, attr);
}

static uint32_t Grid_decode(const unsigned char **p);
static uint32_t Grid_decodePeek(const unsigned char *p) { return Grid_decode(&p); }

/* Decodes one UTF-8 sequence; invalid bytes read as U+FFFD, one byte each. */
static uint32_t Grid_decode(const unsigned char **p) {
  const unsigned char *s = *p;
  uint32_t c = s[0];
  int n = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
  if (n < 0) {
    *p = s + 1;
    return 0xFFFD;
  }
  if (n) c &= 0x3Fu >> n;
  for (int i = 1; i <= n; i++) {
    if ((s[i] & 0xC0) != 0x80) {
      *p = s + 1;
      return 0xFFFD;
    }
    c = (c << 6) | (s[i] & 0x3F);
  }
  *p = s + n + 1;
  return c;
}

/* wcwidth needs an LC_CTYPE that knows UTF-8: the process's own when it does (the explorer
 * calls setlocale), else C.UTF-8 for this call only (snapshot and tests run under any locale). */
static locale_t Grid_utf8Locale;
static void Grid_localeInit(void) {
  if (wcwidth(0x4E2D) != 2) Grid_utf8Locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

int Grid_width(uint32_t ch) {
  if (ch < 0x80) return 1;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, Grid_localeInit);
  locale_t old = Grid_utf8Locale ? uselocale(Grid_utf8Locale) : (locale_t)0;
  int w = wcwidth((wchar_t)ch);
  if (old) uselocale(old);
  return w == 0 ? 0 : w == 2 ? 2 : 1; /* unprintable (-1) keeps one column, as U+FFFD would */
}

uint32_t Grid_shown(const Grid *g, int x, int y) {
  const Cell *row = &g->cells[y * g->w];
  uint32_t c = row[x].ch;
  if (c == GRID_WIDE_TAIL) return x > 0 && row[x - 1].ch != GRID_WIDE_TAIL && Grid_width(row[x - 1].ch) == 2 ? 0 : ' ';
  if (c >= 0x80 && Grid_width(c) == 2 && (x + 1 >= g->w || row[x + 1].ch != GRID_WIDE_TAIL)) return '?';
  return c; /* 0: nothing to draw (the tail of the character before) */
}

int Grid_text(Grid *g, int x, int y, int maxw, Role fg, int attr, const char *utf8) {
  char safe[2048]; /* names from files: control bytes and bad UTF-8 drawn visibly ("x\x1b[2J") */
  const unsigned char *p = (const unsigned char *)Text_escape(utf8, safe, sizeof safe);
  int n = 0;
  bool wide_last = false;
  /* columns by display width: a CJK character takes two, a combining mark none (it has no cell of
   * its own and is left out), so a name never runs past maxw into the next view or row */
  while (*p && n < maxw) {
    const unsigned char *at = p;
    uint32_t c = Grid_decode(&p);
    if (c < 0x20) c = ' ';
    int cw = g && g->unicode ? Grid_width(c) : 1;
    if (cw == 0) continue;
    if (cw == 2) {
      if (n + 2 > maxw) {
        p = at;
        break;
      }
      Grid_put(g, x + n, y, c, fg, attr);
      Grid_put(g, x + n + 1, y, GRID_WIDE_TAIL, fg, attr);
      n += 2, wide_last = true;
      continue;
    }
    Grid_put(g, x + n, y, c, fg, attr);
    n++, wide_last = false;
  }
  /* cut text says so: the last column becomes an ellipsis (text that ended
   * mid-word, "read b", or mid-number, "step 1" for 14, read as whole) */
  while (*p == ' ') p++;
  while (*p && Grid_width(Grid_decodePeek(p)) == 0 && g && g->unicode) Grid_decode(&p); /* trailing marks */
  if (*p && n > 0) {
    if (wide_last) Grid_put(g, x + n - 2, y, ' ', fg, attr);
    Grid_put(g, x + n - 1, y, 0x2026, fg, attr);
  }
  return n;
}

/* Display columns of utf8 as Grid_text draws it on a Unicode grid. */
static int Grid_columns(const char *utf8) {
  int n = 0;
  for (const unsigned char *p = (const unsigned char *)utf8; *p;) {
    uint32_t c = Grid_decode(&p);
    n += c < 0x20 ? 1 : Grid_width(c);
  }
  return n;
}

int Grid_tail(Grid *g, int x, int y, int maxw, Role fg, int attr, const char *utf8) {
  int len = g && g->unicode ? Grid_columns(utf8) : 0; /* columns */
  if (!(g && g->unicode))
    for (const char *p = utf8; *p; p++) len += ((unsigned char)*p & 0xC0) != 0x80;
  if (len <= maxw || maxw < 4) return Grid_text(g, x, y, maxw, fg, attr, utf8);
  const unsigned char *p = (const unsigned char *)utf8;
  for (int skip = len - (maxw - 1); *p && skip > 0;) {
    uint32_t c = Grid_decode(&p);
    skip -= g && g->unicode ? (c < 0x20 ? 1 : Grid_width(c)) : 1;
  }
  Grid_put(g, x, y, 0x2026, ROLE_DIM, 0);
  return 1 + Grid_text(g, x + 1, y, maxw - 1, fg, attr, (const char *)p);
}

int Grid_printf(Grid *g, int x, int y, int maxw, Role fg, int attr, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return Grid_text(g, x, y, maxw, fg, attr, buf);
}

char Grid_ascii(uint32_t ch) {
  if (ch < 0x80) return (char)ch;
  switch (ch) {
  case 0x2500: case 0x2501: case 0x254C: return '-';           /* ─ ━ ╌ */
  case 0x2502: case 0x2503: case 0x250A: case 0x2506: return '|'; /* │ ┃ ┊ ┆ */
  case 0x250C: case 0x2510: case 0x2514: case 0x2518: case 0x253C:
  case 0x251C: case 0x2524: case 0x252C: case 0x2534: return '+';
  case 0x2588: case 0x2580: case 0x2584: return '#';           /* █ ▀ ▄ */
  case 0x2591: case 0x2592: return ':';                        /* ░ ▒ */
  case 0x00B7: case 0x2219: return '.';                        /* · ∙ */
  case 0x25BC: case 0x2193: return 'v';                        /* ▼ ↓ */
  case 0x25B2: case 0x2191: return '^';                        /* ▲ ↑ */
  case 0x25B6: case 0x2192: return '>';                        /* ▶ → */
  case 0x25C0: case 0x2190: return '<';                        /* ◀ ← */
  case 0x25C6: case 0x2666: return '*';                        /* ◆ */
  case 0x2195: return '%';                                     /* ↕ */
  case 0x2713: return '+';                                     /* ✓ */
  case 0x2717: return 'x';                                     /* ✗ */
  case 0x2026: return '~';                                     /* … */
  case 0x00D7: return 'x';                                     /* × */
  case 0x00B5: return 'u';                                     /* µ */
  case 0x2212: return '-';                                     /* − */
  case 0x0394: return 'D';                                     /* Δ */
  default: return '?';
  }
}

uint32_t Grid_glyph(const Grid *g, uint32_t uni) {
  return g->unicode || uni < 0x80 ? uni : (uint32_t)(unsigned char)Grid_ascii(uni);
}

int Grid_utf8(uint32_t c, char *o) {
  if (c < 0x80) return o[0] = (char)c, 1;
  if (c < 0x800) return o[0] = (char)(0xC0 | (c >> 6)), o[1] = (char)(0x80 | (c & 0x3F)), 2;
  if (c < 0x10000)
    return o[0] = (char)(0xE0 | (c >> 12)), o[1] = (char)(0x80 | ((c >> 6) & 0x3F)), o[2] = (char)(0x80 | (c & 0x3F)), 3;
  o[0] = (char)(0xF0 | (c >> 18));
  o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
  o[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

char *Grid_toText(const Grid *g) {
  size_t cap = (size_t)g->w * (size_t)g->h * 4 + (size_t)g->h + 1, n = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  for (int y = 0; y < g->h; y++) {
    size_t line = n, last = n; /* last: end of the line's last non-blank */
    for (int x = 0; x < g->w; x++) {
      uint32_t c = Grid_shown(g, x, y);
      if (!c) continue; /* the second column of a double-width character */
      n += (size_t)Grid_utf8(c, out + n);
      if (c != ' ') last = n;
    }
    (void)line;
    n = last;
    out[n++] = '\n';
  }
  out[n] = '\0';
  return out;
}

/* Palette: distinct hues that read on dark and light backgrounds. */
static const RoleStyle Grid_styles[ROLE_COUNT] = {
  [ROLE_DEFAULT] = {"default", -1, -1, -1, 0, 0, "#d0d0d0", NULL},
  [ROLE_TENSOR0 + 0] = {"tensor0", 4, -1, 33, 0, 0, "#3a7bd5", NULL},
  [ROLE_TENSOR0 + 1] = {"tensor1", 2, -1, 71, 0, 0, "#4caf50", NULL},
  [ROLE_TENSOR0 + 2] = {"tensor2", 5, -1, 134, 0, 0, "#ab47bc", NULL},
  [ROLE_TENSOR0 + 3] = {"tensor3", 6, -1, 37, 0, 0, "#26a69a", NULL},
  [ROLE_TENSOR0 + 4] = {"tensor4", 3, -1, 172, 0, 0, "#e6a23c", NULL},
  [ROLE_TENSOR0 + 5] = {"tensor5", 4, -1, 69, 0, 0, "#7986cb", NULL},
  [ROLE_TENSOR0 + 6] = {"tensor6", 2, -1, 107, 0, 0, "#9ccc65", NULL},
  [ROLE_TENSOR0 + 7] = {"tensor7", 6, -1, 74, 0, 0, "#4fc3f7", NULL},
  [ROLE_SPILL] = {"spill", 1, -1, 196, ATTR_BOLD, ATTR_BOLD, "#ff4d4d", NULL},
  [ROLE_RETRIEVE] = {"retrieve", 3, -1, 226, ATTR_BOLD, ATTR_BOLD, "#ffe14d", NULL},
  [ROLE_BUDGET] = {"budget", 1, -1, 203, 0, ATTR_BOLD, "#ff7070", NULL},
  [ROLE_PEAK] = {"peak", 5, -1, 213, ATTR_BOLD, ATTR_BOLD, "#ff80ff", NULL},
  [ROLE_CURSOR] = {"cursor", 7, -1, 255, ATTR_BOLD, ATTR_BOLD, "#ffffff", NULL},
  [ROLE_SELECT] = {"select", 5, -1, 201, ATTR_BOLD, ATTR_BOLD, "#ff3dff", NULL}, /* reads on dark and light */
  [ROLE_FREE] = {"free", 7, -1, 240, 0, 0, "#5a5a5a", NULL},
  [ROLE_STATUS] = {"status", 0, 6, -1, 0, ATTR_REVERSE, "#101010", "#4fb3bf"},
  [ROLE_TITLE] = {"title", 6, -1, 80, ATTR_BOLD, ATTR_BOLD, "#80deea", NULL},
  [ROLE_WARN] = {"warn", 3, -1, 214, ATTR_BOLD, ATTR_BOLD, "#ffb300", NULL},
  [ROLE_DIM] = {"dim", 7, -1, 245, 0, 0, "#8a8a8a", NULL},
  [ROLE_AXIS] = {"axis", 7, -1, 250, 0, 0, "#b0b0b0", NULL},
  [ROLE_PROMPT] = {"prompt", 0, 3, -1, 0, ATTR_REVERSE, "#101010", "#ffd54f"},
  [ROLE_OK] = {"ok", 2, -1, 83, ATTR_BOLD, 0, "#66dd66", NULL},
};

const RoleStyle *Role_style(Role r) { return &Grid_styles[r < ROLE_COUNT ? r : ROLE_DEFAULT]; }

Role Role_tensor(int tensor) {
  /* stride 5 is coprime with 8: neighbouring tensors (often neighbours in memory) differ */
  return (Role)(ROLE_TENSOR0 + (int)(((unsigned)tensor * 5u + 1u) % GRID_PALETTE));
}

void Grid_box(Grid *g, int x0, int y0, int w, int h) {
  Grid_fill(g, x0, y0, w, h, ' ', ROLE_DEFAULT, 0);
  Grid_fill(g, x0, y0, w, 1, 0x2500, ROLE_TITLE, 0);
  Grid_fill(g, x0, y0 + h - 1, w, 1, 0x2500, ROLE_TITLE, 0);
  Grid_fill(g, x0, y0, 1, h, 0x2502, ROLE_TITLE, 0);
  Grid_fill(g, x0 + w - 1, y0, 1, h, 0x2502, ROLE_TITLE, 0);
  Grid_put(g, x0, y0, 0x250C, ROLE_TITLE, 0);
  Grid_put(g, x0 + w - 1, y0, 0x2510, ROLE_TITLE, 0);
  Grid_put(g, x0, y0 + h - 1, 0x2514, ROLE_TITLE, 0);
  Grid_put(g, x0 + w - 1, y0 + h - 1, 0x2518, ROLE_TITLE, 0);
}

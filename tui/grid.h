/* grid: the screen as cells (a codepoint, a semantic color role, attributes).
 * Every view draws into a grid; the grid is then written to the terminal
 * (term.c) or to a text/SVG file (snapshot.c), so tests and screenshots see
 * exactly what users see. */
#ifndef SPADMAP_GRID_H
#define SPADMAP_GRID_H

#include <stdbool.h>
#include <stdint.h>

enum { GRID_PALETTE = 8 }; /* tensor colors */

/* What a cell means; term.c and snapshot.c map roles to colors (theme.c). */
typedef enum {
  ROLE_DEFAULT,
  ROLE_TENSOR0,
  ROLE_TENSOR_LAST = ROLE_TENSOR0 + GRID_PALETTE - 1,
  ROLE_SPILL,
  ROLE_RETRIEVE,
  ROLE_BUDGET,
  ROLE_PEAK,
  ROLE_CURSOR,
  ROLE_SELECT,
  ROLE_FREE,
  ROLE_STATUS,
  ROLE_TITLE,
  ROLE_WARN,
  ROLE_DIM,
  ROLE_AXIS,
  ROLE_PROMPT,
  ROLE_OK,
  ROLE_COUNT
} Role;

enum { ATTR_BOLD = 1, ATTR_REVERSE = 2 };

/* The second column of a double-width character (beyond Unicode, never drawn). */
#define GRID_WIDE_TAIL 0x110000u

typedef struct {
  uint32_t ch;   /* Unicode codepoint, one column wide; a double-width one (CJK) fills its cell and the
                  * next, which holds GRID_WIDE_TAIL (renderers skip it) */
  uint8_t fg;    /* Role */
  uint8_t bg;    /* Role whose foreground color paints the background, or ROLE_DEFAULT */
  uint8_t attr;
} Cell;

typedef struct {
  int w, h;
  bool unicode;  /* false: views pick ASCII glyphs (non-UTF-8 locale) */
  Cell *cells;
} Grid;

Grid *Grid_new(int w, int h, bool unicode);
void Grid_free(Grid *g);
/* Resize (contents cleared); false on allocation failure (grid unchanged). */
bool Grid_resize(Grid *g, int w, int h);
void Grid_clear(Grid *g);
Cell *Grid_at(Grid *g, int x, int y); /* NULL outside */
void Grid_put(Grid *g, int x, int y, uint32_t ch, Role fg, int attr);
void Grid_fill(Grid *g, int x, int y, int w, int h, uint32_t ch, Role fg, int attr);
/* A blank overlay with a frame (the overlays' common look). */
void Grid_box(Grid *g, int x, int y, int w, int h);
/* UTF-8 text at (x, y), at most maxw columns; returns the columns written. Text
 * cut at maxw ends in an ellipsis (ASCII "~") in its last column. */
int Grid_text(Grid *g, int x, int y, int maxw, Role fg, int attr, const char *utf8);
/* The same for names: a longer one keeps its distinctive end behind an ellipsis
 * ("…layer4.2.conv3 (conv2d)"), which is where names built from paths differ. */
int Grid_tail(Grid *g, int x, int y, int maxw, Role fg, int attr, const char *utf8);
int Grid_printf(Grid *g, int x, int y, int maxw, Role fg, int attr, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* The glyph to draw: `uni` when the grid is Unicode, else its ASCII stand-in. */
uint32_t Grid_glyph(const Grid *g, uint32_t uni);
/* ASCII stand-in for a Unicode codepoint ('?' for unknown ones). */
char Grid_ascii(uint32_t ch);
/* The columns ch takes on a terminal (wcwidth under a UTF-8 locale): 0 combining, 2 CJK, else 1. */
int Grid_width(uint32_t ch);
/* What a cell shows: ' ' for a tail whose head was overwritten, the head alone when its tail was. */
uint32_t Grid_shown(const Grid *g, int x, int y);
/* Whole grid as UTF-8 text, one line per row, trailing blanks trimmed (free()). */
char *Grid_toText(const Grid *g);
/* Encodes ch as UTF-8 into out (>= 5 bytes); returns the length. */
int Grid_utf8(uint32_t ch, char *out);

/* The colors of a role, shared by the terminal and the SVG writer. */
typedef struct {
  const char *name;
  short fg, bg;          /* curses colors (COLOR_*), -1: terminal default */
  short fg256;           /* xterm-256 color for 256-color terminals, -1: use fg */
  int attr;              /* ATTR_* added in color mode */
  int mono_attr;         /* ATTR_* used instead when there are no colors */
  const char *svg_fg, *svg_bg; /* "#rrggbb"; svg_bg NULL: transparent */
} RoleStyle;

const RoleStyle *Role_style(Role r);
/* A tensor's color: a hash of its index into the palette. */
Role Role_tensor(int tensor);

#endif

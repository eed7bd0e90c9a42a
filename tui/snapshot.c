#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "actions.h"
#include "views.h"

bool Snapshot_keys(App *app, const char *keys, const char **bad) {
  const char *p = keys;
  for (;;) {
    int key, n = Key_parse(p, &key);
    if (n == 0) return true;
    if (n < 0) {
      *bad = p;
      return false;
    }
    p += n;
    int flags = Actions_key(app, key);
    if (flags & ACT_RESOLVE) App_resolve(app);
    if (flags & ACT_QUIT) return true;
  }
}

void Snapshot_writeText(const Grid *g, FILE *f) {
  char *t = Grid_toText(g);
  if (t) fputs(t, f);
  free(t);
}

static void Svg_escape(FILE *f, uint32_t c) {
  if (c == GRID_WIDE_TAIL) return; /* a double-width character's second column */
  if (c == '&') fputs("&amp;", f);
  else if (c == '<') fputs("&lt;", f);
  else if (c == '>') fputs("&gt;", f);
  else {
    char u[5] = {0};
    Grid_utf8(c, u);
    fputs(u, f);
  }
}

/* Cell geometry of the SVG: a monospace cell of 8.4 x 17 px (14 px font); a margin of SVG_PAD px on the right,
 * since a glyph's ink may reach past its cell and the last column's was cut at the edge when rasterised. */
enum { SVG_CW10 = 84, SVG_CH = 17, SVG_PAD = 6 };

static const char *Svg_bg(const Cell *c) {
  const RoleStyle *s = Role_style((Role)c->fg);
  if (c->attr & ATTR_REVERSE) return s->svg_fg;
  if (c->bg != ROLE_DEFAULT) return Role_style((Role)c->bg)->svg_fg;
  return s->svg_bg;
}

static const char *Svg_fg(const Cell *c) {
  const RoleStyle *s = Role_style((Role)c->fg);
  if (c->attr & ATTR_REVERSE) return s->svg_bg ? s->svg_bg : "#1e1e1e";
  return s->svg_fg;
}

/* Full block glyphs are drawn as rects: fonts leave seams between rows. */
static bool Svg_block(uint32_t ch) { return ch == 0x2588 || ch == 0x2580 || ch == 0x2584; }

void Snapshot_writeSVG(const Grid *g, FILE *f) {
  int W = g->w * SVG_CW10 / 10 + SVG_PAD, H = g->h * SVG_CH;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" shape-rendering=\"crispEdges\">\n", W, H, W, H);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#1e1e1e\"/>\n");
  fprintf(f, "<g font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"14px\" xml:space=\"preserve\">\n");
  /* every row's backgrounds and blocks first, then every row's text: a row's
   * rects drawn after the row above covered its descenders ("nasnet_a" read
   * "nasnet a" in the title bar) */
  for (int y = 0; y < g->h; y++) {
    const Cell *row = &g->cells[y * g->w];
    /* backgrounds and blocks: one rect per run of the same color */
    for (int x = 0; x < g->w;) {
      const char *bg = Svg_bg(&row[x]);
      int x1 = x + 1;
      while (x1 < g->w && Svg_bg(&row[x1]) == bg) x1++;
      if (bg)
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", x * SVG_CW10 / 10.0,
                y * SVG_CH, (x1 - x) * SVG_CW10 / 10.0, SVG_CH, bg);
      x = x1;
    }
    for (int x = 0; x < g->w; x++) {
      uint32_t ch = row[x].ch;
      if (!Svg_block(ch)) continue;
      int x1 = x + 1;
      while (x1 < g->w && row[x1].ch == ch && row[x1].fg == row[x].fg) x1++;
      double top = y * SVG_CH + (ch == 0x2584 ? SVG_CH / 2.0 : 0), hh = ch == 0x2588 ? SVG_CH : SVG_CH / 2.0;
      fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x * SVG_CW10 / 10.0, top,
              (x1 - x) * SVG_CW10 / 10.0, hh, Svg_fg(&row[x]));
      x = x1 - 1;
    }
  }
  for (int y = 0; y < g->h; y++) {
    const Cell *row = &g->cells[y * g->w];
    /* text: one <text> per run of the same color and weight */
    for (int x = 0; x < g->w;) {
      if (row[x].ch == ' ' || Svg_block(row[x].ch)) {
        x++;
        continue;
      }
      const char *fg = Svg_fg(&row[x]);
      int bold = row[x].attr & ATTR_BOLD, x1 = x;
      while (x1 < g->w && !Svg_block(row[x1].ch) && Svg_fg(&row[x1]) == fg && (row[x1].attr & ATTR_BOLD) == bold) x1++;
      while (x1 > x && row[x1 - 1].ch == ' ') x1--;
      fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\"%s textLength=\"%.1f\">", x * SVG_CW10 / 10.0,
              y * SVG_CH + 12, fg, bold ? " font-weight=\"bold\"" : "", (x1 - x) * SVG_CW10 / 10.0);
      for (int i = x; i < x1; i++) Svg_escape(f, row[i].ch);
      fputs("</text>\n", f);
      x = x1;
    }
  }
  fputs("</g>\n</svg>\n", f);
}

/* One file of the screen; false if it cannot be written whole. */
static bool Snapshot_file(const Grid *g, const char *path, bool svg) {
  FileOut o; /* as --out: a temporary renamed into place, never half a file */
  SpError err;
  if (FileIO_open(path, &o, &err)) return false;
  if (svg) Snapshot_writeSVG(g, o.f);
  else Snapshot_writeText(g, o.f);
  return FileIO_commit(&o, &err) == SP_OK;
}

int Snapshot_saveScreen(App *app) {
  if (!app->grid) return 0;
  app->message[0] = '\0';
  View_draw(app, app->grid); /* what the state shows now, without the old message */
  char svg[300], txt[300];
  snprintf(svg, sizeof svg, "%s.screen.svg", app->stem);
  snprintf(txt, sizeof txt, "%s.screen.txt", app->stem);
  bool ok_svg = Snapshot_file(app->grid, svg, true), ok_txt = Snapshot_file(app->grid, txt, false);
  if (ok_svg && ok_txt) App_setMessage(app, false, "wrote the screen to %s (colours as shown) and %s", svg, txt);
  else App_setMessage(app, true, "cannot write %s", ok_svg ? txt : svg);
  return ACT_REDRAW;
}

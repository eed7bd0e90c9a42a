/* help_view: the help overlay, generated from the action table (keys as bound
 * now), with each line's text wrapped to its column. The legends are in
 * legend_view.c. */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "layer_view.h"
#include "views.h"

enum { HELP_KEYW = 9 };

/* Lines `text` takes wrapped at width w (words kept whole where they fit); with
 * g, draws them from (x, y). */
static int Help_wrap(Grid *g, int x, int y, int w, Role role, const char *text) {
  int lines = 0;
  const char *p = text;
  if (w < 8) w = 8;
  while (*p) {
    int len = (int)strlen(p), cut = len;
    if (len > w) {
      cut = w;
      while (cut > 0 && p[cut] != ' ') cut--;
      if (cut == 0) cut = w;
    }
    if (g) Grid_printf(g, x, y + lines, cut, role, 0, "%.*s", cut, p);
    lines++;
    p += cut;
    while (*p == ' ') p++;
  }
  return lines ? lines : 1;
}

int View_wrap(Grid *g, int x, int y, int w, Role role, const char *text) { return Help_wrap(g, x, y, w, role, text); }

static const char *Help_keys(const Action *a, char *keys, int n) {
  char k1[16], k2[16];
  Key_name(a->key, k1, sizeof k1);
  if (a->key2) snprintf(keys, (size_t)n, "%s %s", k1, Key_name(a->key2, k2, sizeof k2));
  else snprintf(keys, (size_t)n, "%s", k1);
  return keys;
}

/* The help lists the view's own actions: the layer view's (scope
 * ACT_SCOPE_LAYER, and its steps map's, ACT_SCOPE_STEPS) with the keys that
 * still work over it, or the explorer's.
 * The last drawn help's scope also answers HelpView_pages. */
static int Help_scope = ACT_SCOPE_MAIN;
static bool Help_shown(const Action *a) {
  if (Action_scope(a) == Help_scope) return true;
  if (Help_scope == ACT_SCOPE_LAYER && Action_scope(a) == ACT_SCOPE_STEPS) return true; /* its steps map's */
  return Help_scope == ACT_SCOPE_LAYER && (strcmp(a->name, "help") == 0 || strcmp(a->name, "legend") == 0 ||
                                           strcmp(a->name, "quit") == 0 || strcmp(a->name, "layer") == 0);
}

/* An entry's text: the action's name (what SPADMAP_KEYS rebinds), then what it does. */
static const char *Help_text(const Action *a, char *buf, size_t n) {
  snprintf(buf, n, "%s: %s", a->name, a->help);
  return buf;
}

/* Columns needed at column width cw when entries flow down columns of `avail` lines. */
static int Help_columns(int cw, int avail) {
  int col = 0, y = 0;
  for (int i = 0; i < Actions_count(); i++) {
    if (!Help_shown(Actions_at(i))) continue;
    char text[256];
    int lines = Help_wrap(NULL, 0, 0, cw - HELP_KEYW - 2, ROLE_DEFAULT, Help_text(Actions_at(i), text, sizeof text));
    if (y + lines > avail && y > 0) col++, y = 0;
    y += lines;
  }
  return col + 1;
}

/* The fewest columns (at least 38 wide, at most 60) that hold every entry, or as
 * many as fit with more pages (PgDn / PgUp in the help). */
static void Help_layout(const Grid *g, int *cols, int *cw, int *pages) {
  int avail = g->h - 5, most = (g->w - 4) / 38 < 1 ? 1 : (g->w - 4) / 38;
  for (*cols = 1; *cols <= most; (*cols)++) {
    *cw = (g->w - 4) / *cols > 60 ? 60 : (g->w - 4) / *cols;
    int need = Help_columns(*cw, avail);
    if (need <= *cols || *cols == most) {
      *pages = (need + *cols - 1) / *cols;
      return;
    }
  }
}

int HelpView_pages(const Grid *g) {
  int cols, cw, pages;
  Help_layout(g, &cols, &cw, &pages);
  return pages;
}

void HelpView_draw(App *app, Grid *g) {
  Help_scope = LayerView_isOpen(app) ? ACT_SCOPE_LAYER : ACT_SCOPE_MAIN;
  int n = Actions_count(), avail = g->h - 5, cols, cw, pages;
  Help_layout(g, &cols, &cw, &pages);
  if (app->help_page >= pages) app->help_page = pages - 1;
  if (app->help_page < 0) app->help_page = 0;
  int w = cw * cols + 2, h = g->h - 2;
  if (w > g->w) w = g->w;
  int x0 = (g->w - w) / 2, y0 = 1;
  Grid_box(g, x0, y0, w, h);
  char qk[16], lk[16], title[160], pg[48] = "";
  if (pages > 1) snprintf(pg, sizeof pg, ", page %d/%d: PgDn PgUp", app->help_page + 1, pages);
  snprintf(title, sizeof title, " keys (any key closes, %s quits, %s legend%s) ",
           Key_name(Actions_keyOf("quit"), qk, sizeof qk), Key_name(Actions_keyOf("legend"), lk, sizeof lk), pg);
  Grid_text(g, x0 + 2, y0, w - 4, ROLE_TITLE, ATTR_BOLD, title);
  int col = 0, y = 0;
  for (int i = 0; i < n; i++) {
    const Action *a = Actions_at(i);
    if (!Help_shown(a)) continue;
    char text[256];
    int lines = Help_wrap(NULL, 0, 0, cw - HELP_KEYW - 2, ROLE_DEFAULT, Help_text(a, text, sizeof text));
    if (y + lines > avail && y > 0) col++, y = 0;
    int page = col / cols, cx = x0 + 2 + (col % cols) * cw, cy = y0 + 2 + y;
    y += lines;
    if (page != app->help_page) continue;
    char keys[40];
    Grid_printf(g, cx, cy, HELP_KEYW, ROLE_TITLE, ATTR_BOLD, "%-9s", Help_keys(a, keys, sizeof keys));
    Help_wrap(g, cx + HELP_KEYW + 1, cy, cw - HELP_KEYW - 2, ROLE_DEFAULT, text);
  }
  Grid_text(g, x0 + 2, y0 + h - 1, w - 4, ROLE_DIM, 0, " SPADMAP_KEYS=\"action=key,...\" rebinds ");
}

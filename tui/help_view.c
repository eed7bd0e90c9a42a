/* help_view: the help overlay, generated from the action table. */
#include <stdio.h>

#include "actions.h"
#include "views.h"

void HelpView_draw(App *app, Grid *g) {
  (void)app;
  int n = Actions_count();
  int cols = g->h - 4 >= n + 2 ? 1 : 2;
  int per = (n + cols - 1) / cols;
  int cw = (g->w - 4) / cols < 46 ? (g->w - 4) / cols : 46, w = cw * cols + 2, h = per + 4;
  if (w > g->w) w = g->w;
  if (h > g->h) h = g->h;
  int x0 = (g->w - w) / 2, y0 = (g->h - h) / 2;
  Grid_box(g, x0, y0, w, h);
  Grid_text(g, x0 + 2, y0, w - 4, ROLE_TITLE, ATTR_BOLD, " keys (any key closes) ");
  for (int i = 0; i < n; i++) {
    const Action *a = Actions_at(i);
    char k1[16], k2[16], keys[40];
    Key_name(a->key, k1, sizeof k1);
    if (a->key2) snprintf(keys, sizeof keys, "%s %s", k1, Key_name(a->key2, k2, sizeof k2));
    else snprintf(keys, sizeof keys, "%s", k1);
    int cx = x0 + 2 + (i / per) * cw, cy = y0 + 2 + i % per;
    Grid_printf(g, cx, cy, 9, ROLE_TITLE, ATTR_BOLD, "%-9s", keys);
    Grid_text(g, cx + 10, cy, cw - 11, ROLE_DEFAULT, 0, a->help);
  }
  Grid_text(g, x0 + 2, y0 + h - 1, w - 4, ROLE_DIM, 0, " SPADMAP_KEYS=\"action=key,...\" rebinds ");
}

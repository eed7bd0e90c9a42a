/* screen: the layout. Status line on top, the map left, the panel right, the
 * key/message/prompt line at the bottom, help over everything. */
#include <stdio.h>
#include <string.h>

#include "offchip_view.h"
#include "views.h"

void View_draw(App *app, Grid *g) {
  Grid_clear(g);
  app->grid = g;
  app->map_geom.valid = app->sched_geom.valid = false;
  if (g->w < VIEW_MIN_W || g->h < VIEW_MIN_H) {
    char msg[80];
    snprintf(msg, sizeof msg, "terminal too small (need %dx%d, have %dx%d)", VIEW_MIN_W, VIEW_MIN_H, g->w, g->h);
    int n = (int)strlen(msg);
    int x = (g->w - n) / 2;
    Grid_text(g, x < 0 ? 0 : x, g->h / 2, g->w, ROLE_WARN, ATTR_BOLD, msg);
    return;
  }
  int pw = g->w >= 120 ? 44 : 36;
  StatusView_drawTop(app, g, 0);
  if (app->offchip_map) { /* D: the off-chip map and its panel */
    OffchipView_draw(app, g, 0, 1, g->w - pw, g->h - 2);
    OffchipView_drawPanel(app, g, g->w - pw, 1, pw, g->h - 2);
  } else {
    MapView_draw(app, g, 0, 1, g->w - pw, g->h - 2);
    PanelView_draw(app, g, g->w - pw, 1, pw, g->h - 2);
  }
  StatusView_drawBottom(app, g, g->h - 1);
  if (app->picker.open) PickerView_draw(app, g);
  if (app->menu.open) MenuView_draw(app, g);
  if (app->help) HelpView_draw(app, g);
}

bool View_click(App *app, int x, int y) {
  if (app->offchip_map) return OffchipView_click(app, x, y);
  int step, stay;
  if (MapView_hit(app, x, y, &step, &stay)) {
    app->cursor = step;
    if (y >= app->map_geom.y && y < app->map_geom.y + app->map_geom.rows)
      app->selected = stay >= 0 ? app->plan->stays[stay].tensor : -1;
    App_clampView(app);
    app->message[0] = '\0';
    return true;
  }
  const SchedGeom *s = &app->sched_geom;
  if (s->valid && x >= s->x && x < s->x + s->w && y >= s->y && y < s->y + s->rows) {
    app->cursor = s->first + (y - s->y);
    App_clampView(app);
    app->message[0] = '\0';
    return true;
  }
  return false;
}

/* screen: the layout. Status line on top, the map left, the panel right, the
 * key/message/prompt line at the bottom, help over everything. */
#include <stdio.h>
#include <string.h>

#include "layer_view.h"
#include "lesson.h"
#include "offchip_view.h"
#include "views.h"

static void View_drawMain(App *app, Grid *g);

/* A lesson's narrative pane takes the bottom rows (LessonView_height leaves the
 * explorer VIEW_LESSON_MIN_H of them); the explorer draws above it as on a
 * shorter terminal (its overlays too), so nothing hides the pane. */
void View_draw(App *app, Grid *g) {
  Grid_clear(g);
  int lh = LessonView_height(app, g);
  g->h -= lh;
  View_drawMain(app, g);
  g->h += lh;
  app->grid = g;
  if (lh) LessonView_draw(app, g, g->h - lh, lh);
}

static void View_drawMain(App *app, Grid *g) {
  app->grid = g;
  app->map_geom.valid = app->sched_geom.valid = app->stay_geom.valid = false;
  if (g->w < VIEW_MIN_W || g->h < (app->lesson ? VIEW_LESSON_MIN_H : VIEW_MIN_H)) {
    char msg[80];
    snprintf(msg, sizeof msg, "terminal too small (need %dx%d, have %dx%d)", VIEW_MIN_W, VIEW_MIN_H, g->w, g->h);
    /* on as many lines as the width asks (at 20 columns it showed "terminal too small (") */
    const char *line[8];
    int len[8], nl = 0;
    for (const char *p = msg; *p && nl < 8;) {
      int n = (int)strlen(p);
      if (n > g->w) {
        n = g->w;
        while (n > 0 && p[n] != ' ') n--;
        if (n == 0) n = g->w; /* a word longer than the line: cut it */
      }
      line[nl] = p, len[nl++] = n;
      p += n;
      while (*p == ' ') p++;
    }
    int y0 = g->h / 2 - nl / 2;
    for (int i = 0; i < nl; i++) {
      int x = (g->w - len[i]) / 2;
      if (y0 + i >= 0 && y0 + i < g->h)
        Grid_printf(g, x < 0 ? 0 : x, y0 + i, g->w, ROLE_WARN, ATTR_BOLD, "%.*s", len[i], line[i]);
    }
    return;
  }
  /* the panel widens with the terminal: a third of it, 36 to 64 columns */
  int pw = g->w / 3 < 36 ? 36 : g->w / 3 > 64 ? 64 : g->w / 3;
  if (g->w >= 120 && pw < 44) pw = 44;
  StatusView_drawTop(app, g, 0);
  if (app->sweep_open && app->sweep) SweepView_draw(app, g, 0, 1, g->w, g->h - 2); /* the whole width: a dense chart */
  else if (app->offchip_map) { /* D: the off-chip map and its panel */
    OffchipView_draw(app, g, 0, 1, g->w - pw, g->h - 2);
    OffchipView_drawPanel(app, g, g->w - pw, 1, pw, g->h - 2);
  } else {
    MapView_draw(app, g, 0, 1, g->w - pw, g->h - 2);
    PanelView_draw(app, g, g->w - pw, 1, pw, g->h - 2);
  }
  StatusView_drawBottom(app, g, g->h - 1);
  if (app->picker.open) PickerView_draw(app, g);
  if (app->menu.open) MenuView_draw(app, g);
  if (LayerView_isOpen(app)) LayerView_draw(app, g);
  if (app->help) HelpView_draw(app, g);
  if (app->legend) LegendView_draw(app, g);
}

bool View_click(App *app, int x, int y) {
  if (app->offchip_map) return OffchipView_click(app, x, y);
  int step, stay;
  if (MapView_hit(app, x, y, &step, &stay)) {
    app->cursor = step;
    if (y >= app->map_geom.y && y < app->map_geom.y + app->map_geom.rows)
      app->selected = stay >= 0 ? App_shownPlan(app)->stays[stay].tensor : -1;
    App_clampView(app);
    app->message[0] = '\0';
    return true;
  }
  const StayGeom *sg = &app->stay_geom;
  if (sg->valid && x >= sg->x && x < sg->x + sg->w && y >= sg->y && y < sg->y + sg->rows && y - sg->y < 64 &&
      sg->stay[y - sg->y] >= 0) { /* a stay in the tensor panel: the cursor to its start */
    const Stay *st = &App_shownPlan(app)->stays[sg->stay[y - sg->y]];
    app->cursor = st->start;
    app->selected = st->tensor;
    App_clampView(app);
    char b[16];
    App_setMessage(app, false, "stay @%s, steps %d-%d: %s -> %s", App_bytes(st->offset, b, sizeof b), st->start,
                   st->end, StayIn_name(st->in), StayOut_name(st->out));
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

/* tui_test.h: what the explorer's tests share: the screen as text, a key script. */
#ifndef SPADMAP_TUI_TEST_H
#define SPADMAP_TUI_TEST_H

#include "app.h"
#include "grid.h"
#include "snapshot.h"
#include "test.h"
#include "views.h"

/* The explorer drawn on a w x h grid, as text (free()). */
static inline char *Test_screen(App *app, int w, int h) {
  Grid *g = Grid_new(w, h, true);
  View_draw(app, g);
  char *t = Grid_toText(g);
  app->grid = NULL;
  Grid_free(g);
  return t;
}

/* The keys pressed in order (snapshot's key script: "x<Tab>"); every name must parse. */
static inline void Test_keys(App *app, const char *keys) {
  const char *bad = NULL;
  CHECK(Snapshot_keys(app, keys, &bad));
}

#endif

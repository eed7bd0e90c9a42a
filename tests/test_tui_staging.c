/* Staging below M_R in a terminal session: the tiler runs off the UI thread.
 * On amoebanet_d, `b 1K` held the UI for 0.8-1.5 s while the tiler searched for a
 * tiling before it refused (issue 26, point 10). The key now returns at once, the
 * message says it is tiling, C lets it go, and the result (a refusal with the
 * tiler's reason, or the tiled network solved) arrives through App_poll. The
 * wait loop is test_tui_explore.c's deaf-stage helper. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "actions.h"
#include "app.h"
#include "clock.h"
#include "snapshot.h"
#include "test.h"

#define NETS SPADMAP_DATA_DIR "/networks/"

static bool Test_wait(App *app, bool (*done)(App *), double seconds) {
  double t0 = Clock_now();
  while (!done(app) && Clock_now() - t0 < seconds) {
    App_poll(app);
    nanosleep(&(struct timespec){0, 2000000}, NULL);
  }
  return done(app);
}
static bool Test_idle(App *app) { return !app->solving; }
static bool Test_figures(App *app) { return App_figuresReady(app); }

TEST(staging_below_m_r_never_holds_the_ui) {
  /* natively the keys take milliseconds (the tiler's refusal took 0.8-1.5 s on
   * the UI thread); instrumented runs are 20-50x slower */
  const double quick = Test_instrumented() ? 10.0 : 0.3;
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, NETS "amoebanet_d.json", &err), SP_OK);
  App_startWorkers(&app);
  App_resolve(&app);
  CHECK(Test_wait(&app, Test_idle, 30) && Test_wait(&app, Test_figures, 60));
  const Plan *before = app.plan;
  CHECK(before != NULL);
  const char *bad = NULL;

  /* a budget no tiling reaches: the key returns at once, the refusal follows */
  double t0 = Clock_now();
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad));
  CHECK(Clock_now() - t0 < quick);
  CHECK(app.solving);
  CHECK_HAS(app.message, "tiling amoebanet_d below M_R for 1.00K");
  CHECK(Test_wait(&app, Test_idle, 60));
  CHECK_HAS(app.message, "too small");
  CHECK_HAS(app.message, "largest tile still needs");
  CHECK(app.plan == before); /* the last good plan stays */

  /* C lets a running tiling go at once; the plan stays */
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad));
  CHECK(app.solving);
  t0 = Clock_now();
  CHECK_EQ(Actions_key(&app, 'C'), ACT_REDRAW);
  CHECK(Clock_now() - t0 < quick);
  CHECK(!app.solving);
  CHECK_HAS(app.message, "tiling cancelled");
  CHECK(app.plan == before);
  for (int i = 0; i < 50; i++) App_poll(&app); /* nothing arrives from the abandoned one */
  CHECK(app.plan == before && strcmp(app.net->name, "amoebanet_d") == 0);

  /* a budget a tiling reaches: the tiled network is loaded and solved */
  CHECK(Snapshot_keys(&app, "b1.5M<Enter>", &bad));
  CHECK(Test_wait(&app, Test_idle, 60));
  CHECK(app.untiled_path[0] != '\0');
  CHECK(strstr(app.net->name, "amoebanet_d@") != NULL);
  CHECK(app.plan && app.plan->budget == app.set.budget && app.set.budget == 1572864 && app.violations == 0);
  CHECK_HAS(app.message, "below M_R");

  /* a tiling abandoned by closing: nothing is left behind */
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad));
  t0 = Clock_now();
  App_free(&app);
  CHECK(Clock_now() - t0 < (Test_instrumented() ? 10.0 : 1.0));
}

TEST_MAIN("tui_staging", T(staging_below_m_r_never_holds_the_ui))

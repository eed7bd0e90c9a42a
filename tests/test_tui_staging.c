/* Staging below M_R in a terminal session: the tiler runs off the UI thread.
 * On amoebanet_d, `b 1K` held the UI for 0.8-1.5 s while the tiler searched for a
 * tiling before it refused (issue 26, point 10). The key now returns at once, the
 * message says it is tiling, C lets it go, and the result (a refusal with the
 * tiler's reason, or the tiled network solved) arrives through App_poll. The
 * wait loop is test_tui_explore.c's deaf-stage helper. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actions.h"
#include "app.h"
#include "clock.h"
#include "snapshot.h"
#include "staging.h"
#include "test.h"
#include "views.h"

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

/* Holds every tiling thread at its reports until released: a tiler as slow as
 * the test wants, so "the key returns at once" needs no clock (it wanted each
 * key within 0.3 s, and App_free within 1 s). */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool held, free;
} Freeze;
static Freeze Test_freeze = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, true};
static void Freeze_hook(const TilesProgress *p, void *user) {
  (void)p;
  Freeze *f = user;
  pthread_mutex_lock(&f->mu);
  if (!f->free) f->held = true, pthread_cond_broadcast(&f->cv);
  while (!f->free) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
}
static void Freeze_set(Freeze *f, bool free) {
  pthread_mutex_lock(&f->mu);
  f->free = free;
  if (!free) f->held = false;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
}
/* until a tiling thread is held; false after 120 s (a hang guard, a failure) */
static bool Freeze_waitHeld(Freeze *f) {
  pthread_mutex_lock(&f->mu);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 120;
  while (!f->held)
    if (pthread_cond_timedwait(&f->cv, &f->mu, &until)) break;
  bool ok = f->held;
  pthread_mutex_unlock(&f->mu);
  return ok;
}
/* A hang guard beside a step that must not wait on the held tiler: after 120 s
 * it lets the tiler go (so the test ends) and says it had to. */
typedef struct {
  pthread_t t;
  atomic_int done, fired;
} Guard;
static void *Guard_run(void *arg) {
  Guard *g = arg;
  for (int i = 0; i < 12000 && !atomic_load(&g->done); i++) nanosleep(&(struct timespec){0, 10000000}, NULL);
  if (!atomic_load(&g->done)) atomic_store(&g->fired, 1), Freeze_set(&Test_freeze, true);
  return NULL;
}
static void Guard_start(Guard *g) {
  atomic_store(&g->done, 0), atomic_store(&g->fired, 0);
  CHECK_EQ(pthread_create(&g->t, NULL, Guard_run, g), 0);
}
static bool Guard_stop(Guard *g) { /* true: the step ended on its own */
  atomic_store(&g->done, 1);
  pthread_join(g->t, NULL);
  return !atomic_load(&g->fired);
}

TEST(staging_below_m_r_never_holds_the_ui) {
  App app;
  SpError err;
  Guard g;
  CHECK_EQ(App_init(&app, NETS "amoebanet_d.json", &err), SP_OK);
  App_startWorkers(&app);
  App_resolve(&app);
  CHECK(Test_wait(&app, Test_idle, 30) && Test_wait(&app, Test_figures, 60));
  const Plan *before = app.plan;
  CHECK(before != NULL);
  const char *bad = NULL;
  Staging_testHooks(0, Freeze_hook, &Test_freeze);

  /* a budget no tiling reaches: the key returns while the tiler is held, the refusal follows */
  Freeze_set(&Test_freeze, false);
  Guard_start(&g);
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad));
  CHECK(Guard_stop(&g));
  CHECK(app.solving);
  CHECK_HAS(app.message, "tiling amoebanet_d below M_R for 1.0K");
  CHECK(Freeze_waitHeld(&Test_freeze));
  Freeze_set(&Test_freeze, true);
  CHECK(Test_wait(&app, Test_idle, 60));
  CHECK_HAS(app.message, "too small");
  CHECK_HAS(app.message, "largest tile still needs");
  CHECK(app.plan == before); /* the last good plan stays */

  /* C lets a running tiling go while it is held; the plan stays */
  Freeze_set(&Test_freeze, false);
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad));
  CHECK(app.solving);
  CHECK(Freeze_waitHeld(&Test_freeze));
  Guard_start(&g);
  CHECK_EQ(Actions_key(&app, 'C'), ACT_REDRAW);
  CHECK(Guard_stop(&g));
  CHECK(!app.solving);
  CHECK_HAS(app.message, "tiling cancelled");
  CHECK(app.plan == before);
  Freeze_set(&Test_freeze, true);
  for (int i = 0; i < 50; i++) App_poll(&app); /* nothing arrives from the abandoned one */
  CHECK(app.plan == before && strcmp(app.net->name, "amoebanet_d") == 0);

  /* a budget a tiling reaches: the tiled network is loaded and solved */
  CHECK(Snapshot_keys(&app, "b1.5M<Enter>", &bad));
  CHECK(Test_wait(&app, Test_idle, 60));
  CHECK(app.untiled_path[0] != '\0');
  CHECK(strstr(app.net->name, "amoebanet_d@") != NULL);
  CHECK(app.plan && app.plan->budget == app.set.budget && app.set.budget == 1572864 && app.violations == 0);
  CHECK_HAS(app.message, "below M_R");

  /* a tiling abandoned by closing while held: closing does not wait for it */
  Freeze_set(&Test_freeze, false);
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad));
  CHECK(Freeze_waitHeld(&Test_freeze));
  Guard_start(&g);
  App_free(&app);
  CHECK(Guard_stop(&g));
  Freeze_set(&Test_freeze, true);
}

/* The tiler's progress as a figure on the status line (issue 26, point 10: it
 * showed "solving..." and a message, no figure). The hook holds the tiling
 * thread at chosen reports, so the test reads the screen at known figures: no
 * timing. Held: a quarter and half of pass 1, the start of pass 2. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  TilesProgress held;
  bool holding, seen_pass2, over; /* over: the test is done looking, never hold again */
} Hold;

static void Hold_hook(const TilesProgress *p, void *user) {
  Hold *h = user;
  bool stop = (p->pass == 1 && (p->done == p->total / 4 || p->done == p->total / 2)) ||
              (p->pass == 2 && !h->seen_pass2);
  if (!stop) return;
  pthread_mutex_lock(&h->mu);
  if (p->pass == 2) h->seen_pass2 = true;
  h->held = *p;
  h->holding = !h->over;
  pthread_cond_broadcast(&h->cv);
  while (h->holding && !h->over) pthread_cond_wait(&h->cv, &h->mu);
  pthread_mutex_unlock(&h->mu);
}

/* Waits (at most a minute, ten under valgrind or sanitizers, where test 1's
 * abandoned tilings still run: a lost thread fails, never hangs) for the thread
 * to be held; then the UI's poll takes that figure and the top line shows it. */
static bool Hold_wait(Hold *h, TilesProgress *got) {
  pthread_mutex_lock(&h->mu);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += Test_instrumented() ? 600 : 60;
  while (!h->holding)
    if (pthread_cond_timedwait(&h->cv, &h->mu, &until)) break;
  bool ok = h->holding;
  *got = h->held;
  pthread_mutex_unlock(&h->mu);
  return ok;
}
static void Hold_release(Hold *h, bool over) {
  pthread_mutex_lock(&h->mu);
  h->holding = false;
  h->over |= over;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

static char *Test_topLine(App *app) {
  Grid *g = Grid_new(200, 3, false);
  StatusView_drawTop(app, g, 0);
  char *t = Grid_toText(g);
  Grid_free(g);
  return t;
}

TEST(staging_progress_figure_appears_and_advances) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, NETS "amoebanet_d.json", &err), SP_OK);
  App_startWorkers(&app);
  App_resolve(&app);
  CHECK(Test_wait(&app, Test_idle, 30) && Test_wait(&app, Test_figures, 60));
  app.deterministic = true; /* no elapsed time on the line */
  Hold h = {.holding = false};
  pthread_mutex_init(&h.mu, NULL);
  pthread_cond_init(&h.cv, NULL);
  Staging_testHooks(0, Hold_hook, &h); /* every report kept: the hook sees each */
  const char *bad = NULL;
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad)); /* no tiling reaches it: pass after pass */
  CHECK(app.solving);
  char want[160], prev[160] = "";
  for (int k = 0; k < 3; k++) {
    TilesProgress p;
    CHECK(Hold_wait(&h, &p));
    CHECK_EQ(p.pass, k < 2 ? 1 : 2);
    CHECK(App_poll(&app)); /* a new figure: the screen changed */
    TilesProgress shown;
    CHECK(Staging_figure(&app, &shown));
    CHECK(shown.pass == p.pass && shown.done == p.done && shown.total == p.total);
    int pct = (int)(p.done * 100 / p.total);
    if (p.pass == 1) snprintf(want, sizeof want, "tiling: %d %%", pct);
    else snprintf(want, sizeof want, "tiling: %d %% of pass 2 (aiming lower)", pct);
    char *t = Test_topLine(&app);
    CHECK_HAS(t, want);
    CHECK(strcmp(want, prev) != 0); /* it advanced */
    free(t);
    if (k == 0) CHECK(pct >= 20 && pct <= 30); /* a quarter of the pass */
    snprintf(prev, sizeof prev, "%s", want);
    Hold_release(&h, false);
  }
  Hold_release(&h, true); /* whatever happened above, the thread runs free now */
  CHECK(Test_wait(&app, Test_idle, Test_instrumented() ? 600 : 60)); /* the hook lets the later passes by */
  Staging_testHooks(-1, NULL, NULL);      /* the thread is done with it */
  CHECK_HAS(app.message, "too small");
  char *t = Test_topLine(&app);
  CHECK(strstr(t, "tiling:") == NULL); /* done: the figure is gone */
  free(t);
  App_free(&app);
  pthread_cond_destroy(&h.cv);
  pthread_mutex_destroy(&h.mu);
}

TEST_MAIN("tui_staging", T(staging_below_m_r_never_holds_the_ui), T(staging_progress_figure_appears_and_advances))

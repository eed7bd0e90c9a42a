/* The explorer without a terminal: the grid, key names, the action table, the
 * app's settings through key scripts, the worker thread, and the layout. */
#include <time.h>

#include "actions.h"
#include "app.h"
#include "snapshot.h"
#include "test.h"
#include "views.h"
#include "worker.h"

#define FIG1 SPADMAP_DATA_DIR "/networks/fig1.json"

TEST(grid_text_utf8_clipping_and_dump) {
  Grid *g = Grid_new(10, 2, true);
  CHECK(g != NULL);
  CHECK_EQ(Grid_text(g, 1, 0, 5, ROLE_DEFAULT, 0, "a\xe2\x96\x80" "bcdefg"), 5); /* "a▀bcd" */
  CHECK_EQ(Grid_at(g, 2, 0)->ch, 0x2580);
  CHECK(Grid_at(g, 10, 0) == NULL && Grid_at(g, -1, 0) == NULL);
  Grid_put(g, 20, 20, 'x', ROLE_DEFAULT, 0); /* outside: ignored */
  char *t = Grid_toText(g);
  CHECK(t && strcmp(t, " a\xe2\x96\x80" "bcd\n\n") == 0);
  free(t);
  Grid *a = Grid_new(4, 1, false);
  Grid_text(a, 0, 0, 4, ROLE_DEFAULT, 0, "\xe2\x96\x88\xe2\x94\x80\xe2\x96\xbc?"); /* █─▼? */
  t = Grid_toText(a);
  CHECK(t && strcmp(t, "#-v?\n") == 0);
  free(t);
  Grid_free(a);
  CHECK(Grid_resize(g, 3, 3));
  CHECK_EQ(g->w * g->h, 9);
  Grid_free(g);
}

TEST(key_scripts_parse_names_and_utf8) {
  const char *s = "x<Right><lt><S-Tab>\xc3\xa9";
  int key, n, keys[8], k = 0;
  while ((n = Key_parse(s, &key)) > 0 && k < 8) keys[k++] = key, s += n;
  CHECK_EQ(n, 0);
  CHECK_EQ(k, 5);
  CHECK_EQ(keys[0], 'x');
  CHECK_EQ(keys[1], K_RIGHT);
  CHECK_EQ(keys[2], '<');
  CHECK_EQ(keys[3], K_BTAB);
  CHECK_EQ(keys[4], 0xE9);
  CHECK_EQ(Key_parse("<Nope>", &key), -1);
  char buf[16];
  CHECK(strcmp(Key_name(K_LEFT, buf, sizeof buf), "Left") == 0);
}

TEST(action_table_keys_are_unique_and_configurable) {
  for (int i = 0; i < Actions_count(); i++) {
    const Action *a = Actions_at(i);
    CHECK(a->name && a->help && a->run && a->key);
    for (int j = 0; j < i; j++) {
      const Action *b = Actions_at(j);
      CHECK(a->key != b->key && a->key != b->key2);
      CHECK(!a->key2 || (a->key2 != b->key && a->key2 != b->key2));
    }
  }
  CHECK(Actions_configure("frob=x")[0] != '\0');
  CHECK(Actions_configure("quit")[0] != '\0');
  CHECK_EQ(Actions_configure("quit=Q")[0], '\0');
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, FIG1, &err), SP_OK);
  CHECK_EQ(Actions_key(&app, 'Q'), ACT_QUIT);
  CHECK_EQ(Actions_configure("quit=q,help=?")[0], '\0');
  CHECK_EQ(Actions_key(&app, 'q'), ACT_QUIT);
  App_free(&app);
}

TEST(key_scripts_change_the_settings_and_the_plan) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, FIG1, &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  const NetFigures *f = App_figures(&app);
  CHECK_EQ(app.set.budget, f->m_r);
  CHECK(app.plan && app.violations == 0);
  const char *bad = NULL;
  CHECK(Snapshot_keys(&app, "p", &bad));
  CHECK_EQ(app.set.budget, f->m_p);
  CHECK_EQ(app.plan->budget, f->m_p);
  CHECK(strcmp(App_preset(&app, app.set.budget, false), "M_P") == 0);
  CHECK(Snapshot_keys(&app, "b16K<Enter>", &bad));
  CHECK_EQ(app.plan->budget, 16384);
  CHECK(Snapshot_keys(&app, "r-", &bad)); /* never below M_R */
  CHECK_EQ(app.set.budget, f->m_r);
  CHECK(Snapshot_keys(&app, "+", &bad));
  CHECK_EQ(app.set.budget, f->m_r + f->m_r / 16);
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad)); /* below M_R: the error shows, the last plan stays */
  CHECK(app.error[0] != '\0');
  CHECK_EQ(app.plan->budget, f->m_r + f->m_r / 16);
  CHECK(Snapshot_keys(&app, "rs", &bad));
  CHECK(app.error[0] == '\0');
  CHECK(strcmp(app.plan->schedule_policy, "mpmf") == 0);
  CHECK(Snapshot_keys(&app, "<End><Tab>", &bad));
  CHECK_EQ(app.cursor, app.plan->nsteps - 1);
  CHECK(app.selected >= 0);
  CHECK(Snapshot_keys(&app, "c+", &bad)); /* pinned plan survives a re-solve */
  CHECK(app.pinned && app.pinned != app.plan);
  CHECK(!Snapshot_keys(&app, "<Bogus>", &bad));
  App_free(&app);
}

TEST(worker_solves_off_thread_and_newest_wins) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, SPADMAP_DATA_DIR "/networks/nasnet_a.json", &err), SP_OK);
  app.worker = Worker_start(app.net);
  CHECK(app.worker != NULL);
  App_resolve(&app);
  app.set.budget += 4096;
  App_resolve(&app); /* supersedes the first */
  for (int i = 0; i < 2000 && app.solving; i++) {
    App_poll(&app);
    nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
  CHECK(!app.solving);
  CHECK(app.plan && app.plan->budget == app.set.budget);
  CHECK_EQ(app.violations, 0);
  App_free(&app); /* stops the worker */
}

TEST(layout_draws_status_map_panel_or_too_small) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, FIG1, &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  Grid *g = Grid_new(80, 24, true);
  View_draw(&app, g);
  char *t = Grid_toText(g);
  CHECK_HAS(t, "fig1");
  CHECK_HAS(t, "= M_R");
  CHECK_HAS(t, "memory map");
  CHECK_HAS(t, "totals");
  free(t);
  Grid_resize(g, 79, 24);
  View_draw(&app, g);
  t = Grid_toText(g);
  CHECK_HAS(t, "terminal too small (need 80x24");
  free(t);
  Grid_free(g);
  App_free(&app);
}

TEST_MAIN("tui", T(grid_text_utf8_clipping_and_dump), T(key_scripts_parse_names_and_utf8),
          T(action_table_keys_are_unique_and_configurable), T(key_scripts_change_the_settings_and_the_plan),
          T(worker_solves_off_thread_and_newest_wins), T(layout_draws_status_map_panel_or_too_small))

/* The explorer without a terminal: the grid, key names, the action table, the
 * app's settings through key scripts, the worker thread, and the layout. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "actions.h"
#include "app.h"
#include "snapshot.h"
#include "test.h"
#include "tui_test.h"
#include "views.h"
#include "worker.h"
#include "words.h"
#include "words.h"

#define FIG1 SPADMAP_DATA_DIR "/networks/fig1.json"

TEST(grid_text_utf8_clipping_and_dump) {
  Grid *g = Grid_new(10, 2, true);
  CHECK(g != NULL);
  CHECK_EQ(Grid_text(g, 1, 0, 5, ROLE_DEFAULT, 0, "a\xe2\x96\x80" "bcdefg"), 5); /* "a▀bcd" */
  CHECK_EQ(Grid_at(g, 2, 0)->ch, 0x2580);
  CHECK(Grid_at(g, 10, 0) == NULL && Grid_at(g, -1, 0) == NULL);
  Grid_put(g, 20, 20, 'x', ROLE_DEFAULT, 0); /* outside: ignored */
  char *t = Grid_toText(g);
  CHECK(t && strcmp(t, " a\xe2\x96\x80" "bc\xe2\x80\xa6\n\n") == 0); /* cut: an ellipsis says so */
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

/* Sizes fit the map's 6-column label: "1002.8K" (nasnet_a's M_P) printed as "1002.…" there. */
/* The explorer's sizes are the CLI's (Words_bytes: the same unit and figure), compact to 6 columns:
 * 1,008,000 bytes read "984.4K" beside the CLI's "984.4 KiB" (it read "0.96M" in the explorer). */
TEST(sizes_stay_within_six_columns) {
  static const struct { int64_t b; const char *want, *cli; } cases[] = {
      {1023, "1023B", "1023 B"},          {1024, "1.0K", "1.0 KiB"},           {10240, "10.0K", "10.0 KiB"},
      {1008000, "984.4K", "984.4 KiB"},   {1023948, "999.9K", "999.9 KiB"},    {1026880, "1003K", "1002.8 KiB"},
      {1048524, "1024K", "1023.9 KiB"},   {1048576, "1.00M", "1.00 MiB"},      {104852357, "99.99M", "99.99 MiB"},
      {104852358, "100.0M", "100.00 MiB"}, {1048523325, "999.9M", "999.95 MiB"}, {1073736581, "1024M", "1023.99 MiB"},
      {1073741824, "1.00G", "1.00 GiB"},   {-1026880, "-1003K", "-1002.8 KiB"}, {-394240, "-385.0K", "-385.0 KiB"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char b[32], c[32];
    App_bytes(cases[i].b, b, sizeof b);
    Words_bytes((double)cases[i].b, c, sizeof c);
    if (strcmp(b, cases[i].want) != 0 || strcmp(c, cases[i].cli) != 0)
      printf("  %lld: got %s and %s, want %s and %s\n", (long long)cases[i].b, b, c, cases[i].want, cases[i].cli);
    CHECK(strcmp(b, cases[i].want) == 0);
    CHECK(strcmp(c, cases[i].cli) == 0);
  }
  for (int64_t v = 1; v < (int64_t)1 << 40; v = v * 3 / 2 + 1) {
    char b[32], c[32];
    CHECK(strlen(App_bytes(v, b, sizeof b)) <= 6);
    /* the same unit as the CLI, and the same figure, only rounded further where 6 columns need it */
    Words_bytes((double)v, c, sizeof c);
    char *sp = strchr(c, ' ');
    CHECK(sp && b[strlen(b) - 1] == sp[1]);
    *sp = '\0';
    b[strlen(b) - 1] = '\0';
    if (strlen(b) == strlen(c)) CHECK(strcmp(b, c) == 0);
    else CHECK(strlen(b) < strlen(c) && strchr(c, '.'));
  }
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
  CHECK_EQ(Key_parse("<Click:12,34>x", &key), 13);
  CHECK(Key_isClick(key) && Key_clickX(key) == 12 && Key_clickY(key) == 34);
  CHECK_EQ(Key_parse("<click:0,0>", &key), 11);
  CHECK(Key_isClick(key) && Key_clickX(key) == 0 && Key_clickY(key) == 0);
  CHECK(!Key_isClick('x') && !Key_isClick(K_END));
  CHECK_EQ(Key_parse("<Click:1>", &key), -1);
}

TEST(action_table_keys_are_unique_and_configurable) {
  for (int i = 0; i < Actions_count(); i++) {
    const Action *a = Actions_at(i);
    CHECK(a->name && a->help && a->run && a->key);
    for (int j = 0; j < i; j++) {
      const Action *b = Actions_at(j);
      if (Action_scope(a) != Action_scope(b)) continue; /* the layer view's m is not the explorer's m */
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
  int64_t m_r0 = f->m_r, m_p0 = f->m_p;
  CHECK(Snapshot_keys(&app, "r-", &bad)); /* below M_R: the network runs tile by tile (staging.c) */
  CHECK_EQ(app.set.budget, m_r0 - m_r0 / 16);
  CHECK(strstr(app.net->name, "fig1@") != NULL);
  CHECK(app.plan && app.violations == 0);
  CHECK(Snapshot_keys(&app, "p", &bad)); /* the presets stay the original's while tiled */
  CHECK_EQ(app.set.budget, m_p0);
  CHECK(strcmp(app.net->name, "fig1") == 0);
  CHECK(Snapshot_keys(&app, "r-r", &bad));
  CHECK_EQ(app.set.budget, m_r0);
  CHECK(strcmp(app.net->name, "fig1") == 0);
  f = App_figures(&app);
  CHECK(Snapshot_keys(&app, "+", &bad));
  CHECK_EQ(app.set.budget, f->m_r + f->m_r / 16);
  int64_t m_r = f->m_r;
  char back[64];
  snprintf(back, sizeof back, "b%lld<Enter>", (long long)m_r);
  CHECK(Snapshot_keys(&app, "b1K<Enter>", &bad)); /* below M_R: the tiled network is staged (staging.c) */
  CHECK(app.error[0] == '\0');
  CHECK(strstr(app.net->name, "fig1@1024") != NULL);
  CHECK(app.plan && app.plan->budget == 1024 && app.violations == 0);
  CHECK(Snapshot_keys(&app, back, &bad)); /* at M_R the original comes back */
  CHECK(strcmp(app.net->name, "fig1") == 0);
  f = App_figures(&app);
  CHECK_EQ(app.plan->budget, m_r);
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
  for (int i = 0; i < 60000 && app.solving; i++) { /* up to 5 min: valgrind on a busy machine */
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

/* Polls the app until done() or about 5 min (transformer's exact M_P, both
 * settings, under valgrind on a busy machine took more than the 60 s it had). */
static void Test_pollUntil(App *app, bool (*done)(App *)) {
  for (int i = 0; i < 60000 && !done(app); i++) {
    App_poll(app);
    nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
}
static bool Test_notSolving(App *app) { return !app->solving; }
static bool Test_hasProgress(App *app) { return !app->solving || app->has_progress; }
static bool Test_settled(App *app) { return !app->solving && !app->await_preset && App_figuresReady(app); }

TEST(progress_reports_reach_the_status_line_and_panel) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, FIG1, &err), SP_OK);
  App_resolve(&app); /* a plan first, synchronously */
  app.worker = Worker_start(app.net);
  CHECK(app.worker != NULL);
  app.solving = true; /* as if a searching policy were running */
  SolveProgress pr = {.stage = "full model: branch and bound", .incumbent = 4096, .bound = 3072, .gap = 0.25,
                      .has_incumbent = true, .has_bound = true, .nodes = 17, .elapsed = 1.5};
  Worker_report(app.worker, &pr);
  CHECK(App_poll(&app));
  CHECK(app.has_progress);
  char *t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "solving 1.50 s, 4.0K/3.0K, gap 25.0 %: full");
  CHECK_HAS(t, "full model: branch and bound"); /* the stage in full, in the panel */
  CHECK_HAS(t, "search");
  CHECK_HAS(t, "incumbent 4.0K     bound 3.0K");
  CHECK_HAS(t, "gap 25.0 %   nodes 17  1.50 s");
  CHECK_HAS(t, "C cancel the solve");
  free(t);
  /* C asks the worker once (nothing runs in it: harmless); a second C is not sent again */
  CHECK(App_cancel(&app));
  CHECK(app.cancel_asked);
  CHECK(!App_cancel(&app));
  app.solving = false;
  App_free(&app);
}

/* A network opened and solved on this thread, deterministically (no worker yet). */
static void Test_openSolved(App *app, const char *path) {
  SpError err;
  CHECK_EQ(App_init(app, path, &err), SP_OK);
  app->deterministic = true;
  App_resolve(app);
  CHECK(app->plan != NULL);
}

/* The 80x24 defect "replacement policy: lru (the menu m has the ILP ones)ect a tensor at the cursor",
 * reproduced: nasnet_a under cosma stopped at its time limit (the panel's "why" note wraps to 5 rows),
 * then e (the message) while the next search reports progress (the panel's search section, 5 rows):
 * the totals leave the tensor section no row, and its "Tab: select a tensor at the cursor" was drawn
 * on the message line, the message only overwriting its first 54 columns. The plan's solver fields
 * are those the real stopped cosma run leaves (its words, at --time-limit 1); what is under test is
 * the layout. Fails before 4acdb3c (the bottom line cleared, the section kept to its rows). */
TEST(a_message_owns_the_bottom_line_while_a_search_fills_the_panel) {
  App app;
  Test_openSolved(&app, SPADMAP_DATA_DIR "/networks/nasnet_a.json");
  if (!app.plan) return;
  SolverInfo *si = &app.plan->solver;
  si->status = SOLVER_TIMEOUT;
  si->has_objective = si->has_bound = true;
  si->objective = 3344384, si->bound = 275968;
  snprintf(si->note, sizeof si->note, "the joint model with addresses is too large to build and load in the time "
                                      "left; bound from the checkpoint bound (275968 bytes)");
  app.worker = Worker_start(app.net);
  CHECK(app.worker != NULL);
  app.solving = true; /* the next search, started by e, reports */
  SolveProgress pr = {.stage = "COSMA FS", .incumbent = 3344384, .bound = 275968, .gap = 0.9, .has_incumbent = true,
                      .has_bound = true, .nodes = 3, .elapsed = 0.5};
  Worker_report(app.worker, &pr);
  CHECK(App_poll(&app));
  CHECK(app.has_progress);
  Actions_key(&app, 'e');
  CHECK_HAS(app.message, "replacement policy: lru (the menu m has the ILP ones)");
  char *t = Test_screen(&app, 80, 24);
  const char *b = t; /* row 23, the bottom line */
  for (int row = 0; row < 23 && b; row++) b = strchr(b, '\n') ? strchr(b, '\n') + 1 : NULL;
  char line[256] = "";
  if (b) snprintf(line, sizeof line, "%.*s", (int)strcspn(b, "\n"), b);
  if (strcmp(line, " replacement policy: lru (the menu m has the ILP ones)") != 0) printf("  bottom line: \"%s\"\n", line);
  CHECK_EQ(strcmp(line, " replacement policy: lru (the menu m has the ILP ones)"), 0);
  CHECK_HAS(t, "why: the joint model"); /* the state described: the note and the search section */
  CHECK_HAS(t, "C cancels (keeps the best plan so");
  free(t);
  app.solving = false;
  App_free(&app);
}

TEST(cancel_key_stops_an_ilp_and_keeps_the_last_plan) {
  App app;
  Test_openSolved(&app, SPADMAP_DATA_DIR "/networks/nasnet_a.json");
  const Plan *before = app.plan;
  CHECK_EQ(Actions_key(&app, 'C'), ACT_REDRAW);
  CHECK_HAS(app.message, "no solve is running");
  app.worker = Worker_start(app.net);
  CHECK(app.worker != NULL);
  for (int i = 0; i < App_policyCount(POLICY_SCHEDULE); i++)
    if (strcmp(App_policy(POLICY_SCHEDULE, i)->name, "cosma") == 0) app.set.sched = i;
  /* COSMA on nasnet_a at M_R: no proof within 60 s (its order bound is 270
   * KiB against a 3.2 MiB plan, docs/results/cosma_bounds.md). vit_b_16, used
   * before, is proven in seconds since that bound; amoebanet_d's replacement
   * ILP before it ended in 0.03 s: the cancel key came too late. */
  App_resolve(&app);
  Test_pollUntil(&app, Test_hasProgress);
  CHECK(app.solving);
  CHECK_EQ(Actions_key(&app, 'C'), ACT_REDRAW);
  CHECK(app.cancel_asked);
  Test_pollUntil(&app, Test_notSolving);
  CHECK(!app.solving);
  CHECK(app.cancelled);
  CHECK(app.error[0] == '\0');
  /* the last good plan stays, or the search's best plan so far replaces it */
  CHECK(app.plan == before || (app.plan && app.plan->solver.status == SOLVER_CANCELLED && app.violations == 0));
  char *t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "cancelled: ");
  free(t);
  App_free(&app);
}

/* A search that stopped without a proof says why in the panel (issue 25: the
 * solver's note, wrapped whole), a proven or heuristic plan says nothing more. */
TEST(panel_says_why_a_search_stopped) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, FIG1, &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  CHECK(app.plan != NULL);
  if (!app.plan) return;
  snprintf(app.plan->solver.note, sizeof app.plan->solver.note,
           "stopped: the time limit; bound 4.69M from the checkpoint chain (every order)");
  char *t = Test_screen(&app, 120, 40);
  CHECK(strstr(t, "why:") == NULL); /* a heuristic plan: no reason to give */
  free(t);
  app.plan->solver.status = SOLVER_TIMEOUT;
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "why: stopped: the time limit;");
  CHECK_HAS(t, "checkpoint chain"); /* the end is there too: wrapped, not cut */
  free(t);
  App_free(&app);
}

TEST(figures_come_from_the_worker_and_presets_wait_for_them) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, SPADMAP_DATA_DIR "/networks/transformer.json", &err), SP_OK);
  app.deterministic = true;
  app.worker = Worker_start(app.net);
  CHECK(app.worker != NULL);
  CHECK(!app.fig_ok[0] && !app.fig_ok[1]);
  int64_t m_r = app.set.budget;
  CHECK_EQ(m_r, Figures_minRequired(app.net, false));
  App_resolve(&app); /* asks for the activations-only figures */
  CHECK(app.fig_asked[0] && !app.fig_ok[0]);
  Test_pollUntil(&app, Test_settled);
  CHECK(app.fig_ok[0] && !app.fig_ok[1]);
  CHECK_EQ(Actions_key(&app, 'h'), ACT_REDRAW | ACT_RESOLVE);
  App_resolve(&app);
  Test_pollUntil(&app, Test_settled);
  CHECK_EQ(app.set.budget, app.fig[0].m_h);
  /* params on: M_H follows, but the figures are not there yet: no wait, no solve */
  CHECK_EQ(Actions_key(&app, 'w'), ACT_REDRAW);
  CHECK(app.set.params && app.await_preset == 'H' && !app.fig_ok[1] && app.fig_asked[1]);
  char *t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "computing figures...");
  free(t);
  Test_pollUntil(&app, Test_settled);
  CHECK(app.fig_ok[1] && !app.await_preset);
  CHECK_EQ(app.set.budget, app.fig[1].m_h);
  CHECK(app.plan && app.plan->budget == app.fig[1].m_h && app.plan_set.params);
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "= M_H");
  CHECK(strstr(t, "computing figures") == NULL);
  free(t);
  App_free(&app);
}

static bool Test_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

TEST(picker_lists_filters_and_loads_or_reports) {
  char dir[] = "/tmp/spadmap_picker_XXXXXX", p1[256], p2[256], p3[256];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(p1, sizeof p1, "%s/fig1.json", dir);
  snprintf(p2, sizeof p2, "%s/bad.json", dir);
  snprintf(p3, sizeof p3, "%s/notes.txt", dir);
  FILE *in = fopen(FIG1, "r");
  char buf[65536];
  size_t n = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
  if (in) fclose(in);
  buf[n] = '\0';
  CHECK(n > 0 && Test_write(p1, buf) && Test_write(p2, "{\"ops\": [") && Test_write(p3, "x"));
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, p1, &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  const Plan *before = app.plan;
  CHECK_EQ(Actions_key(&app, 'O'), ACT_REDRAW);
  CHECK(app.picker.open);
  bool bad = false, fig1 = false, bundled = false, txt = false;
  for (int i = 0; i < app.picker.n; i++) {
    bad |= strcmp(app.picker.labels[i], "bad.json") == 0;
    fig1 |= strcmp(app.picker.labels[i], "fig1.json") == 0;
    bundled |= strcmp(app.picker.labels[i], "diamond.json (bundled)") == 0;
    txt |= strstr(app.picker.labels[i], "notes") != NULL;
    if (i) CHECK(strcmp(app.picker.labels[i - 1], app.picker.labels[i]) <= 0);
  }
  CHECK(bad && fig1 && bundled && !txt);
  CHECK(strcmp(app.picker.labels[app.picker.shown[app.picker.sel]], "fig1.json") == 0); /* starts on the loaded one */
  const char *bad_ = NULL;
  CHECK(Snapshot_keys(&app, "qq", &bad_)); /* q types, it does not quit */
  CHECK(app.picker.open && strcmp(app.picker.filter, "qq") == 0 && app.picker.nshown == 0);
  CHECK(Snapshot_keys(&app, "<BS><BS>BAD<Enter>", &bad_)); /* a broken file: the old network stays */
  CHECK(!app.picker.open);
  CHECK(app.message_warn);
  CHECK_HAS(app.message, "cannot open bad.json");
  CHECK(strcmp(app.net->name, "fig1") == 0 && app.plan == before);
  CHECK(Snapshot_keys(&app, "Odiamond<Down><Enter>", &bad_));
  CHECK(strcmp(app.net->name, "diamond") == 0);
  CHECK(app.plan && app.plan->nsteps == app.net->nops && app.violations == 0);
  CHECK_EQ(app.set.budget, App_figures(&app)->m_r);
  CHECK(Snapshot_keys(&app, "Ozz<Esc>", &bad_));
  CHECK(!app.picker.open && strcmp(app.net->name, "diamond") == 0);
  App_free(&app);
  unlink(p1);
  unlink(p2);
  unlink(p3);
  rmdir(dir);
}

/* Every cell of the block area: a click there finds a block exactly where one is drawn. */
static void Test_clicksMatchTheMap(App *app, Grid *g) {
  View_draw(app, g);
  const MapGeom *m = &app->map_geom;
  CHECK(m->valid);
  int blocks = 0;
  for (int y = m->y; y < m->y + m->rows; y++)
    for (int x = m->x; x < m->x + m->cols; x++) {
      int step, stay;
      CHECK(MapView_hit(app, x, y, &step, &stay));
      uint32_t ch = Grid_at(g, x, y)->ch;
      bool drawn = ch == 0x2588 || ch == 0x2580 || ch == 0x2584 || ch == 0x25BC || ch == 0x25B2;
      if (drawn != (stay >= 0)) {
        printf("  cell (%d,%d) U+%04X, hit stay %d\n", x, y, (unsigned)ch, stay);
        CHECK(drawn == (stay >= 0));
        return;
      }
      blocks += drawn;
      if (stay >= 0) CHECK(app->plan->stays[stay].start <= step && step <= app->plan->stays[stay].end);
      if (stay >= 0 && Grid_at(g, x, y)->fg != ROLE_SELECT) CHECK(Grid_at(g, x, y)->fg == Role_tensor(app->plan->stays[stay].tensor) || Grid_at(g, x, y)->bg == Role_tensor(app->plan->stays[stay].tensor) || ch == 0x25BC || ch == 0x25B2);
      CHECK(step >= m->t0 && step < m->t0 + m->span);
    }
  CHECK(blocks > 0);
  int step, stay;
  CHECK(!MapView_hit(app, m->x - 1, m->y, &step, &stay));
  CHECK(!MapView_hit(app, m->x, m->axis_y + 2, &step, &stay));
}

TEST(clicks_move_the_cursor_and_select_through_the_map_axes) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, SPADMAP_DATA_DIR "/networks/diamond.json", &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  Grid *g = Grid_new(120, 40, true);
  Test_clicksMatchTheMap(&app, g);
  /* a click on a block: its step, its tensor */
  const MapGeom *m = &app.map_geom;
  int x = m->x + m->cols - 1, y = m->y + m->rows - 1, step, stay;
  CHECK(MapView_hit(&app, x, y, &step, &stay) && stay >= 0);
  CHECK_EQ(Actions_key(&app, Key_click(x, y)), ACT_REDRAW);
  CHECK_EQ(app.cursor, step);
  CHECK_EQ(app.selected, app.plan->stays[stay].tensor);
  /* the step axis: the cursor moves, the selection stays */
  CHECK_EQ(Actions_key(&app, Key_click(m->x, m->axis_y)), ACT_REDRAW);
  CHECK_EQ(app.cursor, 0);
  CHECK_EQ(app.selected, app.plan->stays[stay].tensor);
  /* a schedule row in the panel */
  const SchedGeom *sg = &app.sched_geom;
  CHECK(sg->valid && sg->rows == app.plan->nsteps);
  CHECK_EQ(Actions_key(&app, Key_click(sg->x + 3, sg->y + 4)), ACT_REDRAW);
  CHECK_EQ(app.cursor, sg->first + 4);
  CHECK_EQ(Actions_key(&app, Key_click(0, 0)), 0); /* the status line: nothing */
  app.help = true; /* a click closes the help (as any key) and acts on nothing under it */
  int at = app.cursor;
  CHECK_EQ(Actions_key(&app, Key_click(sg->x + 3, sg->y)), ACT_REDRAW);
  CHECK(!app.help);
  CHECK_EQ(app.cursor, at);
  App_free(&app);

  /* zoomed and panned, and squeezed (several steps a column) */
  CHECK_EQ(App_init(&app, SPADMAP_DATA_DIR "/networks/resnet50.json", &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  const char *bad = NULL;
  Grid_resize(g, 80, 24);
  Test_clicksMatchTheMap(&app, g); /* 72 steps in 37 columns */
  CHECK(Snapshot_keys(&app, "zz]]iii<Up>", &bad));
  Test_clicksMatchTheMap(&app, g);
  App_free(&app);
  Grid_free(g);
}

/* htop's habits: F1 opens the help, F10 quits; a key bound to nothing says so
 * (j and u did nothing and said nothing); the help names each action beside its key. */
TEST(f1_f10_and_unbound_keys_say_something) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, FIG1, &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  int key;
  CHECK_EQ(Key_parse("<F1>", &key), 4);
  CHECK_EQ(Actions_key(&app, key), ACT_REDRAW);
  CHECK(app.help);
  CHECK_EQ(Actions_key(&app, 'x'), ACT_REDRAW); /* any key closes it */
  CHECK(!app.help);
  CHECK_EQ(Key_parse("<F10>", &key), 5);
  CHECK_EQ(Actions_key(&app, key), ACT_QUIT);
  app.message[0] = '\0';
  CHECK_EQ(Actions_key(&app, 'j'), ACT_REDRAW);
  CHECK_HAS(app.message, "no action on j (? for help)");
  CHECK_EQ(Actions_key(&app, 'u'), ACT_REDRAW);
  CHECK_HAS(app.message, "no action on u");
  Grid *g = Grid_new(160, 50, true);
  app.help = true;
  View_draw(&app, g);
  char *t = Grid_toText(g);
  CHECK_HAS(t, "budget_mr: budget = M_R");
  CHECK_HAS(t, "quit: quit");
  free(t);
  Grid_free(g);
  App_free(&app);
}

/* One vocabulary (words.c) for results, gaps and times: no "feasible (feasible),
 * gap 100.0 %", no bare "in 4.93 s" under a 15 s limit, gaps as percents, times by one formatter. */
TEST(words_say_what_the_solver_did) {
  char b[200];
  CHECK(strcmp(Words_seconds(4.70288, b, sizeof b), "4.70 s") == 0);
  CHECK(strcmp(Words_seconds(0.0047, b, sizeof b), "4.70 ms") == 0);
  CHECK(strcmp(Words_seconds(0.4803, b, sizeof b), "480 ms") == 0);
  CHECK(strcmp(Words_gap(0.0084, b, sizeof b), "0.84 %") == 0);
  CHECK(strcmp(Words_gap(0.125, b, sizeof b), "12.5 %") == 0);
  SolverInfo si = {.status = SOLVER_FEASIBLE, .objective = 100, .bound = 0, .has_objective = true, .has_bound = true};
  CHECK(strcmp(Words_result(&si, -1, 0, b, sizeof b), "not proven (the search stopped), no bound yet") == 0);
  si.status = SOLVER_TIMEOUT, si.bound = 87.5;
  CHECK(strcmp(Words_result(&si, 15.01, 15, b, sizeof b),
               "not proven (time limit), gap 12.5 % in 15.01 s of the 15.00 s limit") == 0);
  /* the same words before the limit: a stage's share ends in work, not seconds (issue 32) */
  CHECK(strcmp(Words_result(&si, 4.93, 15, b, sizeof b), "not proven (time limit), gap 12.5 % in 4.93 s of the 15.00 s limit") == 0);
  CHECK(strcmp(Words_result(&si, 4.93, 0, b, sizeof b), "not proven (time limit), gap 12.5 % in 4.93 s") == 0);
  si = (SolverInfo){.status = SOLVER_OPTIMAL};
  CHECK(strcmp(Words_result(&si, 0.0021, 0, b, sizeof b), "optimal in 2.10 ms") == 0);
  CHECK(strstr(Words_result(&si, -1, 0, b, sizeof b), "feasible") == NULL);
}

/* After C the same ILP chosen again runs again (it did nothing); opening another
 * network with an ILP policy in force says it searches, for how long, and how to stop. */
TEST(menu_reruns_a_cancelled_search_and_open_says_it_searches) {
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, FIG1, &err), SP_OK);
  app.deterministic = true;
  App_resolve(&app);
  const char *bad = NULL;
  CHECK_EQ(Actions_key(&app, 'm'), ACT_REDRAW);
  CHECK_EQ(Actions_key(&app, K_ENTER), ACT_REDRAW); /* nothing changed, nothing cancelled: no re-solve */
  CHECK_HAS(app.message, "policies unchanged");
  app.cancelled = true; /* as C leaves it */
  CHECK_EQ(Actions_key(&app, 'm'), ACT_REDRAW);
  CHECK_EQ(Actions_key(&app, K_ENTER), ACT_REDRAW | ACT_RESOLVE);
  CHECK_HAS(app.message, "running the cancelled search again");
  for (int i = 0; i < App_policyCount(POLICY_REPLACEMENT); i++)
    if (strcmp(App_policy(POLICY_REPLACEMENT, i)->name, "ilp") == 0) app.set.repl = i;
  app.set.time_limit = 15;
  CHECK(Snapshot_keys(&app, "Odiamond<Enter>", &bad));
  CHECK_HAS(app.message, "opened diamond");
  CHECK_HAS(app.message, "the ILP policy searches it for up to 15.00 s (C cancels");
  App_free(&app);
}

TEST_MAIN("tui", T(f1_f10_and_unbound_keys_say_something) /* first: a rebinding drops the F keys */,
          T(grid_text_utf8_clipping_and_dump), T(sizes_stay_within_six_columns), T(key_scripts_parse_names_and_utf8),
          T(action_table_keys_are_unique_and_configurable), T(key_scripts_change_the_settings_and_the_plan),
          T(worker_solves_off_thread_and_newest_wins), T(layout_draws_status_map_panel_or_too_small),
          T(progress_reports_reach_the_status_line_and_panel),
          T(a_message_owns_the_bottom_line_while_a_search_fills_the_panel), T(cancel_key_stops_an_ilp_and_keeps_the_last_plan),
          T(panel_says_why_a_search_stopped),
          T(figures_come_from_the_worker_and_presets_wait_for_them), T(picker_lists_filters_and_loads_or_reports),
          T(clicks_move_the_cursor_and_select_through_the_map_axes), T(words_say_what_the_solver_did),
          T(menu_reruns_a_cancelled_search_and_open_says_it_searches))

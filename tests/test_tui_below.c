/* The explorer below M_R (issue 26, points 5-7): presets keep one meaning (the
 * opened network's M_R / M_H / M_P, shown on the status line) whether the tiled
 * network is shown or not, with the figures computed on the worker too; a budget
 * no tiling reaches keeps the last good plan on screen with the tiler's reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actions.h"
#include "app.h"
#include "clock.h"
#include "figures.h"
#include "import.h"
#include "layer/arch.h"
#include "netcost/netcost.h"
#include "words.h"
#include "offchip_view.h"
#include "snapshot.h"
#include "tiles/tiles.h"
#include "test.h"
#include "tui_test.h"
#include "views.h"
#include "worker.h"

#define NETS SPADMAP_DATA_DIR "/networks/"

/* amoebanet_d's figures (spadmap info), activations only */
enum { AMOEBA_MR = 3211264, AMOEBA_MH = 3738112, AMOEBA_MP = 4264960 };

static void Test_open(App *app, const char *net) {
  SpError err;
  char path[512];
  snprintf(path, sizeof path, "%s%s.json", NETS, net);
  CHECK_EQ(App_init(app, path, &err), SP_OK);
  app->deterministic = true;
}

static bool Test_tiled(const App *app) { return app->untiled_path[0] != '\0'; }

static void Test_at(App *app, int64_t budget) {
  app->set.budget = budget;
  app->set.preset = 0;
  App_resolve(app);
}

TEST(below_m_r_every_preset_is_the_opened_networks) {
  const struct {
    const char *keys;
    int64_t want;
  } cases[] = {{"p", AMOEBA_MP}, {"h", AMOEBA_MH}, {"r", AMOEBA_MR}, {"bM_P<Enter>", AMOEBA_MP},
               {"bM_R<Enter>", AMOEBA_MR}, {"bM_H<Enter>", AMOEBA_MH}, {"bM_R*0.5<Enter>", AMOEBA_MR / 2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    App app;
    Test_open(&app, "amoebanet_d");
    Test_at(&app, 1572864); /* 1.5M */
    CHECK(Test_tiled(&app));
    char *t = Test_screen(&app, 140, 45);
    CHECK_HAS(t, "budget 1.50M < M_R 3.06M, tiled"); /* the status line says which M_R */
    free(t);
    Test_keys(&app, cases[i].keys);
    if (app.set.budget != cases[i].want) printf("  keys %s: budget %lld\n", cases[i].keys, (long long)app.set.budget);
    CHECK_EQ(app.set.budget, cases[i].want);
    CHECK_EQ(Test_tiled(&app), cases[i].want < AMOEBA_MR);
    CHECK(app.plan != NULL);
    App_free(&app);
  }
}

TEST(below_m_r_plus_and_minus_step_by_the_opened_networks_m_r) {
  App app;
  Test_open(&app, "amoebanet_d");
  Test_at(&app, 1572864);
  CHECK(Test_tiled(&app));
  Test_keys(&app, "-");
  CHECK_EQ(app.set.budget, 1572864 - AMOEBA_MR / 16);
  CHECK(Test_tiled(&app));
  Test_keys(&app, "++");
  CHECK_EQ(app.set.budget, 1572864 + AMOEBA_MR / 16);
  App_free(&app);
}

static bool Test_idle(App *app) {
  return !app->solving && !app->await_preset && (!app->worker || !Worker_busy(app->worker));
}
static bool Test_wait(App *app, bool (*done)(App *), double seconds) {
  double t0 = Clock_now();
  while (!done(app) && Clock_now() - t0 < seconds) {
    App_poll(app);
    nanosleep(&(struct timespec){0, 2000000}, NULL);
  }
  return done(app);
}

/* In a terminal the figures come from a worker: the tiled network is shown before
 * the original's M_P is known. p must wait for it, not refuse. */
TEST(with_workers_p_below_m_r_waits_for_the_opened_networks_m_p) {
  App app;
  Test_open(&app, "amoebanet_d");
  app.deterministic = false;
  App_startWorkers(&app);
  App_prefetchFigures(&app);
  Test_at(&app, 1572864);
  CHECK(Test_wait(&app, Test_idle, 30)); /* with workers the tiler runs on its own thread (staging.c) */
  CHECK(Test_tiled(&app));
  int flags = Actions_key(&app, 'p');
  if (flags & ACT_RESOLVE) App_resolve(&app);
  CHECK(!app.message_warn); /* it refused: "M_P is the untiled network's" */
  CHECK(Test_wait(&app, Test_idle, 30));
  CHECK_EQ(app.set.budget, AMOEBA_MP);
  CHECK(!Test_tiled(&app));
  CHECK(app.plan && app.plan->budget == AMOEBA_MP);
  App_free(&app);
}

/* nasnet_a at 100K: no tiling reaches it (its largest tile needs 103200 bytes).
 * The map keeps the last good plan, titled as such, and the reason is the
 * tiler's, from the original network or from a tiled one. */
TEST(a_budget_no_tiling_reaches_keeps_the_last_good_plan_and_says_why) {
  const char *before[] = {"", "b300K<Enter>"};
  for (int k = 0; k < 2; k++) {
    App app;
    Test_open(&app, "nasnet_a");
    App_resolve(&app);
    Test_keys(&app, before[k]);
    CHECK(app.plan != NULL);
    int64_t good = app.plan ? app.plan->budget : 0;
    int nops = app.net->nops;
    Test_keys(&app, "b100K<Enter>");
    CHECK(app.plan != NULL);
    CHECK_EQ(app.plan ? app.plan->budget : 0, good);
    CHECK_EQ(app.net->nops, nops); /* the network shown stays */
    CHECK_EQ(app.set.budget, 102400);
    CHECK_HAS(app.error, "largest tile still needs 103200");
    CHECK(strstr(app.error, "< M_R") == NULL);
    char *t = Test_screen(&app, 160, 40);
    CHECK_HAS(t, "LAST GOOD plan");
    CHECK_HAS(t, "failed: showing the last good plan");
    CHECK_HAS(t, "largest tile still needs 103200");
    free(t);
    /* and a budget that works again replaces it */
    Test_keys(&app, "r");
    CHECK(app.error[0] == '\0');
    CHECK(app.plan && app.plan->budget == 795680);
    App_free(&app);
  }
}

/* The off-chip view below M_R: a budget that re-tiles stays in it; its panel
 * gives the budget in force (not the one the tiles were first cut for); its
 * address labels are round and its addresses in K/M like the sizes. */
TEST(the_offchip_view_stays_through_retiling_and_its_figures_follow_the_budget) {
  App app;
  Test_open(&app, "squeezenet1_0");
  App_resolve(&app);
  Test_keys(&app, "D-");
  CHECK(Test_tiled(&app));
  CHECK(app.offchip_map); /* it dropped back to the on-chip map */
  Test_keys(&app, "-");
  CHECK(app.offchip_map);
  char b[16], want[64];
  snprintf(want, sizeof want, "on-chip %s:", App_bytes(app.set.budget, b, sizeof b));
  char *t = Test_screen(&app, 120, 30);
  CHECK_HAS(t, want);
  free(t);
  Test_keys(&app, "b300K<Enter><Right><Right>");
  CHECK(app.offchip_map);
  t = Test_screen(&app, 100, 30);
  CHECK_HAS(t, "on-chip 300.0K: 18 ops tiled");
  CHECK_HAS(t, "    1M ");  /* round labels ... */
  CHECK_HAS(t, "  512K ");
  CHECK(strstr(t, "1008.9") == NULL); /* ... not a fraction of the peak */
  CHECK(strstr(t, "756.7K") == NULL);
  CHECK_HAS(t, " @1.07M"); /* x at 1121128 bytes, in the sizes' units */
  CHECK(strstr(t, "@1121128") == NULL);
  free(t);
  App_free(&app);
}

/* S in the off-chip view writes the TAA plan (spadmap-offchip), and it passes
 * the off-chip validator against the network opened. */
TEST(save_in_the_offchip_view_writes_a_valid_taa_plan) {
  const char *before[] = {"D", "b300K<Enter>D"};
  for (int k = 0; k < 2; k++) {
    App app;
    Test_open(&app, "squeezenet1_0");
    App_resolve(&app);
    Test_keys(&app, before[k]);
    Test_keys(&app, "S");
    CHECK(app.prompt);
    CHECK_HAS(app.prompt_buf, "squeezenet1_0.offchip.json");
    char path[] = "/tmp/spadmap-test-offchip-XXXXXX.json";
    int fd = mkstemps(path, 5);
    CHECK(fd >= 0);
    close(fd);
    remove(path); /* S never overwrites without a yes */
    snprintf(app.prompt_buf, sizeof app.prompt_buf, "%s", path);
    Test_keys(&app, "<Enter>");
    CHECK(!app.message_warn);
    CHECK_HAS(app.message, "saved the off-chip (TAA) plan");
    CHECK_HAS(app.message, "validated)");
    OffchipPlan *plan = NULL;
    SpError err;
    CHECK_EQ(OffchipPlan_load(path, &plan, &err), SP_OK);
    Net *net = NULL;
    ImportOptions io;
    ImportOptions_init(&io);
    CHECK_EQ(Import_open(NETS "squeezenet1_0.json", &io, &net, &err), SP_OK);
    if (plan && net) {
      Status st = OffchipPlan_validate(plan, net, &err);
      if (st) printf("  %s\n", err.text);
      CHECK_EQ(st, SP_OK);
      CHECK_EQ(plan->capacity, k == 0 ? 1492992 : app.untiled_capacity); /* M_R, or what staging tiled for */
      CHECK(strcmp(plan->method, "taa") == 0);
    }
    /* the on-chip map saves the on-chip plan, as before */
    Test_keys(&app, "D");
    Test_keys(&app, "S");
    CHECK_HAS(app.prompt_buf, ".plan.json");
    Test_keys(&app, "<Esc>");
    OffchipPlan_free(plan);
    Net_free(net);
    remove(path);
    App_free(&app);
  }
}

/* Two small convolutions (3 KiB at M_R): mapped by cosa in milliseconds. */
static const char Two_convs[] =
    "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"two_convs\", \"tensors\": ["
    "{\"name\": \"x\", \"shape\": [1, 4, 16, 16], \"dtype\": \"int8\", \"kind\": \"input\"},"
    "{\"name\": \"w1\", \"shape\": [8, 4, 3, 3], \"dtype\": \"int8\", \"kind\": \"param\"},"
    "{\"name\": \"a\", \"shape\": [1, 8, 16, 16], \"dtype\": \"int8\"},"
    "{\"name\": \"w2\", \"shape\": [4, 8, 1, 1], \"dtype\": \"int8\", \"kind\": \"param\"},"
    "{\"name\": \"y\", \"shape\": [1, 4, 16, 16], \"dtype\": \"int8\", \"kind\": \"output\"}], \"ops\": ["
    "{\"name\": \"c1\", \"type\": \"conv2d\", \"inputs\": [\"x\", \"w1\"], \"outputs\": [\"a\"], \"attrs\": "
    "{\"kernel\": [3, 3], \"stride\": [1, 1], \"padding\": [1, 1], \"groups\": 1}},"
    "{\"name\": \"c2\", \"type\": \"conv2d\", \"inputs\": [\"a\", \"w2\"], \"outputs\": [\"y\"], \"attrs\": "
    "{\"kernel\": [1, 1], \"stride\": [1, 1], \"padding\": [0, 0], \"groups\": 1}}]}";

/* "N cycles" as `spadmap cost NET --budget B --method cosa` gives it (engine/netcost, the same run). */
static void Test_costCycles(const char *path, const char *arch_path, int64_t budget, char *out, size_t n) {
  Net *net;
  Arch arch;
  SpError err;
  NetCostMapper *m = NULL;
  LayerMapOptions o;
  LayerMapOptions_init(&o);
  out[0] = '\0';
  CHECK_EQ(Net_load(path, &net, &err), SP_OK);
  CHECK_EQ(Arch_load(arch_path, &arch, &err), SP_OK);
  CHECK_EQ(NetCostMapper_new(&arch, LayerMap_find("cosa"), &o, &m, &err), SP_OK);
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = budget;
  NetCost nc;
  NetCostStage st;
  Plan *plan = NULL;
  CHECK_EQ(NetCost_run(net, &s, m, &nc, &st, &plan, &err), SP_OK);
  CHECK_EQ(st.tiled != NULL, budget < Figures_minRequired(net, false));
  char c[40];
  snprintf(out, n, "%s cycles, ", Words_count((double)nc.cycles, c, sizeof c));
  NetCost_free(&nc);
  NetCostStage_free(&st);
  Plan_free(plan);
  NetCostMapper_free(m);
  Net_free(net);
}

/* With --arch the status line gives the network's cycles below M_R too, the figure
 * `spadmap cost` gives at that budget (the tiled network's plan costed as the opened
 * network's ops), and keeps giving it back at M_R. (Before: nothing below M_R, and
 * nothing at M_R after a tiling either: the setting was lost when the tiles loaded.) */
TEST(below_m_r_the_status_line_gives_the_cycles_cost_gives) {
  char path[] = "/tmp/spadmap-two-convs-XXXXXX.json";
  int fd = mkstemps(path, 5);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK_EQ(write(fd, Two_convs, sizeof Two_convs - 1), (ssize_t)(sizeof Two_convs - 1));
  close(fd);
  const char *arch = SPADMAP_DATA_DIR "/arch/cosa_baseline.json";
  App app;
  SpError err;
  CHECK_EQ(App_init(&app, path, &err), SP_OK);
  app.deterministic = true;
  snprintf(app.layer_arch, sizeof app.layer_arch, "%s", arch);
  app.netstatus_on = true;
  const int64_t budgets[] = {3072, 1536, 3072}; /* M_R, M_R/2 (tiled), M_R again */
  for (int k = 0; k < 3; k++) {
    Test_at(&app, budgets[k]);
    CHECK_EQ(Test_tiled(&app), budgets[k] < 3072);
    char want[64];
    Test_costCycles(path, arch, budgets[k], want, sizeof want);
    char *t = Test_screen(&app, 200, 30);
    if (!strstr(t, want)) printf("  budget %lld: no \"%s\" on the status line:\n%.200s\n", (long long)budgets[k], want, t);
    CHECK_HAS(t, want);
    CHECK_HAS(t, "on cosa-baseline (cosa)");
    free(t);
  }
  App_free(&app);
  unlink(path);
}

TEST_MAIN("tui_below", T(below_m_r_every_preset_is_the_opened_networks),
          T(below_m_r_plus_and_minus_step_by_the_opened_networks_m_r),
          T(with_workers_p_below_m_r_waits_for_the_opened_networks_m_p),
          T(a_budget_no_tiling_reaches_keeps_the_last_good_plan_and_says_why),
          T(the_offchip_view_stays_through_retiling_and_its_figures_follow_the_budget),
          T(save_in_the_offchip_view_writes_a_valid_taa_plan), T(below_m_r_the_status_line_gives_the_cycles_cost_gives))

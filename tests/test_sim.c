/* The simulator, allocators and replacement policies: unit behaviour on small
 * hand-made cases, and every policy combination on every shipped network
 * checked by the independent validator. */
#include <dirent.h>

#include "alloc.h"
#include "figures.h"
#include "policy.h"
#include "replace.h"
#include "sim.h"
#include "solve.h"
#include "combos.h"
#include "test.h"
#include "validate.h"

static Net *parse(const char *json) {
  Net *net = NULL;
  SpError err;
  if (Net_parse(json, strlen(json), "inline", &net, &err)) printf("  parse: %s\n", err.text);
  return net;
}

TEST(allocators_pick_the_documented_gap) {
  const Block b[] = {{0, 100}, {300, 50}, {400, 600}};
  /* gaps: [100,300) 200 bytes, [350,400) 50 bytes, then [1000,1200) at the end */
  CHECK_EQ(Alloc_linear(b, 3, 50, 1200), 350);   /* best fit: the 50-byte gap */
  CHECK_EQ(Alloc_firstFit(b, 3, 50, 1200), 100); /* lowest gap */
  CHECK_EQ(Alloc_linear(b, 3, 200, 1200), 100);
  CHECK_EQ(Alloc_linear(b, 3, 201, 1300), 1000); /* no interior gap: after the last block */
  CHECK_EQ(Alloc_linear(b, 3, 201, 1200), -1);   /* ... which must fit the budget */
  CHECK_EQ(Alloc_firstFit(b, 3, 200, 1200), 100);
  CHECK_EQ(Alloc_firstFit(b, 0, 1200, 1200), 0);
  CHECK_EQ(Alloc_firstFit(b, 0, 1201, 1200), -1);
}

TEST(replacement_scores_order_candidates) {
  EvictCandidate soon_big = {.tensor = 0, .bytes = 4096, .step = 10, .next_use = 12, .last_access = 9};
  EvictCandidate late_small = {.tensor = 1, .bytes = 256, .step = 10, .next_use = 40, .last_access = 2};
  EvictCandidate mid_big = {.tensor = 2, .bytes = 4096, .step = 10, .next_use = 20, .last_access = 5};
  CHECK(Replace_belady(&late_small) > Replace_belady(&mid_big));    /* furthest next use */
  CHECK(Replace_belady(&mid_big) > Replace_belady(&soon_big));
  CHECK(Replace_lru(&late_small) > Replace_lru(&mid_big));          /* oldest access */
  CHECK(Replace_sizeAware(&mid_big) > Replace_sizeAware(&late_small)); /* 10 x 4096 > 30 x 256 */
}

/* x is read at steps 0 and 3; freeing a at step 1 leaves two 1024-byte holes, so
 * d (2048) finds 2048 free bytes but no contiguous gap: x must go (a drop, since
 * the host has it) and come back at step 3. */
static const char *fragmenting =
    "{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"frag\",\"tensors\":["
    "{\"name\":\"x\",\"shape\":[1024],\"kind\":\"input\"},{\"name\":\"a\",\"shape\":[1024]},"
    "{\"name\":\"b\",\"shape\":[1024]},{\"name\":\"d\",\"shape\":[2048]},"
    "{\"name\":\"y\",\"shape\":[1024],\"kind\":\"output\"}],\"ops\":["
    "{\"name\":\"op0\",\"type\":\"t\",\"inputs\":[\"x\"],\"outputs\":[\"a\"]},"
    "{\"name\":\"op1\",\"type\":\"t\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]},"
    "{\"name\":\"op2\",\"type\":\"t\",\"inputs\":[\"b\"],\"outputs\":[\"d\"]},"
    "{\"name\":\"op3\",\"type\":\"t\",\"inputs\":[\"x\",\"d\"],\"outputs\":[\"y\"]}]}";

TEST(fragmentation_forces_an_eviction) {
  Net *net = parse(fragmenting);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_EQ(Figures_minRequired(net, false), 4096);
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = 4096;
  Plan *plan;
  SpError err;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
  CHECK_EQ(plan->metrics.noncompulsory_bytes, 1024);
  CHECK_EQ(plan->metrics.retrievals, 1);
  CHECK_EQ(plan->metrics.spills, 0);     /* x has a host copy: dropped, not spilled */
  CHECK_EQ(plan->metrics.compulsory_bytes, 1024 + 1024); /* load x, store y */
  int drops = 0;
  for (int i = 0; i < plan->nstays; i++) drops += plan->stays[i].out == STAY_DROP;
  CHECK_EQ(drops, 1);
  ValidateReport rep;
  CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
  ValidateReport_free(&rep);
  Plan_free(plan);
  /* With one more KiB the hole problem goes away. */
  s.budget = 5120;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
  CHECK_EQ(plan->metrics.noncompulsory_bytes, 0);
  Plan_free(plan);
  Net_free(net);
}

TEST(below_m_r_is_a_clear_infeasible) {
  Net *net = parse(fragmenting);
  if (!net) return;
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = 4095;
  Plan *plan = NULL;
  SpError err;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_ERR_INFEASIBLE);
  CHECK(plan == NULL);
  CHECK_HAS(err.text, "infeasible: budget 4095 < M_R = 4096 bytes");
  s.schedule = "nope";
  s.budget = 4096;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "unknown schedule policy \"nope\"");
  CHECK_HAS(err.text, "mpmf");
  Net_free(net);
}

/* Every combination on one network at one budget: valid, metrics agree with the validator's. */
static int check_all_policies(const Net *net, bool params, int64_t budget, int64_t *min_noncomp, int64_t *max_noncomp) {
  int plans = 0;
  int *order = malloc(sizeof(int) * (size_t)net->nops);
  for (int si = 0; si < Policy_count(POLICY_SCHEDULE); si++) {
    SolveSettings ss;
    SolveSettings_init(&ss);
    ss.params = params;
    ss.schedule = Policy_at(POLICY_SCHEDULE, si)->name;
    SpError serr;
    CHECK_EQ(Solve_schedule(net, &ss, order, NULL, &serr), SP_OK);
    for (int ri = 0; ri < Policy_count(POLICY_REPLACEMENT); ri++)
      for (int ai = 0; ai < Policy_count(POLICY_ALLOCATOR); ai++) {
        SolveSettings s;
        Combo_settings(&s, params, budget, si, ri, ai);
        s.order = order; /* the schedule policy's order, computed once above */
        Plan *plan;
        SpError err;
        Status st = Solve_run(net, &s, &plan, &err);
        CHECK_EQ(st, SP_OK);
        if (st) {
          printf("  %s %s/%s/%s: %s\n", net->name, s.schedule, s.replacement, s.allocator, err.text);
          continue;
        }
        ValidateReport rep;
        Status vst = Validate_plan(net, plan, &rep);
        CHECK_EQ(vst, SP_OK);
        if (vst)
          printf("  %s budget %lld %s/%s/%s params %d: %s\n", net->name, (long long)budget, s.schedule,
                 s.replacement, s.allocator, params, rep.nlines ? rep.lines[0] : "?");
        CHECK_EQ(rep.metrics.noncompulsory_bytes, plan->metrics.noncompulsory_bytes);
        CHECK_EQ(rep.metrics.peak_bytes, plan->metrics.peak_bytes);
        CHECK(plan->metrics.peak_bytes <= budget);
        CHECK(plan->metrics.footprint_bytes <= budget);
        if (plan->metrics.noncompulsory_bytes < *min_noncomp) *min_noncomp = plan->metrics.noncompulsory_bytes;
        if (plan->metrics.noncompulsory_bytes > *max_noncomp) *max_noncomp = plan->metrics.noncompulsory_bytes;
        ValidateReport_free(&rep);
        Plan_free(plan);
        plans++;
      }
  }
  free(order);
  return plans;
}

TEST(every_policy_on_every_shipped_network_validates) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/networks", SPADMAP_DATA_DIR);
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  if (!d) return;
  int nets = 0, plans = 0, spilling = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strstr(e->d_name, ".json")) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    Net *net;
    SpError err;
    CHECK_EQ(Net_load(path, &net, &err), SP_OK);
    if (!net) continue;
    nets++;
    for (int params = 0; params < 2; params++) {
      NetFigures f;
      CHECK_EQ(Figures_compute(net, params, &f, NULL, &err), SP_OK);
      const int64_t budgets[3] = {f.m_r, f.m_h, f.m_p};
      for (int b = 0; b < 3; b++) {
        int64_t lo = INT64_MAX, hi = 0;
        plans += check_all_policies(net, params, budgets[b], &lo, &hi);
        spilling += hi > 0;
      }
      /* With room for every tensor at once nothing is ever evicted. */
      int64_t all = 0, lo = INT64_MAX, hi = 0;
      for (int t = 0; t < net->ntensors; t++) all += net->tensors[t].bytes;
      check_all_policies(net, params, all, &lo, &hi);
      CHECK_EQ(hi, 0);
    }
    Net_free(net);
  }
  closedir(d);
  CHECK(nets >= 20);
  CHECK_EQ(plans, nets * 2 * 3 * Policy_count(POLICY_SCHEDULE) * Policy_count(POLICY_REPLACEMENT) *
                      Policy_count(POLICY_ALLOCATOR));
  CHECK(spilling > nets); /* tight budgets really do spill */
}

TEST_MAIN("sim", T(allocators_pick_the_documented_gap), T(replacement_scores_order_candidates),
          T(fragmentation_forces_an_eviction), T(below_m_r_is_a_clear_infeasible),
          T(every_policy_on_every_shipped_network_validates))

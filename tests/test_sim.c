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
#include "randnet.h"
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

/* p, q, r, s (1 KiB each, r an output read later) fill 4 KiB; d (2 KiB) then
 * needs a contiguous gap. Their next reads are p 5, r 6, s 7, q 8. belady evicts
 * q, then s, then r before a gap opens: 2 + 2 + 1 KiB. greedy clears the window
 * [1K, 3K) (q and r: 2 + 1 KiB; r's spill is its compulsory store) and puts d
 * there; [0, 2K) would cost 4 KiB, [2K, 4K) ties at 3 KiB but is higher. */
static const char *window_case =
    "{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"window\",\"tensors\":["
    "{\"name\":\"p\",\"shape\":[1024]},{\"name\":\"q\",\"shape\":[1024]},"
    "{\"name\":\"r\",\"shape\":[1024],\"kind\":\"output\"},{\"name\":\"s\",\"shape\":[1024]},"
    "{\"name\":\"d\",\"shape\":[2048],\"kind\":\"output\"},"
    "{\"name\":\"y5\",\"shape\":[64],\"kind\":\"output\"},{\"name\":\"y6\",\"shape\":[64],\"kind\":\"output\"},"
    "{\"name\":\"y7\",\"shape\":[64],\"kind\":\"output\"},{\"name\":\"y8\",\"shape\":[64],\"kind\":\"output\"}],"
    "\"ops\":["
    "{\"name\":\"op0\",\"type\":\"t\",\"inputs\":[],\"outputs\":[\"p\"]},"
    "{\"name\":\"op1\",\"type\":\"t\",\"inputs\":[],\"outputs\":[\"q\"]},"
    "{\"name\":\"op2\",\"type\":\"t\",\"inputs\":[],\"outputs\":[\"r\"]},"
    "{\"name\":\"op3\",\"type\":\"t\",\"inputs\":[],\"outputs\":[\"s\"]},"
    "{\"name\":\"op4\",\"type\":\"t\",\"inputs\":[],\"outputs\":[\"d\"]},"
    "{\"name\":\"op5\",\"type\":\"t\",\"inputs\":[\"p\"],\"outputs\":[\"y5\"]},"
    "{\"name\":\"op6\",\"type\":\"t\",\"inputs\":[\"r\"],\"outputs\":[\"y6\"]},"
    "{\"name\":\"op7\",\"type\":\"t\",\"inputs\":[\"s\"],\"outputs\":[\"y7\"]},"
    "{\"name\":\"op8\",\"type\":\"t\",\"inputs\":[\"q\"],\"outputs\":[\"y8\"]}]}";

static Plan *solve_with(const Net *net, const char *replacement, const char *allocator, int64_t budget) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = budget;
  s.replacement = replacement;
  s.allocator = allocator;
  Plan *plan = NULL;
  SpError err;
  if (Solve_run(net, &s, &plan, &err)) printf("  %s/%s: %s\n", replacement, allocator, err.text);
  return plan;
}

static bool plan_valid(const Net *net, const Plan *plan) {
  ValidateReport rep;
  Status st = Validate_plan(net, plan, &rep);
  if (st) printf("  %s/%s: %s\n", plan->replacement_policy, plan->allocator_policy, rep.nlines ? rep.lines[0] : "?");
  ValidateReport_free(&rep);
  return st == SP_OK;
}

TEST(greedy_clears_the_cheapest_window) {
  Net *net = parse(window_case);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_EQ(Figures_minRequired(net, false), 2048);
  Plan *b = solve_with(net, "belady", "linear", 4096), *g = solve_with(net, "greedy", "linear", 4096);
  CHECK(b && g);
  if (b && g) {
    CHECK(plan_valid(net, b) && plan_valid(net, g));
    CHECK_EQ(b->metrics.noncompulsory_bytes, 2048 + 2048 + 1024); /* q, s spilled and retrieved; r retrieved */
    CHECK_EQ(b->metrics.spills, 2);
    CHECK_EQ(b->metrics.retrievals, 3);
    CHECK_EQ(g->metrics.noncompulsory_bytes, 2048 + 1024); /* q spilled and retrieved; r retrieved */
    CHECK_EQ(g->metrics.spills, 1);
    CHECK_EQ(g->metrics.retrievals, 2);
    CHECK_EQ(g->metrics.compulsory_bytes, b->metrics.compulsory_bytes); /* r, d, y5..y8 stored once */
    CHECK_EQ(g->metrics.compulsory_bytes, 1024 + 2048 + 4 * 64);
    int d = Net_findTensor(net, "d"), evicted = 0;
    for (int i = 0; i < g->nstays; i++) {
      const Stay *st = &g->stays[i];
      if (st->tensor == d) CHECK_EQ(st->offset, 1024); /* the chosen window, not the allocator's pick */
      if (st->end == 3 && (st->out == STAY_SPILL || st->out == STAY_DROP)) {
        evicted++;
        CHECK(st->tensor == Net_findTensor(net, "q") || st->tensor == Net_findTensor(net, "r"));
      }
    }
    CHECK_EQ(evicted, 2);
  }
  Plan_free(b);
  Plan_free(g);
  /* With a gap already there greedy evicts nothing: the allocator places. */
  g = solve_with(net, "greedy", "linear", 6144);
  CHECK(g != NULL);
  if (g) CHECK_EQ(g->metrics.noncompulsory_bytes, 0);
  Plan_free(g);
  Net_free(net);
}

/* Is t read by an op after step s? */
static bool read_after(const Net *net, const Plan *p, int t, int s) {
  for (int k = s + 1; k < p->nsteps; k++) {
    const Op *op = &net->ops[p->order[k]];
    for (int i = 0; i < op->ninputs; i++)
      if (op->inputs[i] == t) return true;
  }
  return false;
}

static bool evicted_out(StayOut o) { return o == STAY_SPILL || o == STAY_DROP; }

/* Recomputes, from the plan alone, greedy's choice at step s when it placed one
 * block there: the cheapest clearable window over the blocks resident before the
 * step must cost what the evictions cost, and the evicted blocks must all lie in
 * the new block's window. Steps where the op's own inputs were evicted (the
 * fragmentation fallback) must have evicted all of them. Returns 1 if an
 * eviction point was checked. */
static int check_greedy_step(const Net *net, const Plan *p, int s) {
  const Op *op = &net->ops[p->order[s]];
  int placed = -1, nplaced = 0, nevicted = 0, pinned_evicted = 0, pinned_resident = 0;
  for (int i = 0; i < p->nstays; i++) {
    const Stay *st = &p->stays[i];
    bool pinned = false;
    for (int k = 0; k < op->ninputs; k++) pinned |= op->inputs[k] == st->tensor;
    if (st->start == s) placed = i, nplaced++;
    if (st->start <= s - 1 && st->end >= s - 1 && !(st->end == s - 1 && !evicted_out(st->out))) {
      pinned_resident += pinned;
      if (st->end == s - 1) nevicted++, pinned_evicted += pinned;
    }
  }
  CHECK(pinned_evicted == 0 || pinned_evicted == pinned_resident); /* never one pinned tensor alone */
  if (pinned_evicted || nplaced != 1 || nevicted == 0) return 0;
  int64_t bytes = net->tensors[p->stays[placed].tensor].bytes, off = p->stays[placed].offset;
  int64_t best = INT64_MAX, paid = 0;
  for (int c = -1; c < p->nstays; c++) {
    int64_t a = 0;
    if (c >= 0) {
      const Stay *st = &p->stays[c];
      if (!(st->start <= s - 1 && st->end >= s - 1 && !(st->end == s - 1 && !evicted_out(st->out)))) continue;
      a = st->offset + net->tensors[st->tensor].bytes;
    }
    if (a + bytes > p->budget) continue;
    int64_t cost = 0;
    bool ok = true;
    for (int i = 0; i < p->nstays && ok; i++) {
      const Stay *st = &p->stays[i];
      const Tensor *t = &net->tensors[st->tensor];
      if (!(st->start <= s - 1 && st->end >= s - 1 && !(st->end == s - 1 && !evicted_out(st->out)))) continue;
      if (st->offset >= a + bytes || st->offset + t->bytes <= a) continue;
      for (int k = 0; k < op->ninputs; k++) ok &= op->inputs[k] != st->tensor;
      bool host = t->kind != TK_ACTIVATION;
      for (int j = 0; j < p->nstays; j++)
        host |= p->stays[j].tensor == st->tensor && p->stays[j].end < st->start && p->stays[j].out == STAY_SPILL;
      if (read_after(net, p, st->tensor, s)) cost += t->kind == TK_ACTIVATION && !host ? 2 * t->bytes : t->bytes;
    }
    if (ok && cost < best) best = cost;
    if (ok && a == off) paid = cost;
  }
  CHECK_EQ(paid, best);
  for (int i = 0; i < p->nstays; i++) {
    const Stay *st = &p->stays[i];
    if (st->end == s - 1 && evicted_out(st->out))
      CHECK(st->offset < off + bytes && st->offset + net->tensors[st->tensor].bytes > off);
  }
  return 1;
}

TEST(greedy_is_valid_and_locally_optimal_on_random_dags) {
  static const char *const allocs[] = {"linear", "first-fit", "greedy-size"};
  int cases = 0, checked = 0, better = 0, same = 0, worse = 0;
  for (uint64_t seed = 1; seed <= 150; seed++)
    for (int params = 0; params < 2; params++) {
      Net *net = RandNet_make(seed, 6 + (int)(seed % 30), params);
      CHECK(net != NULL);
      if (!net) continue;
      NetFigures f;
      SpError err;
      CHECK_EQ(Figures_compute(net, params, &f, NULL, &err), SP_OK);
      const int64_t budgets[] = {f.m_r, f.m_h, f.m_r + 256};
      for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++) {
          SolveSettings s;
          SolveSettings_init(&s);
          s.params = params;
          s.budget = budgets[b];
          s.allocator = allocs[a];
          Plan *g = NULL, *bel = NULL;
          s.replacement = "greedy";
          CHECK_EQ(Solve_run(net, &s, &g, &err), SP_OK);
          s.replacement = "belady";
          CHECK_EQ(Solve_run(net, &s, &bel, &err), SP_OK);
          if (g && bel) {
            cases++;
            CHECK(plan_valid(net, g));
            for (int st = 1; st < g->nsteps; st++) checked += check_greedy_step(net, g, st);
            int64_t x = g->metrics.noncompulsory_bytes, y = bel->metrics.noncompulsory_bytes;
            better += x < y, same += x == y, worse += x > y;
          }
          Plan_free(g);
          Plan_free(bel);
        }
      Net_free(net);
    }
  printf("  greedy vs belady on %d random cases: %d cheaper, %d equal, %d costlier; %d eviction points rechecked\n",
         cases, better, same, worse, checked);
  CHECK_EQ(cases, 150 * 2 * 3 * 3);
  CHECK(checked > 100);
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
          T(greedy_clears_the_cheapest_window), T(greedy_is_valid_and_locally_optimal_on_random_dags),
          T(every_policy_on_every_shipped_network_validates))

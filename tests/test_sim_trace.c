/* The simulator's eviction trace: the same plan as without it, one record per
 * spilled stay, and records that explain (the block did not fit the largest
 * gap; Belady weighed the next read). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "sim.h"
#include "solve.h"
#include "test.h"

/* A bundled network and its default schedule at budget_factor x M_R (activations only). */
static Net *Test_open(const char *name, double budget_factor, int64_t *budget, int **order) {
  char path[512];
  snprintf(path, sizeof path, SPADMAP_DATA_DIR "/networks/%s.json", name);
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(path, &net, &err), SP_OK);
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = (int64_t)((double)Figures_minRequired(net, false) * budget_factor);
  *budget = s.budget;
  *order = malloc(sizeof(int) * (size_t)net->nops);
  CHECK_EQ(Solve_schedule(net, &s, *order, NULL, &err), SP_OK);
  return net;
}

static void Test_trace(const char *name, const char *repl, const char *alloc) {
  int64_t budget;
  int *order;
  Net *net = Test_open(name, 1.0, &budget, &order);
  SpError err;
  const PolicyInfo *rp = Policy_find(POLICY_REPLACEMENT, repl), *al = Policy_find(POLICY_ALLOCATOR, alloc);
  Plan *plain, *traced;
  SimTrace tr = {0};
  CHECK_EQ(Sim_run(net, false, budget, order, rp, al, &plain, &err), SP_OK);
  CHECK_EQ(Sim_runTraced(net, false, budget, order, rp, al, &traced, &tr, &err), SP_OK);
  CHECK_EQ(plain->nstays, traced->nstays);
  for (int i = 0; i < plain->nstays && i < traced->nstays; i++) { /* field by field: Stay has padding */
    const Stay *a = &plain->stays[i], *b = &traced->stays[i];
    CHECK(a->tensor == b->tensor && a->offset == b->offset && a->start == b->start && a->end == b->end &&
          a->in == b->in && a->out == b->out);
  }
  int spills = 0;
  for (int i = 0; i < traced->nstays; i++) {
    const Stay *st = &traced->stays[i];
    if (st->out != STAY_SPILL && st->out != STAY_DROP) continue;
    int found = 0;
    for (int k = 0; k < tr.n; k++) found += tr.ev[k].tensor == st->tensor && tr.ev[k].step == st->end + 1;
    CHECK_EQ(found, 1);
    spills += st->out == STAY_SPILL;
  }
  CHECK(spills > 0);
  for (int k = 0; k < tr.n; k++) {
    const SimEviction *e = &tr.ev[k];
    if (e->for_tensor >= 0 && !e->window) CHECK(e->need > e->largest_gap); /* it did not fit: that is why */
    CHECK(e->largest_gap <= e->free_bytes);
    if (strcmp(repl, "belady") == 0 && e->for_tensor >= 0) CHECK(e->weight == (double)e->next_use);
    if (e->window) CHECK(e->weight >= 0);
  }
  SimTrace_free(&tr);
  Plan_free(plain);
  Plan_free(traced);
  free(order);
  Net_free(net);
}

/* Every tensor evicted for one block is explained from the state before the first of
 * those evictions: the group shares its largest gap and free bytes, and the block did
 * not fit that gap (the second of two co-evicted tensors showed the state after the
 * first left: "largest gap 1.53M" for a 784K block, resnet50 at M_R). Returns the
 * number of groups of two or more. */
static int Test_groups(const char *name, const char *repl, double budget_factor) {
  int64_t budget;
  int *order;
  Net *net = Test_open(name, budget_factor, &budget, &order);
  SpError err;
  const PolicyInfo *rp = Policy_find(POLICY_REPLACEMENT, repl), *al = Policy_find(POLICY_ALLOCATOR, "linear");
  Plan *traced;
  SimTrace tr = {0};
  int groups = 0;
  CHECK_EQ(Sim_runTraced(net, false, budget, order, rp, al, &traced, &tr, &err), SP_OK);
  for (int k = 0; k < tr.n;) {
    int j = k + 1;
    while (j < tr.n && tr.ev[j].step == tr.ev[k].step && tr.ev[j].for_tensor == tr.ev[k].for_tensor) j++;
    for (int i = k; i < j; i++) {
      CHECK_EQ(tr.ev[i].largest_gap, tr.ev[k].largest_gap);
      CHECK_EQ(tr.ev[i].free_bytes, tr.ev[k].free_bytes);
      if (tr.ev[i].for_tensor >= 0 && !tr.ev[i].window) CHECK(tr.ev[i].need > tr.ev[i].largest_gap);
    }
    groups += j - k > 1;
    k = j;
  }
  SimTrace_free(&tr);
  Plan_free(traced);
  free(order);
  Net_free(net);
  return groups;
}

TEST(co_evicted_tensors_share_the_state_before_the_first_eviction) {
  static const char *const nets[] = {"resnet50", "nasnet_a", "inception_v3", "densenet121", "mobilenet_v2"};
  static const char *const repls[] = {"belady", "lru", "size-aware"};
  static const double budgets[] = {1.0, 1.25, 1.5};
  int groups = 0;
  for (int n = 0; n < 5; n++)
    for (int r = 0; r < 3; r++)
      for (int b = 0; b < 3; b++) groups += Test_groups(nets[n], repls[r], budgets[b]);
  CHECK(groups > 0); /* the networks do have co-evictions: the check above ran on some */
}

TEST(trace_explains_every_eviction_and_changes_nothing) {
  Test_trace("diamond", "belady", "linear");
  Test_trace("resnet50", "belady", "linear");
  Test_trace("resnet50", "lru", "first-fit");
  Test_trace("nasnet_a", "greedy", "linear");
  Test_trace("nasnet_a", "size-aware", "greedy-size");
}

TEST_MAIN("sim_trace", T(trace_explains_every_eviction_and_changes_nothing),
          T(co_evicted_tensors_share_the_state_before_the_first_eviction))

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

static void Test_trace(const char *name, const char *repl, const char *alloc) {
  char path[512];
  snprintf(path, sizeof path, SPADMAP_DATA_DIR "/networks/%s.json", name);
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(path, &net, &err), SP_OK);
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = Figures_minRequired(net, false);
  int *order = malloc(sizeof(int) * (size_t)net->nops);
  CHECK_EQ(Solve_schedule(net, &s, order, NULL, &err), SP_OK);
  const PolicyInfo *rp = Policy_find(POLICY_REPLACEMENT, repl), *al = Policy_find(POLICY_ALLOCATOR, alloc);
  Plan *plain, *traced;
  SimTrace tr = {0};
  CHECK_EQ(Sim_run(net, false, s.budget, order, rp, al, &plain, &err), SP_OK);
  CHECK_EQ(Sim_runTraced(net, false, s.budget, order, rp, al, &traced, &tr, &err), SP_OK);
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

TEST(trace_explains_every_eviction_and_changes_nothing) {
  Test_trace("diamond", "belady", "linear");
  Test_trace("resnet50", "belady", "linear");
  Test_trace("resnet50", "lru", "first-fit");
  Test_trace("nasnet_a", "greedy", "linear");
  Test_trace("nasnet_a", "size-aware", "greedy-size");
}

TEST_MAIN("sim_trace", T(trace_explains_every_eviction_and_changes_nothing))

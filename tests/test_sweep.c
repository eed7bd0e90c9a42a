/* The budget sweep: its grid (M_R to M_P x factor, every fast combination, a
 * joint schedule once), and each point equal to a plain solve of its settings
 * (the order reused across budgets changes nothing), whose plan validates. */
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "netcost/netcost.h"
#include "policy.h"
#include "solve.h"
#include "sweep.h"
#include "test.h"
#include "validate.h"

static void Test_sweepMatchesSolves(const char *name, bool params) {
  char path[512];
  snprintf(path, sizeof path, SPADMAP_DATA_DIR "/networks/%s.json", name);
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(path, &net, &err), SP_OK);
  NetFigures f;
  CHECK_EQ(Figures_compute(net, params, &f, NULL, &err), SP_OK);
  SweepOptions o;
  SweepOptions_init(&o);
  o.budgets = 6;
  o.params = params;
  Sweep *sw;
  CHECK_EQ(Sweep_new(net, &f, &o, &sw, &err), SP_OK);
  int want = 0;
  for (int s = 0; s < Policy_count(POLICY_SCHEDULE); s++)
    want += Policy_at(POLICY_SCHEDULE, s)->joint ? 1 : Policy_count(POLICY_REPLACEMENT) * Policy_count(POLICY_ALLOCATOR);
  CHECK_EQ(sw->ncombos, want);
  CHECK_EQ(sw->budgets[0], f.m_r);
  CHECK_EQ(sw->budgets[5], (int64_t)((double)(f.m_p > f.m_r ? f.m_p : f.m_r) * 1.25));
  for (int b = 1; b < 6; b++) CHECK(sw->budgets[b] > sw->budgets[b - 1]);
  CHECK_EQ(Sweep_fill(net, &o, sw, &err), SP_OK);
  for (int k = 0; k < sw->ncombos; k++)
    for (int b = 0; b < sw->nbudgets; b++) {
      const SweepPoint *p = Sweep_at(sw, k, b);
      CHECK(p->done);
      CHECK_EQ(p->status, SP_OK); /* every budget is at least M_R */
      SolveSettings s;
      SolveSettings_init(&s);
      s.params = params;
      s.budget = sw->budgets[b];
      s.schedule = sw->combos[k].schedule;
      if (strcmp(sw->combos[k].replacement, "-") != 0) {
        s.replacement = sw->combos[k].replacement;
        s.allocator = sw->combos[k].allocator;
      }
      Plan *plan;
      CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
      CHECK_EQ(p->traffic, plan->metrics.noncompulsory_bytes);
      CHECK_EQ(p->spills, plan->metrics.spills);
      CHECK_EQ(p->peak, plan->metrics.peak_bytes);
      CHECK(p->peak <= s.budget);
      ValidateReport rep;
      CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
      ValidateReport_free(&rep);
      Plan_free(plan);
    }
  Sweep_free(sw);
  Net_free(net);
}

TEST(sweep_points_equal_plain_solves_and_validate) {
  Test_sweepMatchesSolves("diamond", false);
  Test_sweepMatchesSolves("fig1", true);
  Test_sweepMatchesSolves("resnet50", false);
}

/* Below M_R (from = M_R/4): the budgets halve up to M_R (M_R/4, M_R/2, then M_R
 * and the evenly spaced ones); each point below M_R is the tiled network's plan
 * and equals a plain `cost` of its settings (NetCost_run), plan validated; with
 * a mapper every point has the network's cycles, energy and DRAM bytes. */
TEST(sweep_below_mr_with_cost) {
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(SPADMAP_DATA_DIR "/networks/fsrcnn.json", &net, &err), SP_OK);
  NetFigures f;
  CHECK_EQ(Figures_compute(net, false, &f, NULL, &err), SP_OK);
  Arch a;
  CHECK_EQ(Arch_load(SPADMAP_DATA_DIR "/arch/cosa_baseline.json", &a, &err), SP_OK);
  LayerMapOptions lo;
  LayerMapOptions_init(&lo);
  NetCostMapper *m;
  CHECK_EQ(NetCostMapper_new(&a, LayerMap_find("random"), &lo, &m, &err), SP_OK);
  SweepOptions o;
  SweepOptions_init(&o);
  o.budgets = 3;
  o.from = llround((double)f.m_r / 4);
  o.to = 2 * f.m_p;
  o.mapper = m;
  Sweep *sw;
  CHECK_EQ(Sweep_new(net, &f, &o, &sw, &err), SP_OK);
  CHECK_EQ(sw->nbudgets, 5);
  CHECK_EQ(sw->budgets[0], llround((double)f.m_r / 4));
  CHECK_EQ(sw->budgets[1], llround((double)f.m_r / 2));
  CHECK_EQ(sw->budgets[2], f.m_r);
  CHECK_EQ(sw->budgets[4], 2 * f.m_p);
  CHECK_EQ(Sweep_fill(net, &o, sw, &err), SP_OK);
  for (int b = 0; b < sw->nbudgets; b++)
    for (int k = 0; k < sw->ncombos; k += 5) { /* every fifth combination: a third of a second each below M_R */
      const SweepPoint *p = Sweep_at(sw, k, b);
      CHECK_EQ(p->status, SP_OK);
      CHECK_EQ(p->tiled, sw->budgets[b] < f.m_r);
      SolveSettings s;
      SolveSettings_init(&s);
      s.budget = sw->budgets[b];
      s.schedule = sw->combos[k].schedule;
      if (strcmp(sw->combos[k].replacement, "-") != 0) {
        s.replacement = sw->combos[k].replacement;
        s.allocator = sw->combos[k].allocator;
      }
      NetCost nc;
      NetCostStage st;
      Plan *plan = NULL;
      CHECK_EQ(NetCost_run(net, &s, m, &nc, &st, &plan, &err), SP_OK);
      if (!plan) continue;
      ValidateReport rep;
      CHECK_EQ(Validate_plan(st.net, plan, &rep), SP_OK);
      ValidateReport_free(&rep);
      CHECK_EQ(p->traffic, plan->metrics.noncompulsory_bytes);
      CHECK_EQ(p->latency_cycles, nc.cycles);
      CHECK_EQ(p->dram_bytes, nc.dram_bytes);
      CHECK(p->energy_pj == nc.energy_pj);
      CHECK(p->latency_cycles > 0);
      Plan_free(plan);
      NetCost_free(&nc);
      NetCostStage_free(&st);
    }
  Sweep_free(sw);
  NetCostMapper_free(m);
  Net_free(net);
}

/* A last budget under M_R (--from 256K --to 1M on resnet50, M_R 2.30M): the halving
 * steps under it, then that budget, every one at most --to. The grid once ended in
 * --points budgets of M_R + 0..N bytes, all above --to (four rows of "2.30 MiB"). */
TEST(sweep_to_below_mr_stays_under_it) {
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(SPADMAP_DATA_DIR "/networks/resnet50.json", &net, &err), SP_OK);
  NetFigures f;
  CHECK_EQ(Figures_compute(net, false, &f, NULL, &err), SP_OK);
  SweepOptions o;
  SweepOptions_init(&o);
  o.budgets = 4;
  o.from = llround((double)f.m_r / 16);
  o.to = llround((double)f.m_r / 3);
  Sweep *sw;
  CHECK_EQ(Sweep_new(net, &f, &o, &sw, &err), SP_OK);
  CHECK_EQ(sw->nbudgets, 4); /* M_R/16, /8, /4, then M_R/3 (M_R/2 is past it) */
  CHECK_EQ(sw->budgets[0], o.from);
  CHECK_EQ(sw->budgets[1], llround((double)f.m_r / 8));
  CHECK_EQ(sw->budgets[2], llround((double)f.m_r / 4));
  CHECK_EQ(sw->budgets[3], o.to);
  Sweep_free(sw);
  o.to = f.m_r; /* up to M_R itself: its one untiled budget last */
  CHECK_EQ(Sweep_new(net, &f, &o, &sw, &err), SP_OK);
  CHECK_EQ(sw->nbudgets, 5);
  CHECK_EQ(sw->budgets[3], llround((double)f.m_r / 2));
  CHECK_EQ(sw->budgets[4], f.m_r);
  for (int b = 1; b < sw->nbudgets; b++) CHECK(sw->budgets[b] > sw->budgets[b - 1]);
  Sweep_free(sw);
  Net_free(net);
}

TEST(sweep_stops_on_cancel) {
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(SPADMAP_DATA_DIR "/networks/diamond.json", &net, &err), SP_OK);
  NetFigures f;
  CHECK_EQ(Figures_compute(net, false, &f, NULL, &err), SP_OK);
  SweepOptions o;
  SweepOptions_init(&o);
  atomic_int cancel = 1;
  o.cancel = &cancel;
  Sweep *sw;
  CHECK_EQ(Sweep_new(net, &f, &o, &sw, &err), SP_OK);
  CHECK_EQ(Sweep_fill(net, &o, sw, &err), SP_ERR_CANCELLED);
  CHECK(!sw->points[0].done);
  Sweep_free(sw);
  Net_free(net);
}

TEST_MAIN("sweep", T(sweep_points_equal_plain_solves_and_validate), T(sweep_below_mr_with_cost),
          T(sweep_to_below_mr_stays_under_it), T(sweep_stops_on_cancel))

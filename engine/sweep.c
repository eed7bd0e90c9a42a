#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "netcost/netcost.h"
#include "policy.h"
#include "solve.h"
#include "testhook.h"

void SweepOptions_init(SweepOptions *o) {
  memset(o, 0, sizeof *o);
  o->budgets = 24;
  o->past_mp = 1.25;
}

void Sweep_free(Sweep *sw) {
  if (!sw) return;
  free(sw->combos);
  free(sw->budgets);
  free(sw->points);
  free(sw);
}

/* The k-th of n budgets below M_R from lo: M_R / ratio^((n - k) / n), M_R/16, /8, /4, /2 for lo = M_R/16. */
static int64_t Sweep_below(int64_t m_r, int64_t lo, int n, int k) {
  return llround((double)m_r / pow((double)m_r / (double)lo, (double)(n - k) / n));
}

Status Sweep_new(const Net *net, const NetFigures *f, const SweepOptions *o, Sweep **out, SpError *err) {
  (void)net;
  *out = NULL;
  int nb = o->budgets < 2 ? 2 : o->budgets;
  /* the budgets: below M_R halving steps from `from`, then nb evenly spaced from
   * max(from, M_R) to `to` (or one budget alone) */
  int64_t lo = o->from > 0 ? o->from : f->m_r, start = lo > f->m_r ? lo : f->m_r;
  int64_t hi = o->to > 0 ? o->to
                         : (int64_t)((double)(f->m_p > f->m_r ? f->m_p : f->m_r) * (o->past_mp > 1 ? o->past_mp : 1));
  /* a last budget at or under M_R: only the steps below it, then that budget (no
   * evenly spaced ones past M_R, which would all sit above --to) */
  bool to_below = o->to > 0 && o->to <= f->m_r;
  if (to_below) hi = o->to, nb = 1;
  else if (hi <= start) hi = start + nb - 1;
  int nbelow = 0;
  if (lo < f->m_r) nbelow = (int)ceil(log2((double)f->m_r / (double)lo) - 1e-9);
  if (nbelow > 64) nbelow = 64;
  int nkept = nbelow; /* the steps below M_R that lie under hi */
  if (to_below)
    for (nkept = 0; nkept < nbelow && Sweep_below(f->m_r, lo, nbelow, nkept) < hi;) nkept++;
  int total = o->only > 0 ? 1 : nkept + nb;
  int ns = Policy_count(POLICY_SCHEDULE), nr = Policy_count(POLICY_REPLACEMENT), na = Policy_count(POLICY_ALLOCATOR);
  Sweep *sw = calloc(1, sizeof *sw);
  if (!sw) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  sw->combos = malloc(sizeof *sw->combos * (size_t)(ns * nr * na + 1));
  sw->budgets = malloc(sizeof(int64_t) * (size_t)total);
  if (!sw->combos || !sw->budgets) {
    Sweep_free(sw);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  for (int s = 0; s < ns; s++) {
    const PolicyInfo *sp = Policy_at(POLICY_SCHEDULE, s);
    if (sp->joint) { /* it decides replacement and addresses itself: one combination */
      sw->combos[sw->ncombos++] = (SweepCombo){sp->name, "-", "-"};
      continue;
    }
    for (int r = 0; r < nr; r++)
      for (int a = 0; a < na; a++)
        sw->combos[sw->ncombos++] = (SweepCombo){sp->name, Policy_at(POLICY_REPLACEMENT, r)->name,
                                                 Policy_at(POLICY_ALLOCATOR, a)->name};
  }
  sw->m_r = f->m_r;
  sw->m_p = f->m_p;
  sw->nbudgets = total;
  if (o->only > 0) sw->budgets[0] = o->only;
  else {
    for (int k = 0; k < nkept; k++) sw->budgets[k] = Sweep_below(f->m_r, lo, nbelow, k);
    if (to_below) sw->budgets[nkept] = hi;
    else
      for (int b = 0; b < nb; b++) sw->budgets[nkept + b] = start + (int64_t)((double)(hi - start) * b / (nb - 1) + 0.5);
  }
  sw->points = calloc((size_t)sw->ncombos * (size_t)total, sizeof *sw->points);
  if (!sw->points) {
    Sweep_free(sw);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  *out = sw;
  return SP_OK;
}

static void Sweep_freeOrders(int **orders, int ns) {
  for (int k = 0; k < ns; k++) free(orders[k]), orders[k] = NULL;
}

Status Sweep_fill(const Net *net, const SweepOptions *o, Sweep *sw, SpError *err) {
  int ns = Policy_count(POLICY_SCHEDULE), total = sw->ncombos * sw->nbudgets, done = 0;
  int **orders = calloc((size_t)ns, sizeof(int *));
  if (!orders) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  Status st = SP_OK;
  NetCostStage stage = {0};
  bool staged_tiled = false; /* the orders belong to the original network (false) or to this budget's tiles */
  for (int b = 0; b < sw->nbudgets && !st; b++) {
    /* the network planned at this budget: the original, or below M_R its tiled network */
    NetCostStage_free(&stage);
    SpError serr;
    Status sst = NetCostStage_build(net, o->params, sw->budgets[b], &stage, &serr);
    if (sst == SP_ERR_NOMEM) {
      st = SpError_set(err, sst, "%s", serr.text);
      break;
    }
    if (sst || stage.tiled || staged_tiled) Sweep_freeOrders(orders, ns); /* orders of other ops */
    staged_tiled = !sst && stage.tiled;
    for (int c = 0; c < sw->ncombos && !st; c++) {
      Testhook_at("sweep", o->cancel);
      if (o->cancel && atomic_load(o->cancel)) {
        st = SpError_set(err, SP_ERR_CANCELLED, "sweep cancelled");
        break;
      }
      SweepPoint *pt = Sweep_at(sw, c, b);
      if (sst) { /* no tiled network at this budget: no plan, said by the status */
        pt->status = sst;
        pt->done = true;
        if (o->progress) o->progress(++done, total, o->user);
        continue;
      }
      const Net *pn = stage.net;
      SolveSettings s;
      SolveSettings_init(&s);
      s.params = o->params;
      s.budget = sw->budgets[b];
      s.schedule = sw->combos[c].schedule;
      bool joint = strcmp(sw->combos[c].replacement, "-") == 0;
      if (!joint) {
        s.replacement = sw->combos[c].replacement;
        s.allocator = sw->combos[c].allocator;
        int k = 0; /* the schedule's order, once per planned network */
        while (k < ns && strcmp(Policy_at(POLICY_SCHEDULE, k)->name, s.schedule) != 0) k++;
        if (k < ns && !orders[k] && (orders[k] = malloc(sizeof(int) * (size_t)(pn->nops ? pn->nops : 1)))) {
          SpError e2;
          if (Solve_schedule(pn, &s, orders[k], NULL, &e2)) free(orders[k]), orders[k] = NULL;
        }
        if (k < ns) s.order = orders[k];
      }
      s.cancel = o->cancel;
      Plan *p = NULL;
      SpError e;
      pt->status = Solve_run(pn, &s, &p, &e);
      if (pt->status == SP_ERR_CANCELLED) {
        st = SpError_set(err, SP_ERR_CANCELLED, "sweep cancelled");
        break;
      }
      pt->tiled = stage.tiled != NULL;
      if (!pt->status) {
        pt->traffic = p->metrics.noncompulsory_bytes;
        pt->spills = p->metrics.spills;
        pt->peak = p->metrics.peak_bytes;
        if (o->mapper) {
          NetCost nc;
          st = NetCost_evaluate(&stage, p, o->params, o->mapper, &nc, err);
          if (!st) pt->latency_cycles = nc.cycles, pt->dram_bytes = nc.dram_bytes, pt->energy_pj = nc.energy_pj;
          NetCost_free(&nc);
        }
      }
      Plan_free(p);
      if (st) break;
      pt->done = true;
      done++;
      if (o->progress) o->progress(done, total, o->user);
    }
  }
  NetCostStage_free(&stage);
  Sweep_freeOrders(orders, ns);
  free(orders);
  return st;
}

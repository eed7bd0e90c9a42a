#include "sweep.h"

#include <stdlib.h>
#include <string.h>

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

Status Sweep_new(const Net *net, const NetFigures *f, const SweepOptions *o, Sweep **out, SpError *err) {
  (void)net;
  *out = NULL;
  int nb = o->budgets < 2 ? 2 : o->budgets;
  int ns = Policy_count(POLICY_SCHEDULE), nr = Policy_count(POLICY_REPLACEMENT), na = Policy_count(POLICY_ALLOCATOR);
  Sweep *sw = calloc(1, sizeof *sw);
  if (!sw) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  sw->combos = malloc(sizeof *sw->combos * (size_t)(ns * nr * na + 1));
  sw->budgets = malloc(sizeof(int64_t) * (size_t)nb);
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
  int64_t lo = f->m_r, hi = (int64_t)((double)(f->m_p > f->m_r ? f->m_p : f->m_r) * (o->past_mp > 1 ? o->past_mp : 1));
  if (hi <= lo) hi = lo + nb - 1;
  sw->nbudgets = nb;
  for (int b = 0; b < nb; b++) sw->budgets[b] = lo + (int64_t)((double)(hi - lo) * b / (nb - 1) + 0.5);
  sw->points = calloc((size_t)sw->ncombos * (size_t)nb, sizeof *sw->points);
  if (!sw->points) {
    Sweep_free(sw);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  *out = sw;
  return SP_OK;
}

Status Sweep_fill(const Net *net, const SweepOptions *o, Sweep *sw, SpError *err) {
  int ns = Policy_count(POLICY_SCHEDULE), total = sw->ncombos * sw->nbudgets, done = 0;
  int **orders = calloc((size_t)ns, sizeof(int *));
  if (!orders) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  Status st = SP_OK;
  for (int b = 0; b < sw->nbudgets && !st; b++)
    for (int c = 0; c < sw->ncombos && !st; c++) {
      Testhook_at("sweep", o->cancel);
      if (o->cancel && atomic_load(o->cancel)) {
        st = SpError_set(err, SP_ERR_CANCELLED, "sweep cancelled");
        break;
      }
      SolveSettings s;
      SolveSettings_init(&s);
      s.params = o->params;
      s.budget = sw->budgets[b];
      s.schedule = sw->combos[c].schedule;
      bool joint = strcmp(sw->combos[c].replacement, "-") == 0;
      if (!joint) {
        s.replacement = sw->combos[c].replacement;
        s.allocator = sw->combos[c].allocator;
        int k = 0; /* the schedule's order, once */
        while (k < ns && strcmp(Policy_at(POLICY_SCHEDULE, k)->name, s.schedule) != 0) k++;
        if (k < ns && !orders[k] && (orders[k] = malloc(sizeof(int) * (size_t)(net->nops ? net->nops : 1)))) {
          SpError e2;
          if (Solve_schedule(net, &s, orders[k], NULL, &e2)) free(orders[k]), orders[k] = NULL;
        }
        if (k < ns) s.order = orders[k];
      }
      s.cancel = o->cancel;
      Plan *p = NULL;
      SpError e;
      SweepPoint *pt = Sweep_at(sw, c, b);
      pt->status = Solve_run(net, &s, &p, &e);
      if (pt->status == SP_ERR_CANCELLED) {
        st = SpError_set(err, SP_ERR_CANCELLED, "sweep cancelled");
        break;
      }
      if (!pt->status) {
        pt->traffic = p->metrics.noncompulsory_bytes;
        pt->spills = p->metrics.spills;
        pt->peak = p->metrics.peak_bytes;
      }
      Plan_free(p);
      pt->done = true;
      done++;
      if (o->progress) o->progress(done, total, o->user);
    }
  for (int k = 0; k < ns; k++) free(orders[k]);
  free(orders);
  return st;
}

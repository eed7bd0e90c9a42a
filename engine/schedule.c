#include "schedule.h"

#include <stdio.h>

#include "figures.h"
#include "solve.h"

Status Schedule_default(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err) {
  (void)s, (void)info, (void)err;
  for (int i = 0; i < net->nops; i++) order[i] = i;
  return SP_OK;
}

Status Schedule_mpmf(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err) {
  MinPeakOptions opt;
  MinPeakOptions_init(&opt);
  opt.cancel = s->cancel;
  opt.time_limit = s->time_limit;
  opt.deadline = s->deadline;
  MinPeakResult res;
  SpError why = {0};
  Status st = Figures_minPeak(net, s->params, &opt, order, &res, &why);
  if (info) info->seconds += res.seconds;
  if (st == SP_ERR_LIMIT || (st == SP_ERR_CANCELLED && res.peak > 0)) {
    /* not proven: the best order found stands, and the caller is told */
    if (info) {
      snprintf(info->note, sizeof info->note, "%.199s", why.text);
      if (st == SP_ERR_CANCELLED) info->status = SOLVER_CANCELLED;
    }
    return SP_OK;
  }
  if (st && err) *err = why;
  return st;
}

#include "schedule.h"

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
  MinPeakResult res;
  Status st = Figures_minPeak(net, s->params, &opt, order, &res, err);
  if (info) info->seconds += res.seconds;
  return st; /* a search limit is an error here: mpmf promises the minimum */
}

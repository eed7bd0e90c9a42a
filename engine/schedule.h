/* schedule: the schedule policies (an order of all ops). */
#ifndef SPADMAP_SCHEDULE_H
#define SPADMAP_SCHEDULE_H

#include "policy.h"

Status Schedule_default(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err);
Status Schedule_mpmf(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err);

#endif

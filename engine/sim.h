/* sim: the one simulator. Walks a schedule step by step, places created and
 * retrieved tensors with an allocator, and when no contiguous gap fits evicts by
 * a replacement policy until it does (enough free bytes in total is not enough). */
#ifndef SPADMAP_SIM_H
#define SPADMAP_SIM_H

#include "plan.h"
#include "policy.h"

Status Sim_run(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *replacement,
               const PolicyInfo *allocator, Plan **out, SpError *err);

/* Metrics from the stays (for plans an engine policy made; the validator has its own). */
Status Plan_computeMetrics(Plan *plan, const Net *net);

#endif

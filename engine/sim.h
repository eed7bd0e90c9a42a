/* sim: the one simulator. Walks a schedule step by step, places created and
 * retrieved tensors with an allocator, and when no contiguous gap fits evicts by
 * a replacement policy until it does (enough free bytes in total is not enough). */
#ifndef SPADMAP_SIM_H
#define SPADMAP_SIM_H

#include "plan.h"
#include "policy.h"

Status Sim_run(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *replacement,
               const PolicyInfo *allocator, Plan **out, SpError *err);

/* Why the simulator evicted a tensor: one record per eviction (a spill, or a
 * drop when the host has a copy), written only when a trace is asked for. */
typedef struct {
  int step;              /* the step that needed room (the evicted stay ends at step - 1) */
  int tensor;            /* the evicted tensor */
  int for_tensor;        /* the block that needed room; -1: the step's own inputs, re-placed together */
  int64_t need;          /* that block's bytes */
  int64_t largest_gap;   /* the largest free gap before the first eviction made for this block
                            (co-evicted tensors share the state that made them leave) */
  int64_t free_bytes;    /* all free bytes then */
  bool window;           /* greedy: one of a window of blocks cleared together */
  double weight;         /* what the policy weighed: the evicted tensor's score (belady: its next
                            read step; lru: minus its last access; size-aware: distance x size) or,
                            for a window, the window's cost in non-compulsory bytes */
  int next_use;          /* the evicted tensor's next read (INT32_MAX: none) */
} SimEviction;

typedef struct {
  SimEviction *ev;
  int n, cap;
} SimTrace;

/* Sim_run that also records every eviction into trace (appended; free with SimTrace_free). */
Status Sim_runTraced(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *replacement,
                     const PolicyInfo *allocator, Plan **out, SimTrace *trace, SpError *err);
void SimTrace_free(SimTrace *trace);

/* Metrics from the stays (for plans an engine policy made; the validator has its own). */
Status Plan_computeMetrics(Plan *plan, const Net *net);

#endif

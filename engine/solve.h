/* solve: one problem (network + settings) to one plan, through the policy table. */
#ifndef SPADMAP_SOLVE_H
#define SPADMAP_SOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "figures.h"
#include "net.h"
#include "plan.h"
#include "policy.h"

struct SolveSettings {
  bool params;               /* hold param tensors on chip too */
  int64_t budget;            /* scratchpad bytes */
  const char *schedule;      /* policy names (policy.h) */
  const char *replacement;
  const char *allocator;
  double time_limit;         /* seconds, for searching policies; 0: none */
  volatile int *cancel;      /* non-zero: stop as soon as possible */
  const int *order;          /* if set: this schedule (nops entries) instead of running
                                the schedule policy, e.g. an mpmf order computed once */
};

/* Defaults: activations only, budget 0 (set it), default / belady / linear. */
void SolveSettings_init(SolveSettings *s);

/* Runs the policies; on success *out is a plan with metrics and solver status.
 * A budget below M_R gives SP_ERR_INFEASIBLE with the figures in the message. */
Status Solve_run(const Net *net, const SolveSettings *s, Plan **out, SpError *err);

/* The order the schedule policy picks (nops entries). */
Status Solve_schedule(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err);

/* Budget text: "M_R", "M_H", "M_P" (from f), or bytes with an optional K/M/G
 * suffix (KiB, MiB, GiB). preset gets "M_R"... or "" for a plain size. */
Status Budget_parse(const char *text, const NetFigures *f, int64_t *bytes, const char **preset, SpError *err);

#endif

/* solve: one problem (network + settings) to one plan, through the policy table. */
#ifndef SPADMAP_SOLVE_H
#define SPADMAP_SOLVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "figures.h"
#include "net.h"
#include "plan.h"
#include "policy.h"

/* What a searching policy (the ILP ones) reports while it runs. Bytes, not model units. */
typedef struct {
  const char *stage;         /* "heuristics", "relaxation: root LP", "full model: branch and bound", "done", ... */
  double incumbent;          /* best plan's objective so far (non-compulsory bytes, or peak bytes for mpmf-ilp) */
  double bound;              /* best proven lower bound */
  double gap;                /* (incumbent - bound) / incumbent, < 0 if unknown */
  bool has_incumbent, has_bound;
  long nodes;                /* branch-and-bound nodes of the current model */
  double elapsed;            /* seconds since the policy started */
} SolveProgress;

struct SolveSettings {
  bool params;               /* hold param tensors on chip too */
  int64_t budget;            /* scratchpad bytes */
  const char *schedule;      /* policy names (policy.h) */
  const char *replacement;
  const char *allocator;
  double time_limit;         /* seconds, for searching policies (default 60); <= 0: none. The
                                searches' work budget (their stages' shares of it are counted
                                on the work clock, workclock.h) and a wall-clock stop */
  double deadline;           /* the wall-clock stop: Clock_now() seconds (0: Solve_run sets it
                                to its start + time_limit; a direct call to a policy: none) */
  atomic_int *cancel;      /* non-zero: stop as soon as possible */
  /* Searching policies call this at least every 200 ms while they run (in the
   * solving thread); NULL: no reports. */
  void (*progress)(const SolveProgress *p, void *user);
  void *progress_user;
  const int *order;          /* if set: this schedule (nops entries) instead of running
                                the schedule policy, e.g. an mpmf order computed once */
  bool paper_model;          /* cosma: solve the paper's model (Eqs. 1-12 with its Section III-F
                                overlap analysis; no pipeline, no warm start), for comparison */
  const char *break_nodes;   /* dnc: comma-separated op names; NULL or "": chosen automatically */
  int mp_orders;             /* cosma, dnc (each segment): 2 = also try the M_P order of the whole-network
                                search (another optimal order) as a candidate schedule; 0, 1: one */
};

/* Defaults: activations only, budget 0 (set it), default / belady / linear,
 * time limit 60 s, no cancel flag, no progress callback. */
void SolveSettings_init(SolveSettings *s);

/* Runs the policies; on success *out is a plan with metrics and solver status.
 * A budget below M_R gives SP_ERR_INFEASIBLE with the figures in the message.
 * A replacement policy with a `plan` function (ilp) makes the whole plan (the
 * allocator setting is then unused and the plan names allocator "ilp"); its
 * solver block says optimal / timeout / cancelled with objective and bound. With
 * simulated replacement the solver status is "heuristic". A searching policy that
 * is cancelled before it has any plan returns SP_ERR_CANCELLED. */
Status Solve_run(const Net *net, const SolveSettings *s, Plan **out, SpError *err);

/* The engine's rule for searching policies: a plan whose solver block claims
 * anything (optimal, feasible, timeout, cancelled) goes through the validator, and
 * one that fails it is never reported: SP_ERR_SOLVER, the first violation in err.
 * Heuristic plans pass through (the tests validate every policy's plans). */
Status Solve_checkPlan(const Net *net, const Plan *plan, SpError *err);

/* A fixed order through a replacement policy and an allocator: the simulator, or
 * the allocator's own offline placement (pack). What every sweep over the simple
 * policies calls, so that an offline allocator is never silently simulated. */
Status Solve_simulate(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *rp,
                      const PolicyInfo *ap, Plan **out, SpError *err);

/* The order the schedule policy picks (nops entries). */
Status Solve_schedule(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err);

/* Budget text (budget.c): "M_R", "M_H", "M_P" (from f), a preset times a factor
 * ("M_P*1.1") or over a divisor ("M_R/16", at least one byte), or a size as the tool prints it: bytes with commas or not
 * ("1,026,880"), or a number with a fraction and a K/M/G unit (KiB, MiB, GiB:
 * "2.5M", "1.23 MiB"). preset gets "M_R"... or "" for anything else. */
Status Budget_parse(const char *text, const NetFigures *f, int64_t *bytes, const char **preset, SpError *err);

#endif

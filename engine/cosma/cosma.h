/* cosma: the ILP policies after COSMA (Li et al., "Optimizing Memory Allocation
 * and Tensor Replacement for DNN Accelerators"), solved with GLPK through ilp.h.
 *
 *  - mpmf-ilp (schedule, Eqs. 13-15): the order minimising the peak footprint, with
 *    the paper's creation/preservation variables (no spills, no addresses), each
 *    variable only inside its op's ASAP..ALAP window.
 *  - ilp (replacement, Eqs. 16-17 with the schedule fixed): allocation + replacement
 *    minimising non-compulsory traffic under the contract's accounting, as a
 *    pipeline that proves what it can:
 *      (a) incumbent: the best simulated plan over every replacement x allocator;
 *      (b) lower bound: the replacement-only model (evictions and retrievals with
 *          per-step capacity rows, no addresses); its solution is also placed by an
 *          offline greedy-by-size allocator, which, when it fits, is a plan at the
 *          bound; incumbent == bound stops here, optimal;
 *      (c) else the full model (addresses in units of the GCD of the sizes, one
 *          ordering binary per pair of possibly co-resident stays, big-M = budget)
 *          warm-started with the incumbent, under the time limit.
 *
 * Modelling choices (all without loss of optimality): a tensor's residency is
 * decided per gap between its events (creation or first load, then each step that
 * reads it); a retrieval happens only at a step that reads the tensor and an
 * eviction right after an event (anything else only holds memory longer), so each
 * gap is either kept (same address) or evicted-and-retrieved (one retrieval; the
 * first eviction of a non-output activation is its one spill; inputs, params and
 * outputs evict for free). Addresses are per "piece" (an event and the gap after
 * it), so a retrieved tensor may come back anywhere. */
#ifndef SPADMAP_COSMA_H
#define SPADMAP_COSMA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "plan.h"
#include "policy.h"
#include "solve.h"

typedef struct {
  SolverStatus status;   /* OPTIMAL, TIMEOUT or CANCELLED (order: the best found) */
  int64_t peak;          /* peak bytes of the returned order */
  int64_t bound;         /* proven lower bound on M_P (bytes) */
  bool has_bound;
  double seconds;
  int ncols, nrows;      /* model size */
} CosmaMinPeakResult;

/* The min-peak ILP. warm_order (nops entries, may be NULL: the file order) is the
 * starting incumbent; order gets the best order found (never worse than warm_order).
 * Uses s->params, s->time_limit, s->cancel, s->progress. SP_ERR_SOLVER if GLPK failed. */
Status Cosma_minPeak(const Net *net, const SolveSettings *s, const int *warm_order, int *order,
                     CosmaMinPeakResult *res, SpError *err);
/* The "mpmf-ilp" schedule policy (Cosma_minPeak from the file order). */
Status Cosma_scheduleMinPeak(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err);

typedef struct {
  bool force_full;       /* run the full model even when (b) already proved the incumbent */
  bool no_warm_start;    /* do not hand the heuristic incumbent to the full model */
  bool proximity;        /* GLPK's proximity search in a large full model (cosma turns it on) */
} CosmaFsOptions;

typedef struct {
  int64_t heuristic_bytes;      /* (a): best simulated plan's non-compulsory bytes */
  char heuristic_policy[64];    /* "belady/linear" ... */
  int64_t relax_bound;          /* (b): lower bound from the replacement-only model */
  SolverStatus relax_status;    /* OPTIMAL when the relaxation was solved exactly */
  bool replay_fits;             /* the relaxation's evictions were placed at addresses */
  bool full_ran;                /* (c) ran */
  SolverStatus full_status;
  int64_t full_bound;           /* its bound (bytes), if it ran */
  bool full_warm_accepted;
  int full_cols, full_rows, pairs;
  int64_t gcd;                  /* address unit */
  double seconds_heuristic, seconds_relax, seconds_full;
  int benders_cuts;             /* placement cuts added to the replacement-only model */
  int benders_rounds;           /* its solves (1 = no cut was needed) */
  bool packed_exact;            /* the exact packer placed the stays (the greedy orders failed) */
  double seconds_pack;
} CosmaFsStats;

/* The replacement ILP pipeline for a fixed order. The plan's solver block gets
 * status (optimal / timeout / cancelled), objective (its non-compulsory bytes) and
 * bound. opt and stats may be NULL. */
Status Cosma_replacement(const Net *net, const SolveSettings *s, const int *order, const CosmaFsOptions *opt,
                         Plan **out, CosmaFsStats *stats, SpError *err);
/* The "ilp" replacement policy (PolicyInfo.plan): Cosma_replacement with defaults. */
Status Cosma_replacementPlan(const Net *net, const SolveSettings *s, const int *order, Plan **out, SpError *err);

/* ============ the joint model (Eqs. 1-12): schedule + allocation + replacement ============ */

typedef struct {
  int64_t heuristic_bytes;      /* best simulated plan over the candidate schedules */
  char heuristic_policy[80];    /* "mpmf/belady/linear" ... */
  int64_t relax_bound;          /* joint replacement-only relaxation (schedule + residency, no addresses) */
  SolverStatus relax_status;
  int64_t fs_bytes;             /* best COSMA FS plan over the candidate schedules */
  char fs_schedule[32];         /* which candidate schedule it came from */
  bool full_ran;                /* the joint model with addresses ran */
  SolverStatus full_status;
  bool full_warm_accepted;      /* the incumbent was a valid warm start for it */
  bool full_plan;               /* the returned plan is the joint model's solution */
  int full_cols, full_rows;
  long full_pairs;              /* --model paper: its u/d address-ordering pairs (per step) */
  int64_t order_bound;          /* the checkpoint bound over every order (Cosma_orderBound) */
  bool order_bound_stopped;     /* it stopped at its time share (the bound found so far stands) */
  double seconds_order_bound;
  double seconds_order_work;    /* its work, in the work clock's nominal seconds */
  char stop_reason[160];        /* why the pipeline stopped short of a proof ("" when optimal) */
  double seconds;
} CosmaJointStats;

/* The joint COSMA problem (Eqs. 1-12): the order, the addresses and the spills and
 * retrievals that minimise non-compulsory traffic, as a pipeline (see cosma_joint.c);
 * with s->paper_model, the paper's model as written, solved directly. The plan's
 * solver block says optimal / timeout / cancelled with objective and bound.
 * stats may be NULL. */
Status Cosma_joint(const Net *net, const SolveSettings *s, Plan **out, CosmaJointStats *stats, SpError *err);
typedef struct {
  bool force_full;       /* skip the shortcuts and COSMA FS: always solve the joint model (tests) */
  bool no_warm_start;    /* do not hand the heuristic incumbent to the models */
  int64_t bound_bias;    /* tests only: added to the checkpoint bound (a wrong bound must be caught) */
  int mp_orders;         /* 2: also the M_P order of the whole-network search (MinPeakOptions.whole, another
                            optimal order) as a candidate schedule; 0 or 1: the default search's only */
  bool paper_unreduced;  /* tests only: s->paper_model without the paper's overlap analysis (Section
                            III-F): every op at every step, every tensor pair at every step */
} CosmaJointOptions;
Status Cosma_jointWith(const Net *net, const SolveSettings *s, const CosmaJointOptions *opt, Plan **out,
                       CosmaJointStats *stats, SpError *err);
/* The "cosma" schedule policy (JointFn). */
Status Cosma_jointPlan(const Net *net, const SolveSettings *s, Plan **out, SpError *err);

/* ============ divide and conquer over break nodes ============ */

/* Break nodes chosen automatically (ascending positions in a valid order, each an
 * ancestor of the next); segments hold at most about max_segment ops. nodes gets
 * up to net->nops op indices; *count their number. */
Status Cosma_breakNodes(const Net *net, bool params, int max_segment, int *nodes, int *count, SpError *err);
/* The "dnc" schedule policy (JointFn): s->break_nodes or automatic ones. */
Status Cosma_dncPlan(const Net *net, const SolveSettings *s, Plan **out, SpError *err);

/* ============ a lower bound over every order (cosma_bound.c) ============ */

typedef struct {
  int max_checkpoints;   /* ops considered as checkpoints, the costliest first (default 48) */
  int max_antichain;     /* tight parallel ops whose relative orders are enumerated (default 5: 120 orders) */
  int max_groups;        /* groups of up to 5 parallel ops whose orders are enumerated locally (default 16; 0: none) */
  double deadline;       /* Clock_now() seconds (the outer, wall-clock stop); 0: none. Past it, the
                            bound found so far (complete = false) */
  double work;           /* nominal seconds on the work clock (workclock.h); 0: none. Past them,
                            the same, at the same point on any machine */
  atomic_int *cancel;
  int64_t target;        /* > 0: stop once the bound reaches it (the caller's best plan) */
  int64_t test_bias;     /* tests only: added to the bound, so a wrong bound must fail the brute-force test */
} CosmaBoundOptions;
void CosmaBoundOptions_init(CosmaBoundOptions *o);

typedef struct {
  int64_t bound;         /* bytes of non-compulsory traffic every plan (any order, any placement) pays */
  int checkpoints;       /* ops on the chain that gave it */
  int antichain;         /* ops whose relative orders were enumerated (0: none) */
  int orders;            /* relative orders tried */
  int groups;            /* groups of parallel ops chained with the checkpoints */
  bool by_groups;        /* the bound came from the chain with groups */
  bool complete;         /* false: stopped at the deadline or cancel (the bound still holds) */
  bool combined;         /* the checkpoints' evictions were combined by the small ILP (shared spills) */
  long cuts;             /* minimum cuts computed */
  double seconds;
} CosmaBoundResult;

/* The checkpoint bound (see cosma_bound.c): a chain of ops that run in that order in
 * every schedule; at each, the tensors that must cross it and cannot all stay pay a
 * retrieval (and a spill where it cannot be shared). Cheap (max flows), valid for
 * the joint problem, exact on many transformer-like graphs. */
Status Cosma_orderBound(const Net *net, bool params, int64_t budget, const CosmaBoundOptions *opt,
                        CosmaBoundResult *res, SpError *err);

#endif

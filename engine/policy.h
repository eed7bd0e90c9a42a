/* policy: the one table of policies (name, kind, help, function). The CLI flags,
 * the TUI menus and the bench all list what is here. */
#ifndef SPADMAP_POLICY_H
#define SPADMAP_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "net.h"
#include "plan.h"

typedef enum { POLICY_SCHEDULE, POLICY_REPLACEMENT, POLICY_ALLOCATOR, POLICY_KIND_COUNT } PolicyKind;

typedef struct SolveSettings SolveSettings;

/* What a replacement policy sees of one eviction candidate. */
typedef struct {
  int tensor;
  int64_t bytes;
  int step;          /* the step that needs room */
  int next_use;      /* step of its next read (INT32_MAX: none) */
  int last_access;   /* step it was last read or made */
} EvictCandidate;

/* The free space an allocator sees: resident blocks sorted by offset. */
typedef struct {
  int64_t offset, bytes;
} Block;

typedef Status (*ScheduleFn)(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err);
/* A whole-plan replacement policy (it chooses evictions and addresses itself, so
 * the allocator setting is not used): the plan for this schedule, with metrics
 * and its solver block (status, objective, bound) filled in. */
typedef Status (*PlanFn)(const Net *net, const SolveSettings *s, const int *order, Plan **out, SpError *err);
/* A whole-plan schedule policy (schedule, allocation and replacement together, e.g.
 * the joint COSMA ILP): replacement and allocator settings are not used. */
typedef Status (*JointFn)(const Net *net, const SolveSettings *s, Plan **out, SpError *err);
/* Higher score = evicted first. */
typedef double (*EvictScoreFn)(const EvictCandidate *c);
struct PolicyInfo;
/* An allocator that places a whole plan offline (Sim_run's signature: pack). */
typedef Status (*OfflineAllocFn)(const Net *net, bool params, int64_t budget, const int *order,
                                 const struct PolicyInfo *replacement, const struct PolicyInfo *allocator, Plan **out,
                                 SpError *err);
/* Offset for `bytes` among the blocks within [0, budget), or -1 if no gap fits. */
typedef int64_t (*PlaceFn)(const Block *blocks, int nblocks, int64_t bytes, int64_t budget);

typedef struct PolicyInfo {
  const char *name;
  PolicyKind kind;
  const char *help;
  ScheduleFn schedule;        /* POLICY_SCHEDULE */
  EvictScoreFn evict_score;   /* POLICY_REPLACEMENT (simulated) */
  bool window_evict;          /* POLICY_REPLACEMENT (simulated): evict the cheapest window of blocks
                                 (sim.c) instead of scoring tensors one at a time */
  PlaceFn place;              /* POLICY_ALLOCATOR */
  bool size_order;            /* allocator: place a step's new blocks largest first */
  PlanFn plan;                /* POLICY_REPLACEMENT (whole plan, e.g. the ILP); used instead of the simulator */
  JointFn joint;              /* POLICY_SCHEDULE that makes the whole plan (cosma, dnc) */
  bool searching;             /* an exact/ILP search bounded by SolveSettings.time_limit: may take seconds */
  OfflineAllocFn offline;     /* POLICY_ALLOCATOR: makes the whole plan instead of the simulator (which it
                                 may call itself, with `place` as its fallback) */
} PolicyInfo;

/* The fast (non-searching) policies of a kind, in table order: what the
 * all-combinations sweeps (bench, tests) run. */
int Policy_count(PolicyKind kind);
const PolicyInfo *Policy_at(PolicyKind kind, int i);
/* Every policy of a kind, the searching ones (ILP) included: menus, --list. */
int Policy_countAll(PolicyKind kind);
const PolicyInfo *Policy_atAll(PolicyKind kind, int i);
const PolicyInfo *Policy_find(PolicyKind kind, const char *name);
const char *PolicyKind_name(PolicyKind kind);

#endif

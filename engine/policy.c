#include "policy.h"

#include <string.h>

#include "alloc.h"
#include "replace.h"
#include "cosma/cosma.h"
#include "pack/pack.h"
#include "schedule.h"

static const PolicyInfo Policy_table[] = {
  {.name = "default", .kind = POLICY_SCHEDULE, .help = "the network file's op order (PyTorch's execution order)",
   .schedule = Schedule_default},
  {.name = "mpmf", .kind = POLICY_SCHEDULE, .help = "an order reaching the exact minimum peak footprint M_P",
   .schedule = Schedule_mpmf},
  {.name = "mpmf-ilp", .kind = POLICY_SCHEDULE,
   .help = "the minimum-peak order from COSMA's ILP (Eqs. 13-15, GLPK), within the time limit",
   .schedule = Cosma_scheduleMinPeak, .searching = true},
  {.name = "cosma", .kind = POLICY_SCHEDULE,
   .help = "COSMA's joint ILP (Eqs. 1-12, GLPK): order, addresses and replacement together, within the time limit",
   .joint = Cosma_jointPlan, .searching = true},
  {.name = "dnc", .kind = POLICY_SCHEDULE,
   .help = "COSMA's divide and conquer: the joint ILP per segment between break nodes, then the replacement ILP "
           "on the whole order, within the time limit",
   .joint = Cosma_dncPlan, .searching = true},
  {.name = "belady", .kind = POLICY_REPLACEMENT, .help = "evict the tensor read furthest in the future",
   .evict_score = Replace_belady},
  {.name = "lru", .kind = POLICY_REPLACEMENT, .help = "evict the tensor read or made longest ago",
   .evict_score = Replace_lru},
  {.name = "size-aware", .kind = POLICY_REPLACEMENT, .help = "evict the largest next-use distance x size",
   .evict_score = Replace_sizeAware},
  {.name = "greedy", .kind = POLICY_REPLACEMENT,
   .help = "COSMA's greedy baseline: evict the cheapest set of blocks that frees a contiguous gap",
   .window_evict = true},
  {.name = "ilp", .kind = POLICY_REPLACEMENT,
   .help = "COSMA's allocation + replacement ILP for the schedule (Eqs. 16-17, GLPK), within the time limit",
   .plan = Cosma_replacementPlan, .searching = true},
  {.name = "linear", .kind = POLICY_ALLOCATOR,
   .help = "TFLite simple_memory_arena: best-fit gap, else after the last block", .place = Alloc_linear},
  {.name = "first-fit", .kind = POLICY_ALLOCATOR, .help = "the lowest-addressed gap that fits",
   .place = Alloc_firstFit},
  {.name = "greedy-size", .kind = POLICY_ALLOCATOR,
   .help = "a step's new blocks largest first, each at the lowest gap that fits", .place = Alloc_firstFit,
   .size_order = true},
  {.name = "pack", .kind = POLICY_ALLOCATOR,
   .help = "offline: when the schedule's peak fits, every tensor stays resident at an address from the exact "
           "packer (no spill); else like linear",
   .place = Alloc_linear, .offline = Pack_allocatorPlan},
};

enum { POLICY_TABLE_SIZE = sizeof Policy_table / sizeof Policy_table[0] };

/* Searching (ILP) policies are left out of the fast sweeps (bench, tests) unless all is set. */
static int Policy_tally(PolicyKind kind, bool all) {
  int n = 0;
  for (int i = 0; i < POLICY_TABLE_SIZE; i++) n += Policy_table[i].kind == kind && (all || !Policy_table[i].searching);
  return n;
}

static const PolicyInfo *Policy_nth(PolicyKind kind, int k, bool all) {
  for (int i = 0; i < POLICY_TABLE_SIZE; i++)
    if (Policy_table[i].kind == kind && (all || !Policy_table[i].searching) && k-- == 0) return &Policy_table[i];
  return NULL;
}

int Policy_count(PolicyKind kind) { return Policy_tally(kind, false); }
const PolicyInfo *Policy_at(PolicyKind kind, int k) { return Policy_nth(kind, k, false); }
int Policy_countAll(PolicyKind kind) { return Policy_tally(kind, true); }
const PolicyInfo *Policy_atAll(PolicyKind kind, int k) { return Policy_nth(kind, k, true); }

const PolicyInfo *Policy_find(PolicyKind kind, const char *name) {
  for (int i = 0; i < POLICY_TABLE_SIZE; i++)
    if (Policy_table[i].kind == kind && name && strcmp(Policy_table[i].name, name) == 0) return &Policy_table[i];
  return NULL;
}

const char *PolicyKind_name(PolicyKind kind) {
  static const char *const names[] = {"schedule", "replacement", "allocator"};
  return (unsigned)kind < POLICY_KIND_COUNT ? names[kind] : "?";
}

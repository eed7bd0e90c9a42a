/* combos.h: the settings of one policy combination (indices into the fast policy
 * table), for tests that sweep every schedule x replacement x allocator. */
#ifndef SPADMAP_COMBOS_H
#define SPADMAP_COMBOS_H

#include "policy.h"
#include "solve.h"

static inline void Combo_settings(SolveSettings *s, bool params, int64_t budget, int si, int ri, int ai) {
  SolveSettings_init(s);
  s->params = params;
  s->budget = budget;
  s->schedule = Policy_at(POLICY_SCHEDULE, si)->name;
  s->replacement = Policy_at(POLICY_REPLACEMENT, ri)->name;
  s->allocator = Policy_at(POLICY_ALLOCATOR, ai)->name;
}

#endif

/* testhook: test-only control at the engine's named poll points, so that a test
 * can interrupt a run at a known point instead of sleeping and hoping the run is
 * still busy (docs/reliability.md, "Test hooks"). Off unless one of these is set
 * in the environment (read once) or a C test arms it (Testhook_arm):
 *   SPADMAP_TEST_PAUSE=S1[,S2...]  at each stage in turn: say "paused S PID", then
 *                                  wait until the cancel flag is set (SIGINT);
 *                                  meanwhile every other poll point waits too
 *   SPADMAP_TEST_HOLD=S            at S: say "held S PID", then never return (a stage
 *                                  deaf to cancel, lasting forever)
 *   SPADMAP_TEST_DEADLINE_AT=S     at S: say "deadline S PID", and the clock jumps
 *                                  past every time limit already running
 *   SPADMAP_TEST_HOOK_OUT=PATH     where the lines go (appended; a FIFO works),
 *                                  stderr without it
 * A stage that has no poll point is never reached: the test sees the run end
 * without the line. Off, a poll point costs one relaxed atomic load. */
#ifndef SPADMAP_TESTHOOK_H
#define SPADMAP_TESTHOOK_H

#include <stdatomic.h>
#include <stdbool.h>

typedef enum { TESTHOOK_OFF, TESTHOOK_PAUSE, TESTHOOK_HOLD, TESTHOOK_DEADLINE } TesthookMode;

extern atomic_int Testhook_state; /* 0: the environment not read yet, 1: off, 2: armed */

bool Testhook_reach(const char *stage, atomic_int *cancel);

/* At a poll point named `stage` (its cancel flag, or NULL): true when the hook
 * acted (paused, or moved the clock), so the caller reads the clock again. */
static inline bool Testhook_at(const char *stage, atomic_int *cancel) {
  if (atomic_load_explicit(&Testhook_state, memory_order_relaxed) == 1) return false;
  return Testhook_reach(stage, cancel);
}

/* For C tests: arm as the environment would (stages comma-separated; OFF
 * disarms and moves the clock back), wait until a thread reached `stage` (false
 * after guard seconds: a hang guard, a failure), and let a held thread go. */
void Testhook_arm(TesthookMode mode, const char *stages);
bool Testhook_waitReached(const char *stage, double guard);
void Testhook_release(void);

#endif

/* workclock: see workclock.h. */
#include "workclock.h"

static _Thread_local double WorkClock_seconds;

double WorkClock_now(void) { return WorkClock_seconds; }

void WorkClock_add(double seconds) {
  if (seconds > 0) WorkClock_seconds += seconds;
}

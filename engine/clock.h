/* clock: monotonic seconds, for solve times and time limits. */
#ifndef SPADMAP_CLOCK_H
#define SPADMAP_CLOCK_H

#include <stdatomic.h>
#include <time.h>

/* seconds added to the clock: 0, except in a test that makes a stage's
 * deadline pass (SPADMAP_TEST_DEADLINE_AT, testhook.h) */
extern atomic_llong Clock_skew;

static inline double Clock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 +
         (double)atomic_load_explicit(&Clock_skew, memory_order_relaxed);
}

#endif

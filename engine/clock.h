/* clock: monotonic seconds, for solve times and time limits. */
#ifndef SPADMAP_CLOCK_H
#define SPADMAP_CLOCK_H

#include <time.h>

static inline double Clock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif

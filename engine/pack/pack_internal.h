/* pack_internal: what pack.c, pack_heuristics.c and pack_exact.c share. */
#ifndef SPADMAP_PACK_INTERNAL_H
#define SPADMAP_PACK_INTERNAL_H

#include "pack.h"

/* x rounded up to a multiple of a (a <= 1: x). */
static inline int64_t Pack_alignUp(int64_t x, int64_t a) {
  if (a <= 1) return x;
  int64_t r = x % a;
  return r ? x + (a - r) : x;
}

static inline bool Pack_overlap(const PackBuffer *a, const PackBuffer *b) {
  return a->lower < b->upper && b->lower < a->upper;
}

/* One heuristic: fills offsets, returns the height, or -1 when out of memory. */
typedef int64_t (*PackHeuristicFn)(const PackBuffer *b, int n, int64_t *offsets);

/* The heuristic of a method (NULL for PACK_EXACT / PACK_BEST_HEURISTIC). */
PackHeuristicFn PackHeur_of(PackMethod m);

/* The exact search for buffers already validated; start = Clock_now() at entry. */
Status PackExact_solve(const PackBuffer *b, int n, int64_t capacity, const PackOptions *o, double start,
                       PackResult *r);

/* The best heuristic (lowest height of all): offsets and height. */
Status Pack_bestHeuristic(const PackBuffer *b, int n, int64_t *offsets, int64_t *height, SpError *err);

/* The time of the largest load (-1 when n == 0) and that load. */
int64_t Pack_maxLoadAt(const PackBuffer *b, int n, int64_t *when);

#endif

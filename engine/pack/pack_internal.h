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

/* Who overlaps whom in time (lists, CSR: adj[start[i]..start[i+1])), built in
 * n log n plus the pairs; what the heuristics look at instead of all n. */
typedef struct {
  int *start, *adj;
  /* set by best-heuristic after building (else NULL): a heuristic whose own work
   * is quadratic (skyline) asks it now and then and gives up (PACK_HEUR_STOPPED)
   * when it says stop: the time limit from start, or cancel */
  bool (*stop)(const void *user);
  const void *stop_user;
} PackOverlaps;
enum { PACK_HEUR_STOPPED = -3 };
bool PackOverlaps_build(const PackBuffer *b, int n, PackOverlaps *g);
void PackOverlaps_free(PackOverlaps *g);

/* One heuristic: fills offsets, returns the height, -1 when out of memory, or
 * PACK_HEUR_STOPPED (g->stop said so). */
typedef int64_t (*PackHeuristicFn)(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets);

/* The heuristic of a method (NULL for PACK_EXACT / PACK_BEST_HEURISTIC). */
PackHeuristicFn PackHeur_of(PackMethod m);

/* The exact search for buffers already validated; start = Clock_now() at entry. */
Status PackExact_solve(const PackBuffer *b, int n, int64_t capacity, const PackOptions *o, double start,
                       PackResult *r);

/* The best heuristic (lowest height of all): offsets and height; o (may be
 * NULL) stops it between heuristics at its time limit from start, or on cancel,
 * with the best so far. */
Status Pack_bestHeuristic(const PackBuffer *b, int n, int64_t *offsets, int64_t *height, const PackOptions *o,
                          double start, SpError *err);

/* The time of the largest load (-1 when n == 0) and that load. */
int64_t Pack_maxLoadAt(const PackBuffer *b, int n, int64_t *when);

/* What one decision of the exact search ends with. */
typedef enum { SEARCH_EXHAUSTED = 0, SEARCH_FOUND = 1, SEARCH_STOPPED = -1 } SearchResult;

/* pack_sweep: the exact decision for a perfect part (the load equals cap at
 * every time from the first lower to the last upper), sweeping over time. */
typedef struct {
  bool (*tick)(void *user); /* called once per node; true: stop now */
  void *user;
  bool table;               /* the failed-state table (default on) */
  bool symmetry;            /* the symmetry rules (default on) */
  bool lookahead;           /* the hole-size look-ahead (default on) */
  long region_nodes;        /* node budget of one region check (default 2000; 0: none) */
  bool reverse;             /* sweep from the last time back (default off) */
  size_t table_bytes;       /* the table's memory cap (default 128 MiB) */
} PackSweepOptions;

enum {
  PACK_SWEEP_FOUND = 1,       /* off[0..n) filled */
  PACK_SWEEP_INFEASIBLE = 0,  /* proven: no packing under cap */
  PACK_SWEEP_STOPPED = -1,    /* tick said stop */
  PACK_SWEEP_NOMEM = -2,
  PACK_SWEEP_NOT_PERFECT = -3, /* the load is not cap everywhere: not for this search */
  PACK_SWEEP_BUDGET = -4       /* the run's node budget ran out */
};

/* A sweep kept across runs of one decision: its failed-state table stays
 * valid (runs differ only in the order starters are tried). */
typedef struct PackSweep PackSweep;
/* NULL with *status PACK_SWEEP_NOMEM or PACK_SWEEP_NOT_PERFECT. */
PackSweep *PackSweep_new(const PackBuffer *b, int n, int64_t cap, const PackSweepOptions *o, int *status);
/* One run: seed 0 tries larger starters first, others a random order; budget
 * (<= 0: none) caps its nodes. */
int PackSweep_run(PackSweep *w, uint64_t seed, long budget, int64_t *off, long *nodes);
void PackSweep_free(PackSweep *w);

void PackSweepOptions_init(PackSweepOptions *o);
/* Decides whether the n buffers fit under cap; o may be NULL (defaults);
 * *nodes counts the placements tried. */
int PackSweep_decide(const PackBuffer *b, int n, int64_t cap, const PackSweepOptions *o, int64_t *off, long *nodes);

/* pack_guillotine: a guillotine packing of a perfect part, or none (no proof:
 * a packing that is not guillotine may exist). */
typedef struct {
  bool (*tick)(void *user); /* called once per node; true: stop now */
  void *user;
  long budget;              /* nodes; <= 0: none */
  long sweep_budget;        /* nodes of one time sweep on a part no cut splits; 0: no sweep */
} PackGuillotineOptions;

enum {
  PACK_GUIL_FOUND = 1,    /* off[0..n) filled and checked */
  PACK_GUIL_NONE = 0,     /* no guillotine packing (not a proof of infeasibility) */
  PACK_GUIL_STOPPED = -1, /* tick or the budget stopped it */
  PACK_GUIL_NOMEM = -2
};

/* Looks for a guillotine packing of n buffers whose load is cap at every time
 * of their span; o may be NULL (no budget). */
int PackGuillotine_find(const PackBuffer *b, int n, int64_t cap, const PackGuillotineOptions *o, int64_t *off,
                        long *nodes);

/* pack_canon: the exact decision for parts with slack, minimalloc's rules
 * (canonical order, section inference, dominance, hatless pruning, dynamic
 * decomposition) on the buffers b[0..n), which must outlive it. */
typedef struct PackCanon PackCanon;
enum {
  PACK_CANON_FOUND = 1,      /* off[0..n) filled */
  PACK_CANON_INFEASIBLE = 0, /* proven: no packing under cap */
  PACK_CANON_STOPPED = -1,   /* tick said stop */
  PACK_CANON_NOMEM = -2,
  PACK_CANON_BUDGET = -4     /* the attempt's node budget ran out */
};
/* NULL when out of memory or when the overlapping pairs pass max_pairs. */
PackCanon *PackCanon_new(const PackBuffer *b, int n, size_t max_pairs);
/* One attempt under cap with a preorder ("WAT", "TAW", "TWA": the keys W
 * lifetime, A area, T fullest section, Z size, each descending); budget <= 0:
 * no node budget; tick (may be NULL) is called once per node, true: stop. */
int PackCanon_run(PackCanon *c, int64_t cap, const char *heuristic, long budget, bool (*tick)(void *user),
                  void *user, int64_t *off, long *nodes);
/* The same with some buffers fixed: fixed[i] >= 0 is buffer i's offset, which
 * the search keeps (the others are placed around them); fixed NULL: none. An
 * exhausted attempt proves no placement of the free ones fits with the fixed
 * ones where they are. What large-neighbourhood re-packing decides. */
int PackCanon_runFixed(PackCanon *c, int64_t cap, const int64_t *fixed, const char *heuristic, long budget,
                       bool (*tick)(void *user), void *user, int64_t *off, long *nodes);
void PackCanon_free(PackCanon *c);

#endif

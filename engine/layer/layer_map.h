/* layer_map: the layer mappers (CoSA's MIP, random, exhaustive, and later
 * SmartShuttle and the offloading steps) behind one method table. Each mapper
 * returns a mapping the cost model (mapping.h) has checked and costed; none
 * returns an invalid mapping.
 *
 * Adding a method: write `Status LayerMap_xxx(const Arch *, const Layer *,
 * const LayerMapOptions *, LayerMapResult *, SpError *)` in its own file,
 * declare it below and add one row to LayerMap_methods in layer_map.c. The CLI
 * (`spadmap layer --method`), `bench layer` and the layer view list methods
 * from that table, so nothing else changes. */
#ifndef SPADMAP_LAYER_MAP_H
#define SPADMAP_LAYER_MAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "layer.h"
#include "mapping.h"

/* The default work per cosa-plus MIP round: about what 0.5 s of GLPK did on an idle
 * core of the build machine (docs/results/layer.md), the cap it replaces. */
#define LAYER_MIP_WORK 10000
/* An uncapped MIP round (the paper's cosa, a cosa-plus round the cap left without a
 * solution) gets time_limit x this much work: half of what GLPK does in a second on
 * an idle core (about 20,000 on these models), so the work, not the clock, ends it
 * unless the machine is more than twice as slow; the clock then stops it and the
 * note says "time limit". */
#define LAYER_WORK_PER_SECOND 10000

typedef struct {
  LayerObjective objective; /* what "best" means for the searches (default latency) */
  double time_limit;        /* seconds; <= 0: none (default 10 s). The MIPs' work budget (x
                               LAYER_WORK_PER_SECOND), and a wall-clock stop that ends a run
                               early on a slow machine (SP_ERR_LIMIT, or a note saying so) */
  double wall_limit;        /* > 0: the wall-clock stop, seconds from each mapper call's start,
                               instead of time_limit (which stays the work budget) */
  double deadline;          /* > 0: the wall-clock stop (Clock_now() seconds) instead of the start +
                               wall_limit or time_limit (cosa-plus's vectors share one) */
  atomic_int *cancel;       /* non-zero: stop, with SP_ERR_CANCELLED */
  /* progress: a stage label and, for the MIP, incumbent / bound / gap (gap < 0: unknown) */
  void (*progress)(const char *stage, double incumbent, double bound, double gap, double elapsed, void *user);
  void *user;
  long samples;             /* random: valid mappings to draw (default 5, the paper's Random) */
  uint64_t seed;            /* random: the generator's seed (default 1) */
  long limit;               /* exhaustive: stop with SP_ERR_LIMIT past this many mappings (default 20M) */
  double w_util, w_comp, w_traf; /* CoSA Eq. 12 weights (defaults: see LayerMapOptions_init) */
  double w_lat;             /* cosa-plus extension: weight of the log-latency term (default 5; 0: the paper's objective) */
  long mip_limit;           /* cosa-plus: work per MIP round at most, in simplex iterations plus
                               branch-and-bound nodes (IlpOptions.work_limit; default
                               LAYER_MIP_WORK; <= 0: time_limit only). Work, not seconds: the
                               same mapping on any machine and load */
  bool refine;              /* cosa-plus: the cost model's local search after each MIP (default true) */
} LayerMapOptions;

typedef struct {
  Mapping map;
  Cost cost;                /* always valid when the mapper returns SP_OK */
  long tried, valid;        /* mappings drawn / valid among them */
  double seconds;
  char note[256];           /* e.g. the MIP's status, gap, re-solves */
  long nodes;               /* cosa*: branch-and-bound nodes over all MIP rounds, as the note says (0 for the others) */
} LayerMapResult;

typedef Status (*LayerMapFn)(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r,
                             SpError *err);

typedef struct {
  const char *name;         /* "cosa" */
  const char *help;
  LayerMapFn fn;
} LayerMethod;

void LayerMapOptions_init(LayerMapOptions *o);
extern const LayerMethod LayerMap_methods[];
extern const int LayerMap_nmethods;
const LayerMethod *LayerMap_find(const char *name);

/* cosa: the CoSA paper's method as published: one MIP solve with Eq. 12's
 * objective under the caller's w_util, w_comp, w_traf (default 1,1,1; the paper
 * names no values), no latency term (w_lat, refine and mip_limit are ignored),
 * within o->time_limit. */
Status LayerMap_cosa(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r, SpError *err);
/* cosa-stationary: `cosa` with Eqs. 9-10 replaced by one stationary operand at
 * the NoC level and the other levels' loop orders chosen by the cost model. */
Status LayerMap_cosaStationary(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r,
                               SpError *err);
/* cosa-plus (ours): CoSA's MIP with a latency term (w_lat) and the caller's
 * weights, then two more vectors (0,1,1,L and 0,0,0,1 with L = 5 when w_lat > 0;
 * with w_lat = 0 the vectors lose their latency term and 0,0,0,0 is skipped),
 * each solve capped at mip_limit per round and refined by LayerMap_refine when
 * o->refine; the best mapping under the cost model. */
Status LayerMap_cosaPlus(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r, SpError *err);
/* cosa-single: cosa-plus with one weight vector, the caller's (then
 * LayerMap_refine when o->refine). */
Status LayerMap_cosaSingle(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r,
                           SpError *err);
Status LayerMap_random(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r, SpError *err);
Status LayerMap_exhaustive(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r, SpError *err);

/* Shared by the mappers: the prime factors of n (ascending, with repeats);
 * returns how many (at most 64). */
int LayerMap_primes(int64_t n, int64_t *out);
/* The best loop order at every level for the mapping's factors under the
 * objective (each level in turn, all orders of its non-trivial loops). */
void LayerMap_bestOrders(const Arch *a, const Layer *l, Mapping *m, LayerObjective obj, int first_level,
                         int last_level);

/* Local search under the cost model around a valid mapping m (refine.c): moves
 * of one prime factor (or of p^j, up to its copies in the slot) to another
 * (level, temporal|spatial) slot and exchanges of
 * two factors between slots, each evaluated exactly (invalid candidates are
 * rejected); best improvement per step, then every level's loop order again.
 * Stops at a local optimum, after max_steps steps or at deadline (Clock_now
 * seconds; <= 0: none; the caller's outer time limit only: a step count, not the
 * clock, bounds the search). m stays valid and never gets worse under obj. Returns
 * the steps taken (0 when m is invalid: it is left alone). */
int LayerMap_refine(const Arch *a, const Layer *l, Mapping *m, LayerObjective obj, int max_steps, double deadline);

/* The loop nest as in CoSA's Listing 1 (for / spatial_for per level, outermost
 * first) into buf; returns the length written. */
size_t LayerMap_nestText(const Arch *a, const Mapping *m, char *buf, size_t n);

#endif

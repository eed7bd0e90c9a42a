/* pack: fixed-lifetime packing (dynamic storage allocation), the one module that
 * places buffers with fixed lifetimes at addresses. COSMA's placement step, the
 * offline `pack` allocator, TAA's baselines and `spadmap pack` all call it.
 *
 * A buffer lives over the half-open time range [lower, upper) and needs `size`
 * bytes at an offset that is a multiple of `align` (0 or 1: any). Two buffers
 * whose lifetimes intersect may not overlap in address. The height of a solution
 * is max(offset + size).
 *
 * Methods: heuristics (one pass, always give offsets, never a proof) and the exact
 * search (offsets under the capacity, or a proof that none exist, or unknown at
 * the limit). With capacity <= 0, Pack_solve minimises the height (the exact
 * method by bisection between the max-over-time load and the best heuristic).
 *
 * This header is the entry point of engine/pack/; its names are a contract
 * between the packing, tiles and COSMA code: extend it, do not change it. */
#ifndef SPADMAP_PACK_H
#define SPADMAP_PACK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "status.h"

typedef struct {
  int64_t lower, upper; /* lifetime [lower, upper), lower < upper */
  int64_t size;         /* bytes, > 0 */
  int64_t align;        /* 0 or 1: none */
} PackBuffer;

typedef enum {
  PACK_EXACT,           /* branch and bound over canonical placements */
  PACK_SO_SIZE,         /* Shared Objects, greedy by size (Pisarchyk & Lee, arXiv 2001.03288) */
  PACK_SO_BREADTH,      /* Shared Objects, greedy by breadth */
  PACK_SO_IMPROVED,     /* Shared Objects, greedy by size improved */
  PACK_OFFSET_SIZE,     /* offset calculation, greedy by size */
  PACK_OFFSET_BREADTH,  /* offset calculation, greedy by breadth */
  PACK_CONFLICT,        /* offset calculation, greedy by conflict degree */
  PACK_SKYLINE,         /* best-fit skyline */
  PACK_BEST_HEURISTIC,  /* every heuristic above, the lowest height */
  PACK_METHOD_COUNT
} PackMethod;

typedef enum {
  PACK_FOUND,           /* offsets fit under the capacity (or: the height found) */
  PACK_OPTIMAL,         /* capacity <= 0 and the height is proven minimal */
  PACK_INFEASIBLE,      /* proven: no placement fits under the capacity */
  PACK_UNKNOWN,         /* the time limit or the node limit came first */
  PACK_CANCELLED,       /* *cancel was set */
  PACK_RESULT_COUNT
} PackResultStatus;

typedef struct {
  double elapsed;       /* seconds since Pack_solve started */
  long nodes;           /* search nodes so far */
  int64_t best_height;  /* best height found so far, -1 none */
  int64_t lower_bound;  /* proven lower bound on the height */
  const char *stage;    /* "heuristics", "search", "bisection" */
} PackProgress;

/* The exact search's nodes worth `seconds` nominal seconds of work (workclock.h):
 * for callers that gave it a share of their time limit. Pack_solve adds the nodes
 * it searched to the work clock at this rate. */
long Pack_nodesFor(double seconds);

typedef struct {
  PackMethod method;    /* default PACK_EXACT */
  double time_limit;    /* seconds; <= 0: none */
  long node_limit;      /* <= 0: none */
  atomic_int *cancel;   /* non-zero: stop soon with PACK_CANCELLED */
  void (*progress)(const PackProgress *p, void *user);
  void *user;
  double progress_interval; /* seconds (default 0.2) */
} PackOptions;

typedef struct {
  PackResultStatus status;
  int64_t *offsets;     /* n offsets (malloc'd) when status is PACK_FOUND or PACK_OPTIMAL */
  int64_t height;       /* max(offset + size) of those offsets */
  int64_t lower_bound;  /* max over time of the summed sizes of live buffers (at least) */
  int64_t infeasible_at;/* PACK_INFEASIBLE: a time where the proof applies, or -1 */
  long nodes;
  double seconds;
} PackResult;

void PackOptions_init(PackOptions *o);
/* Packs n buffers under capacity (<= 0: minimise the height). SP_OK whenever the
 * search ran to one of the result statuses; SP_ERR_ARG for a malformed buffer
 * (err names it), SP_ERR_NOMEM. */
Status Pack_solve(const PackBuffer *b, int n, int64_t capacity, const PackOptions *o, PackResult *r,
                  SpError *err);
void PackResult_free(PackResult *r);

/* The largest summed size of buffers live at one time: a lower bound on any height. */
int64_t Pack_maxLoad(const PackBuffer *b, int n);
/* Checks offsets against lifetimes, alignment and capacity (<= 0: none); SP_OK or
 * SP_ERR_FORMAT with the first two colliding buffers (or the one over capacity) in err. */
Status Pack_check(const PackBuffer *b, int n, const int64_t *offsets, int64_t capacity, SpError *err);

const char *PackMethod_name(PackMethod m);      /* "exact", "so-size", ... */
bool PackMethod_parse(const char *name, PackMethod *m);
const char *PackResultStatus_name(PackResultStatus s);

/* ---- additions (after the contract) ---- */

/* A packing instance in google/minimalloc's CSV format: a header row naming the
 * columns id, lower, upper, size (any order), optionally offset and alignment,
 * then one buffer per row. Ids are kept as text. */
typedef struct {
  int n;
  PackBuffer *buffers;
  char **ids;
  int64_t *offsets; /* the offset column, or NULL when the file has none */
} PackInstance;

/* Reads a CSV instance; SP_ERR_IO, or SP_ERR_FORMAT with "file:line:column: what
 * was expected" in err. */
Status PackInstance_readCsv(const char *path, PackInstance *inst, SpError *err);
/* Parses CSV text (name is used in messages only). */
Status PackInstance_parseCsv(const char *name, const char *text, PackInstance *inst, SpError *err);
/* Writes id,lower,upper,size[,alignment],offset. */
Status PackInstance_writeCsv(const char *path, const PackInstance *inst, const int64_t *offsets, SpError *err);
void PackInstance_free(PackInstance *inst);

/* A proven-infeasible subset of the buffers under capacity, small enough to be a
 * useful cut (a Benders cut of COSMA's placement step): when the load at some
 * time exceeds the capacity, the fewest buffers live there whose sizes exceed it
 * (buffers with keep[i] set taken first, as they cost nothing in a cut); else
 * the first independent part the search proves infeasible, shrunk by deleting
 * buffers (those without keep[] first) while the proof still holds within the
 * options' limits. core[i] marks the subset. SP_OK with *found = false when no
 * proof came within the limits (or everything fits). keep may be NULL. */
Status Pack_infeasibleCore(const PackBuffer *b, int n, int64_t capacity, const PackOptions *o, const bool *keep,
                           bool *core, bool *found, SpError *err);

/* ---- networks (needs the engine core) ---- */
#include "policy.h"

/* The on-chip tensors' lifetimes under a schedule (order[step] = op), as the peak
 * counts them: from the first to the last step that touches the tensor,
 * [first, last + 1); tensor[k] names buffer k's tensor. *b and *tensor are
 * malloc'd. */
Status Pack_netBuffers(const Net *net, bool params, const int *order, PackBuffer **b, int **tensor, int *n,
                       SpError *err);
/* The `pack` allocator (Sim_run's signature): when the schedule's peak fits the
 * budget, every tensor stays resident for its whole lifetime at an offset from the
 * exact packer (a short search: node and time limited), so nothing spills; when the
 * peak does not fit or no packing is found in time, the simulator with the
 * allocator's `place` rule. */
Status Pack_allocatorPlan(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *replacement,
                          const PolicyInfo *allocator, Plan **out, SpError *err);

/* A tight instance: the rectangle [0, duration) x [0, height) cut by random
 * guillotine cuts into n buffers, so the optimal height is exactly `height` and
 * the load reaches it everywhere. Deterministic in seed. Fills b[0..n); false if
 * the rectangle is too small to cut n times. */
bool Pack_generateTight(uint64_t seed, int n, int64_t duration, int64_t height, PackBuffer *b);
/* The same with pinwheel_percent of the cuts (0-100) a pinwheel: a rectangle cut
 * into a centre and four arms around it, no straight cut through it, so the
 * packing it was cut from is not guillotine (another packing may be). 0:
 * Pack_generateTight's instances. */
bool Pack_generateTightPinwheel(uint64_t seed, int n, int64_t duration, int64_t height, int pinwheel_percent,
                                PackBuffer *b);
/* An instance like an allocator's (like minimalloc's benchmark): time steps in
 * which buffers end and new ones are cut out of the free gaps, every gap filled
 * at peak steps (the load reaches capacity there) and each left empty with
 * probability slack_percent elsewhere; sizes in 1/256 of the capacity, short
 * lifetimes with some long ones. A packing under capacity exists: the one
 * generated, into offsets[0..n) unless offsets is NULL; it has no guillotine
 * structure. Deterministic in seed; false on bad arguments or no memory. */
bool Pack_generateLive(uint64_t seed, int n, int64_t capacity, int slack_percent, PackBuffer *b, int64_t *offsets);

#endif

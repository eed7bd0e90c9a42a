/* pack: options, names, the load bound, the checker and Pack_solve's dispatch. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "workclock.h"
#include "pack_internal.h"
#include "testhook.h"

static const char *const PackMethod_names[PACK_METHOD_COUNT] = {
  [PACK_EXACT] = "exact",
  [PACK_SO_SIZE] = "so-size",
  [PACK_SO_BREADTH] = "so-breadth",
  [PACK_SO_IMPROVED] = "so-improved",
  [PACK_OFFSET_SIZE] = "offset-size",
  [PACK_OFFSET_BREADTH] = "offset-breadth",
  [PACK_CONFLICT] = "conflict",
  [PACK_SKYLINE] = "skyline",
  [PACK_BEST_HEURISTIC] = "best-heuristic",
};

static const char *const PackResultStatus_names[PACK_RESULT_COUNT] = {
  [PACK_FOUND] = "found",
  [PACK_OPTIMAL] = "optimal",
  [PACK_INFEASIBLE] = "infeasible",
  [PACK_UNKNOWN] = "unknown",
  [PACK_CANCELLED] = "cancelled",
};

const char *PackMethod_name(PackMethod m) {
  return (unsigned)m < PACK_METHOD_COUNT ? PackMethod_names[m] : "?";
}

bool PackMethod_parse(const char *name, PackMethod *m) {
  for (int i = 0; name && i < PACK_METHOD_COUNT; i++)
    if (strcmp(name, PackMethod_names[i]) == 0) {
      *m = (PackMethod)i;
      return true;
    }
  return false;
}

const char *PackResultStatus_name(PackResultStatus s) {
  return (unsigned)s < PACK_RESULT_COUNT ? PackResultStatus_names[s] : "?";
}

void PackOptions_init(PackOptions *o) {
  memset(o, 0, sizeof *o);
  o->method = PACK_EXACT;
  o->progress_interval = 0.2;
}

void PackResult_free(PackResult *r) {
  if (!r) return;
  free(r->offsets);
  r->offsets = NULL;
}

/* ---- the load bound ------------------------------------------------------- */

typedef struct {
  int64_t t, delta;
} PackEvent;

/* By time; at equal times the ends (negative deltas) first: [lower, upper). */
static int PackEvent_cmp(const void *pa, const void *pb) {
  const PackEvent *a = pa, *b = pb;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return (a->delta > b->delta) - (a->delta < b->delta);
}

int64_t Pack_maxLoadAt(const PackBuffer *b, int n, int64_t *when) {
  *when = -1;
  PackEvent *ev = malloc(sizeof *ev * (size_t)(2 * n + 1));
  if (!ev) return -1;
  for (int i = 0; i < n; i++) {
    ev[2 * i] = (PackEvent){b[i].lower, b[i].size};
    ev[2 * i + 1] = (PackEvent){b[i].upper, -b[i].size};
  }
  qsort(ev, (size_t)(2 * n), sizeof *ev, PackEvent_cmp);
  int64_t load = 0, best = 0;
  for (int k = 0; k < 2 * n; k++) {
    load += ev[k].delta;
    if (load > best) best = load, *when = ev[k].t;
  }
  free(ev);
  return best;
}

int64_t Pack_maxLoad(const PackBuffer *b, int n) {
  int64_t when;
  return Pack_maxLoadAt(b, n, &when);
}

/* ---- checking --------------------------------------------------------------- */

static Status Pack_validate(const PackBuffer *b, int n, SpError *err) {
  if (n < 0 || (n > 0 && !b)) return SpError_set(err, SP_ERR_ARG, "pack: %d buffers", n);
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    if (b[i].lower >= b[i].upper)
      return SpError_set(err, SP_ERR_ARG, "pack: buffer %d: lower %lld is not below upper %lld", i,
                         (long long)b[i].lower, (long long)b[i].upper);
    if (b[i].size <= 0)
      return SpError_set(err, SP_ERR_ARG, "pack: buffer %d: size %lld is not positive", i, (long long)b[i].size);
    if (b[i].align < 0 || b[i].align > ((int64_t)1 << 40))
      return SpError_set(err, SP_ERR_ARG, "pack: buffer %d: alignment %lld out of range", i, (long long)b[i].align);
    /* Offsets never exceed the summed sizes plus alignment padding: keep that far
     * from overflow. */
    int64_t room = INT64_MAX / 4 - total;
    if (b[i].size > room - (b[i].align > 1 ? b[i].align : 0))
      return SpError_set(err, SP_ERR_ARG, "pack: the summed sizes overflow at buffer %d", i);
    total += b[i].size + (b[i].align > 1 ? b[i].align : 0);
  }
  return SP_OK;
}

static int Pack_cmpPair(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

Status Pack_check(const PackBuffer *b, int n, const int64_t *offsets, int64_t capacity, SpError *err) {
  Status st = Pack_validate(b, n, err);
  if (st != SP_OK) return st;
  if (n > 0 && !offsets) return SpError_set(err, SP_ERR_ARG, "pack: no offsets");
  for (int i = 0; i < n; i++) {
    if (offsets[i] < 0)
      return SpError_set(err, SP_ERR_FORMAT, "buffer %d: negative offset %lld", i, (long long)offsets[i]);
    if (offsets[i] > INT64_MAX / 2)
      return SpError_set(err, SP_ERR_FORMAT, "buffer %d: offset %lld too large", i, (long long)offsets[i]);
    if (b[i].align > 1 && offsets[i] % b[i].align)
      return SpError_set(err, SP_ERR_FORMAT, "buffer %d: offset %lld is not a multiple of its alignment %lld", i,
                         (long long)offsets[i], (long long)b[i].align);
    if (capacity > 0 && offsets[i] + b[i].size > capacity)
      return SpError_set(err, SP_ERR_FORMAT, "buffer %d: offset %lld + size %lld exceeds the capacity %lld", i,
                         (long long)offsets[i], (long long)b[i].size, (long long)capacity);
  }
  /* Sweep by lower time; compare against buffers still live (the pairs that
   * overlap in time, and no more). */
  int *order = malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
  int64_t *key = malloc(sizeof *key * 2 * (size_t)(n > 0 ? n : 1));
  if (!order || !key) {
    free(order);
    free(key);
    return SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
  }
  for (int i = 0; i < n; i++) key[2 * i] = b[i].lower, key[2 * i + 1] = i;
  qsort(key, (size_t)n, 2 * sizeof *key, Pack_cmpPair); /* by lower, then index: stable */
  for (int i = 0; i < n; i++) order[i] = (int)key[2 * i + 1];
  free(key);
  st = SP_OK;
  for (int x = 0; x < n && st == SP_OK; x++) {
    int i = order[x];
    for (int y = x + 1; y < n && b[order[y]].lower < b[i].upper; y++) {
      int j = order[y];
      if (offsets[i] < offsets[j] + b[j].size && offsets[j] < offsets[i] + b[i].size) {
        int p = i < j ? i : j, q = i < j ? j : i;
        st = SpError_set(err, SP_ERR_FORMAT,
                         "buffers %d [%lld, %lld) at %lld+%lld and %d [%lld, %lld) at %lld+%lld overlap in time and "
                         "address",
                         p, (long long)b[p].lower, (long long)b[p].upper, (long long)offsets[p], (long long)b[p].size,
                         q, (long long)b[q].lower, (long long)b[q].upper, (long long)offsets[q], (long long)b[q].size);
        break;
      }
    }
  }
  free(order);
  return st;
}

/* ---- solving ------------------------------------------------------------------ */

/* best-heuristic's heuristics, in the order ties are settled (the lower wins),
 * dealt to two threads so each gets about half the work (the offset
 * calculations cost the most). */
static const PackMethod Pack_heurOrder[] = {PACK_SO_SIZE,        PACK_SO_BREADTH, PACK_SO_IMPROVED, PACK_OFFSET_SIZE,
                                            PACK_OFFSET_BREADTH, PACK_CONFLICT,   PACK_SKYLINE};
enum { PACK_NHEUR = sizeof Pack_heurOrder / sizeof Pack_heurOrder[0] };
static const int Pack_heurThread[PACK_NHEUR] = {0, 0, 1, 0, 1, 1, 0};

typedef struct {
  const PackBuffer *b;
  int n, thread;
  const PackOverlaps *g;
  const PackOptions *o;
  double start;
  int64_t *height;   /* per heuristic, -1: not run, -2: out of memory */
  int64_t **offsets; /* per heuristic */
} PackHeurJob;

static bool Pack_heurStop(const PackHeurJob *j) {
  const PackOptions *o = j->o;
  if (o) Testhook_at("pack.heuristic", o->cancel);
  return o && ((o->cancel && atomic_load(o->cancel)) || (o->time_limit > 0 && Clock_now() - j->start >= o->time_limit));
}

static bool Pack_heurStopHook(const void *job) { return Pack_heurStop(job); }

static void *Pack_heurWorker(void *arg) {
  PackHeurJob *j = arg;
  bool ran = false;
  for (int k = 0; k < PACK_NHEUR; k++) {
    if (Pack_heurThread[k] != j->thread || (Pack_heurOrder[k] == PACK_SKYLINE && j->n > 20000)) continue;
    /* the first heuristic always runs (thread 0's: some packing to return) */
    if ((ran || j->thread != 0) && Pack_heurStop(j)) break;
    j->height[k] = PackHeur_of(Pack_heurOrder[k])(j->b, j->n, j->g, j->offsets[k]);
    if (j->height[k] == PACK_HEUR_STOPPED) j->height[k] = -1; /* as if not run */
    else if (j->height[k] < 0) j->height[k] = -2;
    ran = true;
  }
  return NULL;
}

/* Runs one heuristic, or every one keeping the lowest (PACK_BEST_HEURISTIC; on
 * two threads, the result the same as one after the other), on one overlap
 * index. With o, best-heuristic stops between heuristics at the time limit
 * (measured from start) or on cancel, keeping the best so far (at least one
 * runs). Skyline walks the time axis once per placement (n times the number of
 * distinct times): past 20,000 buffers best-heuristic leaves it out. */
static Status Pack_heuristic(const PackBuffer *b, int n, PackMethod m, int64_t *offsets, int64_t *height,
                             const PackOptions *o, double start, SpError *err) {
  PackOverlaps g;
  if (!PackOverlaps_build(b, n, &g)) return SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
  Status st = SP_OK;
  if (m != PACK_BEST_HEURISTIC) {
    *height = PackHeur_of(m)(b, n, &g, offsets);
    if (*height < 0) st = SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
    PackOverlaps_free(&g);
    return st;
  }
  int64_t heights[PACK_NHEUR], *offs[PACK_NHEUR];
  bool nomem = false;
  for (int k = 0; k < PACK_NHEUR; k++) {
    heights[k] = -1;
    offs[k] = malloc(sizeof *offs[k] * (size_t)(n > 0 ? n : 1));
    nomem |= !offs[k];
  }
  if (!nomem) {
    PackHeurJob jobs[2] = {{b, n, 0, &g, o, start, heights, offs}, {b, n, 1, &g, o, start, heights, offs}};
    g.stop = Pack_heurStopHook, g.stop_user = &jobs[0]; /* skyline is quadratic: it polls */
    pthread_t t;
    /* small instances: one thread (starting one costs more than it saves) */
    bool two = n >= 2000 && pthread_create(&t, NULL, Pack_heurWorker, &jobs[1]) == 0;
    Pack_heurWorker(&jobs[0]);
    if (two) pthread_join(t, NULL);
    else Pack_heurWorker(&jobs[1]);
    *height = -1;
    for (int k = 0; k < PACK_NHEUR; k++) {
      if (heights[k] == -2) nomem = true;
      if (heights[k] >= 0 && (*height < 0 || heights[k] < *height)) {
        *height = heights[k];
        memcpy(offsets, offs[k], sizeof *offsets * (size_t)n);
      }
    }
  }
  for (int k = 0; k < PACK_NHEUR; k++) free(offs[k]);
  PackOverlaps_free(&g);
  if (nomem) st = SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
  return st;
}

/* The best heuristic's offsets: what the exact search starts from. */
Status Pack_bestHeuristic(const PackBuffer *b, int n, int64_t *offsets, int64_t *height, const PackOptions *o,
                          double start, SpError *err) {
  return Pack_heuristic(b, n, PACK_BEST_HEURISTIC, offsets, height, o, start, err);
}

/* Nodes per nominal second: half of what the exact search does in a second on an
 * idle core of the build machine (workclock.h). */
#define PACK_NODES_PER_SECOND 100000.0

long Pack_nodesFor(double seconds) {
  if (!(seconds > 0)) return 0;
  double n = seconds * PACK_NODES_PER_SECOND;
  return n < 256 ? 256 : n > 1e15 ? (long)1e15 : (long)n;
}

Status Pack_solve(const PackBuffer *b, int n, int64_t capacity, const PackOptions *o, PackResult *r,
                  SpError *err) {
  double start = Clock_now();
  memset(r, 0, sizeof *r);
  r->status = PACK_UNKNOWN;
  r->infeasible_at = -1;
  PackOptions defaults;
  if (!o) {
    PackOptions_init(&defaults);
    o = &defaults;
  }
  if ((unsigned)o->method >= PACK_METHOD_COUNT) return SpError_set(err, SP_ERR_ARG, "pack: unknown method");
  Status st = Pack_validate(b, n, err);
  if (st != SP_OK) return st;
  int64_t when;
  r->lower_bound = Pack_maxLoadAt(b, n, &when);
  if (r->lower_bound < 0) return SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
  if (o->method == PACK_EXACT) {
    st = PackExact_solve(b, n, capacity, o, start, r);
    WorkClock_add((double)r->nodes / PACK_NODES_PER_SECOND);
    if (st == SP_ERR_NOMEM) SpError_set(err, st, "pack: out of memory");
    r->seconds = Clock_now() - start;
    return st;
  }
  r->offsets = malloc(sizeof *r->offsets * (size_t)(n ? n : 1));
  if (!r->offsets) return SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
  st = Pack_heuristic(b, n, o->method, r->offsets, &r->height, o, start, err);
  if (st != SP_OK) {
    PackResult_free(r);
    return st;
  }
  r->seconds = Clock_now() - start;
  if (capacity > 0 && r->lower_bound > capacity) {
    /* The load alone proves it. */
    PackResult_free(r);
    r->status = PACK_INFEASIBLE;
    r->infeasible_at = when;
  } else if (capacity > 0 && r->height > capacity) {
    PackResult_free(r); /* a heuristic proves nothing */
    r->status = PACK_UNKNOWN;
  } else {
    r->status = capacity <= 0 && r->height == r->lower_bound ? PACK_OPTIMAL : PACK_FOUND;
  }
  return SP_OK;
}

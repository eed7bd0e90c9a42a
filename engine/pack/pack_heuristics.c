/* pack_heuristics: one-pass packing heuristics. The Shared Objects and offset
 * calculation strategies follow Pisarchyk & Lee, "Efficient Memory Management for
 * Deep Neural Net Inference" (arXiv 2001.03288), as the paper describes them; the
 * paper's "operators" are the distinct times at which a buffer starts (every time a
 * load can peak), and an operator's breadth is the summed size of the buffers live
 * there. Greedy by conflict degree and best-fit skyline are the usual
 * DSA heuristics (TelaMalloc and minimalloc compare against them). */
#include <stdlib.h>
#include <string.h>

#include "pack_internal.h"

/* ---- ordering helpers ---------------------------------------------------- */

typedef struct {
  int64_t key1, key2;
  int idx;
} PackKey;

/* Descending key1, then descending key2, then ascending index (deterministic). */
static int PackKey_cmpDesc(const void *pa, const void *pb) {
  const PackKey *a = pa, *b = pb;
  if (a->key1 != b->key1) return a->key1 > b->key1 ? -1 : 1;
  if (a->key2 != b->key2) return a->key2 > b->key2 ? -1 : 1;
  return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Buffer indices by size, then lifetime length, both descending. */
static int *Pack_orderBySize(const PackBuffer *b, int n) {
  PackKey *k = malloc(sizeof *k * (size_t)(n ? n : 1));
  int *order = malloc(sizeof *order * (size_t)(n ? n : 1));
  if (!k || !order) {
    free(k);
    free(order);
    return NULL;
  }
  for (int i = 0; i < n; i++) k[i] = (PackKey){b[i].size, b[i].upper - b[i].lower, i};
  qsort(k, (size_t)n, sizeof *k, PackKey_cmpDesc);
  for (int i = 0; i < n; i++) order[i] = k[i].idx;
  free(k);
  return order;
}

/* Buffer indices in the paper's breadth order: the start times by breadth
 * (descending), each time's live buffers by size (descending), every buffer at its
 * first appearance. */
static int *Pack_orderByBreadth(const PackBuffer *b, int n) {
  PackKey *times = malloc(sizeof *times * (size_t)(n ? n : 1));
  PackKey *live = malloc(sizeof *live * (size_t)(n ? n : 1));
  int *order = malloc(sizeof *order * (size_t)(n ? n : 1));
  bool *seen = calloc((size_t)(n ? n : 1), sizeof *seen);
  if (!times || !live || !order || !seen) {
    free(times);
    free(live);
    free(order);
    free(seen);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    int64_t breadth = 0;
    for (int j = 0; j < n; j++)
      if (b[j].lower <= b[i].lower && b[i].lower < b[j].upper) breadth += b[j].size;
    times[i] = (PackKey){breadth, -b[i].lower, i};
  }
  qsort(times, (size_t)n, sizeof *times, PackKey_cmpDesc);
  int k = 0;
  for (int ti = 0; ti < n && k < n; ti++) {
    int64_t t = b[times[ti].idx].lower;
    int nl = 0;
    for (int j = 0; j < n; j++)
      if (!seen[j] && b[j].lower <= t && t < b[j].upper) live[nl++] = (PackKey){b[j].size, b[j].upper - b[j].lower, j};
    qsort(live, (size_t)nl, sizeof *live, PackKey_cmpDesc);
    for (int j = 0; j < nl; j++) {
      seen[live[j].idx] = true;
      order[k++] = live[j].idx;
    }
  }
  free(times);
  free(live);
  free(seen);
  return order;
}

/* ---- Shared Objects: buffers share objects; objects are stacked ------------ */

typedef struct {
  int *object;        /* per buffer: its object, -1 none yet */
  int64_t *obj_size;  /* per object */
  int nobj;
} SharedObjects;

/* Object o is free for buffer i: no buffer already in o overlaps i in time. */
static bool SO_free(const PackBuffer *b, int n, const SharedObjects *so, int o, int i) {
  for (int j = 0; j < n; j++)
    if (so->object[j] == o && Pack_overlap(&b[i], &b[j])) return false;
  return true;
}

/* Stacks the objects (each aligned to the largest alignment of its buffers) and
 * writes the offsets; returns the height. */
static int64_t SO_offsets(const PackBuffer *b, int n, const SharedObjects *so, int64_t *offsets) {
  int64_t *base = malloc(sizeof *base * (size_t)(so->nobj + 1));
  if (!base) return -1;
  int64_t top = 0;
  for (int o = 0; o < so->nobj; o++) {
    int64_t a = 1;
    for (int i = 0; i < n; i++)
      if (so->object[i] == o && b[i].align > a) a = b[i].align;
    /* Alignments are typically powers of two: the largest serves them all. If not,
     * the per-buffer check below still lifts a misaligned buffer's object. */
    base[o] = Pack_alignUp(top, a);
    bool ok;
    do {
      ok = true;
      for (int i = 0; i < n; i++)
        if (so->object[i] == o && b[i].align > 1 && base[o] % b[i].align) {
          base[o] = Pack_alignUp(base[o] + 1, a);
          ok = false;
          break;
        }
    } while (!ok);
    top = base[o] + so->obj_size[o];
  }
  for (int i = 0; i < n; i++) offsets[i] = base[so->object[i]];
  free(base);
  return top;
}

/* The three Shared Objects strategies differ in the buffer order and in which free
 * object a buffer takes. */
typedef enum { SO_RULE_SIZE, SO_RULE_BREADTH, SO_RULE_NEAREST } SoRule;

/* Time distance between buffer i and the closest buffer already in object o. */
static int64_t SO_distance(const PackBuffer *b, int n, const SharedObjects *so, int o, int i) {
  int64_t best = INT64_MAX;
  for (int j = 0; j < n; j++) {
    if (so->object[j] != o) continue;
    int64_t d = b[j].upper <= b[i].lower ? b[i].lower - b[j].upper : b[j].lower - b[i].upper;
    if (d < best) best = d;
  }
  return best;
}

static int64_t SO_run(const PackBuffer *b, int n, int64_t *offsets, SoRule rule) {
  int *order = rule == SO_RULE_BREADTH ? Pack_orderByBreadth(b, n) : Pack_orderBySize(b, n);
  SharedObjects so = {malloc(sizeof(int) * (size_t)(n ? n : 1)), malloc(sizeof(int64_t) * (size_t)(n ? n : 1)), 0};
  int64_t height = -1;
  if (!order || !so.object || !so.obj_size) goto done;
  for (int i = 0; i < n; i++) so.object[i] = -1;
  for (int k = 0; k < n; k++) {
    int i = order[k];
    /* Best object of size >= the buffer (smallest; NEAREST: closest in time), else
     * the largest free object, which grows to the buffer's size. */
    int fit = -1, grow = -1;
    int64_t fit_key = INT64_MAX;
    for (int o = 0; o < so.nobj; o++) {
      if (!SO_free(b, n, &so, o, i)) continue;
      if (so.obj_size[o] >= b[i].size) {
        int64_t key = rule == SO_RULE_NEAREST ? SO_distance(b, n, &so, o, i) : so.obj_size[o];
        if (key < fit_key) fit_key = key, fit = o;
      } else if (grow < 0 || so.obj_size[o] > so.obj_size[grow]) {
        grow = o;
      }
    }
    int o = fit >= 0 ? fit : grow;
    if (o < 0) {
      o = so.nobj++;
      so.obj_size[o] = 0;
    }
    if (so.obj_size[o] < b[i].size) so.obj_size[o] = b[i].size;
    so.object[i] = o;
  }
  height = SO_offsets(b, n, &so, offsets);
done:
  free(order);
  free(so.object);
  free(so.obj_size);
  return height;
}

static int64_t PackHeur_soSize(const PackBuffer *b, int n, int64_t *offsets) {
  return SO_run(b, n, offsets, SO_RULE_SIZE);
}
static int64_t PackHeur_soBreadth(const PackBuffer *b, int n, int64_t *offsets) {
  return SO_run(b, n, offsets, SO_RULE_BREADTH);
}
/* "Greedy by size improved": the size order, but a buffer takes the free object
 * nearest in time among those big enough, which leaves the far ones for later
 * buffers (our reading of the paper's improvement; see the file comment). */
static int64_t PackHeur_soImproved(const PackBuffer *b, int n, int64_t *offsets) {
  return SO_run(b, n, offsets, SO_RULE_NEAREST);
}

/* ---- offset calculation: each buffer in a gap among the placed ones ------- */

typedef struct {
  int64_t lo, hi;
} Span;

static int Span_cmp(const void *pa, const void *pb) {
  const Span *a = pa, *b = pb;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The offset for buffer i among the placed buffers overlapping it in time: the
 * smallest gap that fits (best_fit) or the lowest one, else on top. */
static int64_t Pack_gapOffset(const PackBuffer *b, int n, const int64_t *offsets, const bool *placed, int i,
                              bool best_fit, Span *spans) {
  int ns = 0;
  for (int j = 0; j < n; j++)
    if (placed[j] && Pack_overlap(&b[i], &b[j])) spans[ns++] = (Span){offsets[j], offsets[j] + b[j].size};
  qsort(spans, (size_t)ns, sizeof *spans, Span_cmp);
  int64_t cursor = 0, best = -1, best_gap = INT64_MAX;
  for (int k = 0; k <= ns; k++) {
    int64_t at = Pack_alignUp(cursor, b[i].align);
    if (k == ns) return best >= 0 ? best : at;
    if (spans[k].lo >= at + b[i].size) {
      int64_t gap = spans[k].lo - cursor;
      if (!best_fit) return at;
      if (gap < best_gap) best_gap = gap, best = at;
    }
    if (spans[k].hi > cursor) cursor = spans[k].hi;
  }
  return best; /* not reached */
}

static int64_t Offset_run(const PackBuffer *b, int n, int64_t *offsets, const int *order, bool best_fit) {
  bool *placed = calloc((size_t)(n ? n : 1), sizeof *placed);
  Span *spans = malloc(sizeof *spans * (size_t)(n ? n : 1));
  int64_t height = -1;
  if (order && placed && spans) {
    height = 0;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      offsets[i] = Pack_gapOffset(b, n, offsets, placed, i, best_fit, spans);
      placed[i] = true;
      if (offsets[i] + b[i].size > height) height = offsets[i] + b[i].size;
    }
  }
  free(placed);
  free(spans);
  return height;
}

static int64_t PackHeur_offsetSize(const PackBuffer *b, int n, int64_t *offsets) {
  int *order = Pack_orderBySize(b, n);
  int64_t h = Offset_run(b, n, offsets, order, true);
  free(order);
  return h;
}

static int64_t PackHeur_offsetBreadth(const PackBuffer *b, int n, int64_t *offsets) {
  int *order = Pack_orderByBreadth(b, n);
  int64_t h = Offset_run(b, n, offsets, order, true);
  free(order);
  return h;
}

/* Most time-conflicts first (they are the hardest to fit), then larger; each at
 * the lowest gap. */
static int64_t PackHeur_conflict(const PackBuffer *b, int n, int64_t *offsets) {
  PackKey *k = malloc(sizeof *k * (size_t)(n ? n : 1));
  int *order = malloc(sizeof *order * (size_t)(n ? n : 1));
  int64_t h = -1;
  if (k && order) {
    for (int i = 0; i < n; i++) {
      int64_t degree = 0;
      for (int j = 0; j < n; j++) degree += j != i && Pack_overlap(&b[i], &b[j]);
      k[i] = (PackKey){degree, b[i].size, i};
    }
    qsort(k, (size_t)n, sizeof *k, PackKey_cmpDesc);
    for (int i = 0; i < n; i++) order[i] = k[i].idx;
    h = Offset_run(b, n, offsets, order, false);
  }
  free(k);
  free(order);
  return h;
}

/* ---- best-fit skyline ------------------------------------------------------ */

static int Int64_cmp(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* The skyline is the height reached in each section (between consecutive event
 * times). Repeatedly take the lowest flat run of sections; put there the unplaced
 * buffer that fits inside it in time and covers the most of it (then the largest);
 * if none fits, raise the run to its lower neighbour. */
static int64_t PackHeur_skyline(const PackBuffer *b, int n, int64_t *offsets) {
  int64_t *times = malloc(sizeof *times * (size_t)(2 * n + 1));
  int *lo = malloc(sizeof *lo * (size_t)(n ? n : 1)), *hi = malloc(sizeof *hi * (size_t)(n ? n : 1));
  int64_t *sky = malloc(sizeof *sky * (size_t)(2 * n + 1));
  bool *placed = calloc((size_t)(n ? n : 1), sizeof *placed);
  int64_t height = -1;
  if (!times || !lo || !hi || !sky || !placed) goto done;
  int nt = 0;
  for (int i = 0; i < n; i++) times[nt++] = b[i].lower, times[nt++] = b[i].upper;
  qsort(times, (size_t)nt, sizeof *times, Int64_cmp);
  int u = 0;
  for (int i = 0; i < nt; i++)
    if (u == 0 || times[i] != times[u - 1]) times[u++] = times[i];
  int ns = u > 0 ? u - 1 : 0; /* sections */
  for (int i = 0; i < n; i++) {
    lo[i] = (int)((int64_t *)bsearch(&b[i].lower, times, (size_t)u, sizeof *times, Int64_cmp) - times);
    hi[i] = (int)((int64_t *)bsearch(&b[i].upper, times, (size_t)u, sizeof *times, Int64_cmp) - times);
  }
  for (int s = 0; s < ns; s++) sky[s] = 0;
  height = 0;
  for (int left = n; left > 0;) {
    int s0 = 0;
    for (int s = 1; s < ns; s++)
      if (sky[s] < sky[s0]) s0 = s;
    int a = s0, z = s0 + 1; /* the run [a, z) */
    while (a > 0 && sky[a - 1] == sky[s0]) a--;
    while (z < ns && sky[z] == sky[s0]) z++;
    int pick = -1;
    for (int i = 0; i < n; i++) {
      if (placed[i] || lo[i] < a || hi[i] > z) continue;
      if (pick < 0 || hi[i] - lo[i] > hi[pick] - lo[pick] ||
          (hi[i] - lo[i] == hi[pick] - lo[pick] && b[i].size > b[pick].size))
        pick = i;
    }
    if (pick < 0) {
      int64_t up = INT64_MAX;
      if (a > 0) up = sky[a - 1];
      if (z < ns && sky[z] < up) up = sky[z];
      for (int s = a; s < z; s++) sky[s] = up; /* a run with no neighbour holds every unplaced buffer */
      continue;
    }
    offsets[pick] = Pack_alignUp(sky[s0], b[pick].align);
    for (int s = lo[pick]; s < hi[pick]; s++) sky[s] = offsets[pick] + b[pick].size;
    if (offsets[pick] + b[pick].size > height) height = offsets[pick] + b[pick].size;
    placed[pick] = true;
    left--;
  }
done:
  free(times);
  free(lo);
  free(hi);
  free(sky);
  free(placed);
  return height;
}

PackHeuristicFn PackHeur_of(PackMethod m) {
  switch (m) {
  case PACK_SO_SIZE: return PackHeur_soSize;
  case PACK_SO_BREADTH: return PackHeur_soBreadth;
  case PACK_SO_IMPROVED: return PackHeur_soImproved;
  case PACK_OFFSET_SIZE: return PackHeur_offsetSize;
  case PACK_OFFSET_BREADTH: return PackHeur_offsetBreadth;
  case PACK_CONFLICT: return PackHeur_conflict;
  case PACK_SKYLINE: return PackHeur_skyline;
  default: return NULL;
  }
}

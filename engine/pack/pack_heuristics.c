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

/* ---- the overlap index ----------------------------------------------------- */

/* Who overlaps whom in time, as lists (CSR): built by one sweep over the
 * buffers sorted by lower, in time proportional to n log n plus the pairs, so
 * no heuristic scans all n buffers for each buffer. */
static int PackI64Pair_cmp(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Buffer indices by lower (then index); NULL when out of memory. */
static int *Pack_orderByLower(const PackBuffer *b, int n) {
  int64_t *key = malloc(sizeof *key * 2 * (size_t)(n > 0 ? n : 1));
  int *order = malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
  if (!key || !order) {
    free(key);
    free(order);
    return NULL;
  }
  for (int i = 0; i < n; i++) key[2 * i] = b[i].lower, key[2 * i + 1] = i;
  qsort(key, (size_t)n, 2 * sizeof *key, PackI64Pair_cmp);
  for (int i = 0; i < n; i++) order[i] = (int)key[2 * i + 1];
  free(key);
  return order;
}

void PackOverlaps_free(PackOverlaps *g) {
  free(g->start);
  free(g->adj);
  g->start = g->adj = NULL;
}

bool PackOverlaps_build(const PackBuffer *b, int n, PackOverlaps *g) {
  g->start = calloc((size_t)n + 2, sizeof *g->start);
  g->adj = NULL;
  g->stop = NULL, g->stop_user = NULL;
  int *order = Pack_orderByLower(b, n);
  if (!g->start || !order) {
    free(order);
    PackOverlaps_free(g);
    return false;
  }
  size_t pairs = 0;
  for (int x = 0; x < n; x++)
    for (int y = x + 1; y < n && b[order[y]].lower < b[order[x]].upper; y++) {
      g->start[order[x] + 1]++;
      g->start[order[y] + 1]++;
      pairs++;
    }
  for (int i = 0; i < n; i++) g->start[i + 1] += g->start[i];
  g->adj = malloc(sizeof *g->adj * (2 * pairs + 1));
  int *at = malloc(sizeof *at * (size_t)(n > 0 ? n : 1));
  if (!g->adj || !at) {
    free(order);
    free(at);
    PackOverlaps_free(g);
    return false;
  }
  memcpy(at, g->start, sizeof *at * (size_t)n);
  for (int x = 0; x < n; x++)
    for (int y = x + 1; y < n && b[order[y]].lower < b[order[x]].upper; y++) {
      g->adj[at[order[x]]++] = order[y];
      g->adj[at[order[y]]++] = order[x];
    }
  free(at);
  free(order);
  return true;
}

/* ---- ordering helpers ---------------------------------------------------- */

static int Int64_cmpAsc(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

static int Int64Quad_cmp(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  for (int k = 0; k < 4; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

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
 * (descending; earlier first on ties), each time's live buffers by size, then
 * lifetime (descending), every buffer at its first appearance. A buffer first
 * appears at the best-ranked start time in [lower, upper): a range minimum over
 * the start times sorted by time (a sparse table), so n log n in all. */
static int *Pack_orderByBreadth(const PackBuffer *b, int n) {
  size_t nn = (size_t)(n > 0 ? n : 1);
  int64_t *ev = malloc(sizeof *ev * 2 * 2 * nn);  /* (time, +size / -size) */
  int64_t *st = malloc(sizeof *st * nn);          /* distinct start times, ascending */
  int64_t *br = malloc(sizeof *br * nn);          /* the breadth at each */
  int64_t *key = malloc(sizeof *key * 4 * nn);
  int *rank = malloc(sizeof *rank * nn);
  int *order = malloc(sizeof *order * nn);
  int levels = 1;
  while ((1 << levels) <= n) levels++;
  int *table = malloc(sizeof *table * nn * (size_t)levels);
  if (!ev || !st || !br || !key || !rank || !order || !table) {
    free(order);
    order = NULL;
    goto done;
  }
  /* breadth at each start time: the load after every event at times <= t
   * (ends at t are not live: [lower, upper)) */
  for (int i = 0; i < n; i++) {
    ev[4 * i] = b[i].lower, ev[4 * i + 1] = b[i].size;
    ev[4 * i + 2] = b[i].upper, ev[4 * i + 3] = -b[i].size;
  }
  qsort(ev, 2 * (size_t)n, 2 * sizeof *ev, PackI64Pair_cmp);
  for (int i = 0; i < n; i++) st[i] = b[i].lower;
  qsort(st, (size_t)n, sizeof *st, Int64_cmpAsc);
  int ns = 0;
  for (int i = 0; i < n; i++)
    if (ns == 0 || st[i] != st[ns - 1]) st[ns++] = st[i];
  int64_t load = 0;
  for (int e = 0, k = 0; k < ns; k++) {
    while (e < 2 * n && ev[2 * e] <= st[k]) load += ev[2 * e + 1], e++;
    br[k] = load;
  }
  /* rank of each start time: breadth descending, earlier first */
  for (int k = 0; k < ns; k++) key[2 * k] = -br[k], key[2 * k + 1] = k;
  qsort(key, (size_t)ns, 2 * sizeof *key, PackI64Pair_cmp);
  for (int r = 0; r < ns; r++) rank[key[2 * r + 1]] = r;
  for (int k = 0; k < ns; k++) table[k] = rank[k];
  for (int l = 1; l < levels; l++)
    for (int k = 0; k + (1 << l) <= ns; k++) {
      int x = table[(size_t)(l - 1) * nn + (size_t)k], y = table[(size_t)(l - 1) * nn + (size_t)k + (1u << (l - 1))];
      table[(size_t)l * nn + (size_t)k] = x < y ? x : y;
    }
  for (int i = 0; i < n; i++) {
    int lo = 0, hi = ns; /* first start >= lower: it is lower itself */
    while (lo < hi) {
      int m = (lo + hi) / 2;
      if (st[m] < b[i].lower) lo = m + 1;
      else hi = m;
    }
    int from = lo;
    hi = ns; /* first start >= upper */
    while (lo < hi) {
      int m = (lo + hi) / 2;
      if (st[m] < b[i].upper) lo = m + 1;
      else hi = m;
    }
    int len = lo - from, l = 0;
    while ((2 << l) <= len) l++;
    int x = table[(size_t)l * nn + (size_t)from], y = table[(size_t)l * nn + (size_t)(lo - (1 << l))];
    key[4 * i] = x < y ? x : y;
    key[4 * i + 1] = -b[i].size;
    key[4 * i + 2] = -(b[i].upper - b[i].lower);
    key[4 * i + 3] = i;
  }
  qsort(key, (size_t)n, 4 * sizeof *key, Int64Quad_cmp);
  for (int i = 0; i < n; i++) order[i] = (int)key[4 * i + 3];
done:
  free(ev);
  free(st);
  free(br);
  free(key);
  free(rank);
  free(table);
  return order;
}

/* ---- Shared Objects: buffers share objects; objects are stacked ------------ */

/* The three Shared Objects strategies differ in the buffer order and in which free
 * object a buffer takes. */
typedef enum { SO_RULE_SIZE, SO_RULE_BREADTH, SO_RULE_NEAREST } SoRule;

typedef struct {
  int *object;          /* per buffer: its object, -1 none yet */
  int64_t *obj_size;    /* per object */
  int nobj;
  int *by_size;         /* the objects by (size, index) ascending */
  long *busy;           /* per object: the stamp of the buffer whose neighbour holds it */
  int64_t **lo, **hi;   /* NEAREST: per object, its buffers' lifetimes by lower (disjoint) */
  int *len, *cap;
} SharedObjects;

/* Time distance between buffer i and the closest buffer of object o (free for
 * i: its lifetimes are disjoint from i's, so the closest is next to i). */
static int64_t SO_distance(const SharedObjects *so, int o, const PackBuffer *bi) {
  int lo = 0, hi = so->len[o]; /* first lifetime after i */
  while (lo < hi) {
    int m = (lo + hi) / 2;
    if (so->lo[o][m] < bi->lower) lo = m + 1;
    else hi = m;
  }
  int64_t best = INT64_MAX;
  if (lo < so->len[o]) best = so->lo[o][lo] - bi->upper;
  if (lo > 0 && bi->lower - so->hi[o][lo - 1] < best) best = bi->lower - so->hi[o][lo - 1];
  return best;
}

static bool SO_addLifetime(SharedObjects *so, int o, const PackBuffer *bi) {
  if (so->len[o] == so->cap[o]) {
    int c = so->cap[o] ? 2 * so->cap[o] : 4;
    int64_t *l = realloc(so->lo[o], sizeof *l * (size_t)c);
    if (!l) return false;
    so->lo[o] = l;
    int64_t *h = realloc(so->hi[o], sizeof *h * (size_t)c);
    if (!h) return false;
    so->hi[o] = h;
    so->cap[o] = c;
  }
  int k = so->len[o]++;
  for (; k > 0 && so->lo[o][k - 1] > bi->lower; k--) so->lo[o][k] = so->lo[o][k - 1], so->hi[o][k] = so->hi[o][k - 1];
  so->lo[o][k] = bi->lower;
  so->hi[o][k] = bi->upper;
  return true;
}

/* Puts object o (new, or whose size grew) at its place in by_size, sorted by
 * (size, index); `listed`: o is already in the list. */
static void SO_resort(SharedObjects *so, int o, bool listed) {
  int count = so->nobj;
  if (listed) {
    int k = 0;
    while (so->by_size[k] != o) k++;
    memmove(so->by_size + k, so->by_size + k + 1, sizeof *so->by_size * (size_t)(count - k - 1));
  }
  count--;
  int lo = 0, hi = count;
  while (lo < hi) {
    int m = (lo + hi) / 2, p = so->by_size[m];
    if (so->obj_size[p] < so->obj_size[o] || (so->obj_size[p] == so->obj_size[o] && p < o)) lo = m + 1;
    else hi = m;
  }
  memmove(so->by_size + lo + 1, so->by_size + lo, sizeof *so->by_size * (size_t)(count - lo));
  so->by_size[lo] = o;
}

/* Stacks the objects (each aligned to the largest alignment of its buffers) and
 * writes the offsets; returns the height. */
static int64_t SO_offsets(const PackBuffer *b, int n, const SharedObjects *so, int64_t *offsets) {
  int64_t *base = malloc(sizeof *base * (size_t)(so->nobj + 1));
  int64_t *align = malloc(sizeof *align * (size_t)(so->nobj + 1));
  int *first = malloc(sizeof *first * (size_t)(so->nobj + 2));
  int *members = malloc(sizeof *members * (size_t)(n > 0 ? n : 1));
  int64_t top = -1;
  if (!base || !align || !first || !members) goto done;
  for (int o = 0; o <= so->nobj + 1 && o < so->nobj + 2; o++) first[o] = 0;
  for (int o = 0; o < so->nobj; o++) align[o] = 1;
  for (int i = 0; i < n; i++) {
    int o = so->object[i];
    if (b[i].align > align[o]) align[o] = b[i].align;
    first[o + 1]++;
  }
  for (int o = 0; o < so->nobj; o++) first[o + 1] += first[o];
  for (int i = 0; i < n; i++) members[first[so->object[i]]++] = i;
  for (int o = so->nobj; o > 0; o--) first[o] = first[o - 1];
  first[0] = 0;
  top = 0;
  for (int o = 0; o < so->nobj; o++) {
    /* Alignments are typically powers of two: the largest serves them all. If not,
     * the per-buffer check below still lifts a misaligned buffer's object. */
    base[o] = Pack_alignUp(top, align[o]);
    bool ok;
    do {
      ok = true;
      for (int x = first[o]; x < first[o + 1]; x++) {
        int i = members[x];
        if (b[i].align > 1 && base[o] % b[i].align) {
          base[o] = Pack_alignUp(base[o] + 1, align[o]);
          ok = false;
          break;
        }
      }
    } while (!ok);
    top = base[o] + so->obj_size[o];
  }
  for (int i = 0; i < n; i++) offsets[i] = base[so->object[i]];
done:
  free(base);
  free(align);
  free(first);
  free(members);
  return top;
}

/* Each buffer in order takes the best free object of size >= its own (the
 * smallest; NEAREST: the closest in time), else the largest free object, which
 * grows to its size, else a new object; ties go to the lower object index.
 * The objects a buffer cannot share are those of its placed neighbours, so one
 * look at the neighbours and a walk along the objects by size do it. */
static int64_t SO_run(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets, SoRule rule) {
  int *order = rule == SO_RULE_BREADTH ? Pack_orderByBreadth(b, n) : Pack_orderBySize(b, n);
  size_t nn = (size_t)(n > 0 ? n : 1);
  SharedObjects so = {malloc(sizeof(int) * nn), malloc(sizeof(int64_t) * nn), 0, malloc(sizeof(int) * nn),
                      calloc(nn, sizeof(long)), NULL, NULL, NULL, NULL};
  bool nearest = rule == SO_RULE_NEAREST;
  if (nearest) {
    so.lo = calloc(nn, sizeof *so.lo), so.hi = calloc(nn, sizeof *so.hi);
    so.len = calloc(nn, sizeof *so.len), so.cap = calloc(nn, sizeof *so.cap);
  }
  int64_t height = -1;
  if (!order || !so.object || !so.obj_size || !so.by_size || !so.busy ||
      (nearest && (!so.lo || !so.hi || !so.len || !so.cap)))
    goto done;
  for (int i = 0; i < n; i++) so.object[i] = -1;
  for (int k = 0; k < n; k++) {
    int i = order[k];
    long stamp = k + 1;
    for (int a = g->start[i]; a < g->start[i + 1]; a++)
      if (so.object[g->adj[a]] >= 0) so.busy[so.object[g->adj[a]]] = stamp;
    int lo = 0, hi = so.nobj; /* first object of size >= the buffer's */
    while (lo < hi) {
      int m = (lo + hi) / 2;
      if (so.obj_size[so.by_size[m]] < b[i].size) lo = m + 1;
      else hi = m;
    }
    int fit = -1;
    int64_t fit_key = INT64_MAX;
    for (int x = lo; x < so.nobj; x++) {
      int o = so.by_size[x];
      if (so.busy[o] == stamp) continue;
      if (!nearest) {
        fit = o;
        break;
      }
      int64_t d = SO_distance(&so, o, &b[i]);
      if (d < fit_key || (d == fit_key && o < fit)) fit_key = d, fit = o;
    }
    int grow = -1;
    for (int x = lo - 1; fit < 0 && x >= 0; x--) {
      int o = so.by_size[x];
      if (so.busy[o] == stamp) continue;
      if (grow >= 0 && so.obj_size[o] != so.obj_size[grow]) break;
      grow = o; /* the same size further down: a lower index */
    }
    int o = fit >= 0 ? fit : grow;
    if (o < 0) {
      o = so.nobj++;
      so.obj_size[o] = b[i].size;
      SO_resort(&so, o, false);
      if (nearest) so.lo[o] = so.hi[o] = NULL, so.len[o] = so.cap[o] = 0;
    } else if (so.obj_size[o] < b[i].size) {
      so.obj_size[o] = b[i].size;
      SO_resort(&so, o, true);
    }
    so.object[i] = o;
    if (nearest && !SO_addLifetime(&so, o, &b[i])) goto done;
  }
  height = SO_offsets(b, n, &so, offsets);
done:
  if (nearest && so.lo && so.hi)
    for (int o = 0; o < so.nobj; o++) free(so.lo[o]), free(so.hi[o]);
  if (so.lo) free(so.lo);
  if (so.hi) free(so.hi);
  free(so.len);
  free(so.cap);
  free(order);
  free(so.object);
  free(so.obj_size);
  free(so.by_size);
  free(so.busy);
  return height;
}

static int64_t PackHeur_soSize(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets) {
  return SO_run(b, n, g, offsets, SO_RULE_SIZE);
}
static int64_t PackHeur_soBreadth(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets) {
  return SO_run(b, n, g, offsets, SO_RULE_BREADTH);
}
/* "Greedy by size improved": the size order, but a buffer takes the free object
 * nearest in time among those big enough, which leaves the far ones for later
 * buffers (our reading of the paper's improvement; see the file comment). */
static int64_t PackHeur_soImproved(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets) {
  return SO_run(b, n, g, offsets, SO_RULE_NEAREST);
}

/* ---- offset calculation: each buffer in a gap among the placed ones ------- */

typedef struct {
  int64_t lo, hi;
} Span;

/* By lo: a quicksort of our own (median of three, insertion sort below 16),
 * as qsort's calls through a pointer were most of offset-size's time on
 * 50,000 buffers. */
static void Span_sort(Span *a, int n) {
  while (n > 16) {
    int m = n / 2;
    if (a[m].lo < a[0].lo) { Span t = a[m]; a[m] = a[0]; a[0] = t; }
    if (a[n - 1].lo < a[0].lo) { Span t = a[n - 1]; a[n - 1] = a[0]; a[0] = t; }
    if (a[n - 1].lo < a[m].lo) { Span t = a[n - 1]; a[n - 1] = a[m]; a[m] = t; }
    int64_t pivot = a[m].lo;
    int i = 0, j = n - 1;
    while (i <= j) {
      while (a[i].lo < pivot) i++;
      while (a[j].lo > pivot) j--;
      if (i <= j) {
        Span t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    /* recurse into the smaller side, loop on the larger */
    if (j + 1 < n - i) {
      Span_sort(a, j + 1);
      a += i, n -= i;
    } else {
      Span_sort(a + i, n - i);
      n = j + 1;
    }
  }
  for (int x = 1; x < n; x++) {
    Span v = a[x];
    int y = x;
    for (; y > 0 && a[y - 1].lo > v.lo; y--) a[y] = a[y - 1];
    a[y] = v;
  }
}

/* The offset for buffer i among the placed buffers overlapping it in time (its
 * neighbours): the smallest gap that fits (best_fit) or the lowest one, else on top. */
static int64_t Pack_gapOffset(const PackBuffer *b, const PackOverlaps *g, const int64_t *offsets, const bool *placed,
                              int i, bool best_fit, Span *spans) {
  int ns = 0;
  for (int a = g->start[i]; a < g->start[i + 1]; a++) {
    int j = g->adj[a];
    if (placed[j]) spans[ns++] = (Span){offsets[j], offsets[j] + b[j].size};
  }
  Span_sort(spans, ns);
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

static int64_t Offset_run(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets, const int *order,
                          bool best_fit) {
  bool *placed = calloc((size_t)(n > 0 ? n : 1), sizeof *placed);
  int maxdeg = 0;
  for (int i = 0; i < n; i++)
    if (g->start[i + 1] - g->start[i] > maxdeg) maxdeg = g->start[i + 1] - g->start[i];
  Span *spans = malloc(sizeof *spans * (size_t)(maxdeg + 1));
  int64_t height = -1;
  if (order && placed && spans) {
    height = 0;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      offsets[i] = Pack_gapOffset(b, g, offsets, placed, i, best_fit, spans);
      placed[i] = true;
      if (offsets[i] + b[i].size > height) height = offsets[i] + b[i].size;
    }
  }
  free(placed);
  free(spans);
  return height;
}

static int64_t PackHeur_offsetSize(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets) {
  int *order = Pack_orderBySize(b, n);
  int64_t h = Offset_run(b, n, g, offsets, order, true);
  free(order);
  return h;
}

static int64_t PackHeur_offsetBreadth(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets) {
  int *order = Pack_orderByBreadth(b, n);
  int64_t h = Offset_run(b, n, g, offsets, order, true);
  free(order);
  return h;
}

/* Most time-conflicts first (they are the hardest to fit), then larger; each at
 * the lowest gap. */
static int64_t PackHeur_conflict(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets) {
  PackKey *k = malloc(sizeof *k * (size_t)(n > 0 ? n : 1));
  int *order = malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
  int64_t h = -1;
  if (k && order) {
    for (int i = 0; i < n; i++) k[i] = (PackKey){g->start[i + 1] - g->start[i], b[i].size, i};
    qsort(k, (size_t)n, sizeof *k, PackKey_cmpDesc);
    for (int i = 0; i < n; i++) order[i] = k[i].idx;
    h = Offset_run(b, n, g, offsets, order, false);
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
static int64_t PackHeur_skyline(const PackBuffer *b, int n, const PackOverlaps *g, int64_t *offsets) {
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
  for (int left = n, step = 0; left > 0; step++) {
    if (g && g->stop && (step & 63) == 0 && g->stop(g->stop_user)) { /* each step scans every section and buffer */
      height = PACK_HEUR_STOPPED;
      break;
    }
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

/* pack_canon: the exact decision "do these buffers fit under cap?" for parts
 * with slack, by depth-first search over canonical placements, with the
 * pruning rules of minimalloc (Moffitt, ASPLOS 2023), written here from its
 * paper and its public solver's description:
 *
 *  - canonical order: buffers are placed at their lowest free offset, in
 *    non-decreasing (offset, preorder rank); any packing pushed down by
 *    "gravity" is listed this way exactly once;
 *  - sections: the time axis cut where some buffer ends, each section the set
 *    of buffers live just before that end (the maximal cliques); every
 *    unplaced buffer of a section lies above max(section floor, last offset),
 *    so that plus their summed size must fit (section inference);
 *  - unallocated floor: a section's floor is at least the lowest offset any of
 *    its unplaced buffers can still get;
 *  - dominance: no buffer goes at or above the lowest top some other unplaced
 *    buffer can reach (that one's place would then stay empty for good);
 *  - hatless pruning: when the buffer just placed overlaps no unplaced buffer,
 *    it changed nothing for the others, so if the rest failed after it, no other
 *    choice at this node succeeds;
 *  - dynamic decomposition: once no unplaced buffer crosses a section boundary,
 *    the two sides are solved one after the other, each from scratch;
 *  - restarts over preorders (minimalloc's WAT, TAW, TWA), node budgets
 *    doubling: an attempt that ends inside its budget is a complete search, so
 *    an exhausted attempt is a proof.
 * What differs from minimalloc: every placement is undone from one trail of
 * saved words (no per-node allocation), the candidates at a node are filtered
 * by canonicity and dominance before they are sorted, and a buffer whose lowest
 * offset no longer fits under cap ends the node at once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "pack_internal.h"

typedef struct {
  int64_t *p, v;
} CanonSave;

typedef struct {
  int64_t off;
  int rank, i;
} CanonCand;

typedef struct {
  int64_t total;
  int k;
} CanonSec;

struct PackCanon {
  int n, ns;
  const PackBuffer *b;
  int *slo, *shi;          /* sections [slo, shi) of each buffer */
  int *adj_start, *adj;    /* time-overlapping buffers, CSR */
  int *mem_start, *mem;    /* the buffers of each section, CSR */
  int64_t *width, *area;   /* preorder keys: lifetime, lifetime x size */
  /* search state */
  int64_t cap;
  int64_t *off, *minoff, *sol;
  const int64_t *fixed;    /* NULL, or per buffer its forced offset (-1: free); see PackCanon_runFixed */
  int64_t *deg;            /* per buffer: its unplaced time-overlapping buffers */
  int64_t *lowest, *total; /* per section: the lowest offset an unplaced buffer there can get, their summed size */
  int64_t *cuts;           /* per boundary k (between sections k, k + 1): unplaced buffers across */
  int64_t *rank;           /* per buffer: its place in the preorder of its part */
  const char *heuristic;
  int64_t *keys;           /* scratch for ranking */
  size_t keys_cap;
  long *sec_stamp;
  long stamp;
  CanonSave *trail;
  size_t trail_top, trail_cap;
  CanonCand *cand;
  size_t cand_cap;
  int *lists;              /* buffer lists of sub-parts, a stack */
  size_t lists_top, lists_cap;
  int *affected;           /* sections touched by one placement */
  CanonSec *secs;          /* per depth, a stack: a node's sections with something left */
  size_t secs_top, secs_cap;
  /* limits */
  bool (*tick)(void *user);
  void *user;
  long nodes, budget;
  int stop;                /* 0, or the SearchResult-like code that ends the attempt */
  bool nomem;
};

enum { CANON_STOPPED = -1, CANON_BUDGET = -2 }; /* why an attempt stopped */

static inline bool Canon_candBefore(const CanonCand *a, const CanonCand *b) {
  return a->off != b->off ? a->off < b->off : a->rank < b->rank;
}

static int Canon_cmpCand(const void *pa, const void *pb) {
  const CanonCand *a = pa, *b = pb;
  return Canon_candBefore(a, b) ? -1 : Canon_candBefore(b, a) ? 1 : 0;
}

static int Canon_cmpSec(const void *pa, const void *pb) {
  const CanonSec *a = pa, *b = pb;
  return (a->total < b->total) - (a->total > b->total); /* falling total */
}

/* By (offset, rank); the lists at a node are short, so insertion sort first. */
static void Canon_sortCand(CanonCand *a, size_t n) {
  if (n > 24) {
    qsort(a, n, sizeof *a, Canon_cmpCand);
    return;
  }
  for (size_t x = 1; x < n; x++) {
    CanonCand v = a[x];
    size_t y = x;
    for (; y > 0 && Canon_candBefore(&v, &a[y - 1]); y--) a[y] = a[y - 1];
    a[y] = v;
  }
}

static void Canon_sortSec(CanonSec *a, int n) {
  qsort(a, (size_t)n, sizeof *a, Canon_cmpSec);
}

static int Canon_cmpI64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

static inline bool Canon_save(PackCanon *c, int64_t *p, int64_t v) {
  if (c->trail_top == c->trail_cap &&
      !Grow_array((void **)&c->trail, &c->trail_cap, c->trail_top + 1, sizeof *c->trail)) {
    c->nomem = true;
    return false;
  }
  c->trail[c->trail_top++] = (CanonSave){p, *p};
  *p = v;
  return true;
}

static void Canon_undo(PackCanon *c, size_t mark) {
  while (c->trail_top > mark) {
    CanonSave s = c->trail[--c->trail_top];
    *s.p = s.v;
  }
}

void PackCanon_free(PackCanon *c) {
  if (!c) return;
  free(c->slo);
  free(c->shi);
  free(c->adj_start);
  free(c->adj);
  free(c->mem_start);
  free(c->mem);
  free(c->width);
  free(c->area);
  free(c->off);
  free(c->minoff);
  free(c->sol);
  free(c->deg);
  free(c->lowest);
  free(c->total);
  free(c->cuts);
  free(c->rank);
  free(c->keys);
  free(c->sec_stamp);
  free(c->trail);
  free(c->cand);
  free(c->lists);
  free(c->affected);
  free(c->secs);
  free(c);
}

/* Sections: the distinct times cut the axis into elementary intervals; the
 * ones that end where some buffer ends are kept (each holds the buffers live
 * just before that end, a superset of every interval since the last kept one). */
static bool Canon_sections(PackCanon *c) {
  int n = c->n;
  int64_t *ends = malloc(sizeof *ends * (size_t)(n > 0 ? n : 1));
  if (!ends) return false;
  for (int i = 0; i < n; i++) ends[i] = c->b[i].upper;
  qsort(ends, (size_t)n, sizeof *ends, Canon_cmpI64);
  int ne = 0;
  for (int i = 0; i < n; i++)
    if (ne == 0 || ends[i] != ends[ne - 1]) ends[ne++] = ends[i];
  c->ns = ne;
  /* buffer i's sections: the ends e with lower < e <= upper */
  for (int i = 0; i < n; i++) {
    int lo = 0, hi = ne; /* first end > lower */
    while (lo < hi) {
      int m = (lo + hi) / 2;
      if (ends[m] > c->b[i].lower) hi = m;
      else lo = m + 1;
    }
    c->slo[i] = lo;
    lo = 0, hi = ne; /* first end > upper */
    while (lo < hi) {
      int m = (lo + hi) / 2;
      if (ends[m] > c->b[i].upper) hi = m;
      else lo = m + 1;
    }
    c->shi[i] = lo;
  }
  free(ends);
  return true;
}

/* Time overlaps (CSR) by a sweep over buffers sorted by lower; members of each
 * section (CSR). false when out of memory or past max_pairs. */
static bool Canon_lists(PackCanon *c, size_t max_pairs) {
  int n = c->n, ns = c->ns;
  c->mem_start = calloc((size_t)ns + 1, sizeof *c->mem_start);
  c->adj_start = calloc((size_t)n + 1, sizeof *c->adj_start);
  if (!c->mem_start || !c->adj_start) return false;
  size_t members = 0;
  for (int i = 0; i < n; i++) members += (size_t)(c->shi[i] - c->slo[i]);
  if (members > max_pairs) return false;
  c->mem = malloc(sizeof *c->mem * (members ? members : 1));
  if (!c->mem) return false;
  for (int i = 0; i < n; i++)
    for (int k = c->slo[i]; k < c->shi[i]; k++) c->mem_start[k + 1]++;
  for (int k = 0; k < ns; k++) c->mem_start[k + 1] += c->mem_start[k];
  int *fill = malloc(sizeof *fill * (size_t)(ns ? ns : 1));
  if (!fill) return false;
  memcpy(fill, c->mem_start, sizeof *fill * (size_t)ns);
  for (int i = 0; i < n; i++)
    for (int k = c->slo[i]; k < c->shi[i]; k++) c->mem[fill[k]++] = i;
  free(fill);
  /* overlaps: two buffers overlap in time iff they share a section */
  int *order = malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
  if (!order) return false;
  for (int i = 0; i < n; i++) order[i] = i;
  /* by lower: (lower, index) pairs, compared on lower alone */
  int64_t *key = malloc(sizeof *key * (size_t)(n > 0 ? n : 1) * 2);
  if (!key) {
    free(order);
    return false;
  }
  for (int i = 0; i < n; i++) key[2 * i] = c->b[i].lower, key[2 * i + 1] = i;
  qsort(key, (size_t)n, 2 * sizeof *key, Canon_cmpI64); /* by lower only; ties in any order */
  for (int i = 0; i < n; i++) order[i] = (int)key[2 * i + 1];
  free(key);
  size_t pairs = 0;
  for (int x = 0; x < n; x++) {
    int i = order[x];
    for (int y = x + 1; y < n && c->b[order[y]].lower < c->b[i].upper; y++) {
      if (++pairs > max_pairs) {
        free(order);
        return false;
      }
      c->adj_start[i + 1]++;
      c->adj_start[order[y] + 1]++;
    }
  }
  for (int i = 0; i < n; i++) c->adj_start[i + 1] += c->adj_start[i];
  c->adj = malloc(sizeof *c->adj * (2 * pairs + 1));
  int *at = malloc(sizeof *at * (size_t)(n > 0 ? n : 1));
  if (!c->adj || !at) {
    free(order);
    free(at);
    return false;
  }
  memcpy(at, c->adj_start, sizeof *at * (size_t)n);
  for (int x = 0; x < n; x++) {
    int i = order[x];
    for (int y = x + 1; y < n && c->b[order[y]].lower < c->b[i].upper; y++) {
      int j = order[y];
      c->adj[at[i]++] = j;
      c->adj[at[j]++] = i;
    }
  }
  free(at);
  free(order);
  return true;
}

PackCanon *PackCanon_new(const PackBuffer *b, int n, size_t max_pairs) {
  PackCanon *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->n = n;
  c->b = b;
  size_t nn = (size_t)(n > 0 ? n : 1);
  c->slo = malloc(sizeof *c->slo * nn);
  c->shi = malloc(sizeof *c->shi * nn);
  c->width = malloc(sizeof *c->width * nn);
  c->area = malloc(sizeof *c->area * nn);
  c->off = malloc(sizeof *c->off * nn);
  c->minoff = malloc(sizeof *c->minoff * nn);
  c->sol = malloc(sizeof *c->sol * nn);
  c->deg = malloc(sizeof *c->deg * nn);
  c->rank = malloc(sizeof *c->rank * nn);
  if (!c->slo || !c->shi || !c->width || !c->area || !c->off || !c->minoff || !c->sol || !c->deg || !c->rank ||
      !Canon_sections(c) || !Canon_lists(c, max_pairs)) {
    PackCanon_free(c);
    return NULL;
  }
  size_t ns = (size_t)(c->ns ? c->ns : 1);
  c->lowest = malloc(sizeof *c->lowest * ns);
  c->total = calloc(ns, sizeof *c->total);
  c->cuts = malloc(sizeof *c->cuts * ns);
  c->sec_stamp = calloc(ns, sizeof *c->sec_stamp);
  c->affected = malloc(sizeof *c->affected * ns);
  if (!c->lowest || !c->total || !c->cuts || !c->sec_stamp || !c->affected) {
    PackCanon_free(c);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    c->width[i] = b[i].upper - b[i].lower;
    c->area[i] = c->width[i] * b[i].size;
  }
  return c;
}

/* ---- one attempt ------------------------------------------------------------ */

static int Canon_cmpKey(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  for (int k = 0; k < 5; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

/* Ranks the buffers lists[at..at+m): their places when sorted descending by
 * the heuristic's keys in turn (W lifetime, A lifetime x size, T the fullest
 * section's load of what is unplaced now, Z size, L earliest first), then by
 * index. As minimalloc does, each part solved on its own is ranked anew, on
 * what is left of it; the old ranks go on the trail when save is set (the
 * enclosing search's order comes back when this part's choice is undone). */
static bool Canon_rank(PackCanon *c, size_t at, int m, bool save) {
  if (!Grow_array((void **)&c->keys, &c->keys_cap, 5 * (size_t)(m > 0 ? m : 1), sizeof *c->keys)) return false;
  int64_t *key = c->keys;
  for (int x = 0; x < m; x++) {
    int i = c->lists[at + (size_t)x];
    const char *h = c->heuristic;
    for (int k = 0; k < 4; k++) {
      int64_t v = 0;
      if (*h) {
        switch (*h++) {
        case 'W': v = c->width[i]; break;
        case 'A': v = c->area[i]; break;
        case 'T':
          for (int q = c->slo[i]; q < c->shi[i]; q++)
            if (c->total[q] > v) v = c->total[q];
          break;
        case 'L': v = -c->b[i].lower; break;
        default: v = c->b[i].size; break;
        }
      }
      key[5 * x + k] = -v;
    }
    key[5 * x + 4] = i;
  }
  qsort(key, (size_t)m, 5 * sizeof *key, Canon_cmpKey);
  for (int r = 0; r < m; r++) {
    int i = (int)key[5 * r + 4];
    if (!save) c->rank[i] = r;
    else if (c->rank[i] != r && !Canon_save(c, &c->rank[i], r)) return false;
  }
  return true;
}

static bool Canon_node(PackCanon *c) {
  c->nodes++;
  if (c->budget > 0 && c->nodes > c->budget) c->stop = CANON_BUDGET;
  else if (c->tick && c->tick(c->user)) c->stop = CANON_STOPPED;
  return c->stop != 0;
}

static int Canon_search(PackCanon *c, size_t part, int m, int slo, int shi, int64_t last_off, int64_t last_rank,
                        size_t base);

/* Marks section k for a new look at its lowest unplaced offset. */
static inline void Canon_touch(PackCanon *c, int k, long stamp, int *naff) {
  if (c->sec_stamp[k] != stamp) c->sec_stamp[k] = stamp, c->affected[(*naff)++] = k;
}

/* Places buffer i at o and searches on: SEARCH_FOUND, SEARCH_EXHAUSTED (this
 * choice fails), SEARCH_STOPPED. */
static int Canon_try(PackCanon *c, size_t part, int m, int slo, int shi, int i, int64_t o, size_t base) {
  const PackBuffer *b = c->b;
  int64_t top = o + b[i].size;
  if (!Canon_save(c, &c->off[i], o)) return SEARCH_STOPPED;
  c->sol[i] = o;
  long stamp = ++c->stamp;
  int naff = 0;
  for (int k = c->slo[i]; k < c->shi[i]; k++) {
    if (!Canon_save(c, &c->total[k], c->total[k] - b[i].size)) return SEARCH_STOPPED;
    if (c->lowest[k] == o) Canon_touch(c, k, stamp, &naff); /* i may have held the lowest */
  }
  for (int a = c->adj_start[i]; a < c->adj_start[i + 1]; a++) {
    int j = c->adj[a];
    if (c->off[j] >= 0) continue;
    if (!Canon_save(c, &c->deg[j], c->deg[j] - 1)) return SEARCH_STOPPED;
    int64_t lo = Pack_alignUp(top, b[j].align), old = c->minoff[j];
    if (c->fixed && c->fixed[j] >= 0) {
      /* a fixed buffer keeps its offset: it must still lie above i */
      if (top > c->fixed[j]) return SEARCH_EXHAUSTED;
      continue;
    }
    if (old >= lo) continue;
    if (lo + b[j].size > c->cap) return SEARCH_EXHAUSTED; /* j no longer fits anywhere */
    if (!Canon_save(c, &c->minoff[j], lo)) return SEARCH_STOPPED;
    for (int k = c->slo[j]; k < c->shi[j]; k++)
      if (c->lowest[k] == old) Canon_touch(c, k, stamp, &naff);
  }
  /* unallocated floor: a section's unplaced buffers lie above the lowest offset
   * any of them can get; lowest only rises, so one buffer still at the old
   * value ends the look */
  for (int q = 0; q < naff; q++) {
    int k = c->affected[q];
    int64_t was = c->lowest[k], now = INT64_MAX;
    for (int x = c->mem_start[k]; x < c->mem_start[k + 1]; x++) {
      int j = c->mem[x];
      if (c->off[j] >= 0) continue;
      if (c->minoff[j] == was) {
        now = was;
        break;
      }
      if (c->minoff[j] < now) now = c->minoff[j];
    }
    if (now != was && !Canon_save(c, &c->lowest[k], now)) return SEARCH_STOPPED;
  }
  /* section inference, with the monotonic floor: all that is left of a section
   * lies above max(its lowest offset, o) (every unplaced buffer of a section
   * overlaps whatever was placed there, so lowest is above those tops too) */
  for (int k = slo; k < shi; k++) {
    if (c->total[k] == 0) continue;
    int64_t f = c->lowest[k] > o ? c->lowest[k] : o;
    if (f + c->total[k] > c->cap) return SEARCH_EXHAUSTED;
  }
  /* dynamic decomposition: the boundaries inside i's span that no unplaced
   * buffer crosses any more split the part */
  int ncut = 0;
  for (int k = c->slo[i]; k + 1 < c->shi[i]; k++) {
    if (!Canon_save(c, &c->cuts[k], c->cuts[k] - 1)) return SEARCH_STOPPED;
    if (c->cuts[k] == 0 && k >= slo && k + 1 < shi) ncut++;
  }
  if (ncut == 0) return Canon_search(c, part, m, slo, shi, o, c->rank[i], base);
  size_t lists_mark = c->lists_top;
  int lo = slo, r = SEARCH_FOUND;
  for (int k = c->slo[i];; k++) {
    bool end = k + 1 >= c->shi[i] || k + 1 >= shi;
    if (!end && !(c->cuts[k] == 0 && k >= slo)) continue;
    int hi = end ? shi : k + 1;
    /* the unplaced buffers of [lo, hi): those that start there (none crosses) */
    if (!Grow_array((void **)&c->lists, &c->lists_cap, c->lists_top + (size_t)m, sizeof *c->lists)) {
      c->nomem = true;
      r = SEARCH_STOPPED;
      break;
    }
    int *sub = c->lists + c->lists_top, ms = 0;
    for (int x = 0; x < m; x++) {
      int j = c->lists[part + (size_t)x];
      if (c->off[j] < 0 && c->slo[j] >= lo && c->slo[j] < hi) sub[ms++] = j;
    }
    if (ms > 0) {
      size_t sub_at = c->lists_top;
      c->lists_top += (size_t)ms;
      if (!Canon_rank(c, sub_at, ms, true)) {
        c->nomem = true;
        r = SEARCH_STOPPED;
        break;
      }
      r = Canon_search(c, sub_at, ms, lo, hi, 0, -1, base);
      if (r != SEARCH_FOUND) break;
    }
    if (end) break;
    lo = hi;
  }
  c->lists_top = lists_mark;
  return r;
}

/* The search within sections [slo, shi) over the buffers lists[part..part+m)
 * (placed ones are skipped; an index, as lists may move when it grows): the last placement was at last_off with rank last_rank;
 * cand[base..) is free for this depth. */
static int Canon_search(PackCanon *c, size_t part, int m, int slo, int shi, int64_t last_off, int64_t last_rank,
                        size_t base) {
  if (Canon_node(c)) return SEARCH_STOPPED;
  const PackBuffer *b = c->b;
  int64_t min_height = INT64_MAX, min_fixed = INT64_MAX;
  int left = 0;
  for (int x = 0; x < m; x++) {
    int i = c->lists[part + (size_t)x];
    if (c->off[i] >= 0) continue;
    left++;
    if (c->minoff[i] + b[i].size < min_height) min_height = c->minoff[i] + b[i].size;
    if (c->fixed && c->fixed[i] >= 0 && c->fixed[i] < min_fixed) min_fixed = c->fixed[i];
  }
  if (left == 0) return SEARCH_FOUND;
  if (!Grow_array((void **)&c->cand, &c->cand_cap, base + (size_t)left, sizeof *c->cand)) {
    c->nomem = true;
    return SEARCH_STOPPED;
  }
  size_t top = base;
  for (int x = 0; x < m; x++) {
    int i = c->lists[part + (size_t)x];
    if (c->off[i] >= 0) continue;
    int64_t o = c->minoff[i];
    if (o >= min_height) continue; /* dominance */
    if (o > min_fixed) continue;   /* a fixed buffer below o could no longer come in order */
    if (o < last_off || (o == last_off && c->rank[i] < last_rank)) continue; /* canonical order */
    c->cand[top++] = (CanonCand){o, (int)c->rank[i], i};
  }
  Canon_sortCand(c->cand + base, top - base);
  /* The section bound before any change, for all choices at once: what is left
   * of section k lies above max(lowest[k], o), and lowest[k] + total[k] <= cap
   * holds at this node, so a choice at o fails iff some section with
   * total[k] > cap - o lies outside i's span, or inside with total[k] - size > cap - o.
   * The choices come by rising o: the sections past the threshold, by falling
   * total, are taken in once each. */
  size_t sb = c->secs_top;
  if (!Grow_array((void **)&c->secs, &c->secs_cap, sb + (size_t)(shi - slo), sizeof *c->secs)) {
    c->nomem = true;
    return SEARCH_STOPPED;
  }
  int nsec = 0;
  for (int k = slo; k < shi; k++)
    if (c->total[k] > 0) c->secs[sb + (size_t)nsec++] = (CanonSec){c->total[k], k};
  Canon_sortSec(c->secs + sb, nsec);
  c->secs_top = sb + (size_t)nsec;
  int p = 0, kmin = INT32_MAX, kmax = -1, r = SEARCH_EXHAUSTED;
  for (size_t q = base; q < top; q++) {
    CanonCand cc = c->cand[q];
    int64_t room = c->cap - cc.off;
    for (; p < nsec && c->secs[sb + (size_t)p].total > room; p++) {
      int k = c->secs[sb + (size_t)p].k;
      if (k < kmin) kmin = k;
      if (k > kmax) kmax = k;
    }
    bool fails = p > 0 && (kmin < c->slo[cc.i] || kmax >= c->shi[cc.i] || c->secs[sb].total - b[cc.i].size > room);
    if (!fails) {
      size_t mark = c->trail_top;
      r = Canon_try(c, part, m, slo, shi, cc.i, cc.off, top);
      Canon_undo(c, mark);
      if (r != SEARCH_EXHAUSTED) break;
    }
    /* hatless: i overlaps no unplaced buffer, so its lowest offset never
     * changes again; after any later choice (higher, or equal and later in
     * rank) i could no longer be placed in order: no later choice helps */
    if (c->deg[cc.i] == 0) break;
  }
  c->secs_top = sb;
  return r;
}

int PackCanon_run(PackCanon *c, int64_t cap, const char *heuristic, long budget, bool (*tick)(void *user),
                  void *user, int64_t *off, long *nodes) {
  return PackCanon_runFixed(c, cap, NULL, heuristic, budget, tick, user, off, nodes);
}

int PackCanon_runFixed(PackCanon *c, int64_t cap, const int64_t *fixed, const char *heuristic, long budget,
                       bool (*tick)(void *user), void *user, int64_t *off, long *nodes) {
  int n = c->n;
  c->fixed = fixed;
  *nodes = 0;
  c->heuristic = heuristic;
  c->cap = cap;
  c->tick = tick;
  c->user = user;
  c->budget = budget;
  c->nodes = 0;
  c->stop = 0;
  c->nomem = false;
  c->trail_top = 0;
  c->lists_top = 0;
  c->secs_top = 0;
  for (int i = 0; i < n; i++) {
    c->off[i] = -1;
    c->minoff[i] = fixed && fixed[i] >= 0 ? fixed[i] : 0;
    if (c->minoff[i] + c->b[i].size > cap) return PACK_CANON_INFEASIBLE;
  }
  for (int k = 0; k < c->ns; k++) c->lowest[k] = INT64_MAX, c->total[k] = 0, c->cuts[k] = 0;
  for (int i = 0; i < n; i++) {
    for (int k = c->slo[i]; k < c->shi[i]; k++) {
      c->total[k] += c->b[i].size;
      if (c->minoff[i] < c->lowest[k]) c->lowest[k] = c->minoff[i];
    }
    for (int k = c->slo[i]; k + 1 < c->shi[i]; k++) c->cuts[k]++;
  }
  for (int k = 0; k < c->ns; k++)
    if (c->total[k] > cap || (c->lowest[k] != INT64_MAX && c->lowest[k] + c->total[k] > cap))
      return PACK_CANON_INFEASIBLE; /* lowest > 0 only with fixed buffers */
  for (int i = 0; i < n; i++) c->deg[i] = c->adj_start[i + 1] - c->adj_start[i];
  if (!Grow_array((void **)&c->lists, &c->lists_cap, (size_t)(n > 0 ? n : 1), sizeof *c->lists))
    return PACK_CANON_NOMEM;
  for (int i = 0; i < n; i++) c->lists[i] = i;
  c->lists_top = (size_t)n;
  if (!Canon_rank(c, 0, n, false)) return PACK_CANON_NOMEM;
  int r = Canon_search(c, 0, n, 0, c->ns, 0, -1, 0);
  *nodes = c->nodes;
  if (c->nomem) return PACK_CANON_NOMEM;
  if (r == SEARCH_FOUND) {
    memcpy(off, c->sol, sizeof *off * (size_t)n);
    return PACK_CANON_FOUND;
  }
  if (r == SEARCH_EXHAUSTED) return PACK_CANON_INFEASIBLE;
  return c->stop == CANON_BUDGET ? PACK_CANON_BUDGET : PACK_CANON_STOPPED;
}

/* pack_exact: branch and bound over canonical placements.
 *
 * Any packing can be pushed down ("gravity") until every buffer sits at the
 * lowest aligned offset above the time-overlapping buffers below it. Listing such
 * a packing by (offset, index), each buffer's offset equals the aligned floor of
 * its sections (the highest end among the buffers placed before it) at the moment
 * it is placed. So the search places buffers one at a time at their current floor,
 * in nondecreasing (offset, index) order, and visits every canonical packing
 * exactly once. Ideas after minimalloc (Moffitt, ASPLOS 2023), written from its
 * paper's description:
 *  - sections: the time axis cut at every lower/upper; a buffer covers a run of
 *    sections and its floor is the highest floor among them;
 *  - independent parts: where no buffer spans a time, the problem splits;
 *  - section bound: every unplaced buffer of a section lands above both the
 *    section's floor and the last offset placed (placements never go down), and
 *    they all overlap there, so floor' + remaining size <= capacity;
 *  - early infeasibility: an unplaced buffer that no longer fits under the
 *    capacity at max(its floor, last offset) kills the node;
 *  - dominance: no buffer goes at or above the lowest top another unplaced
 *    buffer can still reach (that one would then not rest where it falls);
 *    equal buffers (same lifetime, size, alignment) are placed in
 *    index order only; placement order = (offset, index) removes the orders
 *    that give the same packing.
 * Height minimisation: per part, between the proven lower bound (rounded up to
 * the step every height is a multiple of) and the best heuristic's height, in
 * rounds of decisions with a node budget growing each round: from below (prove
 * the bound infeasible), then bisection from above (see Search_minimise). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "grow.h"
#include "pack_internal.h"
#include "testhook.h"

enum { PACK_SWEEP_NODES = 16 };



typedef struct {
  int64_t off;
  int rank, i;
} PackCand;

static int PackCand_cmp(const void *pa, const void *pb) {
  const PackCand *a = pa, *b = pb;
  if (a->off != b->off) return a->off < b->off ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

typedef struct {
  /* the part being searched (indices local to the part) */
  int n, ns;
  PackBuffer *b;
  int *sl, *su;       /* sections [sl, su) of each buffer */
  int *twin;          /* the previous equal buffer, or -1 */
  int64_t *floor;     /* per section: highest end placed there */
  int64_t *remain;    /* per section: summed size of unplaced buffers */
  int64_t *lowest;    /* per section, this node: the lowest offset an unplaced buffer there can get */
  int64_t *off;       /* per buffer, -1 unplaced */
  int64_t cap;
  /* stacks shared by every depth (grown on demand; addressed by index) */
  PackCand *cand;
  size_t cand_cap;
  int *rank;          /* branching order at one offset: leftmost, then longest, then largest first */
  int *ord;           /* canonical order at one offset (the attempt's strategy) */
  int64_t *total;     /* per buffer: the largest section total it lies in */
  long *cross;        /* per section k: the node stamp when an unplaced buffer joins k and k + 1 */
  long stamp;
  int *trail, ntrail; /* placed buffers in order, and where their saved floors start */
  size_t *trail_mark;
  int64_t *saved;
  size_t saved_cap, saved_top;
  /* limits and progress */
  const PackOptions *o;
  double start, last_progress;
  long nodes, nodes_before;
  long poll_mask;     /* the clock is read when nodes & poll_mask == 0 */
  int64_t best_height, lower_bound;
  bool stopped, cancelled, nomem;
  /* restarts: each attempt has a node budget (doubling) and its own random
   * tie-break among the choices at one place; an attempt that ends within its
   * budget is a complete search, so the proofs stay proofs */
  long attempt_nodes, attempt_limit;
  bool restart;
  /* minimising: one decision's node budget (0: none) from decide_base; when it
   * runs out, stopped and budget_hit are set and the caller clears them (hard:
   * the time limit, the node limit or cancel came, which nothing clears) */
  long decide_limit, decide_base;
  bool budget_hit, hard;
  uint64_t rng;
  /* perfect parts (see Search_perfect): per section, the candidates at the
   * lowest floor, and the node stamp when some buffer can still fill its
   * bottom */
  int *cnt;
  long *filler;
  int *head, *next;   /* flat unplaced buffers by first section (lists) */
  long *head_stamp, *reach;
  PackCanon *canon;   /* the minimalloc-style search of a part with slack */
} PackSearch;

static void Search_progress(PackSearch *s, const char *stage) {
  if (!s->o->progress) return;
  PackProgress p = {Clock_now() - s->start, s->nodes_before + s->nodes, s->best_height, s->lower_bound, stage};
  s->o->progress(&p, s->o->user);
}

/* Limits, cancel and progress, looked at every 256 nodes, or every node of a part
 * of 1,024 buffers or more (a node scans every buffer of its part: 256 of them
 * took 40 s at 100,000 buffers, past any limit). */
static bool Search_shouldStop(PackSearch *s) {
  if (s->stopped) return true;
  bool tick = (s->nodes & 255) == 0;
  if (!tick && (s->nodes & s->poll_mask) != 0) return false;
  const PackOptions *o = s->o;
  Testhook_at("pack.exact", o->cancel);
  if (o->cancel && atomic_load(o->cancel)) s->stopped = s->cancelled = s->hard = true;
  /* the node limit at the same nodes as ever (an allocator's plan depends on it) */
  if (tick && o->node_limit > 0 && s->nodes_before + s->nodes >= o->node_limit) s->stopped = s->hard = true;
  if (tick && s->decide_limit > 0 && s->nodes - s->decide_base >= s->decide_limit) s->stopped = s->budget_hit = true;
  double now = Clock_now();
  if (o->time_limit > 0 && now - s->start >= o->time_limit) s->stopped = s->hard = true;
  double every = o->progress_interval > 0 ? o->progress_interval : 0.2;
  if (now - s->last_progress >= every) {
    s->last_progress = now;
    Search_progress(s, "search");
  }
  return s->stopped;
}

static bool Search_reserve(PackSearch *s, size_t cand_need, size_t saved_need) {
  return Grow_array((void **)&s->cand, &s->cand_cap, cand_need, sizeof *s->cand) &&
         Grow_array((void **)&s->saved, &s->saved_cap, saved_need, sizeof *s->saved);
}

static int64_t Search_floorOf(const PackSearch *s, int i) {
  int64_t f = 0;
  for (int k = s->sl[i]; k < s->su[i]; k++)
    if (s->floor[k] > f) f = s->floor[k];
  return Pack_alignUp(f, s->b[i].align);
}

/* Places buffer i at f (floors, remaining sizes, the trail). */
static bool Search_place(PackSearch *s, int i, int64_t f) {
  int len = s->su[i] - s->sl[i];
  if (!Search_reserve(s, 0, s->saved_top + (size_t)len)) return false;
  s->trail[s->ntrail] = i;
  s->trail_mark[s->ntrail++] = s->saved_top;
  for (int q = s->sl[i]; q < s->su[i]; q++) {
    s->saved[s->saved_top++] = s->floor[q];
    s->floor[q] = f + s->b[i].size;
    s->remain[q] -= s->b[i].size;
  }
  s->off[i] = f;
  return true;
}

/* Takes back the placements after the first `keep` of the trail. */
static void Search_unwind(PackSearch *s, int keep) {
  while (s->ntrail > keep) {
    int i = s->trail[--s->ntrail];
    size_t mark = s->trail_mark[s->ntrail];
    for (int q = s->sl[i]; q < s->su[i]; q++) {
      s->floor[q] = s->saved[mark + (size_t)(q - s->sl[i])];
      s->remain[q] += s->b[i].size;
    }
    s->saved_top = mark;
    s->off[i] = -1;
  }
}

static bool Search_inside(const PackSearch *s, int i, int lo, int hi) {
  return s->off[i] < 0 && s->sl[i] >= lo && s->su[i] <= hi;
}

/* The search within sections [lo, hi): `left` unplaced buffers lie inside, no
 * unplaced buffer crosses its ends. */
static SearchResult Search_dfs(PackSearch *s, int lo, int hi, int left, int64_t last_off, int last_idx,
                               size_t cand_base) {
  if (left == 0) return SEARCH_FOUND;
  s->nodes++;
  if (Search_shouldStop(s)) return SEARCH_STOPPED;
  if (s->attempt_limit > 0 && ++s->attempt_nodes > s->attempt_limit) {
    s->restart = true;
    return SEARCH_STOPPED;
  }
  for (int k = lo; k < hi; k++) {
    if (s->remain[k] == 0) continue;
    int64_t f = s->floor[k] > last_off ? s->floor[k] : last_off;
    if (f + s->remain[k] > s->cap) return SEARCH_EXHAUSTED;
    s->lowest[k] = INT64_MAX;
  }
  if (!Search_reserve(s, cand_base + (size_t)s->n, 0)) {
    s->nomem = s->stopped = true;
    return SEARCH_STOPPED;
  }
  long stamp = ++s->stamp;
  size_t top = cand_base;
  int64_t min_top = INT64_MAX; /* the lowest top any unplaced buffer can still have */
  for (int i = 0; i < s->n; i++) {
    if (!Search_inside(s, i, lo, hi)) continue;
    int64_t f = Search_floorOf(s, i);
    if (f + s->b[i].size < min_top) min_top = f + s->b[i].size;
    bool now = !(f < last_off || (f == last_off && last_idx >= 0 && s->ord[i] < s->ord[last_idx]));
    /* The lowest offset i can still get: its floor if it may go now, else above
     * the last offset (whatever lifts it ends above last_off). */
    int64_t lowest = now ? f : Pack_alignUp(last_off + 1, s->b[i].align);
    if (lowest + s->b[i].size > s->cap) return SEARCH_EXHAUSTED; /* can never fit any more */
    for (int k = s->sl[i]; k < s->su[i]; k++) {
      if (lowest < s->lowest[k]) s->lowest[k] = lowest;
      if (k + 1 < s->su[i]) s->cross[k] = stamp; /* i joins sections k and k + 1 */
    }
    if (!now) continue;
    if (s->twin[i] >= 0 && s->off[s->twin[i]] < 0) continue;
    s->cand[top++] = (PackCand){f, s->rank[i], i};
  }
  /* Section bound, sharpened: a section's unplaced buffers all lie above the
   * lowest offset any of them can still get. */
  for (int k = lo; k < hi; k++)
    if (s->remain[k] > 0 && s->lowest[k] + s->remain[k] > s->cap) return SEARCH_EXHAUSTED;
  /* Independent parts: where no unplaced buffer joins two sections, the two
   * sides no longer interact; solve them one after the other, so a failure on
   * one side does not retry the other side's choices. */
  int parts = 0;
  for (int k = lo; k < hi; k++)
    if (s->remain[k] > 0 && (k == lo || s->remain[k - 1] == 0 || s->cross[k - 1] != stamp)) parts++;
  if (parts > 1) {
    int keep = s->ntrail;
    for (int a = lo; a < hi;) {
      if (s->remain[a] == 0) {
        a++;
        continue;
      }
      int z = a + 1;
      while (z < hi && s->remain[z] > 0 && s->cross[z - 1] == stamp) z++;
      int count = 0;
      for (int i = 0; i < s->n; i++) count += Search_inside(s, i, a, z);
      SearchResult r = Search_dfs(s, a, z, count, last_off, last_idx, cand_base);
      if (r != SEARCH_FOUND) {
        Search_unwind(s, keep);
        return r;
      }
      a = z;
    }
    return SEARCH_FOUND;
  }
  /* Dominance: a buffer placed at or above the lowest top some other unplaced
   * buffer c can have leaves c's place below it empty for good (everything later
   * goes higher), so c would not rest where gravity puts it: not canonical. */
  size_t kept = cand_base;
  for (size_t k = cand_base; k < top; k++)
    if (s->cand[k].off < min_top) s->cand[kept++] = s->cand[k];
  top = kept;
  if (top == cand_base) return SEARCH_EXHAUSTED;
  qsort(s->cand + cand_base, top - cand_base, sizeof *s->cand, PackCand_cmp);
  for (size_t k = cand_base; k < top; k++) {
    int i = s->cand[k].i;
    int64_t f = s->cand[k].off;
    int keep = s->ntrail;
    if (!Search_place(s, i, f)) {
      s->nomem = s->stopped = true;
      return SEARCH_STOPPED;
    }
    SearchResult r = Search_dfs(s, lo, hi, left - 1, f, i, top);
    if (r == SEARCH_FOUND) return r;
    Search_unwind(s, keep);
    if (r == SEARCH_STOPPED) return r;
  }
  return SEARCH_EXHAUSTED;
}

/* A perfect part: at the capacity the load is full at every time, so no
 * address may ever stay empty (the per-section slack is zero). Then in a pit
 * (a run of sections at one floor F with higher floors or the ends on both
 * sides) the bottom must be the bottom of a buffer placed at F that lies inside
 * the pit. So instead of every canonical order, the search branches on who
 * fills that place, at the pit section with the fewest such buffers (a forced
 * choice when there is one), lowest first on ties, and fails as soon as some
 * section's bottom can no longer be filled by anyone (no unplaced buffer there
 * reaches exactly that floor). Every packing consistent with the node has
 * exactly one buffer at the chosen place, so the search is complete and visits
 * each packing once. Equal buffers (same lifetime and size) are
 * interchangeable, so the lowest unplaced index goes first. The skyline stays a
 * skyline: a buffer is only ever placed on a flat run. */
static SearchResult Search_perfect(PackSearch *s, int left, size_t cand_base) {
  if (left == 0) return SEARCH_FOUND;
  s->nodes++;
  if (Search_shouldStop(s)) return SEARCH_STOPPED;
  if (s->attempt_limit > 0 && ++s->attempt_nodes > s->attempt_limit) {
    s->restart = true;
    return SEARCH_STOPPED;
  }
  if (!Search_reserve(s, cand_base + (size_t)s->n, 0)) {
    s->nomem = s->stopped = true;
    return SEARCH_STOPPED;
  }
  for (int k = 0; k < s->ns; k++) s->cnt[k] = 0;
  long stamp = ++s->stamp;
  for (int i = 0; i < s->n; i++) {
    if (s->off[i] >= 0) continue;
    int64_t f = 0;
    bool flat = true;
    for (int k = s->sl[i]; k < s->su[i]; k++)
      if (s->floor[k] != f) {
        if (k > s->sl[i]) flat = false;
        if (s->floor[k] > f) f = s->floor[k];
      }
    if (f + s->b[i].size > s->cap) return SEARCH_EXHAUSTED; /* floors only rise */
    if (Pack_alignUp(f, s->b[i].align) != f) continue;     /* it would leave a gap below */
    for (int k = s->sl[i]; k < s->su[i]; k++)
      if (s->floor[k] == f) s->filler[k] = stamp;
    if (flat)
      for (int k = s->sl[i]; k < s->su[i]; k++) s->cnt[k]++;
  }
  for (int k = 0; k < s->ns; k++)
    if (s->remain[k] > 0 && s->filler[k] != stamp) return SEARCH_EXHAUSTED; /* its bottom stays empty */
  /* The place to fill: in a pit (a run of sections at one floor F with higher
   * floors or the ends on both sides), whatever fills the bottom lies inside
   * the pit at exactly F; of all pits' sections, the one with the fewest such
   * buffers (the global lowest run is a pit, so there is one). */
  int best = -1;
  for (int a = 0; a < s->ns;) {
    int z = a + 1;
    while (z < s->ns && s->floor[z] == s->floor[a]) z++;
    int64_t F = s->floor[a];
    if (s->remain[a] > 0 && (a == 0 || s->floor[a - 1] > F) && (z == s->ns || s->floor[z] > F))
      for (int k = a; k < z; k++)
        if (best < 0 || s->cnt[k] < s->cnt[best] || (s->cnt[k] == s->cnt[best] && F < s->floor[best])) best = k;
    a = z;
  }
  if (best < 0 || s->cnt[best] == 0) return SEARCH_EXHAUSTED;
  int64_t m = s->floor[best];
  size_t top = cand_base;
  for (int i = 0; i < s->n; i++) {
    if (s->off[i] >= 0 || s->sl[i] > best || s->su[i] <= best) continue;
    if (s->twin[i] >= 0 && s->off[s->twin[i]] < 0) continue;
    int64_t f = 0;
    for (int k = s->sl[i]; k < s->su[i]; k++)
      if (s->floor[k] > f) f = s->floor[k];
    if (f != m || Pack_alignUp(f, s->b[i].align) != f) continue;
    s->cand[top++] = (PackCand){m, s->rank[i], i};
  }
  qsort(s->cand + cand_base, top - cand_base, sizeof *s->cand, PackCand_cmp);
  for (size_t k = cand_base; k < top; k++) {
    int i = s->cand[k].i, keep = s->ntrail;
    if (!Search_place(s, i, m)) {
      s->nomem = s->stopped = true;
      return SEARCH_STOPPED;
    }
    SearchResult r = Search_perfect(s, left - 1, top);
    if (r == SEARCH_FOUND) return r;
    Search_unwind(s, keep);
    if (r == SEARCH_STOPPED) return r;
  }
  return SEARCH_EXHAUSTED;
}

static int Int64_cmp(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

typedef struct {
  int64_t lower, len, size, k3; /* lower ascending, the others descending */
  int i;
} PackRankKey;

static int PackRankKey_cmp(const void *pa, const void *pb) {
  const PackRankKey *a = pa, *b = pb;
  if (a->lower != b->lower) return a->lower < b->lower ? -1 : 1;
  if (a->len != b->len) return a->len > b->len ? -1 : 1;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  if (a->k3 != b->k3) return a->k3 > b->k3 ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

static void Search_free(PackSearch *s) {
  free(s->b);
  free(s->sl);
  free(s->su);
  free(s->twin);
  free(s->floor);
  free(s->remain);
  free(s->lowest);
  free(s->off);
  free(s->cand);
  free(s->rank);
  free(s->ord);
  free(s->total);
  free(s->cross);
  free(s->trail);
  free(s->trail_mark);
  free(s->saved);
  free(s->cnt);
  free(s->filler);
  free(s->head);
  free(s->next);
  free(s->head_stamp);
  free(s->reach);
  PackCanon_free(s->canon);
}

/* Sets up the search of one part (buffers ids[0..n)). */
static bool Search_init(PackSearch *s, const PackBuffer *all, const int *ids, int n) {
  s->n = n;
  s->poll_mask = n >= 1024 ? 0 : 255;
  s->b = malloc(sizeof *s->b * (size_t)n);
  s->sl = malloc(sizeof *s->sl * (size_t)n);
  s->su = malloc(sizeof *s->su * (size_t)n);
  s->twin = malloc(sizeof *s->twin * (size_t)n);
  s->off = malloc(sizeof *s->off * (size_t)n);
  s->rank = malloc(sizeof *s->rank * (size_t)n);
  s->ord = malloc(sizeof *s->ord * (size_t)n);
  int64_t *times = malloc(sizeof *times * (size_t)(2 * n));
  s->floor = malloc(sizeof *s->floor * (size_t)(2 * n));
  s->remain = malloc(sizeof *s->remain * (size_t)(2 * n));
  s->lowest = malloc(sizeof *s->lowest * (size_t)(2 * n));
  s->cross = calloc((size_t)(2 * n), sizeof *s->cross);
  s->trail = malloc(sizeof *s->trail * (size_t)n);
  s->trail_mark = malloc(sizeof *s->trail_mark * (size_t)n);
  if (!s->b || !s->sl || !s->su || !s->twin || !s->off || !s->rank || !s->ord || !times || !s->floor || !s->remain || !s->lowest || !s->cross || !s->trail ||
      !s->trail_mark) {
    free(times);
    return false;
  }
  for (int i = 0; i < n; i++) {
    s->b[i] = all[ids[i]];
    times[2 * i] = s->b[i].lower;
    times[2 * i + 1] = s->b[i].upper;
  }
  qsort(times, (size_t)(2 * n), sizeof *times, Int64_cmp);
  int u = 0;
  for (int i = 0; i < 2 * n; i++)
    if (u == 0 || times[i] != times[u - 1]) times[u++] = times[i];
  s->ns = u - 1;
  for (int i = 0; i < n; i++) {
    s->sl[i] = (int)((int64_t *)bsearch(&s->b[i].lower, times, (size_t)u, sizeof *times, Int64_cmp) - times);
    s->su[i] = (int)((int64_t *)bsearch(&s->b[i].upper, times, (size_t)u, sizeof *times, Int64_cmp) - times);
    s->twin[i] = -1;
  }
  free(times);
  /* twin: the last earlier buffer with the same lifetime, size and alignment; from
   * a sort (a scan back per buffer was O(n^2): a minute at 100,000 buffers, not polled) */
  PackRankKey *tmp = malloc(sizeof *tmp * (size_t)(n ? n : 1));
  if (!tmp) return false;
  for (int i = 0; i < n; i++) tmp[i] = (PackRankKey){s->b[i].lower, s->b[i].upper, s->b[i].size, s->b[i].align, i};
  qsort(tmp, (size_t)n, sizeof *tmp, PackRankKey_cmp);
  for (int k = 1; k < n; k++)
    if (tmp[k].lower == tmp[k - 1].lower && tmp[k].len == tmp[k - 1].len && tmp[k].size == tmp[k - 1].size &&
        tmp[k].k3 == tmp[k - 1].k3)
      s->twin[tmp[k].i] = tmp[k - 1].i;
  free(tmp);
  /* total: the largest summed size over a buffer's sections (how crowded it is) */
  s->total = malloc(sizeof *s->total * (size_t)n);
  int64_t *sect = calloc((size_t)(s->ns + 1), sizeof *sect);
  if (!s->total || !sect) {
    free(sect);
    return false;
  }
  for (int i = 0; i < n; i++)
    for (int k = s->sl[i]; k < s->su[i]; k++) sect[k] += s->b[i].size;
  for (int i = 0; i < n; i++) {
    s->total[i] = 0;
    for (int k = s->sl[i]; k < s->su[i]; k++)
      if (sect[k] > s->total[i]) s->total[i] = sect[k];
  }
  free(sect);
  s->cnt = malloc(sizeof *s->cnt * (size_t)(2 * n));
  s->filler = calloc((size_t)(2 * n), sizeof *s->filler);
  s->head = malloc(sizeof *s->head * (size_t)(2 * n + 1));
  s->next = malloc(sizeof *s->next * (size_t)(n + 1));
  s->head_stamp = calloc((size_t)(2 * n + 1), sizeof *s->head_stamp);
  s->reach = calloc((size_t)(2 * n + 1), sizeof *s->reach);
  return s->cnt && s->filler && s->head && s->next && s->head_stamp && s->reach;
}

/* Decides whether the part fits under cap: 1 found (offsets in s->off), 0 proven
 * not, -1 stopped. */
static SearchResult Search_decide(PackSearch *s, int64_t cap, bool try_perfect) {
  s->cap = cap;
  for (int k = 0; k < s->ns; k++) s->floor[k] = 0, s->remain[k] = 0;
  for (int i = 0; i < s->n; i++) {
    s->off[i] = -1;
    for (int k = s->sl[i]; k < s->su[i]; k++) s->remain[k] += s->b[i].size;
  }
  s->saved_top = 0;
  s->ntrail = 0;
  bool perfect = s->ns > 0;
  for (int k = 0; k < s->ns && perfect; k++) perfect = s->remain[k] == cap;
  if (perfect && try_perfect) return Search_perfect(s, s->n, 0);
  return Search_dfs(s, 0, s->ns, s->n, 0, -1, 0);
}

/* The orders of one attempt. Strategy 0: at one offset, left to right in time
 * (canonical tie = lower, then index), longest then largest tried first.
 * Strategies 1-3: minimalloc's preorderings (width, area, total in three
 * priorities), the canonical tie being that preorder. Later rounds add a random
 * tie-break, so restarts do not repeat themselves. */
static bool Search_rankFor(PackSearch *s, int attempt) {
  PackRankKey *tmp = malloc(sizeof *tmp * (size_t)(s->n ? s->n : 1));
  if (!tmp) return false;
  int strategy = attempt % 4;
  for (int i = 0; i < s->n; i++) {
    int64_t w = s->su[i] - s->sl[i], a = w * s->b[i].size, t = s->total[i], r = 0;
    if (attempt >= 4) {
      s->rng ^= s->rng << 13, s->rng ^= s->rng >> 7, s->rng ^= s->rng << 17;
      r = (int64_t)(s->rng >> 2);
    }
    if (strategy == 0) tmp[i] = (PackRankKey){s->b[i].lower, w, s->b[i].size, r, i};
    else if (strategy == 1) tmp[i] = (PackRankKey){0, w, a, t * 4 + (r & 3), i};
    else if (strategy == 2) tmp[i] = (PackRankKey){0, t, a, w * 4 + (r & 3), i};
    else tmp[i] = (PackRankKey){0, t, w, a * 4 + (r & 3), i};
  }
  qsort(tmp, (size_t)s->n, sizeof *tmp, PackRankKey_cmp);
  for (int k = 0; k < s->n; k++) s->rank[tmp[k].i] = k;
  if (strategy == 0) {
    for (int i = 0; i < s->n; i++) tmp[i] = (PackRankKey){s->b[i].lower, 0, 0, 0, i};
    qsort(tmp, (size_t)s->n, sizeof *tmp, PackRankKey_cmp);
    for (int k = 0; k < s->n; k++) s->ord[tmp[k].i] = k;
  } else {
    memcpy(s->ord, s->rank, sizeof *s->ord * (size_t)s->n);
  }
  free(tmp);
  return true;
}

/* Whether every section's load is exactly cap (a perfect part). */
static bool Search_isPerfect(const PackSearch *s, int64_t cap) {
  int64_t *load = calloc((size_t)s->ns + 1, sizeof *load);
  if (!load) return false;
  for (int i = 0; i < s->n; i++)
    for (int k = s->sl[i]; k < s->su[i]; k++) load[k] += s->b[i].size;
  bool perfect = s->ns > 0;
  for (int k = 0; k < s->ns && perfect; k++) perfect = load[k] == cap;
  free(load);
  return perfect;
}

static bool Search_sweepTick(void *user) {
  PackSearch *s = user;
  s->nodes++;
  return Search_shouldStop(s);
}

/* One run of the time sweep (pack_sweep.c) on a perfect part, forwards or
 * backwards in time (each fails on instances the other solves), its
 * failed-state table kept across the rounds; budget <= 0: to the end. */
static SearchResult Search_sweep(PackSearch *s, PackSweep **sweep, bool reverse, int64_t cap, uint64_t seed,
                                 long budget) {
  if (!*sweep) {
    PackSweepOptions so;
    PackSweepOptions_init(&so);
    so.tick = Search_sweepTick;
    so.user = s;
    so.reverse = reverse;
    so.table_bytes = (size_t)64 << 20;
    int status;
    *sweep = PackSweep_new(s->b, s->n, cap, &so, &status);
    if (!*sweep) {
      if (status == PACK_SWEEP_NOMEM) s->nomem = s->stopped = true;
      return SEARCH_STOPPED;
    }
  }
  long nodes;
  int r = PackSweep_run(*sweep, seed, budget, s->off, &nodes);
  if (r == PACK_SWEEP_NOMEM) s->nomem = s->stopped = true;
  s->restart = r == PACK_SWEEP_BUDGET;
  return r == PACK_SWEEP_FOUND ? SEARCH_FOUND : r == PACK_SWEEP_INFEASIBLE ? SEARCH_EXHAUSTED : SEARCH_STOPPED;
}

/* A guillotine packing of a perfect part (pack_guillotine.c), tried first with
 * a node budget: found is found; none or the budget leaves the proof to the
 * complete searches. */
static SearchResult Search_guillotine(PackSearch *s, int64_t cap) {
  PackGuillotineOptions go = {Search_sweepTick, s, 100000L * s->n, 1000000};
  int r = PackGuillotine_find(s->b, s->n, cap, &go, s->off, NULL);
  if (r == PACK_GUIL_NOMEM) s->nomem = s->stopped = true;
  if (r == PACK_GUIL_FOUND) return SEARCH_FOUND;
  for (int i = 0; i < s->n; i++) s->off[i] = -1;
  return SEARCH_STOPPED;
}

/* minimalloc's round robin (pack_canon.c): each preorder in turn with a node
 * budget that doubles every round; an attempt ending inside its budget is a
 * complete search. SEARCH_STOPPED with s->restart when no PackCanon could be
 * made (too many overlapping pairs): the caller falls back. */
static SearchResult Search_canonRounds(PackSearch *s, int64_t cap) {
  static const char *const heuristics[] = {"WAT", "TAW", "TWA"};
  if (!s->canon) s->canon = PackCanon_new(s->b, s->n, (size_t)16 << 20);
  if (!s->canon) {
    s->restart = true;
    return SEARCH_STOPPED;
  }
  s->restart = false;
  for (long budget = 2L * (s->n > 0 ? s->n : 1);; budget = budget < LONG_MAX / 2 ? budget * 2 : budget) {
    for (int h = 0; h < 3; h++) {
      long nodes;
      int r = PackCanon_run(s->canon, cap, heuristics[h], budget, Search_sweepTick, s, s->off, &nodes);
      if (r == PACK_CANON_FOUND) return SEARCH_FOUND;
      if (r == PACK_CANON_INFEASIBLE) return SEARCH_EXHAUSTED;
      if (r == PACK_CANON_NOMEM) s->nomem = s->stopped = true;
      if (r != PACK_CANON_BUDGET) return SEARCH_STOPPED;
    }
  }
}

/* The decision with restarts: 1 found, 0 proven not, -1 stopped. */
static SearchResult Search_decideRestarts(PackSearch *s, int64_t cap) {
  s->rng = 0x2545F4914F6CDD1Dull;
  bool perfect = Search_isPerfect(s, cap);
  if (!perfect) {
    SearchResult r = Search_canonRounds(s, cap);
    if (!s->restart) return r;
    s->restart = false;
  }
  if (perfect && Search_guillotine(s, cap) == SEARCH_FOUND) return SEARCH_FOUND;
  if (s->stopped) return SEARCH_STOPPED;
  PackSweep *sweep[2] = {NULL, NULL};
  long old_nodes = 0, last_old = 0; /* nodes of the other searches this round, last round */
  SearchResult r = SEARCH_STOPPED;
  for (int attempt = 0;; attempt++) {
    /* eight attempts per round (a perfect part: first the time sweep both
     * ways, then four with Search_perfect and four canonical; otherwise eight
     * canonical), the node budget doubling each round; after 16 rounds one
     * unbounded attempt (the sweep for a perfect part) */
    s->attempt_limit = attempt < 128 ? (long)s->n * 4L << (attempt / 8) : 0;
    if (perfect && attempt % 8 == 0) {
      /* each sweep direction gets about as much time as the other searches
       * (whose nodes cost far more): twice the last round's nodes x
       * PACK_SWEEP_NODES (a sweep node is about that much cheaper: 3 M against
       * 160,000 nodes a second on the tight instances); the first round a fixed
       * multiple. Counted in nodes, not measured seconds: the budget, and so
       * the packing found, is the same on any machine (issue 32). */
      for (int dir = 0; dir < 2; dir++) {
        long budget = last_old > 0 ? 2 * last_old * PACK_SWEEP_NODES : s->attempt_limit * 256;
        if (attempt >= 128) budget = 0;
        else if (budget < s->attempt_limit * 16) budget = s->attempt_limit * 16;
        /* a new random try order each round (the failed-state table stays) */
        r = Search_sweep(s, &sweep[dir], dir == 1, cap, attempt ? s->rng + (uint64_t)dir : 0, budget);
        if (r != SEARCH_STOPPED || !s->restart || attempt >= 128) break;
      }
      if (r != SEARCH_STOPPED || !s->restart || attempt >= 128) break;
      last_old = old_nodes;
      old_nodes = 0;
    }
    s->attempt_nodes = 0;
    s->restart = false;
    if (!Search_rankFor(s, attempt)) {
      s->nomem = s->stopped = true;
      r = SEARCH_STOPPED;
      break;
    }
    long o0 = s->nodes;
    r = Search_decide(s, cap, attempt % 8 < 4);
    old_nodes += s->nodes - o0;
    if (r != SEARCH_STOPPED || !s->restart) break;
  }
  PackSweep_free(sweep[0]);
  PackSweep_free(sweep[1]);
  return r;
}

/* One decision under cap within budget nodes (0: none): found (s->off),
 * exhausted (a proof), or stopped; *budget_out when only the budget stopped
 * it (the caller may go on: the time limit, the node limit and cancel stay). */
static SearchResult Search_decideBudget(PackSearch *s, int64_t cap, long budget, bool *budget_out) {
  s->decide_limit = budget;
  s->decide_base = s->nodes;
  s->budget_hit = false;
  SearchResult r = Search_decideRestarts(s, cap);
  *budget_out = false;
  if (s->budget_hit && !s->hard && !s->nomem) {
    s->stopped = false;
    *budget_out = r == SEARCH_STOPPED;
  }
  s->decide_limit = 0;
  s->budget_hit = false;
  return r;
}

/* The part's offsets from s->off into offsets[ids[k]]; returns their height. */
static int64_t Search_keep(const PackSearch *s, const int *ids, int64_t *offsets) {
  int64_t h = 0;
  for (int k = 0; k < s->n; k++) {
    offsets[ids[k]] = s->off[k];
    if (s->off[k] + s->b[k].size > h) h = s->off[k] + s->b[k].size;
  }
  return h;
}

/* The step every height of the part is a multiple of: a packing pushed down
 * has each offset 0 or an aligned end of another buffer, so with the sizes and
 * alignments all multiples of g, so are its offsets and its height. */
static int64_t Search_grain(const PackSearch *s) {
  int64_t g = 0;
  for (int i = 0; i < s->n; i++) {
    int64_t v[2] = {s->b[i].size, s->b[i].align > 1 ? s->b[i].align : 0};
    for (int j = 0; j < 2; j++)
      for (int64_t a = v[j]; a;) {
        int64_t t = g % a;
        g = a, a = t;
      }
  }
  return g > 0 ? g : 1;
}

/* Minimising one part: plb is its load, target the height the other parts
 * already force (nothing below it is worth deciding), hi a packing's height
 * (its offsets in offsets). Rounds with a node budget per decision, four times
 * larger each round. Each round first decides from below (lo, lo + g, ... where
 * lo starts at the larger of plb rounded up and target rounded down to the
 * step g) until a decision runs out of budget, then bisects from above over
 * what is left, a budget run-out counting as "not found" for the rest of the
 * round (the next round tries again with more). *proof gets the part's proven
 * bound: plb rounded up, raised past every capacity proven infeasible. Node
 * budgets decide every step, so the result does not depend on the clock; the
 * time limit only stops it early (false). */
static bool Search_minimise(PackSearch *s, int64_t plb, int64_t target, int64_t *proof, int64_t *hi_io,
                            const int *ids, int64_t *offsets) {
  int64_t g = Search_grain(s), hi = *hi_io;
  int64_t low = plb % g ? plb + (g - plb % g) : plb, lo = target / g * g;
  if (lo < low) lo = low;
  bool known = true, out;
  for (long budget = 16L * (s->n > 0 ? s->n : 1); lo < hi && known;
       budget = budget < LONG_MAX / 4 ? budget * 4 : budget) {
    while (lo < hi) {
      SearchResult res = Search_decideBudget(s, lo, budget, &out);
      if (res == SEARCH_FOUND) hi = Search_keep(s, ids, offsets);
      else if (res == SEARCH_EXHAUSTED) lo += g, low = lo > low ? lo : low;
      else {
        known = out;
        break;
      }
      s->best_height = hi;
      if (low > s->lower_bound) s->lower_bound = low;
      Search_progress(s, "bisection");
    }
    for (int64_t ulo = lo; known && ulo < hi;) {
      int64_t mid = ulo + (hi - 1 - ulo) / g / 2 * g;
      SearchResult res = Search_decideBudget(s, mid, budget, &out);
      if (res == SEARCH_FOUND) hi = Search_keep(s, ids, offsets);
      else if (res == SEARCH_EXHAUSTED) lo = mid + g, ulo = ulo > lo ? ulo : lo, low = lo > low ? lo : low;
      else if (out) ulo = mid + g;
      else known = false;
      s->best_height = hi;
      if (low > s->lower_bound) s->lower_bound = low;
      Search_progress(s, "bisection");
    }
  }
  *proof = low < hi ? low : hi;
  *hi_io = hi;
  return known;
}

/* The parts: buffers sorted by lower, cut wherever no buffer spans. part_of[k]
 * lists buffer indices part by part; starts[p]..starts[p+1]. */
static int Pack_parts(const PackBuffer *b, int n, int *order, int *starts) {
  /* by lower, ties by index (an insertion sort was O(n^2) on unsorted input) */
  PackRankKey *key = malloc(sizeof *key * (size_t)(n ? n : 1));
  if (!key) return -1;
  for (int i = 0; i < n; i++) key[i] = (PackRankKey){b[i].lower, 0, 0, 0, i};
  qsort(key, (size_t)n, sizeof *key, PackRankKey_cmp);
  for (int k = 0; k < n; k++) order[k] = key[k].i;
  free(key);
  int np = 0;
  int64_t reach = INT64_MIN;
  for (int k = 0; k < n; k++) {
    int i = order[k];
    if (b[i].lower >= reach) starts[np++] = k;
    if (b[i].upper > reach) reach = b[i].upper;
  }
  starts[np] = n;
  return np;
}

Status PackExact_solve(const PackBuffer *b, int n, int64_t capacity, const PackOptions *o, double start,
                       PackResult *r) {
  int *order = malloc(sizeof *order * (size_t)(n + 1));
  int *starts = malloc(sizeof *starts * (size_t)(n + 2));
  int64_t *heur = malloc(sizeof *heur * (size_t)(n + 1));
  r->offsets = malloc(sizeof *r->offsets * (size_t)(n + 1));
  PackSearch s;
  memset(&s, 0, sizeof s);
  Status st = SP_OK;
  if (!order || !starts || !heur || !r->offsets) {
    st = SP_ERR_NOMEM;
    goto done;
  }
  int np = Pack_parts(b, n, order, starts);
  if (np < 0) {
    st = SP_ERR_NOMEM;
    goto done;
  }
  int64_t height = 0, proven = 0; /* proven: a lower bound on the whole height */
  SpError e;
  s.o = o;
  s.start = start;
  s.last_progress = start;
  s.best_height = -1;
  s.lower_bound = r->lower_bound;
  proven = r->lower_bound;
  if (capacity > 0 && r->lower_bound > capacity) {
    int64_t when;
    Pack_maxLoadAt(b, n, &when);
    r->status = PACK_INFEASIBLE;
    r->infeasible_at = when;
    goto done;
  }
  if (o->progress) {
    PackProgress p = {Clock_now() - start, 0, -1, r->lower_bound, "heuristics"};
    o->progress(&p, o->user);
  }
  for (int p = 0; p < np; p++) {
    const int *ids = order + starts[p];
    int m = starts[p + 1] - starts[p];
    PackBuffer *pb = malloc(sizeof *pb * (size_t)m);
    int64_t *po = malloc(sizeof *po * (size_t)m);
    if (!pb || !po) {
      free(pb);
      free(po);
      st = SP_ERR_NOMEM;
      goto done;
    }
    for (int k = 0; k < m; k++) pb[k] = b[ids[k]];
    int64_t ph, plb = Pack_maxLoad(pb, m);
    st = Pack_bestHeuristic(pb, m, po, &ph, o, start, &e);
    free(pb);
    for (int k = 0; k < m && st == SP_OK; k++) heur[ids[k]] = po[k];
    free(po);
    if (st != SP_OK) goto done;
    /* What this part must reach: the capacity, or (minimising) the best bound the
     * other parts already force. */
    int64_t target = capacity > 0 ? capacity : proven;
    if (ph <= target) {
      for (int k = 0; k < m; k++) r->offsets[ids[k]] = heur[ids[k]];
      if (ph > height) height = ph;
      continue;
    }
    Search_free(&s);
    PackSearch keep = s;
    memset(&s, 0, sizeof s);
    s.o = keep.o, s.start = keep.start, s.last_progress = keep.last_progress;
    s.nodes_before = keep.nodes_before, s.best_height = keep.best_height, s.lower_bound = keep.lower_bound;
    if (!Search_init(&s, b, ids, m)) {
      st = SP_ERR_NOMEM;
      goto done;
    }
    int64_t lo = plb > target ? plb : target, hi = ph; /* hi is feasible (the heuristic) */
    for (int k = 0; k < m; k++) r->offsets[ids[k]] = heur[ids[k]];
    bool known = true, first = true;
    if (capacity <= 0) {
      int64_t proof;
      known = Search_minimise(&s, plb, target, &proof, &hi, ids, r->offsets);
      s.nodes_before += s.nodes;
      s.nodes = 0;
      if (proof > proven) proven = proof;
      lo = proven;
    }
    while (capacity > 0 && lo < hi) {
      /* a capacity: one decision; minimising: the bound first (often tight), then bisection */
      int64_t mid = capacity > 0 || first ? lo : lo + (hi - lo) / 2;
      first = false;
      SearchResult res = Search_decideRestarts(&s, mid);
      s.nodes_before += s.nodes;
      s.nodes = 0;
      if (res == SEARCH_FOUND) {
        int64_t h = 0;
        for (int k = 0; k < m; k++) {
          r->offsets[ids[k]] = s.off[k];
          if (s.off[k] + s.b[k].size > h) h = s.off[k] + s.b[k].size;
        }
        hi = h;
        if (capacity > 0) break;
      } else if (res == SEARCH_EXHAUSTED) {
        lo = mid + 1;
        if (capacity <= 0 && lo > proven) proven = lo > hi ? hi : lo;
        if (capacity > 0) break;
      } else {
        known = false;
        break;
      }
      if (capacity <= 0) {
        s.lower_bound = proven;
        Search_progress(&s, "bisection");
      }
    }
    if (s.nomem) {
      st = SP_ERR_NOMEM;
      goto done;
    }
    if (capacity > 0 && hi > capacity) {
      /* proven (lo > capacity) or unknown: either way no offsets */
      free(r->offsets);
      r->offsets = NULL;
      r->status = known ? PACK_INFEASIBLE : (s.cancelled ? PACK_CANCELLED : PACK_UNKNOWN);
      goto done;
    }
    if (capacity <= 0 && lo > proven) proven = lo;
    if (hi > height) height = hi;
    if (s.stopped) {
      /* out of time: the rest of the parts keep their heuristic offsets */
      for (int q = p + 1; q < np; q++) {
        for (int k = starts[q]; k < starts[q + 1]; k++) r->offsets[order[k]] = -1;
      }
      for (int q = p + 1; q < np && st == SP_OK; q++) {
        int mm = starts[q + 1] - starts[q];
        PackBuffer *qb = malloc(sizeof *qb * (size_t)mm);
        int64_t *qo = malloc(sizeof *qo * (size_t)mm);
        int64_t qh;
        if (!qb || !qo) st = SP_ERR_NOMEM;
        for (int k = 0; k < mm && st == SP_OK; k++) qb[k] = b[order[starts[q] + k]];
        if (st == SP_OK) st = Pack_bestHeuristic(qb, mm, qo, &qh, o, start, &e);
        for (int k = 0; k < mm && st == SP_OK; k++) r->offsets[order[starts[q] + k]] = qo[k];
        if (st == SP_OK && qh > height) height = qh;
        free(qb);
        free(qo);
      }
      if (st != SP_OK) goto done;
      if (capacity > 0 && height > capacity) {
        free(r->offsets);
        r->offsets = NULL;
        r->status = s.cancelled ? PACK_CANCELLED : PACK_UNKNOWN;
        goto done;
      }
      break;
    }
  }
  r->height = height;
  if (capacity <= 0) {
    r->lower_bound = proven;
    /* offsets exist even after a stop: FOUND, with the bound proven so far */
    r->status = height <= proven ? PACK_OPTIMAL : PACK_FOUND;
  } else {
    r->status = PACK_FOUND;
  }
done:
  r->nodes = s.nodes_before + s.nodes;
  Search_free(&s);
  free(order);
  free(starts);
  free(heur);
  if (st != SP_OK || (r->status != PACK_FOUND && r->status != PACK_OPTIMAL)) {
    free(r->offsets);
    r->offsets = NULL;
  }
  return st;
}

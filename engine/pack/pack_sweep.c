/* pack_sweep: the exact decision for a perfect part (the load equals the
 * capacity at every time), sweeping over time instead of address.
 *
 * With no slack, every address is taken at every time. At an event time the
 * buffers ending there free address ranges; adjacent freed ranges form holes,
 * and the buffers starting then must fill the holes exactly. So the search walks
 * the event times in order and, at each, fills the holes from the bottom up
 * with the starters (the most constrained hole position first: the fewest
 * starters that fit there; none is a dead end).
 *
 * Which buffers are live at t is fixed by the lifetimes, so the future depends
 * only on t and the address-ordered (upper, size) profile of the live buffers;
 * adjacent buffers with the same upper are freed together and are merged into
 * one block. A failed (t, profile) is stored whole (not only its hash, so a
 * proof stays a proof) in a memory-capped table: the search becomes a dynamic
 * program over profiles.
 *
 * Symmetry (each keeps one packing of every merged profile, so it loses no
 * solution): inside a hole, consecutive unaligned starters with the same upper
 * go in nondecreasing class order (a class = identical buffers: same size,
 * lifetime and alignment), as their order never matters later; of a class,
 * only its lowest unused member is tried at a place; and with no alignment in
 * the part, a profile and its mirror image are the same state. */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "pack_internal.h"

typedef struct {
  int64_t size;
  int upper; /* time index */
} SweepBlock;

typedef struct {
  int64_t off, size, pos; /* the hole, and how much of it is filled */
  int last;               /* the last starter put in it, -1 none */
} SweepHole;

/* Failed states: open addressing over 64-bit hashes; each slot points at its
 * whole key in the arena. */
typedef struct {
  uint64_t *hash;
  size_t *at; /* arena index + 1, 0 empty */
  size_t mask, used;
  int64_t *arena;
  size_t arena_len, arena_cap;
  size_t bytes, limit;
  bool full;
} SweepTable;

struct PackSweep {
  PackSweepOptions opt;
  const PackBuffer *b; /* owned (reversed in time when opt.reverse) */
  int n, nt;
  int64_t cap;
  int64_t *times;
  int *lo, *up;      /* time indices of lower and upper */
  int *sfirst, *slist; /* starters of time e: slist[sfirst[e] .. sfirst[e + 1]) */
  int *cls;          /* class: the lowest index of the identical buffers */
  int *prev_twin;    /* the previous identical buffer, -1 */
  bool *used;
  int64_t *off;
  bool mirror;       /* no alignment: mirror images are the same state */
  bool pack_words;   /* size * nt + upper fits one int64 */
  SweepBlock *prof;  /* profiles of every depth, stacked */
  size_t prof_cap;
  SweepHole *holes;  /* holes of every depth, stacked (at most n + 1: each
                      * buffer ends once on a path) */
  size_t htop;
  int64_t *key, *rkey; /* scratch keys */
  SweepBlock *scratch; /* a partial profile */
  int64_t *sums;     /* per time: the sorted subset sums of its starters */
  size_t *sum_first;
  int *sum_count;    /* -1: not listed (too many starters) */
  SweepTable table;  /* failed states */
  SweepTable passed; /* regions that passed their check */
  int horizon;       /* the search stops here: the last time, or a region's */
  int64_t base;      /* the address of the profile's first block */
  long region_nodes;
  bool in_region;    /* a region or window check is running */
  bool open_lo, open_hi; /* a window check: what lies below / above is unknown */
  bool region_out;   /* it ran out of its budget */
  const PackSweepOptions *o;
  long nodes, budget;
  bool stopped, nomem, budget_out;
};

void PackSweepOptions_init(PackSweepOptions *o) {
  memset(o, 0, sizeof *o);
  o->table = true;
  o->symmetry = true;
  o->lookahead = true;
  o->region_nodes = 2000;
  o->table_bytes = (size_t)128 << 20;
}

/* ---- the failed-state table --------------------------------------------- */

static uint64_t Sweep_hash(const int64_t *w, size_t len) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
  for (size_t k = 0; k < len; k++) {
    h ^= (uint64_t)w[k];
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

static bool SweepTable_find(const SweepTable *t, const int64_t *w, size_t len, uint64_t h) {
  if (!t->hash) return false;
  for (size_t s = h & t->mask;; s = (s + 1) & t->mask) {
    if (!t->at[s]) return false;
    if (t->hash[s] != h) continue;
    const int64_t *k = t->arena + t->at[s] - 1;
    if ((size_t)k[0] == len && memcmp(k + 1, w, sizeof *w * len) == 0) return true;
  }
}

static bool SweepTable_grow(SweepTable *t) {
  size_t slots = t->hash ? (t->mask + 1) * 2 : 4096;
  size_t add = slots * (sizeof *t->hash + sizeof *t->at);
  if (t->bytes + add > t->limit) return false;
  uint64_t *hash = calloc(slots, sizeof *hash);
  size_t *at = calloc(slots, sizeof *at);
  if (!hash || !at) {
    free(hash);
    free(at);
    return false;
  }
  for (size_t s = 0; t->hash && s <= t->mask; s++) {
    if (!t->at[s]) continue;
    size_t q = t->hash[s] & (slots - 1);
    while (at[q]) q = (q + 1) & (slots - 1);
    hash[q] = t->hash[s];
    at[q] = t->at[s];
  }
  if (t->hash) t->bytes -= (t->mask + 1) * (sizeof *t->hash + sizeof *t->at);
  free(t->hash);
  free(t->at);
  t->hash = hash;
  t->at = at;
  t->mask = slots - 1;
  t->bytes += add;
  return true;
}

/* Stores the key; when the memory cap is reached the table stops growing
 * (lookups still work). */
static void SweepTable_insert(SweepTable *t, const int64_t *w, size_t len, uint64_t h) {
  if (t->full) return;
  if ((!t->hash || 2 * (t->used + 1) > t->mask + 1) && !SweepTable_grow(t)) {
    t->full = true;
    return;
  }
  if (t->arena_len + len + 1 > t->arena_cap) {
    size_t c = t->arena_cap ? t->arena_cap * 2 : 65536;
    while (c < t->arena_len + len + 1) c *= 2;
    size_t more = (c - t->arena_cap) * sizeof *t->arena;
    int64_t *a = t->bytes + more <= t->limit ? realloc(t->arena, sizeof *a * c) : NULL;
    if (!a) {
      t->full = true;
      return;
    }
    t->arena = a;
    t->arena_cap = c;
    t->bytes += more;
  }
  size_t s = h & t->mask;
  while (t->at[s]) s = (s + 1) & t->mask;
  t->hash[s] = h;
  t->at[s] = t->arena_len + 1;
  t->arena[t->arena_len] = (int64_t)len;
  memcpy(t->arena + t->arena_len + 1, w, sizeof *w * len);
  t->arena_len += len + 1;
  t->used++;
}

static void SweepTable_free(SweepTable *t) {
  free(t->hash);
  free(t->at);
  free(t->arena);
}

/* ---- the search ------------------------------------------------------------ */

/* The state's key: a header (the time index, the horizon, the region's base
 * when alignment makes it matter), then the blocks (one word each when they
 * fit); with mirror symmetry the smaller of the profile and its reverse. */
static size_t Sweep_key(PackSweep *w, int e, const SweepBlock *p, int len, const int64_t **out) {
  int64_t head[4] = {e, w->horizon, w->mirror ? 0 : w->base, 0};
  int64_t *keys[2] = {w->key, w->rkey};
  size_t m = 0;
  for (int dir = 0; dir < (w->mirror && w->o->symmetry ? 2 : 1); dir++) {
    int64_t *k = keys[dir];
    m = 0;
    head[3] = dir ? w->open_hi + 2 * w->open_lo : w->open_lo + 2 * w->open_hi; /* a mirror swaps the ends */
    for (int q = 0; q < 4; q++) k[m++] = head[q];
    for (int q = 0; q < len; q++) {
      const SweepBlock *pb = &p[dir ? len - 1 - q : q];
      if (w->pack_words) {
        k[m++] = pb->size * w->nt + pb->upper;
      } else {
        k[m++] = pb->size;
        k[m++] = pb->upper;
      }
    }
  }
  *out = w->key;
  if (w->mirror && w->o->symmetry)
    for (size_t k = 0; k < m; k++)
      if (w->rkey[k] != w->key[k]) {
        if (w->rkey[k] < w->key[k]) *out = w->rkey;
        break;
      }
  return m;
}

/* The whole run stops (not only a region check). */
static bool Sweep_halted(const PackSweep *w) { return w->stopped || w->budget_out; }

static bool Sweep_tick(PackSweep *w) {
  w->nodes++;
  if (w->o->tick && w->o->tick(w->o->user)) w->stopped = true;
  if (w->budget > 0 && w->nodes > w->budget) w->budget_out = true;
  if (w->in_region && ++w->region_nodes > w->o->region_nodes) w->region_out = true;
  return w->stopped || w->budget_out || w->region_out;
}

/* Whether starter j may go next in hole h. */
static bool Sweep_fits(const PackSweep *w, const SweepHole *h, int j) {
  const PackBuffer *bj = &w->b[j];
  if (w->used[j] || bj->size > h->size - h->pos) return false;
  if (bj->align > 1 && (h->off + h->pos) % bj->align) return false;
  if (!w->o->symmetry) return true;
  if (w->prev_twin[j] >= 0 && !w->used[w->prev_twin[j]]) return false;
  int l = h->last;
  if (l >= 0 && w->up[l] == w->up[j] && w->b[l].align <= 1 && bj->align <= 1 && w->cls[j] < w->cls[l]) return false;
  return true;
}

static SearchResult Sweep_time(PackSweep *w, int e, size_t pbase, int plen);
static SearchResult Sweep_fill(PackSweep *w, int e, size_t pbase, int plen, size_t hbase, int nh);

/* The search at event time e (something ends), the profile settled. */
static SearchResult Sweep_at(PackSweep *w, int e, size_t pbase, int plen) {
  const int64_t *key = NULL;
  size_t klen = 0;
  uint64_t hash = 0;
  if (w->o->table) {
    klen = Sweep_key(w, e, w->prof + pbase, plen, &key);
    hash = Sweep_hash(key, klen);
    if (SweepTable_find(&w->table, key, klen, hash)) return SEARCH_EXHAUSTED;
  }
  /* the holes: the blocks ending at e (merged, so each hole is one block) */
  size_t hbase = w->htop;
  int nh = 0;
  int64_t at = w->base;
  for (int k = 0; k < plen; k++) {
    const SweepBlock *pb = &w->prof[pbase + (size_t)k];
    if (pb->upper == e) w->holes[hbase + (size_t)nh++] = (SweepHole){at, pb->size, 0, -1};
    at += pb->size;
  }
  w->htop = hbase + (size_t)nh;
  SearchResult r = Sweep_fill(w, e, pbase, plen, hbase, nh);
  w->htop = hbase;
  if (r == SEARCH_EXHAUSTED && w->o->table) {
    klen = Sweep_key(w, e, w->prof + pbase, plen, &key); /* the scratch was reused below */
    SweepTable_insert(&w->table, key, klen, hash);
  }
  return r;
}

/* Look-ahead: block k ends at u = its upper; the hole at u contains it and
 * lies between the nearest blocks on either side that outlive u (they are
 * still there then), so some subset of u's starters must sum to a size
 * between the block's and that span's (equal when both neighbours outlive
 * it: a wrong neighbour is seen at once, not at u). Blocks with upper
 * SWEEP_UNKNOWN (the unfilled rest of a hole) are not checked and may be
 * part of any span. */
enum { SWEEP_UNKNOWN = -1 };
static bool Sweep_holesReachable(const PackSweep *w, const SweepBlock *p, int len) {
  for (int k = 0; k < len; k++) {
    int u = p[k].upper;
    if (u == SWEEP_UNKNOWN || u >= w->horizon || w->sum_count[u] < 0) continue; /* nothing known to check */
    int64_t span = p[k].size;
    int q = k - 1;
    for (; q >= 0 && p[q].upper <= u; q--) span += p[q].size;
    if (q < 0 && w->open_lo) continue; /* the hole may reach outside a window */
    for (q = k + 1; q < len && p[q].upper <= u; q++) span += p[q].size;
    if (q == len && w->open_hi) continue;
    /* the smallest subset sum >= the block's size */
    const int64_t *a = w->sums + w->sum_first[u];
    int lo = 0, hi = w->sum_count[u];
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (a[mid] < p[k].size) lo = mid + 1;
      else hi = mid;
    }
    if (lo == w->sum_count[u] || a[lo] > span) return false;
  }
  return true;
}

/* Appends block nb to out[0..*len), merging equal uppers (never unknowns). */
static void Sweep_push(SweepBlock *out, int *len, SweepBlock nb) {
  if (*len > 0 && nb.upper != SWEEP_UNKNOWN && out[*len - 1].upper == nb.upper) out[*len - 1].size += nb.size;
  else out[(*len)++] = nb;
}

/* The starters of time e in use, by offset, into order[]; their count. */
static int Sweep_usedByOffset(const PackSweep *w, int e, int *order) {
  int ns = w->sfirst[e + 1] - w->sfirst[e], m = 0;
  const int *st = w->slist + w->sfirst[e];
  for (int k = 0; k < ns; k++) {
    if (!w->used[st[k]]) continue;
    int v = st[k], q = m++;
    while (q > 0 && w->off[order[q - 1]] > w->off[v]) order[q] = order[q - 1], q--;
    order[q] = v;
  }
  return m;
}

/* The profile after time e into out (merged): the blocks that go on, the
 * starters put in the holes, and (mid-time) the unfilled rest of each hole
 * as an unknown block. */
static int Sweep_merge(PackSweep *w, int e, size_t pbase, int plen, size_t hbase, SweepBlock *out) {
  int ns = w->sfirst[e + 1] - w->sfirst[e];
  int order[ns > 0 ? ns : 1];
  int m = Sweep_usedByOffset(w, e, order);
  int len = 0, si = 0, h = 0;
  for (int k = 0; k < plen; k++) {
    SweepBlock ob = w->prof[pbase + (size_t)k];
    if (ob.upper != e) {
      Sweep_push(out, &len, ob);
      continue;
    }
    const SweepHole *hole = &w->holes[hbase + (size_t)h++];
    for (; si < m && w->off[order[si]] < hole->off + hole->size; si++)
      Sweep_push(out, &len, (SweepBlock){w->b[order[si]].size, w->up[order[si]]});
    if (hole->pos < hole->size) Sweep_push(out, &len, (SweepBlock){hole->size - hole->pos, SWEEP_UNKNOWN});
  }
  return len;
}

static bool Sweep_regionsReachable(PackSweep *w, size_t pbase, int len);
static bool Sweep_windowReachable(PackSweep *w, size_t pbase, int len, int64_t at);

/* Room on the profile stack above nbase for the next profile and a region
 * check's copy of part of it. */
static bool Sweep_reserve(PackSweep *w, int e, size_t nbase, int plen) {
  int ns = w->sfirst[e + 1] - w->sfirst[e];
  size_t need = nbase + (size_t)(2 * (plen + ns) + 2) * 2;
  if (Grow_array((void **)&w->prof, &w->prof_cap, need, sizeof *w->prof)) return true;
  w->nomem = w->stopped = true;
  return false;
}

/* The next profile on top of the stack, checked, then the search from e + 1. */
static SearchResult Sweep_next(PackSweep *w, int e, size_t pbase, int plen, size_t hbase) {
  size_t nbase = pbase + (size_t)plen;
  if (!Sweep_reserve(w, e, nbase, plen)) return SEARCH_STOPPED;
  int len = Sweep_merge(w, e, pbase, plen, hbase, w->prof + nbase);
  if (w->o->lookahead) {
    if (!Sweep_holesReachable(w, w->prof + nbase, len)) return SEARCH_EXHAUSTED;
    if (!w->in_region && w->o->region_nodes > 0 && !Sweep_regionsReachable(w, nbase, len))
      return Sweep_halted(w) ? SEARCH_STOPPED : SEARCH_EXHAUSTED;
  }
  return Sweep_time(w, e + 1, nbase, len);
}

/* The look-ahead after starter j went into a hole that is not full yet:
 * SEARCH_FOUND to go on, SEARCH_EXHAUSTED for a dead end, SEARCH_STOPPED. */
static SearchResult Sweep_partialCheck(PackSweep *w, int e, size_t pbase, int plen, size_t hbase, int j) {
  const SweepHole *h = NULL;
  for (size_t k = hbase; k < w->htop && !h; k++)
    if (w->off[j] >= w->holes[k].off && w->off[j] < w->holes[k].off + w->holes[k].size) h = &w->holes[k];
  if (!w->o->lookahead || !h || h->pos == h->size) return SEARCH_FOUND;
  size_t nbase = pbase + (size_t)plen;
  if (!Sweep_reserve(w, e, nbase, plen)) return SEARCH_STOPPED;
  int len = Sweep_merge(w, e, pbase, plen, hbase, w->prof + nbase);
  if (!Sweep_holesReachable(w, w->prof + nbase, len)) return SEARCH_EXHAUSTED;
  if (w->in_region || w->o->region_nodes <= 0) return SEARCH_FOUND;
  bool ok = Sweep_regionsReachable(w, nbase, len) && Sweep_windowReachable(w, nbase, len, w->off[j]);
  if (Sweep_halted(w)) return SEARCH_STOPPED;
  return ok ? SEARCH_FOUND : SEARCH_EXHAUSTED;
}

/* Fills the holes [hbase, hbase + nh) of time e with its starters: in the
 * main search until all are used (then every hole is full), in a region
 * check (relaxed) until every hole is full. */
static SearchResult Sweep_fill(PackSweep *w, int e, size_t pbase, int plen, size_t hbase, int nh) {
  int ns = w->sfirst[e + 1] - w->sfirst[e], *st = w->slist + w->sfirst[e];
  SweepHole *holes = w->holes + hbase;
  int best = -1, best_count = 0;
  for (int h = 0; h < nh; h++) {
    if (holes[h].pos == holes[h].size) continue;
    int count = 0;
    for (int k = 0; k < ns; k++) count += Sweep_fits(w, &holes[h], st[k]);
    if (count == 0) return SEARCH_EXHAUSTED; /* a place nobody can fill */
    if (best < 0 || count < best_count) best = h, best_count = count;
  }
  if (best < 0) return Sweep_next(w, e, pbase, plen, hbase);
  SweepHole *h = &holes[best];
  for (int k = 0; k < ns; k++) {
    int j = st[k];
    if (!Sweep_fits(w, h, j)) continue;
    if (Sweep_tick(w)) return SEARCH_STOPPED;
    int last = h->last;
    w->off[j] = h->off + h->pos;
    w->used[j] = true;
    h->pos += w->b[j].size;
    h->last = j;
    SearchResult r = Sweep_partialCheck(w, e, pbase, plen, hbase, j);
    if (r == SEARCH_FOUND) r = Sweep_fill(w, e, pbase, plen, hbase, nh);
    /* undone on every way out: a stopped run leaves the state clean for the next */
    h->pos -= w->b[j].size;
    h->last = last;
    w->used[j] = false;
    if (r != SEARCH_EXHAUSTED) return r;
  }
  return SEARCH_EXHAUSTED;
}

/* Moves e to the next time something ends (in the main search nothing
 * starts before). In a window check, a block at an open end that ends leaves
 * the window (its hole reaches outside, unknown), moving base; the time when
 * a hole inside the window opens, or the horizon when none will. */
static int Sweep_settle(PackSweep *w, int e, size_t *pbase, int *plen) {
  for (;;) {
    int next = w->nt;
    for (int k = 0; k < *plen; k++)
      if (w->prof[*pbase + (size_t)k].upper < next) next = w->prof[*pbase + (size_t)k].upper;
    if (next > e) e = next;
    if (e >= w->horizon) return w->horizon;
    bool moved = false;
    while (*plen > 0 && w->open_lo && w->prof[*pbase].upper == e) {
      w->base += w->prof[*pbase].size;
      ++*pbase, --*plen, moved = true;
    }
    while (*plen > 0 && w->open_hi && w->prof[*pbase + (size_t)*plen - 1].upper == e) --*plen, moved = true;
    if (*plen == 0) return w->horizon;
    if (!moved) return e;
    bool ends = false;
    for (int k = 0; k < *plen && !ends; k++) ends = w->prof[*pbase + (size_t)k].upper == e;
    if (ends) return e;
  }
}

/* The search from event time e on (up to the horizon), the live buffers'
 * merged profile being prof[pbase .. pbase + plen). */
static SearchResult Sweep_time(PackSweep *w, int e, size_t pbase, int plen) {
  int64_t saved_base = w->base;
  e = Sweep_settle(w, e, &pbase, &plen);
  SearchResult r = SEARCH_FOUND;
  if (e < w->horizon) r = Sweep_at(w, e, pbase, plen);
  w->base = saved_base;
  return r;
}
/* Region look-ahead (relaxed): blocks between two blocks that outlive them
 * (or the address ends) evolve on their own until the first of the two ends:
 * nothing else can enter. So a short search of that region alone, each hole
 * filled exactly by some of the starters of its time (not necessarily all:
 * the others may go elsewhere), must reach the horizon; if it is exhausted,
 * the whole state fails. Verdicts are kept (failed regions in the failed-state
 * table under their horizon, passed ones in `passed`); a check that runs out
 * of its node budget passes. */
static bool Sweep_regionReachable(PackSweep *w, size_t at, int inner, size_t top, int64_t base, int horizon,
                                  bool open_lo, bool open_hi) {
  int saved_horizon = w->horizon;
  int64_t saved_base = w->base;
  w->horizon = horizon;
  w->base = base;
  w->open_lo = open_lo, w->open_hi = open_hi;
  /* copy the region on top of the profile stack (the caller left room) */
  memcpy(w->prof + top, w->prof + at, sizeof *w->prof * (size_t)inner);
  size_t rbase = top;
  int e = Sweep_settle(w, 0, &rbase, &inner);
  bool ok = true;
  if (e < w->horizon) {
    const int64_t *key;
    size_t klen = Sweep_key(w, e, w->prof + rbase, inner, &key);
    uint64_t hash = Sweep_hash(key, klen);
    if (SweepTable_find(&w->table, key, klen, hash)) ok = false;
    else if (!SweepTable_find(&w->passed, key, klen, hash)) {
      w->region_nodes = 0;
      w->region_out = false;
      w->in_region = true;
      SearchResult r = Sweep_at(w, e, rbase, inner);
      bool out = w->region_out && !Sweep_halted(w);
      w->in_region = w->region_out = false;
      ok = r != SEARCH_EXHAUSTED;
      if (r == SEARCH_FOUND || out) {
        klen = Sweep_key(w, e, w->prof + rbase, inner, &key);
        SweepTable_insert(&w->passed, key, klen, hash);
      }
    }
  }
  w->open_lo = w->open_hi = false;
  w->horizon = saved_horizon;
  w->base = saved_base;
  return ok;
}

/* Window look-ahead in the middle of a time: the run of known blocks around
 * address `at` of the partial profile p (unknown blocks: holes not filled
 * yet) evolves alone as long as no hole reaches an unknown side; checked as a
 * region whose open ends shed the blocks that end there. */
static bool Sweep_windowReachable(PackSweep *w, size_t pbase, int len, int64_t at) {
  const SweepBlock *p = w->prof + pbase;
  int64_t pos = 0, base = 0;
  int lo = 0, k = 0;
  for (; k < len && pos + p[k].size <= at; k++) {
    if (p[k].upper == SWEEP_UNKNOWN) lo = k + 1, base = pos + p[k].size;
    pos += p[k].size;
  }
  int hi = k;
  while (hi < len && p[hi].upper != SWEEP_UNKNOWN) hi++;
  bool open_lo = lo > 0, open_hi = hi < len;
  if (hi - lo < 2 || (!open_lo && !open_hi)) return true;
  return Sweep_regionReachable(w, pbase + (size_t)lo, hi - lo, pbase + (size_t)len, base, w->nt - 1, open_lo, open_hi);
}

/* Every region of two or more blocks between two walls (blocks outliving all
 * between them, or the address ends), but the whole profile. */
static bool Sweep_regionsReachable(PackSweep *w, size_t pbase, int len) {
  int64_t base = 0;
  for (int k = -1; k < len; k++) {
    const SweepBlock *p = w->prof + pbase;
    int uk = k < 0 ? w->nt : p[k].upper, m = -1;
    int64_t inner_base = base + (k < 0 ? 0 : p[k].size);
    for (int q = k + 1; q <= len && uk != SWEEP_UNKNOWN; q++) {
      if (q < len && p[q].upper == SWEEP_UNKNOWN) break; /* not known yet: no region through it */
      int uq = q == len ? w->nt : p[q].upper;
      if (q - k - 1 >= 2 && m < uq && !(k < 0 && q == len)) {
        int horizon = uk < uq ? uk : uq;
        bool ok = Sweep_regionReachable(w, pbase + (size_t)(k + 1), q - k - 1, pbase + (size_t)len, inner_base, horizon,
                                        false, false);
        p = w->prof + pbase; /* the stack may have moved */
        if (!ok || Sweep_halted(w)) return false;
      }
      if (q == len) break;
      if (p[q].upper > m) m = p[q].upper;
      if (m >= uk) break;
    }
    if (k >= 0) base += p[k].size;
  }
  return true;
}

static int Int64_cmp(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

static int Sweep_timeIndex(const PackSweep *w, int64_t t) {
  return (int)((const int64_t *)bsearch(&t, w->times, (size_t)w->nt, sizeof t, Int64_cmp) - w->times);
}

static void Sweep_free(PackSweep *w) {
  free(w->times);
  free(w->lo);
  free(w->up);
  free(w->sfirst);
  free(w->slist);
  free(w->cls);
  free(w->prev_twin);
  free(w->used);
  free(w->prof);
  free(w->holes);
  free(w->key);
  free(w->rkey);
  free(w->scratch);
  free(w->sums);
  free(w->sum_first);
  free(w->sum_count);
  SweepTable_free(&w->table);
  SweepTable_free(&w->passed);
}

static bool Sweep_identical(const PackBuffer *a, const PackBuffer *b) {
  return a->lower == b->lower && a->upper == b->upper && a->size == b->size && a->align == b->align;
}

/* Event times, starters per time (larger first: they have fewer places),
 * classes; false when out of memory. */
static bool Sweep_init(PackSweep *w, const PackBuffer *b, int n) {
  size_t un = (size_t)n;
  w->times = malloc(sizeof *w->times * 2 * un);
  w->lo = malloc(sizeof *w->lo * un);
  w->up = malloc(sizeof *w->up * un);
  w->sfirst = calloc(2 * un + 2, sizeof *w->sfirst);
  w->slist = malloc(sizeof *w->slist * un);
  w->cls = malloc(sizeof *w->cls * un);
  w->prev_twin = malloc(sizeof *w->prev_twin * un);
  w->used = calloc(un, sizeof *w->used);
  w->prof_cap = 4 * un + 16;
  w->prof = malloc(sizeof *w->prof * w->prof_cap);
  w->holes = malloc(sizeof *w->holes * (2 * un + 4)); /* the main path and a region check's */
  w->key = malloc(sizeof *w->key * (2 * un + 10));
  w->rkey = malloc(sizeof *w->rkey * (2 * un + 10));
  w->scratch = malloc(sizeof *w->scratch * (3 * un + 4));
  if (!w->times || !w->lo || !w->up || !w->sfirst || !w->slist || !w->cls || !w->prev_twin || !w->used || !w->prof ||
      !w->holes || !w->key || !w->rkey || !w->scratch)
    return false;
  for (int i = 0; i < n; i++) w->times[2 * i] = b[i].lower, w->times[2 * i + 1] = b[i].upper;
  qsort(w->times, 2 * un, sizeof *w->times, Int64_cmp);
  int u = 0;
  for (int i = 0; i < 2 * n; i++)
    if (u == 0 || w->times[i] != w->times[u - 1]) w->times[u++] = w->times[i];
  w->nt = u;
  w->mirror = true;
  for (int i = 0; i < n; i++) {
    w->lo[i] = Sweep_timeIndex(w, b[i].lower);
    w->up[i] = Sweep_timeIndex(w, b[i].upper);
    w->sfirst[w->lo[i] + 1]++;
    if (b[i].align > 1) w->mirror = false;
    w->cls[i] = i;
    w->prev_twin[i] = -1;
    for (int j = i - 1; j >= 0; j--)
      if (Sweep_identical(&b[j], &b[i])) {
        w->cls[i] = w->cls[j];
        w->prev_twin[i] = j;
        break;
      }
  }
  for (int e = 0; e < u; e++) w->sfirst[e + 1] += w->sfirst[e];
  int *fill = calloc((size_t)u + 1, sizeof *fill);
  if (!fill) return false;
  for (int i = 0; i < n; i++) w->slist[w->sfirst[w->lo[i]] + fill[w->lo[i]]++] = i;
  free(fill);
  return true;
}

/* The subset sums of every time's starters (up to 2^SWEEP_MAX_LISTED each). */
enum { SWEEP_MAX_LISTED = 16 };
static bool Sweep_listSums(PackSweep *w) {
  w->sum_first = malloc(sizeof *w->sum_first * (size_t)w->nt);
  w->sum_count = malloc(sizeof *w->sum_count * (size_t)w->nt);
  if (!w->sum_first || !w->sum_count) return false;
  size_t total = 0;
  for (int e = 0; e < w->nt; e++) {
    int ns = w->sfirst[e + 1] - w->sfirst[e];
    w->sum_count[e] = ns <= SWEEP_MAX_LISTED ? 1 << ns : -1;
    w->sum_first[e] = total;
    if (w->sum_count[e] > 0) total += (size_t)w->sum_count[e];
  }
  w->sums = malloc(sizeof *w->sums * (total ? total : 1));
  if (!w->sums) return false;
  for (int e = 0; e < w->nt; e++) {
    if (w->sum_count[e] < 0) continue;
    int64_t *a = w->sums + w->sum_first[e];
    const int *st = w->slist + w->sfirst[e];
    int m = 1;
    a[0] = 0;
    for (int k = 0; k < w->sfirst[e + 1] - w->sfirst[e]; k++, m *= 2)
      for (int q = 0; q < m; q++) a[m + q] = a[q] + w->b[st[k]].size;
    qsort(a, (size_t)m, sizeof *a, Int64_cmp);
    int u = 0;
    for (int q = 0; q < m; q++)
      if (u == 0 || a[q] != a[u - 1]) a[u++] = a[q];
    w->sum_count[e] = u;
  }
  return true;
}

/* Whether the load is cap at every time from the first lower to the last upper. */
static bool Sweep_isPerfect(const PackSweep *w, const PackBuffer *b, int n, int64_t cap) {
  int64_t *load = calloc((size_t)w->nt + 1, sizeof *load);
  if (!load) return false;
  for (int i = 0; i < n; i++) {
    load[w->lo[i]] += b[i].size;
    load[w->up[i]] -= b[i].size;
  }
  bool ok = true;
  int64_t run = 0;
  for (int e = 0; e + 1 < w->nt && ok; e++) {
    run += load[e];
    ok = run == cap;
  }
  free(load);
  return ok;
}

PackSweep *PackSweep_new(const PackBuffer *b, int n, int64_t cap, const PackSweepOptions *o, int *status) {
  PackSweep *w = calloc(1, sizeof *w);
  PackBuffer *own = malloc(sizeof *own * (size_t)(n > 0 ? n : 1));
  if (!w || !own) {
    free(w);
    free(own);
    *status = PACK_SWEEP_NOMEM;
    return NULL;
  }
  if (o) w->opt = *o;
  else PackSweepOptions_init(&w->opt);
  w->o = &w->opt;
  /* backwards, the buffers ending last start first (the search fails on
   * different instances in each direction) */
  for (int i = 0; i < n; i++) {
    own[i] = b[i];
    if (w->opt.reverse) own[i].lower = -b[i].upper, own[i].upper = -b[i].lower;
  }
  w->b = own;
  w->n = n;
  w->cap = cap;
  w->table.limit = w->opt.table_bytes;
  w->passed.limit = w->opt.table_bytes / 4;
  *status = PACK_SWEEP_FOUND;
  if (n > 0 && (!Sweep_init(w, own, n) || !Sweep_listSums(w))) *status = PACK_SWEEP_NOMEM;
  else if (n > 0 && !Sweep_isPerfect(w, own, n, cap)) *status = PACK_SWEEP_NOT_PERFECT;
  if (*status != PACK_SWEEP_FOUND) {
    PackSweep_free(w);
    return NULL;
  }
  if (n > 0) w->pack_words = cap <= INT64_MAX / (w->nt + 1);
  return w;
}

void PackSweep_free(PackSweep *w) {
  if (!w) return;
  Sweep_free(w);
  free((void *)w->b);
  free(w);
}

/* A new try order of each time's starters (seed 0: larger first). */
static void Sweep_shuffle(PackSweep *w, uint64_t seed) {
  for (int e = 0; e < w->nt; e++) {
    int *st = w->slist + w->sfirst[e], ns = w->sfirst[e + 1] - w->sfirst[e];
    for (int k = 1; k < ns; k++) { /* larger first, then index */
      int v = st[k], q = k;
      while (q > 0 && (w->b[st[q - 1]].size < w->b[v].size || (w->b[st[q - 1]].size == w->b[v].size && st[q - 1] > v)))
        st[q] = st[q - 1], q--;
      st[q] = v;
    }
    for (int k = ns - 1; k > 0 && seed; k--) {
      seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
      int q = (int)(seed % (uint64_t)(k + 1)), t = st[k];
      st[k] = st[q], st[q] = t;
    }
  }
}

int PackSweep_run(PackSweep *w, uint64_t seed, long budget, int64_t *off, long *nodes) {
  *nodes = 0;
  if (w->n <= 0) return PACK_SWEEP_FOUND;
  Sweep_shuffle(w, seed);
  w->off = off;
  w->nodes = 0;
  w->budget = budget;
  w->stopped = w->budget_out = false;
  w->htop = 0;
  /* before the first time, one block of the whole capacity that "ends" then */
  w->prof[0] = (SweepBlock){w->cap, 0};
  w->horizon = w->nt - 1;
  SearchResult r = Sweep_time(w, 0, 0, 1);
  *nodes = w->nodes;
  return w->nomem ? PACK_SWEEP_NOMEM
         : r == SEARCH_FOUND ? PACK_SWEEP_FOUND
         : r == SEARCH_EXHAUSTED ? PACK_SWEEP_INFEASIBLE
         : w->budget_out && !w->stopped ? PACK_SWEEP_BUDGET
                                        : PACK_SWEEP_STOPPED;
}

int PackSweep_decide(const PackBuffer *b, int n, int64_t cap, const PackSweepOptions *o, int64_t *off, long *nodes) {
  int status;
  *nodes = 0;
  PackSweep *w = PackSweep_new(b, n, cap, o, &status);
  if (!w) return status;
  status = PackSweep_run(w, 0, 0, off, nodes);
  PackSweep_free(w);
  return status;
}

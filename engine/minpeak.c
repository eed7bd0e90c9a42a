/* Exact minimum peak footprint (M_P) over all topological orders.
 *
 * The network is first made smaller (minpeak_split.h): weight-only ops are taken
 * out, and the file order is cut into segments at cut ops (ops every other op
 * precedes or follows). Each segment is solved on its own from the fixed set of
 * ops before it; M_P is the largest segment's peak. Segments are solved largest
 * first, and a segment's costs are floored at the best proven figure so far: a
 * segment that cannot raise M_P needs no proof of its own optimum.
 *
 * Within a segment: best-first search over the sets S of executed ops (each order prefix leads to a
 * set; all prefixes with the same set leave the same tensors resident). The cost of
 * a set is the smallest possible peak of any order reaching it; sets are expanded
 * in increasing cost, so the first full set popped is optimal (a bottleneck-path
 * Dijkstra). What keeps it small:
 *  - costs are floored at a proven lower bound, and ties go deepest first, so the
 *    search dives while below the bound;
 *  - "free" ops are executed at once without branching: an op whose step costs no
 *    more than the current cost and that does not grow the resident bytes. Doing it
 *    earlier never raises any later step (its freed inputs only grow, its outputs
 *    stay), so some optimal order does it now;
 *  - sets whose cost reaches a known schedule's peak (default order or greedy) are
 *    never stored; if none remains, that schedule is optimal.
 * The result's order is re-checked with Figures_peak before it is returned. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bitset.h"
#include "clock.h"
#include "figures.h"
#include "minpeak_split.h"
#include "testhook.h"
#include "workclock.h"

/* Nominal seconds (workclock.h) per unit of an expansion's work: a guess of 4 ns
 * an idle core, doubled. */
#define MINPEAK_UNIT_SECONDS 8e-9

typedef struct {
  int64_t cost;       /* best peak of an order reaching this set (not floored) */
  int64_t resident;   /* bytes live between steps once this set has run */
  int parent;
  int depth;          /* ops executed */
  int moves_at, nmoves; /* ops run from the parent, in order, in Search.moves */
  int ready_at, nready; /* ops ready to run, in Search.pool */
  bool done;
} State;

typedef struct {
  const Net *net;
  bool params;
  int n, words;
  /* per op: distinct on-chip inputs, predecessor ops, output bytes */
  int **uin, *nuin, **preds, *npreds;
  int64_t *out_bytes, *out_live_bytes;
  int64_t lower, upper;
  State *st;
  long nst, capst;
  uint64_t *bits;     /* nst x words */
  long capbits;
  int *moves;
  long nmoves, capmoves;
  int *pool;
  long npool, cappool;
  long *table;        /* hash slots: state index or -1 */
  long tcap;
  long *heap;
  long nheap, capheap;
  uint64_t *scratch;  /* one set being built */
  int *ready_tmp, *moves_tmp;
  long max_states;
  /* the segment being solved: its ops, how many, and the set and bytes before it */
  unsigned char *inseg;
  int seg_begin, seg_n;
  const uint64_t *start;
  int64_t start_resident;
  size_t bytes, max_bytes; /* the growing arrays' capacity, and its cap */
  bool over_bytes;         /* a growth was refused by the cap */
} Search;

static int64_t Search_floor(const Search *s, int64_t c) { return c > s->lower ? c : s->lower; }

/* Grows an array to hold need elements, within the byte cap (false: no memory,
 * or over the cap with s->over_bytes set). */
static bool Search_grow(Search *s, void **p, long *cap, long need, size_t elem) {
  if (need <= *cap) return true;
  long nc = *cap ? *cap : 1024;
  while (nc < need) nc *= 2;
  size_t extra = (size_t)(nc - *cap) * elem;
  if (s->max_bytes && s->bytes + extra > s->max_bytes) {
    s->over_bytes = true;
    return false;
  }
  void *q = realloc(*p, (size_t)nc * elem);
  if (!q) return false;
  *p = q;
  *cap = nc;
  s->bytes += extra;
  return true;
}

static bool Search_prepare(Search *s) {
  const Net *net = s->net;
  int n = s->n = net->nops;
  s->words = Bitset_words(n);
  s->uin = calloc((size_t)n, sizeof(int *));
  s->preds = calloc((size_t)n, sizeof(int *));
  s->nuin = calloc((size_t)n, sizeof(int));
  s->npreds = calloc((size_t)n, sizeof(int));
  s->out_bytes = calloc((size_t)n, sizeof(int64_t));
  s->out_live_bytes = calloc((size_t)n, sizeof(int64_t));
  s->scratch = calloc((size_t)s->words, sizeof(uint64_t));
  s->ready_tmp = malloc(sizeof(int) * (size_t)n);
  s->moves_tmp = malloc(sizeof(int) * (size_t)n);
  s->inseg = calloc((size_t)n + 1, 1);
  if (!s->inseg || !s->uin || !s->preds || !s->nuin || !s->npreds || !s->out_bytes || !s->out_live_bytes ||
      !s->scratch || !s->ready_tmp || !s->moves_tmp)
    return false;
  for (int v = 0; v < n; v++) {
    const Op *op = &net->ops[v];
    s->uin[v] = malloc(sizeof(int) * (size_t)(op->ninputs + 1));
    s->preds[v] = malloc(sizeof(int) * (size_t)(op->ninputs + 1));
    if (!s->uin[v] || !s->preds[v]) return false;
    for (int k = 0; k < op->ninputs; k++) {
      int t = op->inputs[k];
      bool dup = false;
      for (int j = 0; j < s->nuin[v]; j++) dup |= s->uin[v][j] == t;
      if (!dup && Net_onChip(net, t, s->params)) s->uin[v][s->nuin[v]++] = t;
      int p = net->tensors[t].producer;
      dup = p < 0;
      for (int j = 0; j < s->npreds[v] && !dup; j++) dup = s->preds[v][j] == p;
      if (!dup) s->preds[v][s->npreds[v]++] = p;
    }
    for (int k = 0; k < op->noutputs; k++) {
      const Tensor *t = &net->tensors[op->outputs[k]];
      s->out_bytes[v] += t->bytes;
      if (t->nconsumers > 0) s->out_live_bytes[v] += t->bytes;
    }
  }
  return true;
}

static void Search_release(Search *s) {
  if (s->uin)
    for (int v = 0; v < s->n; v++) free(s->uin[v]);
  if (s->preds)
    for (int v = 0; v < s->n; v++) free(s->preds[v]);
  free(s->uin), free(s->preds), free(s->nuin), free(s->npreds);
  free(s->out_bytes), free(s->out_live_bytes), free(s->scratch), free(s->ready_tmp), free(s->moves_tmp);
  free(s->st), free(s->bits), free(s->moves), free(s->pool), free(s->table), free(s->heap), free(s->inseg);
}

/* The step cost of running v after set S, and the change of resident bytes. */
static void Search_step(const Search *s, const uint64_t *S, int v, int64_t resident, int64_t *mem, int64_t *delta) {
  const Net *net = s->net;
  int64_t m = resident + s->out_bytes[v], d = s->out_live_bytes[v];
  for (int j = 0; j < s->nuin[v]; j++) {
    const Tensor *t = &net->tensors[s->uin[v][j]];
    bool loaded = t->producer >= 0, later = false;
    for (int c = 0; c < t->nconsumers; c++) {
      int u = t->consumers[c];
      if (Bitset_has(S, u)) loaded = true;
      else if (u != v) later = true;
    }
    if (!loaded) {
      m += t->bytes;
      if (later) d += t->bytes;
    } else if (!later) {
      d -= t->bytes;
    }
  }
  *mem = m;
  *delta = d;
}

static bool Search_isReady(const Search *s, const uint64_t *S, int v) {
  if (Bitset_has(S, v)) return false;
  for (int j = 0; j < s->npreds[v]; j++)
    if (!Bitset_has(S, s->preds[v][j])) return false;
  return true;
}

/* Runs v on the set in s->scratch: updates ready (in place), resident and cost. */
static void Search_apply(Search *s, int v, int *ready, int *nready, int64_t *resident, int64_t *cost) {
  int64_t mem, delta;
  Search_step(s, s->scratch, v, *resident, &mem, &delta);
  Bitset_set(s->scratch, v);
  *resident += delta;
  if (mem > *cost) *cost = mem;
  int k = 0;
  for (int i = 0; i < *nready; i++)
    if (ready[i] != v) ready[k++] = ready[i];
  const Op *op = &s->net->ops[v];
  for (int o = 0; o < op->noutputs; o++) {
    const Tensor *t = &s->net->tensors[op->outputs[o]];
    for (int c = 0; c < t->nconsumers; c++) {
      int u = t->consumers[c];
      bool dup = !s->inseg[u]; /* ops past the segment wait for the next one */
      for (int i = 0; i < k && !dup; i++) dup = ready[i] == u;
      if (!dup && Search_isReady(s, s->scratch, u)) ready[k++] = u;
    }
  }
  *nready = k;
}

/* Runs free ops (see the file comment) until none is left; records them in moves. */
static void Search_freeMoves(Search *s, int *ready, int *nready, int64_t *resident, int64_t *cost, int *moves,
                             int *nmoves) {
  bool again = true;
  while (again) {
    again = false;
    for (int i = 0; i < *nready; i++) {
      int w = ready[i];
      int64_t mem, delta;
      Search_step(s, s->scratch, w, *resident, &mem, &delta);
      if (delta <= 0 && mem <= Search_floor(s, *cost)) {
        Search_apply(s, w, ready, nready, resident, cost);
        moves[(*nmoves)++] = w;
        again = true;
        break;
      }
    }
  }
}

static uint64_t Search_hash(const Search *s, const uint64_t *b) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int w = 0; w < s->words; w++) {
    h ^= b[w] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  }
  return h ^ (h >> 29);
}

static bool Search_rehash(Search *s) {
  long ncap = s->tcap ? s->tcap * 2 : 4096;
  size_t extra = sizeof(long) * (size_t)(ncap - s->tcap);
  if (s->max_bytes && s->bytes + extra > s->max_bytes) {
    s->over_bytes = true;
    return false;
  }
  s->bytes += extra;
  long *t = malloc(sizeof(long) * (size_t)ncap);
  if (!t) return false;
  for (long i = 0; i < ncap; i++) t[i] = -1;
  for (long i = 0; i < s->nst; i++) {
    long h = (long)(Search_hash(s, s->bits + i * s->words) & (uint64_t)(ncap - 1));
    while (t[h] >= 0) h = (h + 1) & (ncap - 1);
    t[h] = i;
  }
  free(s->table);
  s->table = t;
  s->tcap = ncap;
  return true;
}

/* Slot of the set in scratch: holds its state index, or -1 if new. */
static long Search_lookup(const Search *s) {
  long h = (long)(Search_hash(s, s->scratch) & (uint64_t)(s->tcap - 1));
  while (s->table[h] >= 0) {
    if (memcmp(s->bits + s->table[h] * s->words, s->scratch, sizeof(uint64_t) * (size_t)s->words) == 0) return h;
    h = (h + 1) & (s->tcap - 1);
  }
  return h;
}

static bool Search_less(const Search *s, long a, long b) {
  int64_t ca = Search_floor(s, s->st[a].cost), cb = Search_floor(s, s->st[b].cost);
  if (ca != cb) return ca < cb;
  return s->st[a].depth > s->st[b].depth;
}

static bool Search_push(Search *s, long i) {
  if (!Search_grow(s, (void **)&s->heap, &s->capheap, s->nheap + 1, sizeof(long))) return false;
  long k = s->nheap++;
  s->heap[k] = i;
  while (k > 0) {
    long p = (k - 1) / 2;
    if (!Search_less(s, s->heap[k], s->heap[p])) break;
    long tmp = s->heap[k];
    s->heap[k] = s->heap[p];
    s->heap[p] = tmp;
    k = p;
  }
  return true;
}

static long Search_pop(Search *s) {
  long top = s->heap[0];
  s->heap[0] = s->heap[--s->nheap];
  long k = 0;
  for (;;) {
    long l = 2 * k + 1, r = l + 1, m = k;
    if (l < s->nheap && Search_less(s, s->heap[l], s->heap[m])) m = l;
    if (r < s->nheap && Search_less(s, s->heap[r], s->heap[m])) m = r;
    if (m == k) break;
    long tmp = s->heap[k];
    s->heap[k] = s->heap[m];
    s->heap[m] = tmp;
    k = m;
  }
  return top;
}

/* Stores the set in scratch as a new state (or improves the known one). 0 ok, -1 no memory. */
static int Search_offer(Search *s, long parent, int depth, int64_t resident, int64_t cost, const int *ready, int nready,
                        const int *moves, int nmoves) {
  if (Search_floor(s, cost) >= s->upper) return 0;
  if (2 * (s->nst + 1) > s->tcap && !Search_rehash(s)) return -1;
  long slot = Search_lookup(s);
  long idx = s->table[slot];
  if (idx >= 0) {
    State *old = &s->st[idx];
    if (old->done || old->cost <= cost) return 0;
    /* A cheaper way to the same set: update it in place and push it again. */
    if (nmoves > old->nmoves) {
      if (!Search_grow(s, (void **)&s->moves, &s->capmoves, s->nmoves + nmoves + 1, sizeof(int))) return -1;
      old = &s->st[idx];
      old->moves_at = (int)s->nmoves;
      s->nmoves += nmoves;
    }
    memcpy(s->moves + old->moves_at, moves, sizeof(int) * (size_t)nmoves);
    old->nmoves = nmoves;
    old->cost = cost;
    old->parent = (int)parent;
    return Search_push(s, idx) ? 0 : -1;
  }
  if (!Search_grow(s, (void **)&s->st, &s->capst, s->nst + 1, sizeof(State)) ||
      !Search_grow(s, (void **)&s->bits, &s->capbits, (s->nst + 1) * s->words, sizeof(uint64_t)) ||
      !Search_grow(s, (void **)&s->moves, &s->capmoves, s->nmoves + nmoves + 1, sizeof(int)) ||
      !Search_grow(s, (void **)&s->pool, &s->cappool, s->npool + nready + 1, sizeof(int)))
    return -1;
  idx = s->nst++;
  memcpy(s->bits + idx * s->words, s->scratch, sizeof(uint64_t) * (size_t)s->words);
  State *n = &s->st[idx];
  n->cost = cost;
  n->resident = resident;
  n->parent = (int)parent;
  n->depth = depth;
  n->done = false;
  n->moves_at = (int)s->nmoves;
  n->nmoves = nmoves;
  memcpy(s->moves + s->nmoves, moves, sizeof(int) * (size_t)nmoves);
  s->nmoves += nmoves;
  n->ready_at = (int)s->npool;
  n->nready = nready;
  memcpy(s->pool + s->npool, ready, sizeof(int) * (size_t)nready);
  s->npool += nready;
  s->table[slot] = idx;
  return Search_push(s, idx) ? 0 : -1;
}

/* Puts the set before the segment in scratch and its ready ops in ready; returns their count. */
static int Search_begin(Search *s, int *ready) {
  memcpy(s->scratch, s->start, sizeof(uint64_t) * (size_t)s->words);
  int nready = 0;
  for (int v = s->seg_begin; v < s->seg_begin + s->seg_n; v++)
    if (Search_isReady(s, s->scratch, v)) ready[nready++] = v;
  return nready;
}

/* The peak of running the segment's ops in order from the set before it;
 * *after (may be NULL) gets the bytes resident once they have run. */
static int64_t Search_run(Search *s, const int *order, int64_t *after) {
  int64_t resident = s->start_resident, cost = 0;
  memcpy(s->scratch, s->start, sizeof(uint64_t) * (size_t)s->words);
  for (int q = 0; q < s->seg_n; q++) {
    int64_t mem, delta;
    Search_step(s, s->scratch, order[q], resident, &mem, &delta);
    Bitset_set(s->scratch, order[q]);
    resident += delta;
    if (mem > cost) cost = mem;
  }
  if (after) *after = resident;
  return cost;
}

/* Greedy order for the upper bound: always the ready op with the cheapest step,
 * then the smallest growth. Fills order; returns its peak. */
static int64_t Search_greedy(Search *s, int *order) {
  int *ready = malloc(sizeof(int) * (size_t)s->n);
  if (!ready) return INT64_MAX;
  int nready = Search_begin(s, ready);
  int64_t resident = s->start_resident, cost = 0;
  for (int step = 0; step < s->seg_n; step++) {
    int best = -1;
    int64_t bm = 0, bd = 0;
    for (int i = 0; i < nready; i++) {
      int64_t m, d;
      Search_step(s, s->scratch, ready[i], resident, &m, &d);
      if (best < 0 || m < bm || (m == bm && d < bd)) best = ready[i], bm = m, bd = d;
    }
    if (best < 0) break; /* cannot happen on a valid DAG */
    Search_apply(s, best, ready, &nready, &resident, &cost);
    order[step] = best;
  }
  free(ready);
  return cost;
}

void MinPeakOptions_init(MinPeakOptions *o) {
  o->max_states = 3000000;
  o->max_bytes = (size_t)256 << 20;
  o->time_limit = 0;
  o->deadline = 0;
  o->cancel = NULL;
  o->whole = false;
}

/* Writes the order of state idx (walking parents) into order. */
static void Search_order(const Search *s, long idx, int *order) {
  int pos = s->seg_n;
  for (long i = idx; i >= 0; i = s->st[i].parent) {
    const State *st = &s->st[i];
    for (int k = st->nmoves - 1; k >= 0; k--) order[--pos] = s->moves[st->moves_at + k];
  }
}

/* Forgets the last segment's states; the arrays stay for the next one. */
static void Search_reset(Search *s) {
  s->nst = s->nheap = s->npool = s->nmoves = 0;
  if (s->tcap > 65536) { /* a big table is rebuilt as needed rather than cleared for every small segment */
    free(s->table);
    s->bytes -= sizeof(long) * (size_t)s->tcap;
    s->table = NULL;
    s->tcap = 0;
  }
  for (long i = 0; i < s->tcap; i++) s->table[i] = -1;
}

/* Sets up segment [begin, end) of the file order: the ops before it have run,
 * leaving resident bytes on chip. O(words + segment), so that thousands of
 * segments cost no more than the ops themselves. */
static void Search_setSegment(Search *s, uint64_t *start, int begin, int end, int64_t resident) {
  memset(start, 0, sizeof(uint64_t) * (size_t)s->words);
  for (int w = 0; w < begin / 64; w++) start[w] = ~(uint64_t)0;
  for (int v = begin / 64 * 64; v < begin; v++) Bitset_set(start, v);
  memset(s->inseg + s->seg_begin, 0, (size_t)s->seg_n);
  memset(s->inseg + begin, 1, (size_t)(end - begin));
  s->start = start;
  s->seg_begin = begin;
  s->seg_n = end - begin;
  s->start_resident = resident;
}

typedef struct {
  int64_t peak;   /* of the order found (within the segment) */
  int64_t lower;  /* proven: no order of the segment peaks below min(this, the floor's optimum) */
  bool proven;    /* the order is optimal under costs floored at the floor */
  Status stop;    /* SP_ERR_LIMIT / SP_ERR_CANCELLED when the search stopped, with why */
  const char *why;
} SegResult;

/* The set-up segment's best order (seg_n entries) with costs floored at s->lower,
 * within the upper bound s->upper held by order on entry. */
static Status Search_segment(Search *s, const MinPeakOptions *opt, double deadline, double work_end, long states_before,
                             int *order, SegResult *out, MinPeakResult *res, SpError *err) {
  out->peak = s->upper;
  out->lower = s->lower;
  out->proven = true;
  out->stop = SP_OK;
  if (s->upper <= s->lower) return SP_OK;
  Search_reset(s);
  int nready = Search_begin(s, s->ready_tmp), nmoves = 0;
  int64_t resident = s->start_resident, cost = 0;
  Search_freeMoves(s, s->ready_tmp, &nready, &resident, &cost, s->moves_tmp, &nmoves);
  if (Search_offer(s, -1, nmoves, resident, cost, s->ready_tmp, nready, s->moves_tmp, nmoves) < 0) goto nomem;
  while (s->nheap > 0) {
    long idx = Search_pop(s);
    State cur = s->st[idx];
    if (cur.done) continue; /* a stale heap entry of an improved state */
    s->st[idx].done = true;
    res->expanded++;
    if (cur.depth == s->seg_n) {
      Search_order(s, idx, order);
      out->peak = Search_run(s, order, NULL);
      res->states += s->nst;
      return SP_OK;
    }
    Testhook_at("minpeak", opt->cancel);
    bool cancelled = opt->cancel && *opt->cancel;
    /* an expansion offers a state per ready op, each copying the bitset words */
    WorkClock_add(MINPEAK_UNIT_SECONDS * (double)cur.nready * (double)(s->words + 16));
    bool late_work = work_end > 0 && (res->expanded & 15) == 0 && WorkClock_now() > work_end;
    bool late = late_work || (deadline > 0 && (res->expanded & 15) == 0 && Clock_now() > deadline);
    if (cancelled || late || states_before + s->nst >= s->max_states) {
      out->proven = false;
      out->lower = Search_floor(s, cur.cost);
      out->stop = cancelled ? SP_ERR_CANCELLED : SP_ERR_LIMIT;
      out->why = cancelled   ? "cancelled"
                 : late_work ? "stopped at its time limit (work)"
                 : late      ? "stopped at its time limit (the wall clock)"
                             : "stopped at its state limit";
      res->states += s->nst;
      return SP_OK;
    }
    for (int i = 0; i < cur.nready; i++) {
      memcpy(s->scratch, s->bits + idx * s->words, sizeof(uint64_t) * (size_t)s->words);
      nready = cur.nready;
      memcpy(s->ready_tmp, s->pool + cur.ready_at, sizeof(int) * (size_t)nready);
      int v = s->ready_tmp[i];
      int64_t r = cur.resident, c = cur.cost;
      nmoves = 0;
      Search_apply(s, v, s->ready_tmp, &nready, &r, &c);
      s->moves_tmp[nmoves++] = v;
      Search_freeMoves(s, s->ready_tmp, &nready, &r, &c, s->moves_tmp, &nmoves);
      if (Search_offer(s, idx, cur.depth + nmoves, r, c, s->ready_tmp, nready, s->moves_tmp, nmoves) < 0) goto nomem;
    }
  }
  res->states += s->nst; /* nothing cheaper than the known order: it is optimal */
  return SP_OK;
nomem:
  res->states += s->nst;
  if (!s->over_bytes) return SpError_set(err, SP_ERR_NOMEM, "out of memory computing M_P (%ld states)", s->nst);
  out->proven = false;
  out->stop = SP_ERR_LIMIT;
  out->why = "stopped at its memory cap";
  return SP_OK;
}

/* Weight-only ops the params setting still searches over (see Figures_minPeak). */
enum { MINPEAK_FLOATING_MAX = 24 };
/* Cut ops are looked for up to this many ops (ancestor words: 50 MB at 20k). */
enum { MINPEAK_CUT_OPS_MAX = 20000 };

typedef struct {
  int64_t peak, lower;
  bool proven;
  Status stop;
  const char *why;
  int segments;
} Solved;

/* A segment's upper bound, for solving the costliest first. */
typedef struct {
  int64_t ub, resident; /* the better known order's peak; bytes resident at its start */
  int seg;
} SegRank;

static int Seg_costlier(const void *a, const void *b) {
  const SegRank *x = a, *y = b;
  if (x->ub != y->ub) return x->ub > y->ub ? -1 : 1;
  return (x->seg > y->seg) - (x->seg < y->seg);
}

/* The best order of net segment by segment, every cost floored at floor0 or above. */
static Status MinPeak_solve(const Net *net, bool params, const MinPeakOptions *opt, double deadline, double work_end,
                            int64_t floor0,
                            int *order, MinPeakResult *res, Solved *out, SpError *err) {
  int n = net->nops;
  Search s = {.net = net, .params = params, .max_states = opt->max_states, .max_bytes = opt->max_bytes};
  int64_t *lb = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int *seg_end = malloc(sizeof(int) * (size_t)(n + 1));
  SegRank *rank = malloc(sizeof(SegRank) * (size_t)(n + 1));
  int *alt = malloc(sizeof(int) * (size_t)(n + 1));
  uint64_t *start = NULL, *anc = NULL;
  Status st = SP_OK;
  memset(out, 0, sizeof *out);
  out->proven = true;
  if (!lb || !seg_end || !rank || !alt || !Search_prepare(&s) ||
      !(start = calloc((size_t)s.words + 1, sizeof(uint64_t)))) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory computing M_P");
    goto done;
  }
  /* The lower bound keeps n x n/64 ancestor words and takes n x tensors steps: on
   * graphs too large for that, M_R is the bound (the search then stops sooner with
   * "not proven"). The cuts need only the ancestor words and n x n/64 steps. */
  size_t anc_bytes = (size_t)n * (size_t)s.words * sizeof(uint64_t);
  double work = (double)n * (double)net->ntensors; /* measured: about 2.3e-8 s per unit (0.9 s at 5k ops) */
  bool small = (!s.max_bytes || anc_bytes <= s.max_bytes / 2) && work <= 1e7 &&
               (opt->time_limit <= 0 || work * 2.3e-8 <= opt->time_limit / 2);
  bool cuts = !opt->whole && (!s.max_bytes || anc_bytes <= s.max_bytes / 4) && n <= MINPEAK_CUT_OPS_MAX;
  int nseg = 1;
  seg_end[0] = n;
  if ((small || cuts) && (anc = Figures_ancestors(net, s.words)) != NULL) {
    int k = cuts ? MinPeak_segments(net, anc, seg_end) : 0;
    if (k > 0) nseg = k;
    else seg_end[0] = n; /* no cuts (or no memory for them): one segment */
    free(anc);
  }
  if (small) {
    Figures_opLowerBounds(net, params, lb);
    WorkClock_add(2 * 2.3e-8 * work);
  } else {
    int64_t m_r = Figures_minRequired(net, params);
    for (int v = 0; v < n; v++) lb[v] = m_r;
  }
  int64_t floor = floor0;
  for (int v = 0; v < n; v++) floor = lb[v] > floor ? lb[v] : floor;
  /* Upper bounds: per segment, the better of the file order and the greedy order;
   * and the bytes resident at each segment's start (the same in every order). */
  int64_t resident = 0;
  for (int j = 0; j < nseg; j++) {
    int begin = j ? seg_end[j - 1] : 0, end = seg_end[j];
    Search_setSegment(&s, start, begin, end, resident);
    rank[j].resident = resident;
    for (int v = begin; v < end; v++) order[v] = v;
    int64_t ub = Search_run(&s, order + begin, &resident);
    int64_t g = Search_greedy(&s, alt);
    if (g < ub) ub = g, memcpy(order + begin, alt, sizeof(int) * (size_t)(end - begin));
    rank[j].ub = ub;
    rank[j].seg = j;
  }
  /* The costliest segments first: their figures raise the floor of the others. */
  qsort(rank, (size_t)nseg, sizeof *rank, Seg_costlier);
  int64_t lower = floor;
  for (int i = 0; i < nseg; i++) {
    int j = rank[i].seg, begin = j ? seg_end[j - 1] : 0, end = seg_end[j];
    if (rank[i].ub <= floor) continue; /* cannot raise M_P: its order stands */
    if (out->stop) {
      out->proven = false;
      continue;
    }
    Search_setSegment(&s, start, begin, end, rank[i].resident);
    int64_t seg_lb = 0;
    for (int v = begin; v < end; v++) seg_lb = lb[v] > seg_lb ? lb[v] : seg_lb;
    s.lower = seg_lb > floor ? seg_lb : floor;
    s.upper = rank[i].ub;
    SegResult r;
    if ((st = Search_segment(&s, opt, deadline, work_end, res->states, order + begin, &r, res, err))) goto done;
    if (r.proven) {
      if (r.peak > floor) floor = r.peak;
      if (floor > lower) lower = floor;
    } else {
      out->proven = false;
      out->stop = r.stop;
      out->why = r.why;
      if (r.lower > lower) lower = r.lower;
    }
  }
  out->segments = nseg;
  out->peak = Figures_peak(net, params, order, NULL);
  out->lower = out->proven ? out->peak : lower < out->peak ? lower : out->peak;
done:
  Search_release(&s);
  free(lb), free(seg_end), free(rank), free(alt), free(start);
  return st;
}

Status Figures_minPeak(const Net *net, bool params, const MinPeakOptions *opt, int *order, MinPeakResult *res,
                       SpError *err) {
  double t0 = Clock_now();
  MinPeakOptions defaults;
  if (!opt) MinPeakOptions_init(&defaults), opt = &defaults;
  memset(res, 0, sizeof *res);
  /* time_limit: nominal seconds on the work clock (the same stop on any machine) and,
   * unless the caller gives its own wall-clock deadline, the wall clock's stop too */
  double deadline = opt->deadline > 0 ? opt->deadline : opt->time_limit > 0 ? t0 + opt->time_limit : 0;
  double work_end = opt->time_limit > 0 ? WorkClock_now() + opt->time_limit : 0;
  int n = net->nops;
  MinPeakReduced red;
  int *rorder = malloc(sizeof(int) * (size_t)(n + 1)), *full = malloc(sizeof(int) * (size_t)(n + 1));
  Status st = SP_OK;
  bool made = false;
  if (!rorder || !full || !(made = MinPeakReduced_make(&red, net, !opt->whole, false))) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory computing M_P");
    goto done;
  }
  Solved sv;
  if ((st = MinPeak_solve(&red.net, params, opt, deadline, work_end, 0, rorder, res, &sv, err))) goto done;
  res->segments = sv.segments;
  res->removed = red.nremoved;
  MinPeakReduced_expand(&red, net, rorder, order);
  res->peak = Figures_peak(net, params, order, NULL);
  res->lower_bound = sv.proven ? sv.peak : sv.lower;
  bool proven = sv.proven && res->peak == sv.peak;
  if (sv.proven && !proven && !params)
    st = SpError_set(err, SP_ERR_SOLVER, "internal error: M_P without weight-only ops is %lld, with them %lld",
                     (long long)sv.peak, (long long)res->peak);
  if (sv.proven && !proven && params) {
    /* With params the weight-only ops' inputs are on chip too: the reduced M_P is
     * only a lower bound. Where they copy params, the network with the copies
     * folded into their params is a tighter one, and its order is another
     * candidate. */
    MinPeakReduced fold;
    if (!MinPeakReduced_make(&fold, net, true, true)) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory computing M_P");
      goto done;
    }
    Solved sf;
    if (fold.nremoved > 0 && !(st = MinPeak_solve(&fold.net, params, opt, deadline, work_end, 0, rorder, res, &sf, err))) {
      MinPeakReduced_expand(&fold, net, rorder, full);
      int64_t pk = Figures_peak(net, params, full, NULL);
      if (pk < res->peak) memcpy(order, full, sizeof(int) * (size_t)n), res->peak = pk;
      if (sf.proven && sf.peak > res->lower_bound) res->lower_bound = sf.peak;
      proven = sf.proven && res->peak == sf.peak;
      if (!sf.proven) sv.stop = sf.stop, sv.why = sf.why;
    }
    MinPeakReduced_free(&fold);
    if (st) goto done;
  }
  if (sv.proven && !proven && params && red.nremoved <= MINPEAK_FLOATING_MAX) {
    /* Still a gap: search the whole network, floored at the lower bound (only with few
     * such ops: each can run anywhere before its reader, and the sets multiply;
     * with more, the gap is reported as "not proven"). */
    Solved sf;
    if ((st = MinPeak_solve(net, params, opt, deadline, work_end, res->lower_bound, full, res, &sf, err))) goto done;
    if (sf.peak <= res->peak) memcpy(order, full, sizeof(int) * (size_t)n), res->peak = sf.peak;
    if (sf.lower > res->lower_bound) res->lower_bound = sf.lower;
    proven = sf.proven && sf.peak == res->peak;
    sv.stop = sf.stop, sv.why = sf.why;
  } else if (sv.proven && !proven && params) {
    sv.why = "weight-only ops (params on chip) left a gap";
  }
  if (res->lower_bound > res->peak) res->lower_bound = res->peak;
  if (!st && !proven) {
    if (sv.stop == SP_ERR_CANCELLED)
      st = SpError_set(err, SP_ERR_CANCELLED, "M_P search cancelled after %ld states: best peak %lld, lower bound %lld",
                       res->states, (long long)res->peak, (long long)res->lower_bound);
    else if (sv.why && strstr(sv.why, "memory"))
      st = SpError_set(err, SP_ERR_LIMIT,
                       "M_P search: not proven, stopped at its memory cap (%zu MiB, %ld states): best peak %lld, "
                       "lower bound %lld",
                       opt->max_bytes >> 20, res->states, (long long)res->peak, (long long)res->lower_bound);
    else
      st = SpError_set(err, SP_ERR_LIMIT,
                       "M_P search: not proven, %s after %ld states: best peak %lld, lower bound %lld",
                       sv.why ? sv.why : "stopped", res->states, (long long)res->peak, (long long)res->lower_bound);
  }
  if (st == SP_OK) {
    res->lower_bound = res->peak;
    int64_t check = Figures_peak(net, params, order, NULL);
    if (check != res->peak)
      st = SpError_set(err, SP_ERR_SOLVER, "internal error: M_P order has peak %lld, search said %lld",
                       (long long)check, (long long)res->peak);
  }
done:
  res->seconds = Clock_now() - t0;
  if (made) MinPeakReduced_free(&red);
  free(rorder), free(full);
  return st;
}

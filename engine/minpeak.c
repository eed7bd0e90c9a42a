/* Exact minimum peak footprint (M_P) over all topological orders.
 *
 * Best-first search over the sets S of executed ops (each order prefix leads to a
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

#include "clock.h"
#include "bitset.h"
#include "figures.h"
#include "testhook.h"

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
  if (!s->uin || !s->preds || !s->nuin || !s->npreds || !s->out_bytes || !s->out_live_bytes || !s->scratch ||
      !s->ready_tmp || !s->moves_tmp)
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
  free(s->st), free(s->bits), free(s->moves), free(s->pool), free(s->table), free(s->heap);
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
      bool dup = false;
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

/* Greedy order for the upper bound: always the ready op with the cheapest step,
 * then the smallest growth. Fills order; returns its peak. */
static int64_t Search_greedy(Search *s, int *order) {
  int *ready = malloc(sizeof(int) * (size_t)s->n);
  if (!ready) return INT64_MAX;
  memset(s->scratch, 0, sizeof(uint64_t) * (size_t)s->words);
  int nready = 0;
  for (int v = 0; v < s->n; v++)
    if (Search_isReady(s, s->scratch, v)) ready[nready++] = v;
  int64_t resident = 0, cost = 0;
  for (int step = 0; step < s->n; step++) {
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
  o->cancel = NULL;
}

/* Writes the order of state idx (walking parents) into order. */
static void Search_order(const Search *s, long idx, int *order) {
  int pos = s->n;
  for (long i = idx; i >= 0; i = s->st[i].parent) {
    const State *st = &s->st[i];
    for (int k = st->nmoves - 1; k >= 0; k--) order[--pos] = s->moves[st->moves_at + k];
  }
}

Status Figures_minPeak(const Net *net, bool params, const MinPeakOptions *opt, int *order, MinPeakResult *res,
                       SpError *err) {
  double t0 = Clock_now();
  MinPeakOptions defaults;
  if (!opt) MinPeakOptions_init(&defaults), opt = &defaults;
  memset(res, 0, sizeof *res);
  Search s = {.net = net, .params = params, .max_states = opt->max_states, .max_bytes = opt->max_bytes};
  double deadline = opt->time_limit > 0 ? t0 + opt->time_limit : 0;
  Status st = SP_OK;
  int *alt = malloc(sizeof(int) * (size_t)net->nops);
  if (!alt || !Search_prepare(&s)) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory computing M_P");
    goto done;
  }
  /* The lower bound keeps n x n/64 ancestor words and takes n x tensors steps: on
   * graphs too large for that, M_R is the bound (weaker, so the search stops
   * sooner with "not proven"). */
  size_t anc_bytes = (size_t)s.n * (size_t)s.words * sizeof(uint64_t);
  double work = (double)s.n * (double)net->ntensors; /* measured: about 2.3e-8 s per unit (0.9 s at 5k ops) */
  bool small = (!s.max_bytes || anc_bytes <= s.max_bytes / 2) && work <= 1e7 &&
               (opt->time_limit <= 0 || work * 2.3e-8 <= opt->time_limit / 2);
  s.lower = small ? Figures_peakLowerBound(net, params) : Figures_minRequired(net, params);
  /* Upper bound: the better of the file order and the greedy order. */
  for (int v = 0; v < s.n; v++) order[v] = v;
  s.upper = Figures_peak(net, params, order, NULL);
  int64_t g = Search_greedy(&s, alt);
  if (g < s.upper) s.upper = g, memcpy(order, alt, sizeof(int) * (size_t)s.n);
  res->peak = s.upper;
  res->lower_bound = s.lower;
  if (s.upper <= s.lower) goto done;

  memset(s.scratch, 0, sizeof(uint64_t) * (size_t)s.words);
  int nready = 0, nmoves = 0;
  for (int v = 0; v < s.n; v++)
    if (Search_isReady(&s, s.scratch, v)) s.ready_tmp[nready++] = v;
  int64_t resident = 0, cost = 0;
  Search_freeMoves(&s, s.ready_tmp, &nready, &resident, &cost, s.moves_tmp, &nmoves);
  if (Search_offer(&s, -1, nmoves, resident, cost, s.ready_tmp, nready, s.moves_tmp, nmoves) < 0) {
    st = s.over_bytes ? SpError_set(err, SP_ERR_LIMIT, "M_P search: not proven, its memory cap (%zu MiB) is too small "
                                                       "for this graph; best peak %lld, lower bound %lld",
                                    s.max_bytes >> 20, (long long)s.upper, (long long)s.lower)
                      : SpError_set(err, SP_ERR_NOMEM, "out of memory computing M_P");
    goto done;
  }
  while (s.nheap > 0) {
    long idx = Search_pop(&s);
    State cur = s.st[idx];
    if (cur.done) continue; /* a stale heap entry of an improved state */
    s.st[idx].done = true;
    res->expanded++;
    if (cur.depth == s.n) {
      Search_order(&s, idx, order);
      res->peak = Search_floor(&s, cur.cost);
      goto done;
    }
    Testhook_at("minpeak", opt->cancel);
    if (opt->cancel && *opt->cancel) {
      st = SpError_set(err, SP_ERR_CANCELLED, "M_P search cancelled after %ld states: best peak %lld, lower bound %lld",
                       s.nst, (long long)s.upper, (long long)Search_floor(&s, cur.cost));
      res->lower_bound = Search_floor(&s, cur.cost);
      goto done;
    }
    bool late = deadline > 0 && (res->expanded & 15) == 0 && Clock_now() > deadline;
    if (s.nst >= s.max_states || late) {
      st = SpError_set(err, SP_ERR_LIMIT, "M_P search: not proven, stopped %s after %ld states: best peak %lld, lower bound %lld",
                       late ? "at its time limit" : "at its state limit", s.nst, (long long)s.upper,
                       (long long)Search_floor(&s, cur.cost));
      res->lower_bound = Search_floor(&s, cur.cost);
      goto done;
    }
    for (int i = 0; i < cur.nready; i++) {
      const uint64_t *bits = s.bits + idx * s.words;
      memcpy(s.scratch, bits, sizeof(uint64_t) * (size_t)s.words);
      nready = cur.nready;
      memcpy(s.ready_tmp, s.pool + cur.ready_at, sizeof(int) * (size_t)nready);
      int v = s.ready_tmp[i];
      int64_t r = cur.resident, c = cur.cost;
      nmoves = 0;
      Search_apply(&s, v, s.ready_tmp, &nready, &r, &c);
      s.moves_tmp[nmoves++] = v;
      Search_freeMoves(&s, s.ready_tmp, &nready, &r, &c, s.moves_tmp, &nmoves);
      if (Search_offer(&s, idx, cur.depth + nmoves, r, c, s.ready_tmp, nready, s.moves_tmp, nmoves) < 0) {
        if (s.over_bytes) {
          st = SpError_set(err, SP_ERR_LIMIT,
                           "M_P search: not proven, stopped at its memory cap (%zu MiB, %ld states): best peak %lld, "
                           "lower bound %lld",
                           s.max_bytes >> 20, s.nst, (long long)s.upper, (long long)Search_floor(&s, cur.cost));
          res->lower_bound = Search_floor(&s, cur.cost);
        } else {
          st = SpError_set(err, SP_ERR_NOMEM, "out of memory computing M_P (%ld states)", s.nst);
        }
        goto done;
      }
    }
  }
  /* Nothing cheaper than the known schedule exists: it is optimal. */
  res->peak = s.upper;
done:
  res->states = s.nst;
  if (st == SP_OK) {
    int64_t check = Figures_peak(net, params, order, NULL);
    res->lower_bound = res->peak;
    if (check != res->peak)
      st = SpError_set(err, SP_ERR_SOLVER, "internal error: M_P order has peak %lld, search said %lld",
                       (long long)check, (long long)res->peak);
  }
  res->seconds = Clock_now() - t0;
  Search_release(&s);
  free(alt);
  return st;
}

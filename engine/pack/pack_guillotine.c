/* pack_guillotine: a search for guillotine packings of a perfect part (the load
 * equals the capacity at every time), tried before the complete searches.
 *
 * A guillotine packing cuts its time x address rectangle in two, by a time no
 * buffer crosses or by an address no buffer crosses, and each side again. The
 * time cuts are forced (where no buffer crosses a time the part splits). An
 * address cut at h splits the buffers into a set S packed in [0, h) and the rest
 * in [h, H): with no slack anywhere, S's load must be exactly h at every time,
 * so S is chosen event by event: at the first time any subset of the starters
 * (summing to h < H, holding one fixed starter so that S and its complement are
 * not both tried), then at each later time a subset of that time's starters
 * whose sizes sum to what S loses there. Each side is then packed the same way.
 *
 * A part that no address cut splits (it was cut as a pinwheel, say) is handed
 * to the time sweep (pack_sweep.c) with a node budget: the pieces around it
 * still split, so the sweep sees a small part.
 *
 * It finds a packing or none; "none" is no proof (a packing may exist that is
 * not guillotine), so the callers go on with the complete searches. Packings
 * found are checked with Pack_check. Why it is here: a packing found at the
 * capacity equal to the load bound is optimal, and cutting is how many real
 * allocations (and the tight benchmark instances) arise; the complete sweep
 * thrashes on the order of the first time's many starters. */
#include <stdlib.h>
#include <string.h>

#include "pack_internal.h"

typedef struct {
  const PackBuffer *b;
  int64_t *off;
  bool (*tick)(void *user);
  void *user;
  long nodes, budget, sweep_budget;
  bool stopped, nomem;
} Guil;

static bool Guil_tick(Guil *g) {
  g->nodes++;
  if (g->budget > 0 && g->nodes > g->budget) g->stopped = true;
  if (!g->stopped && g->tick && g->tick(g->user)) g->stopped = true;
  return g->stopped;
}

typedef struct {
  int64_t lower, size, upper;
  int i;
} GuilKey;

static int GuilKey_cmp(const void *pa, const void *pb) {
  const GuilKey *a = pa, *b = pb;
  if (a->lower != b->lower) return a->lower < b->lower ? -1 : 1;
  if (a->size != b->size) return a->size > b->size ? -1 : 1; /* larger first: sums prune sooner */
  if (a->upper != b->upper) return a->upper < b->upper ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

static bool Guil_identical(const PackBuffer *a, const PackBuffer *b) {
  return a->lower == b->lower && a->upper == b->upper && a->size == b->size && a->align == b->align;
}

static bool Guil_solve(Guil *g, int *x, int nx, int64_t height, int64_t base);

/* One address cut of x (sorted by lower, one time segment): the choice of S. */
typedef struct {
  const PackBuffer *b;
  int *x, nx;         /* sorted by lower (then larger first) */
  int64_t height, base, end; /* end: the segment's last upper */
  bool *in;        /* per position in x: in S */
  int *first;      /* per position: the first position of its lower (event start) */
  int64_t *lose;   /* per position of an event start: what S loses there (sizes ending) */
  int64_t *suffix; /* per position: summed size of the event's starters from here on */
  int64_t h;       /* S's height */
} GuilCut;

static int GuilCut_upperPos(const GuilCut *c, int64_t t) {
  /* the event start whose lower is t (binary search over lowers) */
  int lo = 0, hi = c->nx;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (c->b[c->x[mid]].lower < t) lo = mid + 1;
    else hi = mid;
  }
  return lo < c->nx && c->b[c->x[lo]].lower == t ? lo : -1;
}

static bool GuilCut_split(Guil *g, GuilCut *c);

/* Chooses whether the starter at position k joins S; `left` is what the current
 * event's choice must still add. k runs over the event's starters, then on to
 * the next event. */
static bool GuilCut_choose(Guil *g, GuilCut *c, int k, int64_t left) {
  if (Guil_tick(g)) return false;
  const PackBuffer *b = g->b;
  int ev = c->first[k];
  bool at_first = ev == 0;
  bool event_end = k + 1 >= c->nx || c->first[k + 1] != ev;
  if (!at_first && c->suffix[k] < left) return false;
  int64_t size = b[c->x[k]].size;
  int64_t tail = c->suffix[k] - size; /* the event's starters after k */
  for (int take = 1; take >= 0; take--) {
    if (take && size > left) continue;
    /* the first event's first starter is always in S (S or its complement) */
    if (at_first && k == 0 && !take) continue;
    /* identical starters: a later one only with the earlier one (one subset each) */
    if (take && k > ev && Guil_identical(&b[c->x[k - 1]], &b[c->x[k]]) && !c->in[k - 1]) continue;
    int64_t rest = left - (take ? size : 0);
    if (!at_first && tail < rest) continue;
    c->in[k] = take;
    int up = -1;
    if (take && b[c->x[k]].upper < c->end) { /* S loses it then */
      up = GuilCut_upperPos(c, b[c->x[k]].upper);
      if (up < 0) {
        c->in[k] = false;
        continue; /* ends at a time nothing starts: never in a perfect part */
      }
      c->lose[up] += size;
    }
    bool ok;
    if (!event_end) {
      ok = GuilCut_choose(g, c, k + 1, rest);
    } else if (at_first) {
      /* the first event fixes h: any proper, non-empty share */
      int64_t h = c->height - rest; /* `left` counted down from the height */
      ok = h > 0 && h < c->height;
      if (ok) {
        c->h = h;
        ok = k + 1 >= c->nx ? GuilCut_split(g, c) : GuilCut_choose(g, c, k + 1, c->lose[k + 1]);
      }
    } else {
      ok = rest == 0 && (k + 1 >= c->nx ? GuilCut_split(g, c) : GuilCut_choose(g, c, k + 1, c->lose[k + 1]));
    }
    if (up >= 0) c->lose[up] -= size;
    c->in[k] = false;
    if (ok || g->stopped) return ok;
  }
  return false;
}

/* S chosen: packs S below h and the rest above. */
static bool GuilCut_split(Guil *g, GuilCut *c) {
  int *s = malloc(sizeof *s * (size_t)c->nx);
  if (!s) {
    g->nomem = g->stopped = true;
    return false;
  }
  /* a stable split: both sides stay sorted */
  int ns = 0;
  for (int k = 0; k < c->nx; k++)
    if (c->in[k]) s[ns++] = c->x[k];
  for (int k = 0, nr = ns; k < c->nx; k++)
    if (!c->in[k]) s[nr++] = c->x[k];
  bool ok = ns > 0 && ns < c->nx && Guil_solve(g, s, ns, c->h, c->base) &&
            Guil_solve(g, s + ns, c->nx - ns, c->height - c->h, c->base + c->h);
  free(s);
  return ok;
}

static bool Guil_addressCut(Guil *g, int *x, int nx, int64_t height, int64_t base) {
  if (nx < 2) return false;
  GuilCut c = {g->b, x, nx, height, base, 0, NULL, NULL, NULL, NULL, 0};
  for (int k = 0; k < nx; k++)
    if (g->b[x[k]].upper > c.end) c.end = g->b[x[k]].upper;
  c.in = calloc((size_t)nx, sizeof *c.in);
  c.first = malloc(sizeof *c.first * (size_t)nx);
  c.lose = calloc((size_t)nx, sizeof *c.lose);
  c.suffix = malloc(sizeof *c.suffix * (size_t)nx);
  bool ok = false;
  if (!c.in || !c.first || !c.lose || !c.suffix) {
    g->nomem = g->stopped = true;
  } else {
    for (int k = 0; k < nx; k++)
      c.first[k] = k > 0 && g->b[x[k - 1]].lower == g->b[x[k]].lower ? c.first[k - 1] : k;
    for (int k = nx - 1; k >= 0; k--)
      c.suffix[k] = g->b[x[k]].size + (k + 1 < nx && c.first[k + 1] == c.first[k] ? c.suffix[k + 1] : 0);
    /* at the first event `left` counts down from the height: what is not
     * taken is the complement's share */
    ok = GuilCut_choose(g, &c, 0, height);
  }
  free(c.in);
  free(c.first);
  free(c.lose);
  free(c.suffix);
  return ok;
}

/* A part no address cut splits (a pinwheel, say) goes to the time sweep with a
 * node budget: its packing need not be guillotine. */
static bool Guil_sweep(Guil *g, const int *x, int nx, int64_t height, int64_t base) {
  if (g->sweep_budget <= 0) return false;
  for (int k = 0; k < nx; k++)
    if (g->b[x[k]].align > 1) return false; /* the sweep aligns from 0, not from base */
  PackBuffer *sub = malloc(sizeof *sub * (size_t)nx);
  int64_t *o = malloc(sizeof *o * (size_t)nx);
  int r = PACK_SWEEP_NOMEM;
  if (sub && o) {
    for (int k = 0; k < nx; k++) sub[k] = g->b[x[k]];
    PackSweepOptions so;
    PackSweepOptions_init(&so);
    so.tick = g->tick;
    so.user = g->user;
    so.table_bytes = (size_t)16 << 20;
    PackSweep *w = PackSweep_new(sub, nx, height, &so, &r);
    if (w) {
      long nodes;
      r = PackSweep_run(w, 0, g->sweep_budget, o, &nodes);
      g->nodes += nodes;
      PackSweep_free(w);
    }
  }
  if (r == PACK_SWEEP_FOUND)
    for (int k = 0; k < nx; k++) g->off[x[k]] = base + o[k];
  if (r == PACK_SWEEP_NOMEM) g->nomem = g->stopped = true;
  if (r == PACK_SWEEP_STOPPED) g->stopped = true;
  free(sub);
  free(o);
  return r == PACK_SWEEP_FOUND;
}

/* Packs x (sorted by GuilKey_cmp's order; constant load `height` over its
 * span) at [base, base + height). */
static bool Guil_solve(Guil *g, int *x, int nx, int64_t height, int64_t base) {
  const PackBuffer *b = g->b;
  if (Guil_tick(g)) return false;
  if (nx == 1) {
    const PackBuffer *p = &b[x[0]];
    if (p->size != height || (p->align > 1 && base % p->align)) return false;
    g->off[x[0]] = base;
    return true;
  }
  /* time cuts: where no buffer crosses, the segments are packed alone */
  int64_t reach = b[x[0]].upper;
  for (int k = 1; k < nx; k++) {
    if (b[x[k]].lower >= reach) {
      if (!Guil_solve(g, x, k, height, base)) return false;
      return Guil_solve(g, x + k, nx - k, height, base);
    }
    if (b[x[k]].upper > reach) reach = b[x[k]].upper;
  }
  return Guil_addressCut(g, x, nx, height, base) || (!g->stopped && Guil_sweep(g, x, nx, height, base));
}

int PackGuillotine_find(const PackBuffer *b, int n, int64_t cap, const PackGuillotineOptions *o, int64_t *off,
                        long *nodes) {
  Guil g = {b, off, o ? o->tick : NULL, o ? o->user : NULL, 0, o ? o->budget : 0, o ? o->sweep_budget : 0, false, false};
  int *x = malloc(sizeof *x * (size_t)(n ? n : 1));
  GuilKey *key = malloc(sizeof *key * (size_t)(n ? n : 1));
  if (!x || !key) {
    free(x);
    free(key);
    return PACK_GUIL_NOMEM;
  }
  for (int i = 0; i < n; i++) key[i] = (GuilKey){b[i].lower, b[i].size, b[i].upper, i}, off[i] = -1;
  qsort(key, (size_t)n, sizeof *key, GuilKey_cmp);
  for (int k = 0; k < n; k++) x[k] = key[k].i;
  free(key);
  bool ok = n > 0 && Guil_solve(&g, x, n, cap, 0);
  free(x);
  if (nodes) *nodes = g.nodes;
  if (g.nomem) return PACK_GUIL_NOMEM;
  if (ok) {
    SpError err;
    if (Pack_check(b, n, off, cap, &err) != SP_OK) return PACK_GUIL_NONE; /* never expected: a bug guard */
    return PACK_GUIL_FOUND;
  }
  return g.stopped ? PACK_GUIL_STOPPED : PACK_GUIL_NONE;
}

/* A lower bound on non-compulsory traffic over every order (the "checkpoint
 * bound"): what the joint model's LP relaxation does not give in GLPK.
 *
 * Take ops v_1 < v_2 < ... < v_k that run in this order in every schedule (a
 * chain: each an ancestor of the next). At v_i the op's own tensors are resident,
 * so every other tensor live across v_i beyond budget - own(v_i) bytes is off
 * chip. Count only tensors "live' " at v_i: started before v_i and read by a
 * consumer that runs after v_i and no later than v_{i+1}. Such a tensor, if off
 * chip at v_i, is retrieved before that consumer, so the off-chip interval that
 * covers v_i is not the one covering any later checkpoint (at v_{i+1} itself the
 * tensor is an input, not counted): each counted eviction is its own retrieval,
 * at least its bytes. Its spill (an activation's first eviction) is counted only
 * where no other checkpoint can share it.
 *
 * Which tensors are live' at v_i depends on the order; the bound takes the worst
 * case for each checkpoint separately (a relaxation):
 *   - "must" tensors are live' in every order (started by an ancestor, read by a
 *     descendant of v_i); the choice of which of them leave is enumerated;
 *   - the others ("optional") contribute at least r_i bytes, the minimum over the
 *     sets of ops that can have run before v_i, a minimum cut (closure problem);
 *     the evicted optional bytes are a sum of their sizes, so at least the
 *     smallest one and a multiple of their sizes' GCD.
 * Optional evictions pay a spill too where every candidate is an activation that
 * is "must" nowhere: one spill per group of checkpoints whose candidates overlap.
 * The chain is chosen among ops that need an eviction on their own, by a longest
 * path over pairs (which checkpoint follows which). Parallel ops that are each
 * tight (several ASPP branches that each fill the budget) are on no chain; their
 * relative orders are enumerated (an antichain H: each permutation adds edges
 * that make H a chain, every schedule obeys exactly one permutation), and the
 * bound is the minimum over the permutations. When the same activations are
 * "must" at several checkpoints (DenseNet's concatenations), no checkpoint may
 * count their spill alone; a small ILP then chooses the evictions of all the
 * chain's checkpoints together, one spill per tensor (Cb_combine).
 *
 * Tested against a brute force over every order and every eviction pattern
 * (tests/test_cosma.c); measured in docs/results/cosma_bounds.md. */
#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "clock.h"
#include "workclock.h"
#include "cosma.h"
#include "ilp.h"
#include "testhook.h"

enum { MAX_MUST = 12 };
#define FLOW_INF ((int64_t)1 << 60)

/* ---------- Dinic max flow ---------- */
typedef struct {
  int *head, *next, *to;
  int64_t *cap;
  int nnodes, nedges, capedges;
  int *level, *it, *queue;
  bool nomem;
  long work; /* nodes and edges scanned (the work clock's measure) */
} Flow;

static void Flow_reset(Flow *f, int nnodes) {
  if (nnodes > f->nnodes) {
    int *h = realloc(f->head, sizeof(int) * (size_t)nnodes), *l = realloc(f->level, sizeof(int) * (size_t)nnodes);
    int *it = realloc(f->it, sizeof(int) * (size_t)nnodes), *q = realloc(f->queue, sizeof(int) * (size_t)nnodes);
    if (h) f->head = h;
    if (l) f->level = l;
    if (it) f->it = it;
    if (q) f->queue = q;
    if (!h || !l || !it || !q) {
      f->nomem = true;
      return;
    }
  }
  f->nnodes = nnodes;
  for (int i = 0; i < nnodes; i++) f->head[i] = -1;
  f->nedges = 0;
}

static void Flow_edge1(Flow *f, int a, int b, int64_t c) {
  if (f->nedges == f->capedges) {
    int nc = f->capedges ? 2 * f->capedges : 1024;
    int *nx = realloc(f->next, sizeof(int) * (size_t)nc), *to = realloc(f->to, sizeof(int) * (size_t)nc);
    int64_t *cp = realloc(f->cap, sizeof(int64_t) * (size_t)nc);
    if (nx) f->next = nx;
    if (to) f->to = to;
    if (cp) f->cap = cp;
    if (!nx || !to || !cp) {
      f->nomem = true;
      return;
    }
    f->capedges = nc;
  }
  int e = f->nedges++;
  f->to[e] = b, f->cap[e] = c, f->next[e] = f->head[a], f->head[a] = e;
}

static void Flow_add(Flow *f, int a, int b, int64_t c) {
  if (f->nomem) return;
  Flow_edge1(f, a, b, c);
  Flow_edge1(f, b, a, 0); /* edge e's reverse is e ^ 1 */
}

static int64_t Flow_dfs(Flow *f, int u, int t, int64_t push) {
  if (u == t) return push;
  for (; f->it[u] >= 0; f->it[u] = f->next[f->it[u]]) {
    int e = f->it[u], v = f->to[e];
    if (f->cap[e] <= 0 || f->level[v] != f->level[u] + 1) continue;
    int64_t d = Flow_dfs(f, v, t, push < f->cap[e] ? push : f->cap[e]);
    if (d > 0) {
      f->cap[e] -= d, f->cap[e ^ 1] += d;
      return d;
    }
  }
  return 0;
}

static int64_t Flow_max(Flow *f, int s, int t) {
  int64_t total = 0;
  for (;;) {
    for (int i = 0; i < f->nnodes; i++) f->level[i] = -1;
    int qh = 0, qt = 0;
    f->level[s] = 0, f->queue[qt++] = s;
    while (qh < qt) {
      int u = f->queue[qh++];
      for (int e = f->head[u]; e >= 0; e = f->next[e])
        if (f->cap[e] > 0 && f->level[f->to[e]] < 0) f->level[f->to[e]] = f->level[u] + 1, f->queue[qt++] = f->to[e];
    }
    f->work += f->nnodes + f->nedges;
    if (f->level[t] < 0) return total;
    for (int i = 0; i < f->nnodes; i++) f->it[i] = f->head[i];
    int64_t d;
    while ((d = Flow_dfs(f, s, t, FLOW_INF)) > 0) {
      f->work += f->nnodes;
      total += d;
      if (total >= FLOW_INF) return FLOW_INF;
    }
  }
}

static void Flow_free(Flow *f) {
  free(f->head), free(f->next), free(f->to), free(f->cap), free(f->level), free(f->it), free(f->queue);
}

/* ---------- the bound ---------- */
typedef struct {
  const Net *net;
  bool params;
  int64_t budget;
  int n, nt, w;
  bool *on;
  int64_t *own;
  int **pred, *npred, *predcap; /* the net's producers plus the antichain's edges */
  int nbase;                    /* pred counts without the antichain's edges */
  uint64_t *anc, *desc;         /* n x w bitsets */
  uint64_t *upto;               /* w words: Term_build's ops up to the next checkpoint */
  int *topo;                    /* a topological order of the (augmented) DAG */
  Flow flow;
  int *tmark;                   /* per tensor: last op whose own set marked it */
  long cuts;
  double deadline;   /* wall clock (outer) */
  double work_end;   /* on the work clock; 0: none */
  long metered;      /* flow.work already added to the work clock */
  atomic_int *cancel;
  bool stopped, nomem;
  bool combined; /* the last chain's bound came from the joint combination (Cb_combine) */
} Cb;

typedef struct {
  int64_t r;          /* optional bytes live' in every order (min cut) */
  int64_t opt_min, opt_gcd; /* smallest size and GCD of the optional candidates */
  bool opt_spill;     /* every optional candidate is an activation (pays a spill) */
  int nmust;
  int must[MAX_MUST];
  int *optc;          /* optional candidates (tensor ids) */
  int nopt;
} Term;

static int64_t Cb_gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

static bool Cb_anc(const Cb *c, int v, int a) { return Bitset_has(c->anc + (size_t)v * c->w, a); }
static bool Cb_desc(const Cb *c, int v, int d) { return Bitset_has(c->desc + (size_t)v * c->w, d); }
static bool Cb_spills(const Cb *c, int t) { return c->net->tensors[t].kind == TK_ACTIVATION; }

/* Nominal seconds per node or edge a max flow scans (workclock.h): about 2 ns on
 * an idle core, doubled. */
#define CB_UNIT_SECONDS 4e-9

/* Called before each checkpoint's terms (a term builds bitsets over the ops: n
 * units) and each flow: the work clock, its budget, the wall clock, cancel. */
static bool Cb_over(Cb *c) {
  if (c->stopped) return true;
  Testhook_at("cosma.bound", c->cancel);
  c->flow.work += c->n;
  WorkClock_add((double)(c->flow.work - c->metered) * CB_UNIT_SECONDS);
  c->metered = c->flow.work;
  if ((c->work_end > 0 && WorkClock_now() > c->work_end) || (c->deadline > 0 && Clock_now() > c->deadline) ||
      (c->cancel && atomic_load(c->cancel)))
    c->stopped = true;
  return c->stopped;
}

/* anc/desc and a topological order of the augmented DAG (false: a cycle). */
static bool Cb_closure(Cb *c) {
  int n = c->n, w = c->w;
  int *indeg = calloc((size_t)n, sizeof(int)), **succ = calloc((size_t)n, sizeof(int *)), *nsucc = calloc((size_t)n, sizeof(int));
  bool ok = indeg && succ && nsucc;
  for (int v = 0; ok && v < n; v++)
    for (int k = 0; k < c->npred[v]; k++) nsucc[c->pred[v][k]]++;
  for (int v = 0; ok && v < n; v++) ok = !nsucc[v] || (succ[v] = malloc(sizeof(int) * (size_t)nsucc[v]));
  if (ok) {
    memset(nsucc, 0, sizeof(int) * (size_t)n);
    for (int v = 0; v < n; v++)
      for (int k = 0; k < c->npred[v]; k++) succ[c->pred[v][k]][nsucc[c->pred[v][k]]++] = v, indeg[v]++;
    int qt = 0;
    for (int v = 0; v < n; v++)
      if (!indeg[v]) c->topo[qt++] = v;
    for (int qh = 0; qh < qt; qh++)
      for (int k = 0; k < nsucc[c->topo[qh]]; k++)
        if (--indeg[succ[c->topo[qh]][k]] == 0) c->topo[qt++] = succ[c->topo[qh]][k];
    ok = qt == n;
  }
  if (ok) {
    memset(c->anc, 0, sizeof(uint64_t) * (size_t)n * (size_t)w);
    memset(c->desc, 0, sizeof(uint64_t) * (size_t)n * (size_t)w);
    for (int i = 0; i < n; i++) {
      int v = c->topo[i];
      uint64_t *a = c->anc + (size_t)v * w;
      for (int k = 0; k < c->npred[v]; k++) {
        int p = c->pred[v][k];
        const uint64_t *ap = c->anc + (size_t)p * w;
        for (int x = 0; x < w; x++) a[x] |= ap[x];
        Bitset_set(a, p);
      }
    }
    /* descendants the same way, in reverse order over the successors (a test of
     * every pair was O(ops^2): tens of seconds at 50k ops, and not polled) */
    for (int i = n - 1; i >= 0; i--) {
      int v = c->topo[i];
      uint64_t *d = c->desc + (size_t)v * w;
      for (int k = 0; k < nsucc[v]; k++) {
        int s = succ[v][k];
        const uint64_t *ds = c->desc + (size_t)s * w;
        for (int x = 0; x < w; x++) d[x] |= ds[x];
        Bitset_set(d, s);
      }
    }
  }
  for (int v = 0; succ && v < n; v++) free(succ[v]);
  free(indeg), free(succ), free(nsucc);
  return ok;
}

static bool Cb_isOwn(const Cb *c, int v, int t) {
  const Op *op = &c->net->ops[v];
  for (int k = 0; k < op->ninputs; k++)
    if (op->inputs[k] == t) return true;
  for (int k = 0; k < op->noutputs; k++)
    if (op->outputs[k] == t) return true;
  return false;
}

/* upto: the ops that run no later than the next checkpoint in every order (NULL: v
 * is the last one). Reads after v and inside upto are counted. */
static bool Term_buildUpto(Cb *c, int v, const uint64_t *upto, Term *tm);

/* The checkpoint v followed by nxt (-1: the last one). */
static bool Term_build(Cb *c, int v, int nxt, Term *tm) {
  if (nxt < 0) return Term_buildUpto(c, v, NULL, tm);
  uint64_t *u = c->upto;
  memcpy(u, c->anc + (size_t)nxt * c->w, sizeof(uint64_t) * (size_t)c->w);
  Bitset_set(u, nxt);
  return Term_buildUpto(c, v, u, tm);
}

static bool Term_buildUpto(Cb *c, int v, const uint64_t *upto, Term *tm) {
  const Net *net = c->net;
  int n = c->n, S = n + 2 * c->nt, T = S + 1;
  memset(tm, 0, sizeof *tm);
  tm->opt_spill = true;
  tm->optc = malloc(sizeof(int) * (size_t)(c->nt + 1));
  if (!tm->optc) return false;
  Flow *f = &c->flow;
  Flow_reset(f, T + 1);
  for (int a = 0; a < n; a++) {
    if (Cb_anc(c, v, a)) Flow_add(f, S, a, FLOW_INF);
    if (a == v || Cb_desc(c, v, a)) Flow_add(f, a, T, FLOW_INF);
    for (int k = 0; k < c->npred[a]; k++) Flow_add(f, a, c->pred[a][k], FLOW_INF); /* a ran: its preds ran */
  }
  int64_t demoted = 0;
  int mustall[256], nmustall = 0;
  for (int t = 0; t < c->nt; t++) {
    if (!c->on[t] || Cb_isOwn(c, v, t)) continue;
    const Tensor *tt = &net->tensors[t];
    const int *starts = tt->producer >= 0 ? &tt->producer : tt->consumers;
    int nstarts = tt->producer >= 0 ? 1 : tt->nconsumers;
    bool any_after = false, sure_after = false, sure_start = false, may_start = false;
    for (int k = 0; k < tt->nconsumers; k++) {
      int cc = tt->consumers[k];
      if (cc == v || Cb_anc(c, v, cc) || (upto && !Bitset_has(upto, cc))) continue;
      any_after = true;
      sure_after |= Cb_desc(c, v, cc);
    }
    if (!any_after) continue;
    for (int k = 0; k < nstarts; k++) {
      int st = starts[k];
      sure_start |= Cb_anc(c, v, st);
      if (st == v || Cb_desc(c, v, st)) continue;
      /* an input or param crosses v only between two different reads */
      for (int q = 0; q < tt->nconsumers && !may_start; q++) {
        int cc = tt->consumers[q];
        may_start = (tt->producer >= 0 || cc != st) && cc != v && !Cb_anc(c, v, cc) &&
                    (!upto || Bitset_has(upto, cc));
      }
    }
    if (!may_start) continue;
    if (sure_start && sure_after) {
      if (nmustall < 256) mustall[nmustall++] = t;
      else demoted += tt->bytes, tm->opt_spill &= Cb_spills(c, t); /* counted as optional mass */
      continue;
    }
    tm->optc[tm->nopt++] = t;
    tm->opt_spill &= Cb_spills(c, t);
    tm->opt_min = tm->opt_min && tm->opt_min < tt->bytes ? tm->opt_min : tt->bytes;
    tm->opt_gcd = Cb_gcd(tm->opt_gcd, tt->bytes);
    int u = n + 2 * t, wn = u + 1;
    for (int k = 0; k < nstarts; k++) Flow_add(f, starts[k], u, FLOW_INF);
    Flow_add(f, u, wn, tt->bytes);
    for (int k = 0; k < tt->nconsumers; k++) {
      int cc = tt->consumers[k];
      if (cc == v || Cb_anc(c, v, cc) || (upto && !Bitset_has(upto, cc))) continue;
      Flow_add(f, wn, cc, FLOW_INF);
    }
  }
  if (f->nomem) return false;
  c->cuts++;
  tm->r = Flow_max(f, S, T) + demoted;
  /* the largest must tensors are enumerated, the rest join the optional mass */
  for (int a = 1; a < nmustall; a++)
    for (int b = a; b > 0 && net->tensors[mustall[b]].bytes > net->tensors[mustall[b - 1]].bytes; b--) {
      int x = mustall[b];
      mustall[b] = mustall[b - 1], mustall[b - 1] = x;
    }
  for (int k = 0; k < nmustall; k++) {
    int t = mustall[k];
    if (k < MAX_MUST) {
      tm->must[tm->nmust++] = t;
      continue;
    }
    int64_t b = net->tensors[t].bytes;
    tm->r += b;
    tm->optc[tm->nopt++] = t;
    tm->opt_spill &= Cb_spills(c, t);
    tm->opt_min = tm->opt_min && tm->opt_min < b ? tm->opt_min : b;
    tm->opt_gcd = Cb_gcd(tm->opt_gcd, b);
  }
  if (demoted) tm->opt_min = 1, tm->opt_gcd = 1; /* sizes not tracked: no rounding */
  return true;
}

/* The cheapest way to fit checkpoint v: *cost (retrievals, and the spills of must
 * tensors with spill_ok), *fmin the least optional bytes any choice evicts. */
static void Term_cost(const Cb *c, int v, const Term *tm, const bool *spill_ok, bool opt_spill_here, int64_t *cost,
                      int64_t *fmin) {
  int64_t room = c->budget - c->own[v], best = -1, bestf = -1;
  for (unsigned mask = 0; mask < 1u << tm->nmust; mask++) {
    int64_t kept = 0, pay = 0;
    for (int k = 0; k < tm->nmust; k++) {
      int t = tm->must[k];
      int64_t b = c->net->tensors[t].bytes;
      if (mask >> k & 1) pay += b + (Cb_spills(c, t) && spill_ok[t] ? b : 0);
      else kept += b;
    }
    if (kept > room) continue;
    int64_t f = tm->r + kept - room;
    if (f > 0) {
      if (f < tm->opt_min) f = tm->opt_min;
      if (tm->opt_gcd > 1) f = (f + tm->opt_gcd - 1) / tm->opt_gcd * tm->opt_gcd;
    } else {
      f = 0;
    }
    if (opt_spill_here) pay += f; /* the optional tensors' own spills: no other checkpoint shares them */
    if (best < 0 || pay + f < best) best = pay + f;
    if (bestf < 0 || f < bestf) bestf = f;
  }
  *cost = best < 0 ? 0 : best; /* no choice fits: cannot happen at budget >= M_R */
  *fmin = bestf < 0 ? 0 : bestf;
}

static void Term_free(Term *tm) { free(tm->optc), tm->optc = NULL; }

static int Cb_find(int *parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

/* The chain's terms combined exactly, when must tensors cross several checkpoints:
 * which of them leave at each checkpoint is chosen jointly, so a tensor that leaves
 * at two checkpoints pays two retrievals but one spill (the per-checkpoint sum can
 * count no spill for it at all). A small ILP (GLPK): e[i][m] = must tensor m leaves
 * at checkpoint i, z[t] = t is spilled, y[i] = optional units evicted at i (a
 * multiple of their GCD), one spill variable per group of overlapping optional
 * candidates. Its proven lower bound is returned (bytes), 0 if GLPK gave none. */
static int64_t Cb_combine(Cb *c, Term *terms, const int *ops, int k, const int *count, const bool *elig,
                          const int *comp) {
  const Net *net = c->net;
  int64_t g = 0;
  bool integral = true;
  for (int i = 0; i < k; i++) {
    for (int m = 0; m < terms[i].nmust; m++) g = Cb_gcd(g, net->tensors[terms[i].must[m]].bytes);
    if (terms[i].r > 0) g = Cb_gcd(g, terms[i].opt_gcd > 0 ? terms[i].opt_gcd : terms[i].r);
  }
  if (g <= 0) return 0;
  IlpModel *m = IlpModel_new();
  int *zcol = malloc(sizeof(int) * (size_t)c->nt), *ccol = malloc(sizeof(int) * (size_t)c->nt);
  int *cols = malloc(sizeof(int) * (size_t)(MAX_MUST + 4)), *ycol = malloc(sizeof(int) * (size_t)k);
  double *coef = malloc(sizeof(double) * (size_t)(MAX_MUST + 4));
  int64_t out = 0;
  IlpResult r = {0};
  IlpOptions o;
  IlpOptions_init(&o);
  if (!m || !zcol || !ccol || !cols || !ycol || !coef) goto done;
  for (int t = 0; t < c->nt; t++) {
    zcol[t] = count[t] > 0 && Cb_spills(c, t) ? IlpModel_addCol(m, ILP_BINARY, 0, 1, (double)(net->tensors[t].bytes / g)) : -1;
    ccol[t] = -1;
  }
  for (int i = 0; i < k; i++) {
    const Term *tm = &terms[i];
    double room = (double)(c->budget - c->own[ops[i]]), unit = tm->opt_gcd > 0 ? (double)tm->opt_gcd : 1;
    if (tm->opt_gcd <= 1) integral = false;
    /* y: optional units evicted (integer: their sizes' GCD divides what leaves) */
    ycol[i] = tm->r > 0 ? IlpModel_addCol(m, tm->opt_gcd > 1 ? ILP_INTEGER : ILP_CONTINUOUS, 0, ILP_INF, unit / (double)g)
                        : -1;
    int n = 0, base = 0;
    double must_bytes = 0;
    base = IlpModel_ncols(m);
    for (int q = 0; q < tm->nmust; q++) {
      int t = tm->must[q];
      double b = (double)net->tensors[t].bytes;
      IlpModel_addCol(m, ILP_BINARY, 0, 1, b / (double)g); /* its retrieval */
      must_bytes += b;
      if (zcol[t] >= 0) { /* leaving means it was spilled */
        int rc[2] = {base + q, zcol[t]};
        double rv[2] = {1, -1};
        IlpModel_addRow(m, -ILP_INF, 0, 2, rc, rv);
      }
    }
    /* kept must bytes fit the room; kept + optional left fit too */
    for (int q = 0; q < tm->nmust; q++) cols[n] = base + q, coef[n++] = -(double)net->tensors[tm->must[q]].bytes;
    if (n) IlpModel_addRow(m, -ILP_INF, room - must_bytes, n, cols, coef);
    if (ycol[i] >= 0) {
      cols[n] = ycol[i], coef[n++] = -unit;
      IlpModel_addRow(m, -ILP_INF, room - must_bytes - (double)tm->r, n, cols, coef);
      if (elig[i]) { /* the optional tensors' spills: one variable per group */
        int grp = comp[i];
        if (ccol[grp] < 0) ccol[grp] = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, 1.0 / (double)g);
        int rc[2] = {ycol[i], ccol[grp]};
        double rv[2] = {unit, -1};
        IlpModel_addRow(m, -ILP_INF, 0, 2, rc, rv);
      }
    }
  }
  o.work_seconds = 2; /* tiny models: milliseconds; never past the bound's own budget */
  double left = c->work_end > 0 ? c->work_end - WorkClock_now() : o.work_seconds;
  if (left < o.work_seconds) o.work_seconds = left;
  if (c->deadline > 0) o.time_limit = c->deadline - Clock_now() > 0.01 ? c->deadline - Clock_now() : 0.01;
  o.cancel = c->cancel;
  o.integral_objective = integral;
  SpError e;
  if (left > 0.01 && Ilp_solve(m, &o, &r, &e) == SP_OK && r.has_bound && r.status != ILP_ERROR &&
      r.status != ILP_INFEASIBLE) /* else no time: the per-checkpoint sum stands */
    out = (int64_t)((r.bound + 1e-6 < 0 ? 0 : r.bound + 1e-6)) * g;
done:
  IlpResult_free(&r);
  IlpModel_free(m);
  free(zcol), free(ccol), free(cols), free(ycol), free(coef);
  return out;
}

/* The best chain over the candidate checkpoints cand[0..ncand) (any order) and its
 * bound. -1 when stopped. */
static int64_t Cb_chain(Cb *c, const int *cand, int ncand, int *chain_len) {
  int n = c->n, nt = c->nt;
  *chain_len = 0;
  int *pos = malloc(sizeof(int) * (size_t)n), *P = malloc(sizeof(int) * (size_t)(ncand + 1));
  int64_t *best = malloc(sizeof(int64_t) * (size_t)(ncand + 1));
  int *next = malloc(sizeof(int) * (size_t)(ncand + 1)), *chain = malloc(sizeof(int) * (size_t)(ncand + 1));
  bool *spill_ok = malloc(sizeof(bool) * (size_t)nt);
  int *count = calloc((size_t)nt, sizeof(int)), *parent = malloc(sizeof(int) * (size_t)nt);
  int64_t *compf = calloc((size_t)nt, sizeof(int64_t));
  Term *terms = calloc((size_t)(ncand + 1), sizeof(Term));
  int64_t result = -1;
  if (!pos || !P || !best || !next || !chain || !spill_ok || !count || !parent || !compf || !terms) {
    c->nomem = true;
    goto out;
  }
  for (int i = 0; i < n; i++) pos[c->topo[i]] = i;
  for (int t = 0; t < nt; t++) spill_ok[t] = true;
  int np = 0;
  for (int i = 0; i < ncand; i++) P[np++] = cand[i];
  for (int a = 1; a < np; a++) /* topological order of the augmented DAG */
    for (int b = a; b > 0 && pos[P[b]] < pos[P[b - 1]]; b--) {
      int x = P[b];
      P[b] = P[b - 1], P[b - 1] = x;
    }
  /* longest path over (checkpoint, next checkpoint) pairs, from the end */
  for (int i = np - 1; i >= 0; i--) {
    Term tm;
    int64_t cost, fm;
    if (Cb_over(c) || !Term_build(c, P[i], -1, &tm)) goto out;
    Term_cost(c, P[i], &tm, spill_ok, false, &cost, &fm);
    Term_free(&tm);
    best[i] = cost, next[i] = -1;
    for (int j = i + 1; j < np; j++) {
      if (!Cb_desc(c, P[i], P[j]) || best[j] <= 0) continue;
      if (Cb_over(c) || !Term_build(c, P[i], P[j], &tm)) goto out;
      Term_cost(c, P[i], &tm, spill_ok, false, &cost, &fm);
      Term_free(&tm);
      if (cost + best[j] > best[i]) best[i] = cost + best[j], next[i] = j;
    }
  }
  int start = -1;
  for (int i = 0; i < np; i++)
    if (best[i] > 0 && (start < 0 || best[i] > best[start])) start = i;
  if (start < 0) {
    result = 0;
    goto out;
  }
  int k = 0;
  for (int i = start; i >= 0; i = next[i]) chain[k++] = i;
  *chain_len = k;
  /* the chain's terms again, now with spills shared across checkpoints counted once */
  for (int i = 0; i < k; i++) {
    if (!Term_build(c, P[chain[i]], i + 1 < k ? P[chain[i + 1]] : -1, &terms[i])) {
      c->nomem = true;
      goto out;
    }
    for (int m = 0; m < terms[i].nmust; m++) count[terms[i].must[m]]++;
  }
  for (int t = 0; t < nt; t++) spill_ok[t] = count[t] == 1, parent[t] = t;
  int64_t total = 0;
  int64_t *fmins = malloc(sizeof(int64_t) * (size_t)k);
  int *csize = calloc((size_t)nt, sizeof(int));
  bool *elig = malloc(sizeof(bool) * (size_t)k);
  if (!fmins || !csize || !elig) {
    free(fmins), free(csize), free(elig);
    c->nomem = true;
    goto out;
  }
  /* optional spills: a checkpoint whose candidates are all activations "must"
   * nowhere pays them; checkpoints whose candidates overlap share one (the largest) */
  for (int i = 0; i < k; i++) {
    Term *tm = &terms[i];
    elig[i] = tm->opt_spill && tm->nopt > 0;
    for (int m = 0; elig[i] && m < tm->nopt; m++) elig[i] = count[tm->optc[m]] == 0;
    for (int m = 1; elig[i] && m < tm->nopt; m++) parent[Cb_find(parent, tm->optc[m])] = Cb_find(parent, tm->optc[0]);
  }
  for (int i = 0; i < k; i++)
    if (elig[i]) csize[Cb_find(parent, terms[i].optc[0])]++;
  for (int i = 0; i < k; i++) {
    bool alone = elig[i] && csize[Cb_find(parent, terms[i].optc[0])] == 1;
    int64_t cost;
    Term_cost(c, P[chain[i]], &terms[i], spill_ok, alone, &cost, &fmins[i]);
    total += cost;
    if (elig[i] && !alone) {
      int r = Cb_find(parent, terms[i].optc[0]);
      if (fmins[i] > compf[r]) compf[r] = fmins[i];
    }
  }
  for (int t = 0; t < nt; t++) total += compf[t];
  c->combined = false;
  bool shared = false;
  for (int t = 0; t < nt && !shared; t++) shared = count[t] > 1 && Cb_spills(c, t);
  if (shared) {
    int *ops = malloc(sizeof(int) * (size_t)k), *comp = malloc(sizeof(int) * (size_t)k);
    if (ops && comp) {
      for (int i = 0; i < k; i++) {
        ops[i] = P[chain[i]];
        comp[i] = elig[i] ? Cb_find(parent, terms[i].optc[0]) : -1;
      }
      int64_t joint = Cb_combine(c, terms, ops, k, count, elig, comp);
      if (joint > total) total = joint, c->combined = true;
    }
    free(ops), free(comp);
  }
  free(csize), free(elig);
  free(fmins);
  result = total;
out:
  for (int i = 0; terms && i <= ncand; i++) Term_free(&terms[i]);
  free(pos), free(P), free(best), free(next), free(chain), free(spill_ok), free(count), free(parent), free(compf);
  free(terms);
  return result;
}

void CosmaBoundOptions_init(CosmaBoundOptions *o) {
  memset(o, 0, sizeof *o);
  o->max_checkpoints = 48;
  o->max_antichain = 5;
  o->max_groups = 16;
}

static bool Cb_addPred(Cb *c, int v, int p) {
  if (c->npred[v] == c->predcap[v]) {
    int nc = c->predcap[v] ? 2 * c->predcap[v] : 4;
    int *np = realloc(c->pred[v], sizeof(int) * (size_t)nc);
    if (!np) return false;
    c->pred[v] = np, c->predcap[v] = nc;
  }
  c->pred[v][c->npred[v]++] = p;
  return true;
}

static bool Cb_nextPerm(int *a, int k) {
  int i = k - 2;
  while (i >= 0 && a[i] >= a[i + 1]) i--;
  if (i < 0) return false;
  int j = k - 1;
  while (a[j] <= a[i]) j--;
  int x = a[i];
  a[i] = a[j], a[j] = x;
  for (int l = i + 1, r = k - 1; l < r; l++, r--) x = a[l], a[l] = a[r], a[r] = x;
  return true;
}

/* ---------- groups: a few parallel ops, every relative order ----------
 *
 * Three ops can each fit alone in some order, but not all of them in any one
 * order (RegNet's first block: the 1x1 conv a at 112x112 fits only if the shortcut
 * projection p runs after it; then p fits only if a's consumer b ran first; then b
 * has the stem output, which p still reads, across it). No single checkpoint needs
 * an eviction, so the chain bound is 0. A group is such a set of ops, grown from an
 * op whose optional tensors could overflow it: the ops that decide whether those
 * tensors cross it (their producer and readers, when they can run on either side),
 * and so on. Each linear extension of the group (an order of its members that the
 * DAG allows; every schedule follows exactly one) makes it a chain of checkpoints;
 * the group costs the least over its extensions. Groups and single checkpoints are
 * chained by the same longest path; the least over the extensions of one group does
 * not depend on another's, so the sum of the least costs is the least sum. */
enum { GROUP_OPS = 5, GROUP_EXTS = 120, GROUP_NEAR = 8 };

typedef struct {
  int k, next;    /* members; linear extensions */
  int ops[GROUP_OPS];
  int *ext;       /* next x k op ids, each an order of the members */
  int pos;        /* the least topological position of a member (the longest path's order) */
  uint64_t *upto; /* w words: the ops that run no later than the item's first member in every order */
  int64_t *val;   /* next x (nitems + 1): its best sub-chain before item j (nitems: the end; -1: no link) */
} Item;

static void Item_free(Item *it) { free(it->ext), free(it->upto), free(it->val); }

/* The linear extensions of ops[0..k) under the current closure, up to max (more: -1). */
static int Cb_extensions(const Cb *c, const int *ops, int k, int *out, int max) {
  int seq[GROUP_OPS], count = 0, depth = 0, pick[GROUP_OPS];
  bool used[GROUP_OPS] = {false};
  pick[0] = -1;
  while (depth >= 0) {
    if (depth == k) {
      if (count == max) return -1;
      memcpy(out + (size_t)count * k, seq, sizeof(int) * (size_t)k);
      count++;
      depth--;
      if (depth >= 0) used[pick[depth]] = false;
      continue;
    }
    int m = pick[depth] + 1;
    for (; m < k; m++) {
      if (used[m]) continue;
      bool ready = true; /* no unplaced member is an ancestor of it */
      for (int q = 0; q < k && ready; q++) ready = used[q] || q == m || !Cb_anc(c, ops[m], ops[q]);
      if (ready) break;
    }
    if (m >= k) {
      depth--;
      if (depth >= 0) used[pick[depth]] = false;
      continue;
    }
    pick[depth] = m, used[m] = true, seq[depth] = ops[m];
    if (++depth < k) pick[depth] = -1;
  }
  return count;
}

/* The DAG plus the edges that make seq a chain (saved: the base predecessor counts). */
static bool Cb_follow(Cb *c, const int *saved, const int *seq, int k) {
  memcpy(c->npred, saved, sizeof(int) * (size_t)c->n);
  for (int q = 1; q < k; q++)
    if (!Cb_addPred(c, seq[q], seq[q - 1])) return c->nomem = true, false;
  return Cb_closure(c);
}

/* Term_cost of checkpoint v with the given upto; false when stopped or out of memory. */
static bool Cb_price(Cb *c, int v, const uint64_t *upto, const bool *spill_ok, int64_t *cost) {
  Term tm;
  if (Cb_over(c)) return false;
  if (!Term_buildUpto(c, v, upto, &tm)) return c->nomem = true, false;
  int64_t fm;
  Term_cost(c, v, &tm, spill_ok, false, cost, &fm);
  Term_free(&tm);
  return true;
}

/* P[q][r] (q < r): seq[q]'s term when seq[r] is the next checkpoint. */
static bool Cb_pairs(Cb *c, const int *seq, int k, const bool *spill_ok, int64_t P[GROUP_OPS][GROUP_OPS]) {
  for (int q = 0; q < k; q++)
    for (int r = q + 1; r < k; r++) {
      memcpy(c->upto, c->anc + (size_t)seq[r] * c->w, sizeof(uint64_t) * (size_t)c->w);
      Bitset_set(c->upto, seq[r]);
      if (!Cb_price(c, seq[q], c->upto, spill_ok, &P[q][r])) return false;
    }
  return true;
}

/* The costliest sub-chain of the chain seq[0..k) whose last term reads up to up
 * (NULL: the end): its cost (0 and *len 0 when none costs), sub its positions; -1
 * when stopped. Any sub-chain of a chain is a chain, so each is a valid bound (up
 * must not be c->upto, which the terms use). */
static int64_t Cb_subchain(Cb *c, const int *seq, int k, int64_t P[GROUP_OPS][GROUP_OPS], const uint64_t *up,
                           const bool *spill_ok, int *sub, int *len) {
  int64_t g[GROUP_OPS];
  int nx[GROUP_OPS];
  for (int q = k - 1; q >= 0; q--) {
    if (!Cb_price(c, seq[q], up, spill_ok, &g[q])) return -1;
    nx[q] = -1;
    for (int r = q + 1; r < k; r++)
      if (g[r] > 0 && P[q][r] + g[r] > g[q]) g[q] = P[q][r] + g[r], nx[q] = r;
  }
  int start = -1;
  for (int q = 0; q < k; q++)
    if (g[q] > 0 && (start < 0 || g[q] > g[start])) start = q;
  *len = 0;
  for (int q = start; q >= 0; q = nx[q]) sub[(*len)++] = q;
  return start < 0 ? 0 : g[start];
}

/* Grows a group from seed: the producers and readers of its members' optional
 * tensors (the largest first) that can run on either side of the member. */
static int Cb_grow(Cb *c, int seed, int *ops) {
  int k = 0;
  ops[k++] = seed;
  for (int i = 0; i < k && k < GROUP_OPS; i++) {
    Term tm;
    int u = ops[i];
    if (Cb_over(c) || !Term_buildUpto(c, u, NULL, &tm)) break;
    for (int a = 1; a < tm.nopt; a++) /* the largest first */
      for (int b = a; b > 0 && c->net->tensors[tm.optc[b]].bytes > c->net->tensors[tm.optc[b - 1]].bytes; b--) {
        int x = tm.optc[b];
        tm.optc[b] = tm.optc[b - 1], tm.optc[b - 1] = x;
      }
    for (int m = 0; m < tm.nopt + tm.nmust && k < GROUP_OPS; m++) {
      const Tensor *tt = &c->net->tensors[m < tm.nopt ? tm.optc[m] : tm.must[m - tm.nopt]];
      for (int q = -1; q < tt->nconsumers && k < GROUP_OPS; q++) {
        int x = q < 0 ? tt->producer : tt->consumers[q];
        if (x < 0 || x == u || Cb_anc(c, u, x) || Cb_desc(c, u, x)) continue; /* its side is fixed */
        bool dup = false;
        for (int z = 0; z < k && !dup; z++) dup = ops[z] == x;
        if (!dup) ops[k++] = x;
      }
    }
    Term_free(&tm);
  }
  return k;
}

/* The chain bound over single checkpoints (cand) and groups grown from the ops
 * whose optional tensors could overflow them (at most max_groups). -1: stopped. */
static int64_t Cb_groupChain(Cb *c, const int *cand, int ncand, int max_groups, int *ngroups) {
  int n = c->n, nt = c->nt, w = c->w;
  *ngroups = 0;
  int64_t result = -1;
  int *subs = NULL;
  int cap = ncand + max_groups, ni = 0;
  Item *items = calloc((size_t)cap + 1, sizeof(Item));
  int *saved = malloc(sizeof(int) * (size_t)n), *pos = malloc(sizeof(int) * (size_t)n);
  int *seeds = malloc(sizeof(int) * (size_t)n), *chain = malloc(sizeof(int) * (size_t)(cap + 1));
  int64_t *key = malloc(sizeof(int64_t) * (size_t)n), *best = malloc(sizeof(int64_t) * (size_t)(cap + 1));
  int *nextj = malloc(sizeof(int) * (size_t)(cap + 1)), *count = calloc((size_t)nt, sizeof(int));
  int *ecount = calloc((size_t)nt, sizeof(int)), *icount = calloc((size_t)nt, sizeof(int));
  bool *all_ok = malloc(sizeof(bool) * (size_t)nt), *spill_ok = malloc(sizeof(bool) * (size_t)nt);
  if (!items || !saved || !pos || !seeds || !chain || !key || !best || !nextj || !count || !ecount || !icount || !all_ok ||
      !spill_ok) {
    c->nomem = true;
    goto out;
  }
  memcpy(saved, c->npred, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) pos[c->topo[i]] = i;
  for (int t = 0; t < nt; t++) all_ok[t] = true;
  /* seeds: ops whose must and optional tensors together could overflow them */
  int nseeds = 0;
  for (int v = 0; v < n; v++) {
    Term tm;
    if (Cb_over(c)) goto out;
    if (!Term_buildUpto(c, v, NULL, &tm)) {
      c->nomem = true;
      goto out;
    }
    int64_t most = 0;
    for (int m = 0; m < tm.nmust; m++) most += c->net->tensors[tm.must[m]].bytes;
    for (int m = 0; m < tm.nopt; m++) most += c->net->tensors[tm.optc[m]].bytes;
    Term_free(&tm);
    if (most > c->budget - c->own[v] && tm.nopt > 0) key[v] = most - (c->budget - c->own[v]), seeds[nseeds++] = v;
  }
  for (int a = 1; a < nseeds; a++)
    for (int b = a; b > 0 && key[seeds[b]] > key[seeds[b - 1]]; b--) {
      int x = seeds[b];
      seeds[b] = seeds[b - 1], seeds[b - 1] = x;
    }
  int *ext = malloc(sizeof(int) * GROUP_EXTS * GROUP_OPS);
  if (!ext) {
    c->nomem = true;
    goto out;
  }
  for (int s = 0; s < nseeds && *ngroups < max_groups; s++) {
    Item it = {0};
    it.k = Cb_grow(c, seeds[s], it.ops);
    if (c->stopped) break;
    if (it.k < 2) continue;
    while ((it.next = Cb_extensions(c, it.ops, it.k, ext, GROUP_EXTS)) < 0) it.k--; /* too many: the last grown go */
    if (it.k < 2 || it.next < 2) continue; /* one order: its members are single checkpoints already */
    bool dup = false; /* the same members grown from another seed */
    for (int i = 0; i < ni && !dup; i++) {
      dup = items[i].k == it.k;
      for (int a = 0; a < it.k && dup; a++) {
        bool in = false;
        for (int b = 0; b < it.k && !in; b++) in = items[i].ops[b] == it.ops[a];
        dup = in;
      }
    }
    if (dup) continue;
    if (!(it.ext = malloc(sizeof(int) * (size_t)(it.next * it.k)))) {
      free(ext);
      c->nomem = true;
      goto out;
    }
    memcpy(it.ext, ext, sizeof(int) * (size_t)(it.next * it.k));
    items[ni++] = it, (*ngroups)++;
  }
  free(ext);
  if (c->stopped) goto out;
  for (int i = 0; i < ncand; i++) {
    Item *it = &items[ni++];
    it->k = it->next = 1, it->ops[0] = cand[i];
    if (!(it->ext = malloc(sizeof(int)))) {
      c->nomem = true;
      goto out;
    }
    it->ext[0] = cand[i];
  }
  /* upto of each item (the base DAG: it holds in every order) and the longest path's order */
  for (int i = 0; i < ni; i++) {
    Item *it = &items[i];
    if (!(it->upto = malloc(sizeof(uint64_t) * (size_t)w))) {
      c->nomem = true;
      goto out;
    }
    it->pos = n;
    for (int x = 0; x < w; x++) it->upto[x] = ~(uint64_t)0;
    for (int m = 0; m < it->k; m++) {
      const uint64_t *a = c->anc + (size_t)it->ops[m] * w;
      int me = it->ops[m];
      for (int x = 0; x < w; x++) it->upto[x] &= a[x] | (x == me >> 6 ? (uint64_t)1 << (me & 63) : 0);
      if (pos[it->ops[m]] < it->pos) it->pos = pos[it->ops[m]];
    }
  }
  for (int a = 1; a < ni; a++)
    for (int b = a; b > 0 && items[b].pos < items[b - 1].pos; b--) {
      Item x = items[b];
      items[b] = items[b - 1], items[b - 1] = x;
    }
  /* after[i][j]: every member of j is a descendant of every member of i (base DAG) */
  bool *after = calloc((size_t)ni * (size_t)ni + 1, sizeof(bool));
  if (!after) {
    c->nomem = true;
    goto out;
  }
  for (int i = 0; i < ni; i++)
    for (int j = i + 1; j < ni; j++) {
      bool ok = true;
      for (int a = 0; a < items[i].k && ok; a++)
        for (int b = 0; b < items[j].k && ok; b++) ok = Cb_desc(c, items[i].ops[a], items[j].ops[b]);
      after[(size_t)i * ni + j] = ok;
    }
  /* each item's best sub-chain per extension and next item, priced with every spill
   * (to choose the chain); a group links to its GROUP_NEAR nearest later items */
  for (int i = 0; i < ni && !c->stopped; i++) {
    Item *it = &items[i];
    if (!(it->val = malloc(sizeof(int64_t) * (size_t)it->next * (size_t)(ni + 1)))) {
      c->nomem = true;
      break;
    }
    for (size_t x = 0; x < (size_t)it->next * (size_t)(ni + 1); x++) it->val[x] = -1;
    for (int e = 0; e < it->next && !c->stopped; e++) {
      const int *seq = it->ext + (size_t)e * it->k;
      int64_t P[GROUP_OPS][GROUP_OPS];
      int sub[GROUP_OPS], len, near = 0;
      if (it->k > 1 && !Cb_follow(c, saved, seq, it->k)) break;
      if (!Cb_pairs(c, seq, it->k, all_ok, P)) break;
      for (int j = i + 1; j <= ni && !c->stopped; j++) {
        if (j < ni && (!after[(size_t)i * ni + j] || (it->k > 1 && near >= GROUP_NEAR))) continue;
        near += j < ni;
        it->val[(size_t)e * (ni + 1) + j] = Cb_subchain(c, seq, it->k, P, j < ni ? items[j].upto : NULL, all_ok, sub, &len);
      }
    }
    if (it->k > 1 && !c->nomem && !Cb_follow(c, saved, NULL, 0)) break; /* back to the base DAG */
  }
  if (c->stopped || c->nomem) {
    free(after);
    memcpy(c->npred, saved, sizeof(int) * (size_t)n);
    if (!c->nomem) Cb_closure(c);
    goto out;
  }
  /* the longest path, from the end */
  for (int i = ni - 1; i >= 0; i--) {
    best[i] = -1, nextj[i] = -1;
    for (int j = i + 1; j <= ni; j++) {
      if (j < ni && (!after[(size_t)i * ni + j] || best[j] <= 0)) continue;
      int64_t cost = -1;
      for (int e = 0; e < items[i].next && cost != -2; e++) {
        int64_t x = items[i].val[(size_t)e * (ni + 1) + j];
        if (x < 0) cost = -2; /* not priced: no link */
        else if (cost < 0 || x < cost) cost = x;
      }
      if (cost < 0) continue;
      if (j < ni) cost += best[j];
      if (cost > best[i]) best[i] = cost, nextj[i] = j < ni ? j : -1;
    }
  }
  free(after);
  int start = -1, k = 0;
  for (int i = 0; i < ni; i++)
    if (best[i] > 0 && (start < 0 || best[i] > best[start])) start = i;
  if (start < 0) {
    result = 0;
    goto out;
  }
  for (int i = start; i >= 0; i = nextj[i]) chain[k++] = i;
  subs = malloc(sizeof(int) * (size_t)k * GROUP_EXTS * (GROUP_OPS + 1));
  if (!subs) {
    c->nomem = true;
    goto out;
  }
  /* the chain priced again: pass 0 picks each extension's sub-chain (every spill
   * priced) and counts where each must tensor appears, the most over the extensions
   * of each item; pass 1 prices those sub-chains with a must tensor's spill only
   * where it is must at one checkpoint of the whole chain (so in any one order too) */
  for (int pass = 0; pass < 2; pass++) {
    int64_t total = 0;
    for (int z = 0; z < k; z++) {
      Item *it = &items[chain[z]];
      const uint64_t *up = z + 1 < k ? items[chain[z + 1]].upto : NULL;
      int64_t least = -1;
      for (int e = 0; e < it->next; e++) {
        const int *seq = it->ext + (size_t)e * it->k;
        int *sub = subs + ((size_t)z * GROUP_EXTS + e) * (GROUP_OPS + 1), len;
        if (it->k > 1 && !Cb_follow(c, saved, seq, it->k)) goto restore;
        if (pass == 0) {
          int64_t P[GROUP_OPS][GROUP_OPS];
          if (!Cb_pairs(c, seq, it->k, all_ok, P) || Cb_subchain(c, seq, it->k, P, up, all_ok, sub + 1, &len) < 0)
            goto restore;
          sub[0] = len;
        }
        int64_t sum = 0;
        for (int q = 0; q < sub[0]; q++) {
          int v = seq[sub[1 + q]];
          const uint64_t *u = up;
          if (q + 1 < sub[0]) {
            int nx = seq[sub[2 + q]];
            memcpy(c->upto, c->anc + (size_t)nx * w, sizeof(uint64_t) * (size_t)w);
            Bitset_set(c->upto, nx);
            u = c->upto;
          }
          Term tm;
          if (Cb_over(c) || !Term_buildUpto(c, v, u, &tm)) {
            c->nomem |= !c->stopped;
            goto restore;
          }
          int64_t cost, fm;
          if (pass == 0)
            for (int m = 0; m < tm.nmust; m++) ecount[tm.must[m]]++;
          else
            Term_cost(c, v, &tm, spill_ok, false, &cost, &fm), sum += cost;
          Term_free(&tm);
        }
        if (pass == 0) /* the most appearances in any one extension */
          for (int t = 0; t < nt; t++) icount[t] = icount[t] > ecount[t] ? icount[t] : ecount[t], ecount[t] = 0;
        else if (least < 0 || sum < least)
          least = sum;
      }
      if (pass == 0)
        for (int t = 0; t < nt; t++) count[t] += icount[t], icount[t] = 0;
      total += least > 0 ? least : 0;
    }
    if (pass == 0)
      for (int t = 0; t < nt; t++) spill_ok[t] = count[t] == 1;
    else
      result = total;
  }
restore:
  memcpy(c->npred, saved, sizeof(int) * (size_t)n);
  if (!c->nomem) Cb_closure(c);
out:
  for (int i = 0; items && i < ni; i++) Item_free(&items[i]);
  free(items), free(saved), free(pos), free(seeds), free(chain), free(key), free(best), free(nextj), free(count);
  free(subs), free(ecount), free(icount), free(all_ok), free(spill_ok);
  return c->stopped || c->nomem ? -1 : result;
}

Status Cosma_orderBound(const Net *net, bool params, int64_t budget, const CosmaBoundOptions *opt,
                        CosmaBoundResult *res, SpError *err) {
  CosmaBoundOptions defaults;
  if (!opt) CosmaBoundOptions_init(&defaults), opt = &defaults;
  memset(res, 0, sizeof *res);
  double t0 = Clock_now();
  Cb c = {.net = net, .params = params, .budget = budget, .n = net->nops, .nt = net->ntensors,
          .w = Bitset_words(net->nops), .deadline = opt->deadline, .cancel = opt->cancel,
          .work_end = opt->work > 0 ? WorkClock_now() + opt->work : 0};
  int n = c.n, nt = c.nt;
  Status st = SP_OK;
  int *cand = NULL, *H = NULL, *perm = NULL, *order = NULL;
  int64_t *key = NULL;
  c.on = malloc(sizeof(bool) * (size_t)(nt + 1));
  c.own = calloc((size_t)n + 1, sizeof(int64_t));
  c.pred = calloc((size_t)n + 1, sizeof(int *));
  c.npred = calloc((size_t)n + 1, sizeof(int));
  c.predcap = calloc((size_t)n + 1, sizeof(int));
  c.anc = malloc(sizeof(uint64_t) * ((size_t)n * (size_t)c.w + 1));
  c.desc = malloc(sizeof(uint64_t) * ((size_t)n * (size_t)c.w + 1));
  c.topo = malloc(sizeof(int) * ((size_t)n + 1));
  c.tmark = malloc(sizeof(int) * ((size_t)nt + 1));
  c.upto = malloc(sizeof(uint64_t) * ((size_t)c.w + 1));
  cand = malloc(sizeof(int) * ((size_t)n + 1));
  key = malloc(sizeof(int64_t) * ((size_t)n + 1));
  H = malloc(sizeof(int) * ((size_t)n + 1)), perm = malloc(sizeof(int) * ((size_t)n + 1));
  order = malloc(sizeof(int) * ((size_t)n + 1));
  if (!c.on || !c.own || !c.pred || !c.npred || !c.predcap || !c.anc || !c.desc || !c.topo || !c.tmark || !c.upto || !cand ||
      !key || !H || !perm || !order) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  for (int t = 0; t < nt; t++) {
    const Tensor *tt = &net->tensors[t];
    c.on[t] = Net_onChip(net, t, params) && !(tt->producer < 0 && tt->nconsumers == 0);
    c.tmark[t] = -1;
  }
  for (int v = 0; v < n; v++) {
    const Op *op = &net->ops[v];
    for (int k = 0; k < op->ninputs + op->noutputs; k++) {
      int t = k < op->ninputs ? op->inputs[k] : op->outputs[k - op->ninputs];
      if (c.on[t] && c.tmark[t] != v) c.tmark[t] = v, c.own[v] += net->tensors[t].bytes;
      if (k < op->ninputs) {
        int p = net->tensors[t].producer;
        bool dup = p < 0;
        for (int q = 0; !dup && q < c.npred[v]; q++) dup = c.pred[v][q] == p;
        if (!dup && !Cb_addPred(&c, v, p)) {
          st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
          goto out;
        }
      }
    }
  }
  if (!Cb_closure(&c)) {
    st = SpError_set(err, SP_ERR_FORMAT, "%s: the ops form a cycle", net->name);
    goto out;
  }
  /* checkpoints: ops that need an eviction on their own, the most costly first */
  bool *all_ok = malloc(sizeof(bool) * (size_t)(nt + 1));
  if (!all_ok) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  for (int t = 0; t < nt; t++) all_ok[t] = true;
  int ncand = 0;
  for (int v = 0; v < n && !Cb_over(&c); v++) {
    Term tm;
    int64_t cost, fm;
    if (!Term_build(&c, v, -1, &tm)) {
      c.nomem = true;
      break;
    }
    Term_cost(&c, v, &tm, all_ok, false, &cost, &fm);
    Term_free(&tm);
    if (cost > 0) key[v] = cost, cand[ncand++] = v;
  }
  free(all_ok);
  if (c.nomem) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  if (c.stopped) goto stopped;
  for (int a = 1; a < ncand; a++)
    for (int b = a; b > 0 && key[cand[b]] > key[cand[b - 1]]; b--) {
      int x = cand[b];
      cand[b] = cand[b - 1], cand[b - 1] = x;
    }
  if (ncand > opt->max_checkpoints) ncand = opt->max_checkpoints;
  int len = 0;
  int64_t base = Cb_chain(&c, cand, ncand, &len);
  if (c.nomem) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  if (base < 0) goto stopped;
  res->bound = base, res->checkpoints = len, res->complete = true, res->combined = c.combined;
  if (opt->target > 0 && base >= opt->target) goto done; /* the caller's plan is proven: no orders to try */
  if (opt->max_groups > 0) { /* a few parallel ops in every relative order, chained like checkpoints */
    int64_t grouped = Cb_groupChain(&c, cand, ncand, opt->max_groups, &res->groups);
    if (c.nomem) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
      goto out;
    }
    if (grouped < 0) goto stopped;
    if (grouped > res->bound) res->bound = grouped, res->combined = false, res->by_groups = true;
    if (opt->target > 0 && res->bound >= opt->target) goto done;
  }
  /* tight parallel ops: the antichain whose relative orders are enumerated */
  int64_t maxsz = 0;
  for (int t = 0; t < nt; t++)
    if (c.on[t] && net->tensors[t].bytes > maxsz) maxsz = net->tensors[t].bytes;
  for (int v = 0; v < n; v++) order[v] = v;
  for (int a = 1; a < n; a++) /* by slack, ascending */
    for (int b = a; b > 0 && c.own[order[b]] > c.own[order[b - 1]]; b--) {
      int x = order[b];
      order[b] = order[b - 1], order[b - 1] = x;
    }
  int nh = 0;
  for (int i = 0; i < n && nh < opt->max_antichain; i++) {
    int v = order[i];
    if (budget - c.own[v] >= 2 * maxsz) break;
    bool free_of = true;
    for (int k = 0; k < nh && free_of; k++) free_of = !Cb_anc(&c, v, H[k]) && !Cb_desc(&c, v, H[k]);
    if (free_of) H[nh++] = v;
  }
  if (nh >= 2) {
    int64_t lowest = -1;
    bool lowest_combined = false;
    int nc2 = 0;
    for (int i = 0; i < ncand && i < 16; i++) cand[nc2++] = cand[i];
    for (int k = 0; k < nh; k++) {
      bool dup = false;
      for (int i = 0; i < nc2 && !dup; i++) dup = cand[i] == H[k];
      if (!dup) cand[nc2++] = H[k];
    }
    for (int k = 0; k < nh; k++) perm[k] = k;
    c.nbase = 0;
    int *saved = malloc(sizeof(int) * (size_t)n);
    if (!saved) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
      goto out;
    }
    memcpy(saved, c.npred, sizeof(int) * (size_t)n);
    do {
      memcpy(c.npred, saved, sizeof(int) * (size_t)n);
      bool okp = true;
      for (int k = 1; k < nh && okp; k++) okp = Cb_addPred(&c, H[perm[k]], H[perm[k - 1]]);
      if (!okp) {
        free(saved);
        st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
        goto out;
      }
      if (!Cb_closure(&c)) continue; /* cannot happen for an antichain */
      int l2 = 0;
      int64_t b2 = Cb_chain(&c, cand, nc2, &l2);
      res->orders++;
      if (b2 < 0) {
        lowest = -1;
        break;
      }
      if (lowest < 0 || b2 < lowest) lowest = b2, lowest_combined = c.combined;
    } while (Cb_nextPerm(perm, nh) && lowest != 0);
    memcpy(c.npred, saved, sizeof(int) * (size_t)n);
    free(saved);
    if (c.nomem) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
      goto out;
    }
    res->antichain = nh;
    if (lowest < 0) res->complete = false; /* stopped: the chain bound alone stands */
    else if (lowest > res->bound) res->bound = lowest, res->combined = lowest_combined;
  }
  goto done;
stopped:
  res->complete = false;
done:
  res->bound += opt->test_bias;
  if (res->bound < 0) res->bound = 0;
out:
  res->seconds = Clock_now() - t0;
  res->cuts = c.cuts;
  for (int v = 0; c.pred && v < n; v++) free(c.pred[v]);
  free(c.on), free(c.own), free(c.pred), free(c.npred), free(c.predcap), free(c.anc), free(c.desc), free(c.topo);
  free(c.tmark), free(c.upto), free(cand), free(key), free(H), free(perm), free(order);
  Flow_free(&c.flow);
  return st;
}

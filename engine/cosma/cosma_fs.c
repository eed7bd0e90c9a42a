/* COSMA's allocation + replacement ILP for a fixed schedule (Eqs. 16-17): see
 * cosma.h. This file builds the models and the pipeline; ilp.c solves them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "clock.h"
#include "workclock.h"
#include "cosma_model.h"
#include "figures.h"
#include "pack/pack.h"
#include "sim.h"

/* ============ allocation + replacement for a fixed schedule (Eqs. 16-17) ============ */

typedef struct {
  const Net *net;
  bool params;
  int64_t budget;
  const int *order;
  int n, nt;
  int64_t g, cap;          /* address unit; budget in units */
  int *pos;                /* op -> step */
  int *evs, *ev;           /* tensor t's events: ev[evs[t] .. evs[t+1]), ascending steps */
  int *ptensor;            /* piece (= event index into ev) -> tensor */
  int64_t *sz;             /* bytes / g */
  bool *paid_spill;        /* non-output activation: its first eviction is a paid spill */
  int *gcol, *scol, *acol; /* per tensor: eviction column of gap 0, spill column, address column of piece 0 */
  int npairs, cappairs;
  int *pp, *pq, *pcond, *pcol; /* pair of pieces, the condition's eviction column (-1: always), order column */
  CosmaBuildLimit lim; /* building stops (Fs_build gives NULL, lim.hit set) at it */
} Fs;

static bool Fs_over(Fs *f, const IlpModel *m) { return CosmaBuildLimit_over(&f->lim, m); }
static void Fs_limit(Fs *f, double deadline, double seconds, atomic_int *cancel) {
  CosmaBuildLimit_set(&f->lim, deadline, seconds, cancel);
}

/* The limits for a build now, under a time limit tl counted on the work clock from
 * w0 (<= 0: none), and the wall clock's s->deadline. Past the limit a model still
 * gets the 0.05 s the solves below give it, so a small model is still built and
 * solved when the heuristics used the time. */
static void Fs_limitLeft(Fs *f, double w0, double tl, const SolveSettings *s) {
  double left = tl > 0 ? tl - (WorkClock_now() - w0) : 0;
  if (tl > 0 && left < 0.05) left = 0.05;
  Fs_limit(f, s->deadline, left, s->cancel);
}

static void Fs_free(Fs *f) {
  free(f->pos), free(f->evs), free(f->ev), free(f->ptensor), free(f->sz), free(f->paid_spill);
  free(f->gcol), free(f->scol), free(f->acol), free(f->pp), free(f->pq), free(f->pcond), free(f->pcol);
}

static int Fs_nev(const Fs *f, int t) { return f->evs[t + 1] - f->evs[t]; }

static int Fs_intCmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static bool Fs_init(Fs *f, const Net *net, bool params, int64_t budget, const int *order) {
  memset(f, 0, sizeof *f);
  f->net = net, f->params = params, f->budget = budget, f->order = order;
  int n = f->n = net->nops, nt = f->nt = net->ntensors;
  f->pos = malloc(sizeof(int) * (size_t)n);
  f->evs = calloc((size_t)nt + 1, sizeof(int));
  f->sz = calloc((size_t)nt, sizeof(int64_t));
  f->paid_spill = calloc((size_t)nt, sizeof(bool));
  f->gcol = malloc(sizeof(int) * (size_t)nt);
  f->scol = malloc(sizeof(int) * (size_t)nt);
  f->acol = malloc(sizeof(int) * (size_t)nt);
  if (!f->pos || !f->evs || !f->sz || !f->paid_spill || !f->gcol || !f->scol || !f->acol) return false;
  for (int s = 0; s < n; s++) f->pos[order[s]] = s;
  int total = 0;
  for (int t = 0; t < nt; t++) {
    const Tensor *tt = &net->tensors[t];
    int k = 0;
    if (Net_onChip(net, t, params) && (tt->producer >= 0 || tt->nconsumers > 0)) k = (tt->producer >= 0) + tt->nconsumers;
    f->evs[t + 1] = f->evs[t] + k;
    total += k;
    if (Net_onChip(net, t, params)) f->g = Cosma_gcd(tt->bytes, f->g);
  }
  if (f->g <= 0) f->g = 1;
  f->cap = budget / f->g;
  f->ev = malloc(sizeof(int) * (size_t)(total + 1));
  f->ptensor = malloc(sizeof(int) * (size_t)(total + 1));
  if (!f->ev || !f->ptensor) return false;
  /* fill, sort, dedupe (an op may read a tensor twice: consumers are distinct ops, so no) */
  for (int t = 0; t < nt; t++) {
    const Tensor *tt = &net->tensors[t];
    int at = f->evs[t], k = 0;
    if (f->evs[t + 1] == at) continue;
    if (tt->producer >= 0) f->ev[at + k++] = f->pos[tt->producer];
    for (int c = 0; c < tt->nconsumers; c++) f->ev[at + k++] = f->pos[tt->consumers[c]];
    qsort(f->ev + at, (size_t)k, sizeof(int), Fs_intCmp);
    for (int i = 0; i < k; i++) f->ptensor[at + i] = t;
    f->sz[t] = tt->bytes / f->g;
    f->paid_spill[t] = tt->kind == TK_ACTIVATION;
  }
  return true;
}

/* Builds the model: eviction binaries per gap, spills, capacity rows; with `full`
 * also addresses, address continuity and one ordering binary per pair of pieces
 * that may be resident together. */
static IlpModel *Fs_build(Fs *f, bool full) {
  IlpModel *m = IlpModel_new();
  if (!m) return NULL;
  Row row = {0};
  int n = f->n, nt = f->nt;
  double M = (double)f->cap;
  int64_t *fixed = NULL;
  int *cnt = NULL;
  for (int t = 0; t < nt; t++) f->gcol[t] = f->scol[t] = f->acol[t] = -1;
  for (int t = 0; t < nt; t++) {
    if (Fs_over(f, m)) goto fail;
    int k = Fs_nev(f, t);
    if (k == 0) continue;
    if (k > 1) {
      f->gcol[t] = IlpModel_ncols(m);
      for (int i = 0; i + 1 < k; i++) IlpModel_addCol(m, ILP_BINARY, 0, 1, (double)f->sz[t]); /* a retrieval */
      if (f->paid_spill[t]) {
        f->scol[t] = IlpModel_addCol(m, ILP_CONTINUOUS, 0, 1, (double)f->sz[t]);
        for (int i = 0; i + 1 < k; i++) {
          Row_add(&row, f->gcol[t] + i, 1);
          Row_add(&row, f->scol[t], -1);
          Row_commit(m, &row, -ILP_INF, 0);
        }
      }
    }
    if (full) {
      f->acol[t] = IlpModel_ncols(m);
      for (int i = 0; i < k; i++) IlpModel_addCol(m, ILP_INTEGER, 0, (double)(f->cap - f->sz[t]), 0);
      for (int i = 0; i + 1 < k; i++) { /* kept gap: same address */
        Row_add(&row, f->acol[t] + i + 1, 1);
        Row_add(&row, f->acol[t] + i, -1);
        Row_add(&row, f->gcol[t] + i, -M);
        Row_commit(m, &row, -ILP_INF, 0);
        Row_add(&row, f->acol[t] + i, 1);
        Row_add(&row, f->acol[t] + i + 1, -1);
        Row_add(&row, f->gcol[t] + i, -M);
        Row_commit(m, &row, -ILP_INF, 0);
      }
    }
  }
  /* Capacity per step: events are fixed bytes, gap interiors are resident unless evicted. */
  fixed = calloc((size_t)n, sizeof(int64_t));
  cnt = calloc((size_t)n + 1, sizeof(int));
  if (!fixed || !cnt) goto fail;
  for (int t = 0; t < nt; t++)
    for (int i = f->evs[t]; i < f->evs[t + 1]; i++) {
      fixed[f->ev[i]] += f->sz[t];
      if (i + 1 < f->evs[t + 1])
        for (int q = f->ev[i] + 1; q < f->ev[i + 1]; q++) cnt[q + 1]++, fixed[q] += f->sz[t];
    }
  for (int q = 0; q < n; q++) cnt[q + 1] += cnt[q];
  int *ent = malloc(sizeof(int) * (size_t)(cnt[n] + 1)), *fill = calloc((size_t)n, sizeof(int));
  if (!ent || !fill) {
    free(ent), free(fill);
    goto fail;
  }
  for (int t = 0; t < nt; t++)
    for (int i = f->evs[t]; i + 1 < f->evs[t + 1]; i++)
      for (int q = f->ev[i] + 1; q < f->ev[i + 1]; q++) ent[cnt[q] + fill[q]++] = i; /* gap i (piece id) */
  for (int q = 0; q < n; q++) {
    if (cnt[q + 1] == cnt[q] || fixed[q] <= f->cap) continue; /* nothing to decide, or always fits */
    if (Fs_over(f, m)) {
      free(ent), free(fill);
      goto fail;
    }
    for (int k = cnt[q]; k < cnt[q + 1]; k++) {
      int pc = ent[k], t = f->ptensor[pc];
      Row_add(&row, f->gcol[t] + pc - f->evs[t], -(double)f->sz[t]);
    }
    Row_commit(m, &row, -ILP_INF, (double)(f->cap - fixed[q]));
  }
  if (full) {
    /* Pieces active at each step: piece i of t covers [e_i, e_{i+1} - 1] (the last: [e_k, e_k]). */
    int total = f->evs[nt];
    int *acnt = calloc((size_t)n + 1, sizeof(int));
    if (!acnt) {
      free(ent), free(fill);
      goto fail;
    }
    for (int pc = 0; pc < total; pc++) {
      int t = f->ptensor[pc];
      int end = pc + 1 < f->evs[t + 1] ? f->ev[pc + 1] - 1 : f->ev[pc];
      for (int q = f->ev[pc]; q <= end; q++) acnt[q + 1]++;
    }
    for (int q = 0; q < n; q++) acnt[q + 1] += acnt[q];
    int *act = malloc(sizeof(int) * (size_t)(acnt[n] + 1));
    memset(fill, 0, sizeof(int) * (size_t)n);
    if (!act) {
      free(acnt), free(ent), free(fill);
      goto fail;
    }
    for (int pc = 0; pc < total; pc++) {
      int t = f->ptensor[pc];
      int end = pc + 1 < f->evs[t + 1] ? f->ev[pc + 1] - 1 : f->ev[pc];
      for (int q = f->ev[pc]; q <= end; q++) act[acnt[q] + fill[q]++] = pc;
    }
    f->npairs = 0;
    for (int q = 0; q < n; q++)
      for (int a = acnt[q]; a < acnt[q + 1]; a++) {
        int p = act[a];
        if (f->ev[p] != q) continue; /* p starts here */
        if (Fs_over(f, m)) {
          free(act), free(acnt), free(ent), free(fill);
          goto fail;
        }
        for (int b = acnt[q]; b < acnt[q + 1]; b++) {
          int r = act[b];
          if (f->ptensor[r] == f->ptensor[p] || (f->ev[r] == q && r >= p)) continue;
          int tp = f->ptensor[p], tr = f->ptensor[r];
          int cond = f->ev[r] < q ? f->gcol[tr] + r - f->evs[tr] : -1; /* r started earlier: only if kept */
          if (f->sz[tp] + f->sz[tr] > f->cap) { /* cannot be together: r must be evicted */
            if (cond >= 0) {
              Row_add(&row, cond, 1);
              Row_commit(m, &row, 1, 1);
            }
            continue;
          }
          if (f->npairs == f->cappairs) {
            int cap = f->cappairs ? f->cappairs * 2 : 256;
            int *x1 = realloc(f->pp, sizeof(int) * (size_t)cap);
            if (x1) f->pp = x1;
            int *x2 = realloc(f->pq, sizeof(int) * (size_t)cap);
            if (x2) f->pq = x2;
            int *x3 = realloc(f->pcond, sizeof(int) * (size_t)cap);
            if (x3) f->pcond = x3;
            int *x4 = realloc(f->pcol, sizeof(int) * (size_t)cap);
            if (x4) f->pcol = x4;
            if (!x1 || !x2 || !x3 || !x4) {
              free(act), free(acnt), free(ent), free(fill);
              goto fail;
            }
            f->cappairs = cap;
          }
          int o = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
          int ap = f->acol[tp] + p - f->evs[tp], ar = f->acol[tr] + r - f->evs[tr];
          f->pp[f->npairs] = p, f->pq[f->npairs] = r, f->pcond[f->npairs] = cond, f->pcol[f->npairs] = o;
          f->npairs++;
          /* o = 1: p below r (A_p + s_p <= A_r); o = 0: r below p. Relaxed when r is evicted. */
          Row_add(&row, ap, 1), Row_add(&row, ar, -1), Row_add(&row, o, M), Row_add(&row, cond, -M);
          Row_commit(m, &row, -ILP_INF, M - (double)f->sz[tp]);
          Row_add(&row, ar, 1), Row_add(&row, ap, -1), Row_add(&row, o, -M), Row_add(&row, cond, -M);
          Row_commit(m, &row, -ILP_INF, -(double)f->sz[tr]);
        }
      }
    free(act), free(acnt);
  }
  free(ent), free(fill), free(fixed), free(cnt);
  if (row.nomem) {
    Row_free(&row);
    IlpModel_free(m);
    return NULL;
  }
  Row_free(&row);
  return m;
fail:
  free(fixed), free(cnt);
  Row_free(&row);
  IlpModel_free(m);
  return NULL;
}

/* The column values a plan implies (false if it does not fit the model's shape). */
static bool Fs_assign(const Fs *f, const Plan *plan, bool full, double *x, int ncols) {
  int total = f->evs[f->nt];
  int *stay_of = malloc(sizeof(int) * (size_t)(total + 1));
  if (!stay_of) return false;
  memset(x, 0, sizeof(double) * (size_t)ncols);
  for (int pc = 0; pc < total; pc++) stay_of[pc] = -1;
  for (int i = 0; i < plan->nstays; i++) {
    const Stay *st = &plan->stays[i];
    for (int pc = f->evs[st->tensor]; pc < f->evs[st->tensor + 1]; pc++)
      if (st->start <= f->ev[pc] && f->ev[pc] <= st->end) stay_of[pc] = i;
  }
  bool ok = true;
  for (int t = 0; t < f->nt && ok; t++)
    for (int pc = f->evs[t]; pc < f->evs[t + 1] && ok; pc++) {
      int i = pc - f->evs[t];
      if (stay_of[pc] < 0) {
        ok = false;
        break;
      }
      if (pc + 1 < f->evs[t + 1] && stay_of[pc + 1] != stay_of[pc]) {
        x[f->gcol[t] + i] = 1;
        if (f->scol[t] >= 0) x[f->scol[t]] = 1;
      }
      if (full) {
        int64_t off = plan->stays[stay_of[pc]].offset;
        if (off % f->g) ok = false;
        x[f->acol[t] + i] = (double)(off / f->g);
      }
    }
  for (int k = 0; full && ok && k < f->npairs; k++) {
    int p = f->pp[k], r = f->pq[k];
    bool together = f->pcond[k] < 0 || x[f->pcond[k]] < 0.5;
    int tp = f->ptensor[p], tr = f->ptensor[r];
    double ap = x[f->acol[tp] + p - f->evs[tp]], ar = x[f->acol[tr] + r - f->evs[tr]];
    x[f->pcol[k]] = together && ap + (double)f->sz[tp] <= ar ? 1 : 0;
  }
  free(stay_of);
  return ok;
}

/* A plan from eviction decisions (evicted[piece] for each gap) and addresses (units, per piece). */
static Status Fs_toPlan(const Fs *f, const unsigned char *evicted, const int64_t *addr, Plan **out) {
  const Net *net = f->net;
  Plan *plan = Plan_new(net, f->params, f->budget);
  if (!plan) return SP_ERR_NOMEM;
  memcpy(plan->order, f->order, sizeof(int) * (size_t)f->n);
  for (int t = 0; t < f->nt; t++) {
    int a = f->evs[t], b = f->evs[t + 1];
    const Tensor *tt = &net->tensors[t];
    bool host = tt->producer < 0;
    for (int i = a; i < b;) {
      int j = i;
      while (j + 1 < b && !evicted[j]) j++;
      Stay st = {.tensor = t, .offset = addr[i] * f->g, .start = f->ev[i], .end = f->ev[j]};
      st.in = i > a ? STAY_RETRIEVE : tt->producer >= 0 ? STAY_CREATE : STAY_LOAD;
      if (j + 1 == b) st.out = tt->kind == TK_OUTPUT && !host ? STAY_STORE : STAY_FREE;
      else st.out = host ? STAY_DROP : STAY_SPILL, host = true;
      if (Plan_addStay(plan, st)) {
        Plan_free(plan);
        return SP_ERR_NOMEM;
      }
      i = j + 1;
    }
  }
  if (Plan_computeMetrics(plan, net)) {
    Plan_free(plan);
    return SP_ERR_NOMEM;
  }
  *out = plan;
  return SP_OK;
}

typedef struct {
  int piece, start, end;
  int64_t sz;
} Seg;

static int Seg_bySize(const void *a, const void *b) {
  const Seg *x = a, *y = b;
  if (x->sz != y->sz) return x->sz > y->sz ? -1 : 1;
  if (x->end - x->start != y->end - y->start) return (y->end - y->start) - (x->end - x->start);
  return x->start - y->start;
}

static int Seg_byLength(const void *a, const void *b) {
  const Seg *x = a, *y = b;
  if (x->end - x->start != y->end - y->start) return (y->end - y->start) - (x->end - x->start);
  if (x->sz != y->sz) return x->sz > y->sz ? -1 : 1;
  return x->start - y->start;
}

static int Seg_byArea(const void *a, const void *b) {
  const Seg *x = a, *y = b;
  int64_t ax = x->sz * (x->end - x->start + 1), ay = y->sz * (y->end - y->start + 1);
  if (ax != ay) return ax > ay ? -1 : 1;
  return Seg_bySize(a, b);
}

static int Seg_byStart(const void *a, const void *b) {
  const Seg *x = a, *y = b;
  if (x->start != y->start) return x->start - y->start;
  return x->sz > y->sz ? -1 : x->sz < y->sz;
}

/* Offline placement of fixed stays (greedy: each at the lowest gap among the
 * already placed stays it meets in time). addr gets units per piece. */
static int (*const Fs_orders[])(const void *, const void *) = {Seg_bySize, Seg_byArea, Seg_byLength, Seg_byStart};
enum { FS_ORDERS = 4 };

static bool Fs_place(const Fs *f, const unsigned char *evicted, int64_t *addr, int how) {
  int total = f->evs[f->nt], nseg = 0;
  Seg *seg = malloc(sizeof(Seg) * (size_t)(total + 1));
  int64_t *off = malloc(sizeof(int64_t) * (size_t)(total + 1));
  int *placed = malloc(sizeof(int) * (size_t)(total + 1));
  Seg *busy = malloc(sizeof(Seg) * (size_t)(total + 1));
  bool ok = seg && off && placed && busy;
  for (int t = 0; ok && t < f->nt; t++)
    for (int i = f->evs[t]; i < f->evs[t + 1];) {
      int j = i;
      while (j + 1 < f->evs[t + 1] && !evicted[j]) j++;
      seg[nseg++] = (Seg){i, f->ev[i], f->ev[j], f->sz[t]};
      i = j + 1;
    }
  if (ok) qsort(seg, (size_t)nseg, sizeof(Seg), Fs_orders[how]);
  int nplaced = 0;
  for (int k = 0; ok && k < nseg; k++) {
    int nb = 0;
    for (int j = 0; j < nplaced; j++) {
      const Seg *o = &seg[placed[j]];
      if (o->start <= seg[k].end && seg[k].start <= o->end) busy[nb] = *o, busy[nb++].piece = placed[j];
    }
    /* sort busy by offset (insertion sort; few) */
    for (int a = 1; a < nb; a++)
      for (int b = a; b > 0 && off[busy[b].piece] < off[busy[b - 1].piece]; b--) {
        Seg tmp = busy[b];
        busy[b] = busy[b - 1];
        busy[b - 1] = tmp;
      }
    int64_t at = 0;
    for (int a = 0; a < nb; a++) {
      if (off[busy[a].piece] - at >= seg[k].sz) break;
      int64_t top = off[busy[a].piece] + busy[a].sz;
      if (top > at) at = top;
    }
    if (at + seg[k].sz > f->cap) ok = false;
    off[k] = at;
    placed[nplaced++] = k;
  }
  if (ok)
    for (int k = 0; k < nseg; k++) {
      int t = f->ptensor[seg[k].piece];
      for (int i = seg[k].piece; i < f->evs[t + 1] && f->ev[i] <= seg[k].end; i++) addr[i] = off[k];
    }
  free(seg), free(off), free(placed), free(busy);
  return ok;
}

/* The stays of an eviction pattern (one per run of events with no eviction
 * between): their pieces and step ranges. */
static int Fs_segments(const Fs *f, const unsigned char *evicted, Seg *seg) {
  int nseg = 0;
  for (int t = 0; t < f->nt; t++)
    for (int i = f->evs[t]; i < f->evs[t + 1];) {
      int j = i;
      while (j + 1 < f->evs[t + 1] && !evicted[j]) j++;
      seg[nseg++] = (Seg){i, f->ev[i], f->ev[j], f->sz[t]};
      i = j + 1;
    }
  return nseg;
}

/* Places the stays of an eviction pattern with the exact packer (engine/pack).
 * PACK_FOUND: addr filled. PACK_INFEASIBLE: when cut is not NULL, a logic-based
 * Benders cut is added to it: the eviction columns inside a small set of stays
 * the packer proves cannot share the budget (at least one of those gaps must be
 * evicted; stays that contain no gap are forced and take no part). *cut_added
 * says whether a row went in (no row: every stay of the core is forced). */
static PackResultStatus Fs_packExact(const Fs *f, const unsigned char *evicted, int64_t *addr, double time_limit,
                                     const SolveSettings *s, IlpModel *cut, bool *cut_added, Status *st) {
  int total = f->evs[f->nt];
  Seg *seg = malloc(sizeof(Seg) * (size_t)(total + 1));
  PackBuffer *b = malloc(sizeof(PackBuffer) * (size_t)(total + 1));
  bool *keep = malloc(sizeof(bool) * (size_t)(total + 1)), *core = malloc(sizeof(bool) * (size_t)(total + 1));
  int *cols = malloc(sizeof(int) * (size_t)(total + 1));
  double *coef = malloc(sizeof(double) * (size_t)(total + 1));
  PackResultStatus res = PACK_UNKNOWN;
  *cut_added = false;
  *st = SP_OK;
  if (!seg || !b || !keep || !core || !cols || !coef) {
    *st = SP_ERR_NOMEM;
    goto done;
  }
  int nseg = Fs_segments(f, evicted, seg);
  for (int k = 0; k < nseg; k++) {
    b[k] = (PackBuffer){seg[k].start, (int64_t)seg[k].end + 1, seg[k].sz, 0};
    keep[k] = seg[k].start == seg[k].end || f->ev[seg[k].piece] == seg[k].end; /* no gap inside: forced */
  }
  PackOptions po;
  PackOptions_init(&po);
  po.node_limit = Pack_nodesFor(time_limit); /* nominal seconds: a node count */
  po.time_limit = Cosma_wallLeft(s);
  po.cancel = s->cancel;
  PackResult r;
  SpError e;
  if ((*st = Pack_solve(b, nseg, f->cap, &po, &r, &e))) goto done;
  res = r.status;
  if (res == PACK_FOUND || res == PACK_OPTIMAL) {
    res = PACK_FOUND;
    for (int k = 0; k < nseg; k++) {
      int t = f->ptensor[seg[k].piece];
      for (int i = seg[k].piece; i < f->evs[t + 1] && f->ev[i] <= seg[k].end; i++) addr[i] = r.offsets[k];
    }
  }
  PackResult_free(&r);
  if (res != PACK_INFEASIBLE || !cut) goto done;
  bool found;
  if ((*st = Pack_infeasibleCore(b, nseg, f->cap, &po, keep, core, &found, &e)) || !found) goto done;
  int nc = 0;
  for (int k = 0; k < nseg; k++) {
    if (!core[k]) continue;
    int t = f->ptensor[seg[k].piece];
    for (int pc = seg[k].piece; pc + 1 < f->evs[t + 1] && f->ev[pc + 1] <= seg[k].end; pc++) {
      cols[nc] = f->gcol[t] + pc - f->evs[t];
      coef[nc++] = 1;
    }
  }
  if (nc > 0) {
    if (IlpModel_addRow(cut, 1, ILP_INF, nc, cols, coef) < 0) *st = SP_ERR_NOMEM;
    else *cut_added = true;
  }
done:
  free(seg), free(b), free(keep), free(core), free(cols), free(coef);
  return res;
}

static int64_t Plan_cost(const Plan *p) { return p->metrics.noncompulsory_bytes; }

Status Cosma_replacement(const Net *net, const SolveSettings *s, const int *order, const CosmaFsOptions *opt,
                         Plan **out, CosmaFsStats *stats, SpError *err) {
  *out = NULL;
  double t0 = Clock_now(), w0 = WorkClock_now(); /* w0: the stages' shares; t0: seconds reported */
  CosmaFsStats local;
  CosmaFsOptions defaults = {0};
  if (!stats) stats = &local;
  if (!opt) opt = &defaults;
  memset(stats, 0, sizeof *stats);
  int64_t m_r = Figures_minRequired(net, s->params);
  if (s->budget < m_r)
    return SpError_set(err, SP_ERR_INFEASIBLE, "infeasible: budget %lld < M_R = %lld bytes", (long long)s->budget,
                       (long long)m_r);
  Relay relay = {.s = s, .t0 = t0, .scale = 1};
  Relay_report(&relay, "heuristics", false, 0, false, 0, 0);
  /* (a) the best simulated plan */
  Plan *best = NULL;
  Status st = SP_OK;
  Cosma_bestSimulated(net, s, order, NULL, &best, stats->heuristic_policy, sizeof stats->heuristic_policy);
  if (!best) return SpError_set(err, SP_ERR_INFEASIBLE, "no simulated plan fits the budget");
  stats->heuristic_bytes = Plan_cost(best);
  stats->seconds_heuristic = Clock_now() - t0;
  Fs f;
  IlpModel *relax = NULL, *full = NULL;
  IlpResult rr = {0}, fr = {0};
  double *x = NULL;
  unsigned char *evicted = NULL;
  int64_t *addr = NULL;
  SolverStatus status = SOLVER_TIMEOUT;
  int64_t bound = 0; /* units */
  bool cancelled = false;
  if (!Fs_init(&f, net, s->params, s->budget, order)) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  stats->gcd = f.g;
  relay.scale = (double)f.g;
  relay.incumbent = (double)(Plan_cost(best) / f.g);
  relay.has_incumbent = true;
  int total = f.evs[f.nt];
  evicted = calloc((size_t)total + 1, 1);
  addr = calloc((size_t)total + 1, sizeof(int64_t));
  if (!evicted || !addr) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  if (Plan_cost(best) == 0 && !opt->force_full) {
    status = SOLVER_OPTIMAL;
    goto done;
  }
  /* (b) the replacement-only model: a lower bound */
  double tl = s->time_limit > 0 ? s->time_limit : 0;
  Fs_limitLeft(&f, w0, tl, s);
  relax = Fs_build(&f, false);
  if (!relax && f.lim.hit) { /* keep the heuristic plan; nothing proven */
    status = s->cancel && atomic_load(s->cancel) ? SOLVER_CANCELLED : SOLVER_TIMEOUT;
    goto done;
  }
  if (!relax) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory building the ILP");
    goto out;
  }
  x = malloc(sizeof(double) * ((size_t)IlpModel_ncols(relax) + 1));
  if (!x) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  IlpOptions o;
  Cosma_ilpOptions(&o, s, &relay, tl > 0 ? tl * 0.3 : 0, "relaxation");
  if (Fs_assign(&f, best, false, x, IlpModel_ncols(relax))) o.warm_start = x;
  double t1 = Clock_now();
  if ((st = Ilp_solve(relax, &o, &rr, err))) goto out;
  stats->seconds_relax = Clock_now() - t1;
  stats->relax_status = Cosma_status(rr.status);
  if (rr.status == ILP_INFEASIBLE) {
    st = SpError_set(err, SP_ERR_SOLVER, "replacement ILP (relaxation): infeasible, but a plan exists");
    goto out;
  }
  bool model_failed = rr.status == ILP_ERROR; /* GLPK gave up (numerics): keep the incumbent, prove nothing */
  cancelled = rr.status == ILP_CANCELLED;
  if (rr.has_bound) bound = (int64_t)llround(rr.bound);
  relay.bound = (double)bound, relay.has_bound = true;
  stats->relax_bound = bound * f.g;
  /* Its evictions, placed at addresses, may already be a plan at the bound: the
   * greedy orders, then the exact packer; when the packer proves the stays cannot
   * fit, a Benders cut goes into the replacement-only model and it is solved
   * again (the bound stays valid: a cut removes only patterns no addressing can
   * realise). The big-M full model below is the last resort. */
  double benders_until = tl > 0 ? tl * 0.7 : 0;
  stats->benders_rounds = 1;
  while (rr.has_solution && llround(rr.objective) * f.g < Plan_cost(best) && !cancelled) {
    for (int t = 0; t < f.nt; t++)
      for (int pc = f.evs[t]; pc + 1 < f.evs[t + 1]; pc++) evicted[pc] = rr.x[f.gcol[t] + pc - f.evs[t]] > 0.5;
    bool placed = false;
    for (int how = 0; how < FS_ORDERS && !placed; how++) placed = Fs_place(&f, evicted, addr, how);
    bool cut_added = false;
    if (!placed) {
      double left = tl > 0 ? benders_until - (WorkClock_now() - w0) : 10;
      if (tl > 0 && left < 0.5) left = 0.5;
      double tp = Clock_now();
      PackResultStatus ps = Fs_packExact(&f, evicted, addr, left, s, relax, &cut_added, &st);
      stats->seconds_pack += Clock_now() - tp;
      if (st) {
        SpError_set(err, st, "out of memory");
        goto out;
      }
      placed = ps == PACK_FOUND;
      stats->packed_exact |= placed;
    }
    if (placed) {
      Plan *p = NULL;
      if ((st = Fs_toPlan(&f, evicted, addr, &p))) {
        SpError_set(err, st, "out of memory");
        goto out;
      }
      stats->replay_fits = true;
      if (Plan_cost(p) < Plan_cost(best)) {
        Plan_free(best);
        best = p;
        relay.incumbent = (double)(Plan_cost(best) / f.g);
      } else {
        Plan_free(p);
      }
      break;
    }
    if (!cut_added || (tl > 0 && WorkClock_now() - w0 > benders_until) || (s->deadline > 0 && Clock_now() > s->deadline))
      break;
    /* re-solve the master with the cut */
    stats->benders_cuts++;
    stats->benders_rounds++;
    char label[64];
    snprintf(label, sizeof label, "benders %d (%d cuts)", stats->benders_rounds, stats->benders_cuts);
    Relay_report(&relay, label, false, 0, false, 0, 0);
    double left = tl > 0 ? benders_until - (WorkClock_now() - w0) : 0;
    if (tl > 0 && left < 0.5) left = 0.5;
    Cosma_ilpOptions(&o, s, &relay, left, label);
    o.warm_start = Fs_assign(&f, best, false, x, IlpModel_ncols(relax)) ? x : NULL;
    IlpResult_free(&rr);
    memset(&rr, 0, sizeof rr);
    if ((st = Ilp_solve(relax, &o, &rr, err))) goto out;
    if (rr.status == ILP_INFEASIBLE) {
      /* cannot be: the incumbent satisfies every cut */
      st = SpError_set(err, SP_ERR_SOLVER, "replacement ILP with placement cuts: infeasible, but a plan exists");
      goto out;
    }
    model_failed |= rr.status == ILP_ERROR;
    cancelled = rr.status == ILP_CANCELLED;
    if (rr.has_bound && (int64_t)llround(rr.bound) > bound) bound = (int64_t)llround(rr.bound);
    relay.bound = (double)bound;
    stats->relax_bound = bound * f.g;
  }
  if (Plan_cost(best) <= bound * f.g && !opt->force_full) {
    status = SOLVER_OPTIMAL;
    goto done;
  }
  if (cancelled) {
    status = SOLVER_CANCELLED;
    goto done;
  }
  /* (c) the full model, warm-started with the incumbent */
  Fs_limitLeft(&f, w0, tl, s);
  full = Fs_build(&f, true);
  if (!full && f.lim.hit) {
    status = s->cancel && atomic_load(s->cancel) ? SOLVER_CANCELLED : SOLVER_TIMEOUT;
    goto done;
  }
  if (!full) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory building the ILP");
    goto out;
  }
  stats->full_ran = true;
  stats->full_cols = IlpModel_ncols(full);
  stats->full_rows = IlpModel_nrows(full);
  stats->pairs = f.npairs;
  free(x);
  x = malloc(sizeof(double) * ((size_t)IlpModel_ncols(full) + 1));
  if (!x) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  double left = tl > 0 ? tl - (WorkClock_now() - w0) : 0;
  if (tl > 0 && left < 0.05) left = 0.05;
  Cosma_ilpOptions(&o, s, &relay, left, "full model");
  if (opt->proximity) o.proximity = Cosma_proximity(full, left);
  if (!opt->no_warm_start && Fs_assign(&f, best, true, x, IlpModel_ncols(full))) o.warm_start = x;
  t1 = Clock_now();
  if ((st = Ilp_solve(full, &o, &fr, err))) goto out;
  stats->seconds_full = Clock_now() - t1;
  stats->full_status = Cosma_status(fr.status);
  stats->full_warm_accepted = fr.warm_start_accepted;
  if (fr.status == ILP_INFEASIBLE) {
    st = SpError_set(err, SP_ERR_SOLVER, "replacement ILP (full model): infeasible, but a plan exists");
    goto out;
  }
  model_failed |= fr.status == ILP_ERROR;
  cancelled = fr.status == ILP_CANCELLED;
  if (fr.has_bound) {
    stats->full_bound = (int64_t)llround(fr.bound) * f.g;
    if ((int64_t)llround(fr.bound) > bound) bound = (int64_t)llround(fr.bound);
  }
  if (fr.has_solution && (llround(fr.objective) * f.g < Plan_cost(best) || opt->force_full)) {
    for (int t = 0; t < f.nt; t++)
      for (int pc = f.evs[t]; pc < f.evs[t + 1]; pc++) {
        if (pc + 1 < f.evs[t + 1]) evicted[pc] = fr.x[f.gcol[t] + pc - f.evs[t]] > 0.5;
        addr[pc] = llround(fr.x[f.acol[t] + pc - f.evs[t]]);
      }
    Plan *p = NULL;
    if ((st = Fs_toPlan(&f, evicted, addr, &p))) {
      SpError_set(err, st, "out of memory");
      goto out;
    }
    if (Plan_cost(p) != llround(fr.objective) * f.g) {
      st = SpError_set(err, SP_ERR_SOLVER, "replacement ILP: the solution costs %lld bytes, the model said %lld",
                       (long long)Plan_cost(p), (long long)(llround(fr.objective) * f.g));
      Plan_free(p);
      goto out;
    }
    if (Plan_cost(p) <= Plan_cost(best)) {
      Plan_free(best);
      best = p;
    } else {
      Plan_free(p);
    }
  }
  status = Plan_cost(best) <= bound * f.g ? SOLVER_OPTIMAL
           : cancelled                     ? SOLVER_CANCELLED
           : model_failed                  ? SOLVER_FEASIBLE
                                           : SOLVER_TIMEOUT;
done:
  Cosma_finish(best, status, bound * f.g, Clock_now() - t0, &relay);
  *out = best;
  best = NULL;
out:
  Plan_free(best);
  IlpResult_free(&rr);
  IlpResult_free(&fr);
  IlpModel_free(relax);
  IlpModel_free(full);
  free(x), free(evicted), free(addr);
  Fs_free(&f);
  return st;
}

Status Cosma_replacementPlan(const Net *net, const SolveSettings *s, const int *order, Plan **out, SpError *err) {
  return Cosma_replacement(net, s, order, NULL, out, NULL, err);
}

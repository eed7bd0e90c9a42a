/* COSMA's ILP policies: see cosma.h. This file builds the models; ilp.c solves them. */
#include "clock.h"
#include "cosma.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bitset.h"
#include "figures.h"
#include "ilp.h"
#include "sim.h"

static int64_t Cosma_gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* Row builder: a growable list of (col, coef). */
typedef struct {
  int *cols;
  double *coef;
  int n, cap;
  bool nomem;
} Row;

static void Row_add(Row *r, int col, double coef) {
  if (col < 0) return;
  if (r->n == r->cap) {
    int cap = r->cap ? r->cap * 2 : 16;
    int *c = realloc(r->cols, sizeof(int) * (size_t)cap);
    if (c) r->cols = c;
    double *v = realloc(r->coef, sizeof(double) * (size_t)cap);
    if (v) r->coef = v;
    if (!c || !v) {
      r->nomem = true;
      return;
    }
    r->cap = cap;
  }
  r->cols[r->n] = col;
  r->coef[r->n++] = coef;
}

static void Row_commit(IlpModel *m, Row *r, double lo, double hi) {
  if (!r->nomem) IlpModel_addRow(m, lo, hi, r->n, r->cols, r->coef);
  r->n = 0;
}

static void Row_free(Row *r) { free(r->cols), free(r->coef); }

/* Progress relay: model units -> bytes, with the pipeline's own incumbent/bound. */
typedef struct {
  const SolveSettings *s;
  double scale;           /* bytes per model unit */
  double t0;
  double incumbent, bound; /* pipeline-wide, in model units */
  bool has_incumbent, has_bound;
} Relay;

static void Relay_report(Relay *r, const char *stage, bool has_inc, double inc, bool has_bnd, double bnd, long nodes) {
  if (!r->s->progress) return;
  if (r->has_incumbent && (!has_inc || r->incumbent < inc)) inc = r->incumbent, has_inc = true;
  if (r->has_bound && (!has_bnd || r->bound > bnd)) bnd = r->bound, has_bnd = true;
  SolveProgress p = {.stage = stage, .incumbent = inc * r->scale, .bound = bnd * r->scale, .gap = -1,
                     .has_incumbent = has_inc, .has_bound = has_bnd, .nodes = nodes, .elapsed = Clock_now() - r->t0};
  if (has_inc && has_bnd) p.gap = inc > 0 ? fmax(0, (inc - bnd) / inc) : 0;
  r->s->progress(&p, r->s->progress_user);
}

static void Relay_ilp(const IlpProgress *p, void *user) {
  Relay *r = user;
  if (strcmp(p->stage, "done") == 0) return; /* the pipeline reports its own stages */
  Relay_report(r, p->stage, p->has_incumbent, p->incumbent, p->has_bound, p->bound, p->nodes);
}

static void Cosma_ilpOptions(IlpOptions *o, const SolveSettings *s, Relay *relay, double time_limit, const char *label) {
  IlpOptions_init(o);
  o->time_limit = time_limit;
  o->cancel = s->cancel;
  o->progress = s->progress ? Relay_ilp : NULL;
  o->user = relay;
  o->label = label;
  o->integral_objective = true;
}

static SolverStatus Cosma_status(IlpStatus st) {
  switch (st) {
  case ILP_OPTIMAL: return SOLVER_OPTIMAL;
  case ILP_FEASIBLE: return SOLVER_FEASIBLE;
  case ILP_TIMEOUT: return SOLVER_TIMEOUT;
  case ILP_CANCELLED: return SOLVER_CANCELLED;
  case ILP_INFEASIBLE: return SOLVER_INFEASIBLE;
  default: return SOLVER_NONE;
  }
}

/* ======================= min peak (Eqs. 13-15) ======================= */

typedef struct {
  int n;
  int *asap, *alap;
  int *ccol;              /* per op: column of C[v][asap] */
  int *pcol, *plo, *phi;  /* per tensor: P columns for steps plo..phi (pcol -1: none) */
  int *xcol, *xlo, *xhi;  /* per input/param: load columns */
  int peak_col;
} MpModel;

static void MpModel_free(MpModel *m) {
  free(m->asap), free(m->alap), free(m->ccol), free(m->pcol), free(m->plo), free(m->phi);
  free(m->xcol), free(m->xlo), free(m->xhi);
}

static int Mp_c(const MpModel *m, int v, int s) {
  return s >= m->asap[v] && s <= m->alap[v] ? m->ccol[v] + s - m->asap[v] : -1;
}
static int Mp_p(const MpModel *m, int t, int s) {
  return m->pcol[t] >= 0 && s >= m->plo[t] && s <= m->phi[t] ? m->pcol[t] + s - m->plo[t] : -1;
}
static int Mp_x(const MpModel *m, int t, int s) {
  return m->xcol[t] >= 0 && s >= m->xlo[t] && s <= m->xhi[t] ? m->xcol[t] + s - m->xlo[t] : -1;
}

/* ASAP (number of ancestors) and ALAP (n - 1 - number of descendants) of every op. */
static bool Cosma_windows(const Net *net, int *asap, int *alap) {
  int n = net->nops, w = Bitset_words(n);
  uint64_t *anc = calloc((size_t)n * (size_t)w, sizeof(uint64_t));
  uint64_t *desc = calloc((size_t)n * (size_t)w, sizeof(uint64_t));
  if (!anc || !desc) {
    free(anc), free(desc);
    return false;
  }
  for (int v = 0; v < n; v++) /* file order is topological */
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p < 0) continue;
      for (int i = 0; i < w; i++) anc[(size_t)v * w + i] |= anc[(size_t)p * w + i];
      Bitset_set(anc + (size_t)v * w, p);
    }
  for (int v = n - 1; v >= 0; v--)
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p < 0) continue;
      for (int i = 0; i < w; i++) desc[(size_t)p * w + i] |= desc[(size_t)v * w + i];
      Bitset_set(desc + (size_t)p * w, v);
    }
  for (int v = 0; v < n; v++) {
    int a = 0, d = 0;
    for (int i = 0; i < w; i++)
      a += __builtin_popcountll(anc[(size_t)v * w + i]), d += __builtin_popcountll(desc[(size_t)v * w + i]);
    asap[v] = a;
    alap[v] = n - 1 - d;
  }
  free(anc), free(desc);
  return true;
}

/* Column values of an order in the min-peak model. */
static void Mp_assign(const Net *net, bool params, const MpModel *m, const int *order, int64_t g, double *x,
                      int ncols) {
  int n = net->nops;
  memset(x, 0, sizeof(double) * (size_t)ncols);
  int *pos = malloc(sizeof(int) * (size_t)n);
  if (!pos) return;
  for (int s = 0; s < n; s++) pos[order[s]] = s;
  for (int v = 0; v < n; v++) {
    int c = Mp_c(m, v, pos[v]);
    if (c >= 0) x[c] = 1;
  }
  for (int t = 0; t < net->ntensors; t++) {
    const Tensor *tt = &net->tensors[t];
    if (!Net_onChip(net, t, params) || tt->nconsumers == 0) continue;
    int first = n, last = -1;
    for (int k = 0; k < tt->nconsumers; k++) {
      int p = pos[tt->consumers[k]];
      first = p < first ? p : first;
      last = p > last ? p : last;
    }
    int from = tt->producer >= 0 ? pos[tt->producer] : first;
    if (tt->producer < 0) {
      int c = Mp_x(m, t, first);
      if (c >= 0) x[c] = 1;
    }
    for (int s = from + 1; s <= last; s++) {
      int c = Mp_p(m, t, s);
      if (c >= 0) x[c] = 1;
    }
  }
  x[m->peak_col] = (double)(Figures_peak(net, params, order, NULL) / g);
  free(pos);
}

Status Cosma_minPeak(const Net *net, const SolveSettings *s, const int *warm_order, int *order,
                     CosmaMinPeakResult *res, SpError *err) {
  memset(res, 0, sizeof *res);
  double t0 = Clock_now();
  int n = net->nops, nt = net->ntensors;
  bool params = s->params;
  MpModel m = {.n = n};
  IlpModel *ilp = IlpModel_new();
  int *file = malloc(sizeof(int) * (size_t)n);
  double *warm = NULL;
  Row row = {0};
  Status st = SP_OK;
  IlpResult r = {0};
  m.asap = malloc(sizeof(int) * (size_t)n);
  m.alap = malloc(sizeof(int) * (size_t)n);
  m.ccol = malloc(sizeof(int) * (size_t)n);
  m.pcol = malloc(sizeof(int) * (size_t)nt);
  m.plo = calloc((size_t)nt, sizeof(int));
  m.phi = calloc((size_t)nt, sizeof(int));
  m.xcol = malloc(sizeof(int) * (size_t)nt);
  m.xlo = calloc((size_t)nt, sizeof(int));
  m.xhi = calloc((size_t)nt, sizeof(int));
  if (!ilp || !file || !m.asap || !m.alap || !m.ccol || !m.pcol || !m.plo || !m.phi || !m.xcol || !m.xlo || !m.xhi ||
      !Cosma_windows(net, m.asap, m.alap)) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory building the min-peak ILP");
    goto out;
  }
  for (int v = 0; v < n; v++) file[v] = v;
  if (!warm_order) warm_order = file;
  int64_t g = 0;
  for (int t = 0; t < nt; t++)
    if (Net_onChip(net, t, params)) g = Cosma_gcd(net->tensors[t].bytes, g);
  if (g <= 0) g = 1;
  /* Columns. C[v][s] for s in the op's window; P[t][s] from its earliest creation
   * + 1 (or earliest load + 1) to its latest last use; X[t][s] loads of inputs. */
  for (int v = 0; v < n; v++) {
    m.ccol[v] = IlpModel_ncols(ilp);
    for (int q = m.asap[v]; q <= m.alap[v]; q++) IlpModel_addCol(ilp, ILP_BINARY, 0, 1, 0);
  }
  for (int t = 0; t < nt; t++) {
    const Tensor *tt = &net->tensors[t];
    m.pcol[t] = m.xcol[t] = -1;
    if (!Net_onChip(net, t, params) || tt->nconsumers == 0) continue;
    int lo = n, hi = -1;
    for (int k = 0; k < tt->nconsumers; k++) {
      int c = tt->consumers[k];
      lo = m.asap[c] < lo ? m.asap[c] : lo;
      hi = m.alap[c] > hi ? m.alap[c] : hi;
    }
    if (tt->producer < 0) {
      m.xcol[t] = IlpModel_ncols(ilp);
      m.xlo[t] = lo, m.xhi[t] = hi;
      for (int q = lo; q <= hi; q++) IlpModel_addCol(ilp, ILP_BINARY, 0, 1, 0);
      m.plo[t] = lo + 1;
    } else {
      m.plo[t] = m.asap[tt->producer] + 1;
    }
    m.phi[t] = hi;
    if (m.plo[t] <= m.phi[t]) {
      m.pcol[t] = IlpModel_ncols(ilp);
      for (int q = m.plo[t]; q <= m.phi[t]; q++) IlpModel_addCol(ilp, ILP_BINARY, 0, 1, 0);
    }
  }
  m.peak_col = IlpModel_addCol(ilp, ILP_CONTINUOUS, (double)(Figures_minRequired(net, params) / g), ILP_INF, 1);
  /* Eq. 7: every op once; and one op per step. */
  for (int v = 0; v < n; v++) {
    for (int q = m.asap[v]; q <= m.alap[v]; q++) Row_add(&row, Mp_c(&m, v, q), 1);
    Row_commit(ilp, &row, 1, 1);
  }
  for (int q = 0; q < n; q++) {
    for (int v = 0; v < n; v++) Row_add(&row, Mp_c(&m, v, q), 1);
    Row_commit(ilp, &row, 1, 1);
  }
  for (int t = 0; t < nt; t++) {
    const Tensor *tt = &net->tensors[t];
    if (m.xcol[t] < 0 && m.pcol[t] < 0) continue;
    if (m.xcol[t] >= 0) { /* an input is loaded once */
      for (int q = m.xlo[t]; q <= m.xhi[t]; q++) Row_add(&row, Mp_x(&m, t, q), 1);
      Row_commit(ilp, &row, 1, 1);
    }
    /* Eq. 2: P[t][s] <= C[prod][s-1] + P[t][s-1] (or the load X[t][s-1]). */
    for (int q = m.plo[t]; m.pcol[t] >= 0 && q <= m.phi[t]; q++) {
      Row_add(&row, Mp_p(&m, t, q), 1);
      Row_add(&row, Mp_p(&m, t, q - 1), -1);
      if (tt->producer >= 0) Row_add(&row, Mp_c(&m, tt->producer, q - 1), -1);
      else Row_add(&row, Mp_x(&m, t, q - 1), -1);
      Row_commit(ilp, &row, -ILP_INF, 0);
    }
    /* Eq. 5: a consumer runs only while its input is resident. */
    for (int k = 0; k < tt->nconsumers; k++) {
      int c = tt->consumers[k];
      for (int q = m.asap[c]; q <= m.alap[c]; q++) {
        Row_add(&row, Mp_c(&m, c, q), 1);
        Row_add(&row, Mp_p(&m, t, q), -1);
        Row_add(&row, Mp_x(&m, t, q), -1);
        Row_commit(ilp, &row, -ILP_INF, 0);
      }
    }
  }
  /* Eq. 14: resident bytes (made now, preserved, loaded now) <= M_peak. */
  for (int q = 0; q < n; q++) {
    for (int v = 0; v < n; v++) {
      int c = Mp_c(&m, v, q);
      if (c < 0) continue;
      int64_t out = 0;
      for (int k = 0; k < net->ops[v].noutputs; k++) out += net->tensors[net->ops[v].outputs[k]].bytes;
      Row_add(&row, c, (double)(out / g));
    }
    for (int t = 0; t < nt; t++) {
      double sz = (double)(net->tensors[t].bytes / g);
      Row_add(&row, Mp_p(&m, t, q), sz);
      Row_add(&row, Mp_x(&m, t, q), sz);
    }
    Row_add(&row, m.peak_col, -1);
    Row_commit(ilp, &row, -ILP_INF, 0);
  }
  if (row.nomem) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory building the min-peak ILP");
    goto out;
  }
  res->ncols = IlpModel_ncols(ilp);
  res->nrows = IlpModel_nrows(ilp);
  warm = malloc(sizeof(double) * (size_t)(res->ncols + 1));
  if (!warm) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  Mp_assign(net, params, &m, warm_order, g, warm, res->ncols);
  Relay relay = {.s = s, .scale = (double)g, .t0 = t0, .incumbent = warm[m.peak_col], .has_incumbent = true};
  IlpOptions o;
  Cosma_ilpOptions(&o, s, &relay, s->time_limit, "min peak");
  o.warm_start = warm;
  if ((st = Ilp_solve(ilp, &o, &r, err))) goto out;
  memcpy(order, warm_order, sizeof(int) * (size_t)n);
  res->peak = Figures_peak(net, params, warm_order, NULL);
  if (r.has_solution && r.objective < warm[m.peak_col] - 0.5) {
    /* read the order off the C columns */
    int *cand = malloc(sizeof(int) * (size_t)n);
    bool ok = cand != NULL;
    for (int q = 0; ok && q < n; q++) {
      cand[q] = -1;
      for (int v = 0; v < n; v++) {
        int c = Mp_c(&m, v, q);
        if (c >= 0 && r.x[c] > 0.5) cand[q] = v;
      }
      ok = cand[q] >= 0;
    }
    int64_t pk = ok ? Figures_peak(net, params, cand, NULL) : -1;
    if (ok && pk >= 0 && pk < res->peak) {
      memcpy(order, cand, sizeof(int) * (size_t)n);
      res->peak = pk;
    }
    free(cand);
  }
  res->status = Cosma_status(r.status);
  if (r.status == ILP_INFEASIBLE || r.status == ILP_ERROR) {
    st = SpError_set(err, SP_ERR_SOLVER, "min-peak ILP: %s %s", IlpStatus_name(r.status), r.message);
    goto out;
  }
  res->has_bound = r.has_bound;
  res->bound = r.has_bound ? (int64_t)llround(r.bound) * g : 0;
  if (res->has_bound && res->bound >= res->peak) res->status = SOLVER_OPTIMAL, res->bound = res->peak;
out:
  res->seconds = Clock_now() - t0;
  IlpResult_free(&r);
  IlpModel_free(ilp);
  MpModel_free(&m);
  Row_free(&row);
  free(file), free(warm);
  return st;
}

Status Cosma_scheduleMinPeak(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err) {
  CosmaMinPeakResult res;
  Status st = Cosma_minPeak(net, s, NULL, order, &res, err);
  if (st) return st;
  if (res.status == SOLVER_CANCELLED) return SpError_set(err, SP_ERR_CANCELLED, "cancelled");
  if (info) {
    info->status = res.status;
    info->seconds += res.seconds;
    info->objective = (double)res.peak;
    info->has_objective = true;
    info->bound = (double)res.bound;
    info->has_bound = res.has_bound;
  }
  return SP_OK;
}

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
} Fs;

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
  for (int t = 0; t < nt; t++) {
    int k = Fs_nev(f, t);
    f->gcol[t] = f->scol[t] = f->acol[t] = -1;
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
  int64_t *fixed = calloc((size_t)n, sizeof(int64_t));
  int *cnt = calloc((size_t)n + 1, sizeof(int));
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
  Plan_computeMetrics(plan, net);
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

static int64_t Plan_cost(const Plan *p) { return p->metrics.noncompulsory_bytes; }

Status Cosma_replacement(const Net *net, const SolveSettings *s, const int *order, const CosmaFsOptions *opt,
                         Plan **out, CosmaFsStats *stats, SpError *err) {
  *out = NULL;
  double t0 = Clock_now();
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
  for (int ri = 0; ri < Policy_count(POLICY_REPLACEMENT); ri++)
    for (int ai = 0; ai < Policy_count(POLICY_ALLOCATOR); ai++) {
      const PolicyInfo *rp = Policy_at(POLICY_REPLACEMENT, ri), *ap = Policy_at(POLICY_ALLOCATOR, ai);
      Plan *p = NULL;
      SpError e2;
      if (Sim_run(net, s->params, s->budget, order, rp, ap, &p, &e2)) continue;
      if (!best || Plan_cost(p) < Plan_cost(best)) {
        Plan_free(best);
        best = p;
        snprintf(stats->heuristic_policy, sizeof stats->heuristic_policy, "%s/%s", rp->name, ap->name);
      } else {
        Plan_free(p);
      }
    }
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
  relax = Fs_build(&f, false);
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
  /* its evictions, placed at addresses, may already be a plan at the bound */
  if (rr.has_solution && llround(rr.objective) * f.g < Plan_cost(best)) {
    for (int t = 0; t < f.nt; t++)
      for (int pc = f.evs[t]; pc + 1 < f.evs[t + 1]; pc++) evicted[pc] = rr.x[f.gcol[t] + pc - f.evs[t]] > 0.5;
    for (int how = 0; how < FS_ORDERS; how++)
      if (Fs_place(&f, evicted, addr, how)) {
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
  full = Fs_build(&f, true);
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
  double left = tl > 0 ? tl - (Clock_now() - t0) : 0;
  if (tl > 0 && left < 0.05) left = 0.05;
  Cosma_ilpOptions(&o, s, &relay, left, "full model");
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
  if (status == SOLVER_OPTIMAL && bound * f.g < Plan_cost(best)) bound = Plan_cost(best) / f.g;
  best->solver = (SolverInfo){.status = status, .seconds = Clock_now() - t0, .objective = (double)Plan_cost(best),
                              .bound = (double)(bound * f.g), .has_objective = true, .has_bound = true};
  relay.incumbent = (double)(Plan_cost(best) / f.g), relay.bound = (double)bound;
  Relay_report(&relay, "done", true, relay.incumbent, true, relay.bound, 0);
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

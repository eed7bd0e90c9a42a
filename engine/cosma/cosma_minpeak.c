/* COSMA's min-peak ILP (Eqs. 13-15): see cosma.h. This file builds the model; ilp.c solves it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cosma_model.h"
#include "figures.h"
#include "sim.h"

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
  /* Building is O(ops x steps) on its own (hundreds of millions of terms at 50k
   * ops): under the time limit and Ctrl-C, polled once per row group. */
  CosmaBuildLimit lim;
  CosmaBuildLimit_set(&lim, s->deadline, 0, s->cancel);
  lim.stage = "cosma.minpeak";
  /* Eq. 7: every op once; and one op per step. */
  for (int v = 0; v < n; v++) {
    for (int q = m.asap[v]; q <= m.alap[v]; q++) Row_add(&row, Mp_c(&m, v, q), 1);
    Row_commit(ilp, &row, 1, 1);
  }
  for (int q = 0; q < n && !CosmaBuildLimit_over(&lim, ilp); q++) {
    for (int v = 0; v < n; v++) Row_add(&row, Mp_c(&m, v, q), 1);
    Row_commit(ilp, &row, 1, 1);
  }
  for (int t = 0; t < nt && !CosmaBuildLimit_over(&lim, ilp); t++) {
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
  for (int q = 0; q < n && !CosmaBuildLimit_over(&lim, ilp); q++) {
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
  if (lim.hit) { /* no time to build the model: the warm order stands, unproven */
    memcpy(order, warm_order, sizeof(int) * (size_t)n);
    res->peak = Figures_peak(net, params, warm_order, NULL);
    res->status = lim.cancel && atomic_load(lim.cancel) ? SOLVER_CANCELLED : SOLVER_TIMEOUT;
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
  if (info) { /* cancelled: the best order so far stands (the caller keeps its plan), marked cancelled */
    info->status = res.status;
    info->seconds += res.seconds;
    info->objective = (double)res.peak;
    info->has_objective = true;
    info->bound = (double)res.bound;
    info->has_bound = res.has_bound;
    if (res.ncols == 0 && (res.status == SOLVER_TIMEOUT || res.status == SOLVER_CANCELLED))
      snprintf(info->note, sizeof info->note, "the min-peak ILP was not built (%s first): the file's order",
               res.status == SOLVER_CANCELLED ? "Ctrl-C" : "time limit");
  }
  return SP_OK;
}

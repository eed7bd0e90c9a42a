/* steps_ilp: Section 5's grouping of patches, as a MIP for GLPK (through ilp.h).
 *
 * Variables (Table 1), for patches i, input pixels j (spatial positions: the
 * channels are never split, Remark 6) and groups k = 0..n-1:
 *   P_g[i,k]  binary: patch i is computed in step k                 (Eq. 2)
 *   pxl_g[j,k] in [0,1]: pixel j is on chip in step k               (Eq. 5, 6)
 *   pxl_I[j,k] in [0,1]: pixel j is loaded in step k                (Eq. 8)
 * Rows:
 *   sum_k P_g[i,k] = 1                                              (Eq. 3)
 *   sum_i P_g[i,k] <= G, >= 1                                       (Eq. 4; no empty step)
 *   pxl_g[j,k] >= P_g[i,k] for every patch i holding j, and
 *   pxl_g[j,k] <= sum of those P_g[i,k]: the OR of Eq. 6, linearised; with P_g
 *     binary this forces pxl_g to 0/1, so pxl_g and pxl_I can stay continuous
 *   pxl_I[j,k] >= pxl_g[j,k] - pxl_g[j,k-1]: Eq. 7-8 (load = in the group and not
 *     in the previous one); pxl_I only needs the lower side since it is minimised
 *   sum_k pxl_I[j,k] <= nb_data_reload                              (Eq. 9, if set)
 *   Cin * sum_j pxl_g[j,k] + kernels + Cout * sum_i P_g[i,k] <= sizeMEM (Eq. 12, if set)
 * Added (valid, for a tighter relaxation): sum_k pxl_I[j,k] >= 1 (every pixel is
 * loaded at least once), and patch 0 lies in the first half of the steps (a plan
 * and its reverse load the same: sum |U_k| - sum |U_k & U_k-1|).
 * Objective: Eq. 15, tl * Cin * sum pxl_I + n * tacc (the constant added after).
 * n is Kmin = ceil(|X| / G) as in the paper's experiments, unless o->groups says
 * otherwise. The MIP start is the best of Row-by-Row, ZigZag and the strip snakes
 * (steps.c: strips of 2..G rows, columns snaking or all downwards) that keeps
 * Eq. 9 and Eq. 12; the paper starts from Row-by-Row or ZigZag. */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "steps_internal.h"

typedef struct {
  int npatch, npix, n;
  int *pix_start, *pix_patch; /* CSR: the patches holding each pixel */
} IlpShape;

static int Ilp_colP(const IlpShape *s, int i, int k) { return i * s->n + k; }
static int Ilp_colG(const IlpShape *s, int j, int k) { return s->npatch * s->n + j * s->n + k; }
static int Ilp_colL(const IlpShape *s, int j, int k) { return (s->npatch + s->npix) * s->n + j * s->n + k; }

/* The patches holding each pixel (CSR). */
static bool Ilp_shape(const StepsPlan *w, int n, IlpShape *s) {
  s->npatch = w->hout * w->wout;
  s->npix = w->hin * w->win;
  s->n = n;
  s->pix_start = calloc((size_t)s->npix + 1, sizeof(int));
  s->pix_patch = malloc(sizeof(int) * (size_t)s->npatch * (size_t)(w->hk * w->wk));
  if (!s->pix_start || !s->pix_patch) return false;
  for (int pass = 0; pass < 2; pass++) {
    int *fill = pass ? calloc((size_t)s->npix, sizeof(int)) : NULL;
    if (pass && !fill) return false;
    for (int i = 0; i < s->npatch; i++) {
      int pi = i / w->wout, pj = i % w->wout;
      for (int h = pi * w->sh; h < pi * w->sh + w->hk; h++)
        for (int x = pj * w->sw; x < pj * w->sw + w->wk; x++) {
          int j = h * w->win + x;
          if (!pass) s->pix_start[j + 1]++;
          else s->pix_patch[s->pix_start[j] + fill[j]++] = i;
        }
    }
    if (!pass)
      for (int j = 0; j < s->npix; j++) s->pix_start[j + 1] += s->pix_start[j];
    free(fill);
  }
  return true;
}

static void Ilp_shapeFree(IlpShape *s) {
  free(s->pix_start);
  free(s->pix_patch);
}

/* Builds the model; NULL when out of memory. */
static IlpModel *Ilp_build(const IlpShape *s, const StepsPlan *w, const StepsOptions *o, int g, int64_t ker) {
  IlpModel *m = IlpModel_new();
  if (!m) return NULL;
  const int n = s->n;
  for (int c = 0; c < s->npatch * n; c++) IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
  for (int c = 0; c < s->npix * n; c++) IlpModel_addCol(m, ILP_CONTINUOUS, 0, 1, 0);
  for (int c = 0; c < s->npix * n; c++) IlpModel_addCol(m, ILP_CONTINUOUS, 0, 1, (double)(o->tl * w->cin));
  int cap = s->npatch + s->npix + 4;
  if (cap < 2 * n + 2) cap = 2 * n + 2;
  int *cols = malloc(sizeof(int) * (size_t)cap);
  double *coef = malloc(sizeof(double) * (size_t)cap);
  if (!cols || !coef) {
    free(cols);
    free(coef);
    IlpModel_free(m);
    return NULL;
  }
  for (int i = 0; i < s->npatch; i++) { /* Eq. 3 */
    for (int k = 0; k < n; k++) cols[k] = Ilp_colP(s, i, k), coef[k] = 1;
    IlpModel_addRow(m, 1, 1, n, cols, coef);
  }
  for (int k = 0; k < n; k++) { /* Eq. 4 and Eq. 12 */
    int c = 0;
    for (int i = 0; i < s->npatch; i++) cols[c] = Ilp_colP(s, i, k), coef[c++] = 1;
    IlpModel_addRow(m, 1, g, c, cols, coef);
    if (o->size_mem > 0) {
      for (int i = 0; i < c; i++) coef[i] = w->cout;
      for (int j = 0; j < s->npix; j++) cols[c] = Ilp_colG(s, j, k), coef[c++] = w->cin;
      IlpModel_addRow(m, -ILP_INF, (double)(o->size_mem - ker), c, cols, coef);
    }
  }
  for (int j = 0; j < s->npix; j++) {
    int a = s->pix_start[j], b = s->pix_start[j + 1];
    for (int k = 0; k < n; k++) {
      for (int t = a; t < b; t++) { /* pxl_g >= P_g */
        cols[0] = Ilp_colG(s, j, k), coef[0] = 1;
        cols[1] = Ilp_colP(s, s->pix_patch[t], k), coef[1] = -1;
        IlpModel_addRow(m, 0, ILP_INF, 2, cols, coef);
      }
      int c = 0; /* pxl_g <= sum P_g (0 when the pixel is in no patch) */
      cols[c] = Ilp_colG(s, j, k), coef[c++] = 1;
      for (int t = a; t < b; t++) cols[c] = Ilp_colP(s, s->pix_patch[t], k), coef[c++] = -1;
      IlpModel_addRow(m, -ILP_INF, 0, c, cols, coef);
      c = 0; /* pxl_I >= pxl_g[k] - pxl_g[k-1] */
      cols[c] = Ilp_colL(s, j, k), coef[c++] = 1;
      cols[c] = Ilp_colG(s, j, k), coef[c++] = -1;
      if (k > 0) cols[c] = Ilp_colG(s, j, k - 1), coef[c++] = 1;
      IlpModel_addRow(m, 0, ILP_INF, c, cols, coef);
    }
    if (b > a) { /* Eq. 9 and the cut */
      for (int k = 0; k < n; k++) cols[k] = Ilp_colL(s, j, k), coef[k] = 1;
      IlpModel_addRow(m, 1, o->max_loads > 0 ? o->max_loads : ILP_INF, n, cols, coef);
    }
  }
  /* patch 0 in the first half: sum_k (2k - (n-1)) P_g[0,k] <= 0 */
  for (int k = 0; k < n; k++) cols[k] = Ilp_colP(s, 0, k), coef[k] = 2.0 * k - (n - 1);
  IlpModel_addRow(m, -ILP_INF, 0, n, cols, coef);
  free(cols);
  free(coef);
  return m;
}

/* The warm start from a plan with exactly n groups (or its reverse, so that the
 * symmetry row holds); NULL if the plan has another group count. */
static double *Ilp_warm(const IlpShape *s, const StepsPlan *w) {
  if (w->nsteps != s->n) return NULL;
  const int n = s->n;
  int k0 = -1;
  for (int k = 0; k < n && k0 < 0; k++)
    for (int q = 0; q < w->steps[k].npatches; q++)
      if (w->steps[k].patches[q] == 0) k0 = k;
  bool reverse = 2 * k0 > n - 1;
  double *x = calloc((size_t)(s->npatch + 2 * s->npix) * (size_t)n, sizeof(double));
  if (!x) return NULL;
  for (int k = 0; k < n; k++) {
    int kk = reverse ? n - 1 - k : k;
    const Step *st = &w->steps[k];
    for (int q = 0; q < st->npatches; q++) {
      int i = st->patches[q];
      x[Ilp_colP(s, i, kk)] = 1;
      int pi = i / w->wout, pj = i % w->wout;
      for (int h = pi * w->sh; h < pi * w->sh + w->hk; h++)
        for (int c = pj * w->sw; c < pj * w->sw + w->wk; c++) x[Ilp_colG(s, h * w->win + c, kk)] = 1;
    }
  }
  for (int j = 0; j < s->npix; j++)
    for (int k = 0; k < n; k++) {
      double d = x[Ilp_colG(s, j, k)] - (k > 0 ? x[Ilp_colG(s, j, k - 1)] : 0);
      x[Ilp_colL(s, j, k)] = d > 0 ? d : 0;
    }
  return x;
}

/* The paper's MIP with o's time limit; warm is the start. */
/* The MIP's work budget: o->time_limit nominal seconds (Ilp_workFor: half of what
 * GLPK does in that time on an idle core), so the work ends it, not the clock,
 * unless the machine is more than twice as slow; `outer` (seconds, <= 0: none) is
 * the wall-clock stop. */
static Status Ilp_mip(const Layer *l, const StepsOptions *o, int g, const StepsPlan *warm, StepsPlan *p,
                      double outer, SpError *err) {
  const int npatch = warm->hout * warm->wout;
  int n = o->groups > 0 ? o->groups : (npatch + g - 1) / g;
  if (n < (npatch + g - 1) / g || n > npatch) /* none empty, none over G */
    return SpError_set(err, SP_ERR_ARG, "%d steps: %d patches in steps of 1 to %d patches take %d (Kmin) to %d steps",
                       n, npatch, g, (npatch + g - 1) / g, npatch);
  const int64_t ker = (int64_t)warm->cout * warm->cin * warm->hk * warm->wk;
  /* The model grows as steps x (patches + 2 pixels); already at 8x8 inputs GLPK's
   * root LP does not finish in 10 s (bench steps), so past 100k columns building it
   * only costs memory (the paper's range ends at 12x12, G = 2: 19,400 columns) */
  int64_t cols = (int64_t)n * (npatch + 2 * (int64_t)warm->hin * warm->win);
  if (cols > 100000)
    return SpError_set(err, SP_ERR_ARG,
                       "%s: %d patches in %d steps on %dx%d pixels needs %lld ILP columns, more than the 100,000 "
                       "this solver is allowed (use steps-row or steps-zigzag)",
                       l->name, npatch, n, warm->hin, warm->win, (long long)cols);
  IlpShape s = {0};
  double *x0 = NULL;
  IlpModel *m = NULL;
  Status st = SP_OK;
  IlpResult r = {0};
  int *order = NULL, *sizes = NULL;
  if (!Ilp_shape(warm, n, &s) || !(m = Ilp_build(&s, warm, o, g, ker))) {
    st = SpError_set(err, SP_ERR_NOMEM, "steps ILP model");
    goto done;
  }
  x0 = Ilp_warm(&s, warm);
  IlpOptions io;
  IlpOptions_init(&io);
  io.time_limit = outer;
  if (o->time_limit > 0)
    io.work_limit = Ilp_workFor(o->time_limit, IlpModel_nnz(m), IlpModel_nrows(m), IlpModel_ncols(m));
  io.progress = o->progress;
  io.user = o->user;
  io.cancel = o->cancel;
  io.warm_start = x0;
  io.integral_objective = true;
  io.label = "steps ILP";
  st = Ilp_solve(m, &io, &r, err);
  if (st != SP_OK) goto done;
  bool warm_ok = x0 && IlpModel_check(m, x0, 1e-6) == -1;
  if (!r.has_solution && warm_ok && (r.status == ILP_TIMEOUT || r.status == ILP_CANCELLED)) {
    /* GLPK takes the start only at its first heuristic call, after the root LP:
     * stopped before, the start is still the best plan known */
    st = Steps_copyGroups(l, o, warm, p, err);
    if (st == SP_OK) {
      p->ilp_status = r.status;
      p->ilp_seconds = r.seconds;
      p->ilp_nodes = r.nodes;
      p->ilp_bound = r.has_bound ? r.bound + (double)n * (double)o->tacc : -1;
      p->ilp_gap = -1;
      p->warm_objective = warm->objective;
    }
    goto done;
  }
  if (!r.has_solution) {
    if (r.status == ILP_INFEASIBLE)
      st = SpError_set(err, SP_ERR_INFEASIBLE,
                       "no grouping of %d patches into %d steps of at most %d fits (sizeMEM %lld, reloads <= %d)",
                       npatch, n, g, (long long)o->size_mem, o->max_loads);
    else if (r.status == ILP_CANCELLED)
      st = SpError_set(err, SP_ERR_CANCELLED, "steps ILP cancelled before a solution");
    else
      st = SpError_set(err, SP_ERR_LIMIT, "steps ILP: %s without a solution after %.1f s",
                       IlpStatus_name(r.status), r.seconds);
    goto done;
  }
  order = malloc(sizeof(int) * (size_t)npatch);
  sizes = calloc((size_t)n, sizeof(int));
  if (!order || !sizes) {
    st = SpError_set(err, SP_ERR_NOMEM, "steps ILP plan");
    goto done;
  }
  int at = 0, ng = 0;
  for (int k = 0; k < n; k++) {
    int c = 0;
    for (int i = 0; i < npatch; i++)
      if (r.x[Ilp_colP(&s, i, k)] > 0.5) order[at++] = i, c++;
    if (c) sizes[ng++] = c;
  }
  if (at != npatch) {
    st = SpError_set(err, SP_ERR_SOLVER, "steps ILP: the solution assigns %d of %d patches", at, npatch);
    goto done;
  }
  st = Steps_fromGroups(l, o, order, sizes, ng, p, err);
  if (st != SP_OK) goto done;
  p->ilp_status = r.status;
  p->ilp_seconds = r.seconds;
  p->ilp_nodes = r.nodes;
  p->ilp_bound = r.has_bound ? r.bound + (double)n * (double)o->tacc : -1;
  p->ilp_gap = r.gap;
  p->warm_objective = warm_ok ? warm->objective : -1;
done:
  if (st == SP_OK) p->wall_stopped = r.status == ILP_TIMEOUT && !r.work_limited;
  IlpResult_free(&r);
  IlpModel_free(m);
  free(x0);
  free(order);
  free(sizes);
  Ilp_shapeFree(&s);
  return st;
}

/* The pixels some patch holds (every one unless the stride skips some). */
static int64_t Ilp_usedPixels(const StepsPlan *w) {
  int64_t rows = 0, cols = 0;
  for (int h = 0; h < w->hin; h++) {
    bool in = false;
    for (int i = 0; i < w->hout && !in; i++) in = h >= i * w->sh && h < i * w->sh + w->hk;
    rows += in;
  }
  for (int x = 0; x < w->win; x++) {
    bool in = false;
    for (int j = 0; j < w->wout && !in; j++) in = x >= j * w->sw && x < j * w->sw + w->wk;
    cols += in;
  }
  return rows * cols;
}

/* A plan from the exact search's groups (patch bit sets). */
static Status Ilp_fromExact(const Layer *l, const StepsOptions *o, const StepsPlan *w, int n, const StepsExact *x,
                            StepsPlan *p, SpError *err) {
  int npatch = w->hout * w->wout;
  int *order = malloc(sizeof(int) * (size_t)npatch), *sizes = malloc(sizeof(int) * (size_t)n);
  if (!order || !sizes) {
    free(order);
    free(sizes);
    return SpError_set(err, SP_ERR_NOMEM, "steps exact plan");
  }
  int at = 0;
  for (int k = 0; k < n; k++) {
    sizes[k] = 0;
    for (int h = 0; h < 2; h++)
      for (uint64_t b = x->groups[k][h]; b; b &= b - 1) order[at++] = 64 * h + __builtin_ctzll(b), sizes[k]++;
  }
  Status st = Steps_fromGroups(l, o, order, sizes, n, p, err);
  free(order);
  free(sizes);
  return st;
}

Status Steps_solveIlp(const Layer *l, const StepsOptions *o, int g, const StepsPlan *warm, StepsPlan *p,
                      SpError *err) {
  const int npatch = warm->hout * warm->wout;
  const int n = o->groups > 0 ? o->groups : (npatch + g - 1) / g;
  if (o->model == STEPS_MODEL_PAPER || n < (npatch + g - 1) / g || n > npatch) {
    Status st = Ilp_mip(l, o, g, warm, p, o->wall_limit > 0 ? o->wall_limit : o->time_limit, err);
    if (st == SP_OK && p->ilp_status == ILP_OPTIMAL) p->proven_by = "mip";
    return st;
  }
  double t0 = Clock_now();
  const int64_t unit = o->tl * warm->cin, used = Ilp_usedPixels(warm);
  const int64_t trivial = unit * used + (int64_t)n * o->tacc; /* every pixel loaded once, n steps */
  bool warm_ok = warm->nsteps == n && warm->fits && (o->max_loads <= 0 || warm->max_loads <= o->max_loads);
  Status st = SP_OK;
  if (warm_ok && warm->loaded_pixels == used) { /* the start meets the trivial bound */
    st = Steps_copyGroups(l, o, warm, p, err);
    if (st != SP_OK) return st;
    p->ilp_status = ILP_OPTIMAL;
    p->proven_by = "bound";
    p->ilp_bound = (double)trivial;
    p->ilp_gap = 0;
    p->ilp_seconds = Clock_now() - t0;
    p->warm_objective = warm->objective;
    return SP_OK;
  }
  StepsExact x;
  StepsOptions so = *o;
  st = Steps_exact(warm, &so, g, n, warm_ok ? (int)warm->loaded_pixels : 1 << 30, (int)used, &x, err);
  if (st != SP_OK) return st;
  if (!x.skipped && x.proven && !x.cancelled) {
    if (!x.improved && !warm_ok)
      return SpError_set(err, SP_ERR_INFEASIBLE,
                         "no grouping of %d patches into %d steps of at most %d fits (sizeMEM %lld, reloads <= %d)",
                         npatch, n, g, (long long)o->size_mem, o->max_loads);
    st = x.improved ? Ilp_fromExact(l, o, warm, n, &x, p, err) : Steps_copyGroups(l, o, warm, p, err);
    if (st != SP_OK) return st;
    p->ilp_status = ILP_OPTIMAL;
    p->proven_by = "search";
    p->ilp_bound = (double)p->objective;
    p->ilp_gap = 0;
    p->ilp_seconds = Clock_now() - t0;
    p->ilp_nodes = x.nodes;
    p->search_seconds = x.seconds;
    p->search_nodes = x.nodes;
    p->search_threads = x.threads;
    p->warm_objective = warm_ok ? warm->objective : -1;
    return SP_OK;
  }
  /* not proven: the MIP with the time left, from the best plan known */
  StepsPlan better = {0};
  const StepsPlan *start = warm;
  if (x.improved) {
    st = Ilp_fromExact(l, o, warm, n, &x, &better, err);
    if (st != SP_OK) return st;
    start = &better;
  }
  /* the MIP's budget: what the search left of the nominal time limit (its nodes at
   * Steps_exactRate per second), so the same on any machine; the clock: what is left */
  double outer = 0;
  if (o->time_limit > 0) {
    so.time_limit = o->time_limit - (double)x.nodes / Steps_exactRate();
    if (so.time_limit < 0.05) so.time_limit = 0.05;
  }
  if (o->time_limit > 0 || o->wall_limit > 0) {
    outer = (o->wall_limit > 0 ? o->wall_limit : o->time_limit) - (Clock_now() - t0);
    if (outer < 0.05) outer = 0.05;
  }
  st = Ilp_mip(l, &so, g, start, p, outer, err);
  if (st == SP_OK) p->wall_stopped = p->ilp_status == ILP_TIMEOUT && ((x.stopped && !x.cancelled) || p->wall_stopped);
  if (st == SP_ERR_LIMIT && !x.skipped) /* the MIP's message counts its own seconds only */
    st = SpError_set(err, SP_ERR_LIMIT,
                     "steps ILP: timeout without a solution after %.1f s (the exact search, %.1f s: none found, none "
                     "loads fewer than %d pixels; the MIP in the time left: none)",
                     Clock_now() - t0, x.seconds, x.bound_loaded);
  if (st == SP_OK) {
    if (p->ilp_status == ILP_OPTIMAL) p->proven_by = "mip";
    else if (p->objective == trivial) p->ilp_status = ILP_OPTIMAL, p->proven_by = "bound", p->ilp_gap = 0;
    double searched = x.skipped ? 0 : (double)(unit * x.bound_loaded + (int64_t)n * o->tacc);
    if (p->ilp_bound < (double)trivial) p->ilp_bound = (double)trivial;
    if (p->ilp_bound < searched) p->ilp_bound = searched;
    if (p->objective <= p->ilp_bound) p->ilp_status = ILP_OPTIMAL, p->proven_by = "search", p->ilp_gap = 0;
    p->ilp_seconds = Clock_now() - t0;
    p->search_seconds = x.seconds;
    p->search_nodes = x.nodes;
    p->search_threads = x.threads;
    p->ilp_nodes += x.nodes;
    p->warm_objective = warm_ok ? warm->objective : -1;
  }
  if (x.improved) StepsPlan_free(&better);
  return st;
}

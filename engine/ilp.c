/* The GLPK wrapper: see ilp.h. The solve runs in two phases so that progress and
 * cancel work from the first moment: the root LP relaxation is solved by
 * glp_simplex in short time slices (each call resumes from the last basis), then
 * glp_intopt runs branch and bound from that optimal basis with a callback that
 * reports progress, hands GLPK the warm-start incumbent and stops on time or on
 * cancel. */
#include "ilp.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "workclock.h"
#include "testhook.h"

struct IlpModel {
  int ncols, nrows, nnz;
  int capcols, caprows, capnz;
  IlpKind *kind;
  double *clo, *chi, *obj;
  double *rlo, *rhi;
  int *rstart; /* nrows + 1 entries */
  int *nzcol;
  double *nzval;
  bool nomem;
};

/* Grows `count` arrays (pointers in p, element sizes in elem) that share one
 * capacity *cap to hold at least `need` elements. */
static bool Ilp_grow(void **p[], const size_t elem[], int count, int *cap, int need) {
  if (need <= *cap) return true;
  int nc = *cap ? *cap : 64;
  while (nc < need) {
    if (nc > (1 << 29)) return false;
    nc *= 2;
  }
  for (int i = 0; i < count; i++) {
    void *q = realloc(*p[i], (size_t)nc * elem[i]);
    if (!q) return false; /* arrays already grown keep their new size; *cap stays: still consistent */
    *p[i] = q;
  }
  *cap = nc;
  return true;
}

IlpModel *IlpModel_new(void) {
  IlpModel *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->rstart = malloc(sizeof(int));
  if (!m->rstart) {
    free(m);
    return NULL;
  }
  m->rstart[0] = 0;
  return m;
}

void IlpModel_free(IlpModel *m) {
  if (!m) return;
  free(m->kind), free(m->clo), free(m->chi), free(m->obj);
  free(m->rlo), free(m->rhi), free(m->rstart), free(m->nzcol), free(m->nzval);
  free(m);
}

int IlpModel_addCol(IlpModel *m, IlpKind kind, double lo, double hi, double obj) {
  if (m->nomem) return -1;
  void **arr[] = {(void **)&m->kind, (void **)&m->clo, (void **)&m->chi, (void **)&m->obj};
  const size_t el[] = {sizeof(IlpKind), sizeof(double), sizeof(double), sizeof(double)};
  if (!Ilp_grow(arr, el, 4, &m->capcols, m->ncols + 1)) {
    m->nomem = true;
    return -1;
  }
  if (kind == ILP_BINARY) lo = 0, hi = 1;
  m->kind[m->ncols] = kind;
  m->clo[m->ncols] = lo;
  m->chi[m->ncols] = hi;
  m->obj[m->ncols] = obj;
  return m->ncols++;
}

int IlpModel_addRow(IlpModel *m, double lo, double hi, int n, const int *cols, const double *coef) {
  if (m->nomem) return -1;
  for (int k = 0; k < n; k++)
    if (cols[k] < 0 || cols[k] >= m->ncols) return -1;
  void **rows[] = {(void **)&m->rlo, (void **)&m->rhi, (void **)&m->rstart};
  const size_t rel[] = {sizeof(double), sizeof(double), sizeof(int)};
  void **nzs[] = {(void **)&m->nzcol, (void **)&m->nzval};
  const size_t nel[] = {sizeof(int), sizeof(double)};
  if (!Ilp_grow(rows, rel, 3, &m->caprows, m->nrows + 2) || !Ilp_grow(nzs, nel, 2, &m->capnz, m->nnz + n)) {
    m->nomem = true;
    return -1;
  }
  memcpy(m->nzcol + m->nnz, cols, sizeof(int) * (size_t)n);
  memcpy(m->nzval + m->nnz, coef, sizeof(double) * (size_t)n);
  m->nnz += n;
  m->rlo[m->nrows] = lo;
  m->rhi[m->nrows] = hi;
  m->rstart[m->nrows + 1] = m->nnz;
  return m->nrows++;
}

int IlpModel_ncols(const IlpModel *m) { return m->ncols; }
int IlpModel_nrows(const IlpModel *m) { return m->nrows; }
long IlpModel_nnz(const IlpModel *m) { return m->nnz; }

/* Nominal seconds per unit of work (an iteration or a node) on a model of this
 * size: 35 ns per row, column and nonzero on an idle core, doubled (workclock.h). */
static double Ilp_unitSeconds(long nnz, long rows, long cols) { return 2 * 35e-9 * (double)(nnz + rows + cols + 1); }

long Ilp_workFor(double seconds, long nnz, long rows, long cols) {
  if (!(seconds > 0)) return 0;
  double w = seconds / Ilp_unitSeconds(nnz, rows, cols);
  return w < 1 ? 1 : w > 1e15 ? (long)1e15 : (long)w;
}

double Ilp_estimateSeconds(long nnz, long rows, long cols) {
  return 1.5e-6 * (double)nnz + 3e-6 * ((double)rows + (double)cols);
}

int IlpModel_check(const IlpModel *m, const double *x, double tol) {
  for (int j = 0; j < m->ncols; j++) {
    if (x[j] < m->clo[j] - tol || x[j] > m->chi[j] + tol) return -2 - j;
    if (m->kind[j] != ILP_CONTINUOUS && fabs(x[j] - floor(x[j] + 0.5)) > tol) return -2 - j;
  }
  for (int i = 0; i < m->nrows; i++) {
    double a = 0;
    for (int k = m->rstart[i]; k < m->rstart[i + 1]; k++) a += m->nzval[k] * x[m->nzcol[k]];
    double scale = tol * (1 + fabs(a));
    if (a < m->rlo[i] - scale || a > m->rhi[i] + scale) return i;
  }
  return -1;
}

double IlpModel_objective(const IlpModel *m, const double *x) {
  double v = 0;
  for (int j = 0; j < m->ncols; j++) v += m->obj[j] * x[j];
  return v;
}

void IlpOptions_init(IlpOptions *o) {
  memset(o, 0, sizeof *o);
  o->progress_interval = 0.2;
}

const char *IlpStatus_name(IlpStatus s) {
  static const char *const names[] = {"optimal", "feasible", "timeout", "cancelled", "infeasible", "error"};
  return (unsigned)s < ILP_STATUS_COUNT ? names[s] : "?";
}

const char *Ilp_version(void) {
  /* glp_version creates this thread's GLPK environment: copy the text and free it
   * again, as Ilp_solve does, so nothing stays allocated (valgrind) */
  static char version[32];
  snprintf(version, sizeof version, "%s", glp_version());
  glp_free_env();
  return version;
}

void IlpResult_free(IlpResult *r) {
  free(r->x);
  free(r->log);
  r->x = NULL;
  r->log = NULL;
}

/* ---- the solve ---- */

enum { ILP_LOG_CAP = 256 * 1024, ILP_TAIL = 1024 };
typedef enum { STOP_NONE, STOP_TIME, STOP_CANCEL, STOP_WORK } StopReason;

typedef struct {
  jmp_buf jb;
  const IlpModel *m;
  const IlpOptions *o;
  double t0, deadline;  /* deadline: absolute, or 0 */
  double last_report;
  char *log;
  size_t loglen;
  bool log_truncated;
  char tail[ILP_TAIL];  /* the last output, for error messages */
  double *warm1;        /* 1-based warm start, or NULL */
  bool warm_given;
  StopReason stop;
  double bound;         /* best proven bound so far */
  bool has_bound;
  long nodes;
  long work;            /* simplex iterations + nodes so far */
  long work_limit;      /* o->work_limit, or from o->work_seconds; 0: none */
  long branch_picks;    /* nodes branched by Ilp_branch, not by GLPK's heuristic */
} IlpCtx;

static int Ilp_termHook(void *info, const char *s) {
  IlpCtx *c = info;
  size_t n = strlen(s);
  if (!c->log_truncated) {
    if (c->loglen + n + 1 > ILP_LOG_CAP) {
      c->log_truncated = true;
    } else {
      char *q = realloc(c->log, c->loglen + n + 1);
      if (q) {
        memcpy(q + c->loglen, s, n + 1);
        c->log = q;
        c->loglen += n;
      }
    }
  }
  size_t tl = strlen(c->tail);
  if (n >= ILP_TAIL - 1) {
    memcpy(c->tail, s + n - (ILP_TAIL - 1), ILP_TAIL - 1);
    c->tail[ILP_TAIL - 1] = 0;
  } else {
    if (tl + n >= ILP_TAIL) {
      size_t drop = tl + n - (ILP_TAIL - 1);
      memmove(c->tail, c->tail + drop, tl - drop + 1);
      tl -= drop;
    }
    memcpy(c->tail + tl, s, n + 1);
  }
  return 1; /* never print */
}

static void Ilp_errorHook(void *info) {
  IlpCtx *c = info;
  longjmp(c->jb, 1);
}

static void Ilp_report(IlpCtx *c, const char *stage, bool has_inc, double inc, double now) {
  c->last_report = now;
  if (!c->o->progress) return;
  char text[96];
  if (c->o->label) snprintf(text, sizeof text, "%s: %s", c->o->label, stage);
  else snprintf(text, sizeof text, "%s", stage);
  IlpProgress p = {.incumbent = inc, .bound = c->bound, .gap = -1, .has_incumbent = has_inc,
                   .has_bound = c->has_bound, .nodes = c->nodes, .elapsed = now - c->t0, .stage = text};
  if (has_inc && c->has_bound) p.gap = (inc - c->bound) / fmax(fabs(inc), 1e-9);
  if (p.gap < 0 && has_inc && c->has_bound) p.gap = 0;
  c->o->progress(&p, c->o->user);
}

static bool Ilp_shouldStop(IlpCtx *c, double now) {
  if (Testhook_at("ilp", c->o->cancel)) now = fmax(now, Clock_now());
  if (c->o->cancel && *c->o->cancel) c->stop = STOP_CANCEL;
  else if (c->deadline > 0 && now >= c->deadline) c->stop = STOP_TIME;
  return c->stop != STOP_NONE;
}

static void Ilp_setBound(IlpCtx *c, double b) {
  if (c->o->integral_objective) b = ceil(b - 1e-6);
  if (!c->has_bound || b > c->bound) c->bound = b;
  c->has_bound = true;
}

/* Branching by priority: among the fractional columns of the highest priority,
 * the most fractional (the first of equals: deterministic). */
static void Ilp_branchByPriority(IlpCtx *c, glp_tree *T) {
  glp_prob *P = glp_ios_get_prob(T);
  int best = 0;
  double bp = -1, bf = -1;
  for (int j = 1; j <= c->m->ncols; j++) {
    if (!glp_ios_can_branch(T, j)) continue;
    double pr = c->o->priority[j - 1], x = glp_get_col_prim(P, j), fr = fabs(x - floor(x) - 0.5);
    fr = 0.5 - fr; /* 0.5: most fractional */
    if (pr > bp || (pr == bp && fr > bf + 1e-9)) best = j, bp = pr, bf = fr;
  }
  if (best) glp_ios_branch_upon(T, best, GLP_NO_BRNCH);
}

/* GLPK's default branching (Driebeck-Tomlin) computes a row of the simplex table
 * for every fractional column, uncounted and with no callback until it is done:
 * on the paper's COSMA model of lraspp with params (11,100 columns, 21,160 rows,
 * 1,400-1,800 fractional) 1.4-2.6 s per node on an idle core, so a wall-clock stop
 * or a cancel waited that long and the work limit never saw it. Where that would
 * cost over this many nominal seconds (one simplex iteration per fractional
 * column, Ilp_workFor's units; a row costs less, so about 0.2 s idle), Ilp_branch
 * picks the column itself. It keeps GLPK's heuristic on the models it proves:
 * the paper's model of resnet50 at M_R peaks at 0.28 (lraspp's: 11-14). */
#define ILP_BRANCH_SECONDS 1.0

/* At GLP_IBRANCH: when GLPK's heuristic would be long, branch on the most
 * fractional column (the lowest index on ties; down first below .5): one pass
 * over the columns, decided by the node's LP only, so the same on any machine. */
static void Ilp_branch(IlpCtx *c, glp_tree *T) {
  glp_prob *P = glp_ios_get_prob(T);
  int n = glp_get_num_cols(P), nfrac = 0, best = 0, sel = GLP_DN_BRNCH;
  double most = -1;
  for (int j = 1; j <= n; j++) {
    if (!glp_ios_can_branch(T, j)) continue;
    nfrac++;
    double x = glp_get_col_prim(P, j), f = x - floor(x), d = fmin(f, 1 - f);
    if (d > most) most = d, best = j, sel = f < 0.5 ? GLP_DN_BRNCH : GLP_UP_BRNCH;
  }
  if (!best || nfrac * Ilp_unitSeconds(c->m->nnz, c->m->nrows, c->m->ncols) <= ILP_BRANCH_SECONDS) return;
  glp_ios_branch_upon(T, best, sel);
  c->branch_picks++;
}

static void Ilp_callback(glp_tree *T, void *info) {
  IlpCtx *c = info;
  int reason = glp_ios_reason(T);
  if (reason == GLP_IBRANCH) Testhook_at("ilp.branch", c->o->cancel); /* it may move the clock: read below */
  if (reason == GLP_IHEUR && c->warm1 && !c->warm_given) {
    c->warm_given = true;
    glp_ios_heur_sol(T, c->warm1);
  }
  double now = Clock_now();
  int a_cnt, n_cnt, t_cnt;
  glp_ios_tree_size(T, &a_cnt, &n_cnt, &t_cnt);
  c->nodes = t_cnt;
  c->work = (long)glp_get_it_cnt(glp_ios_get_prob(T)) + t_cnt;
  bool stop = Ilp_shouldStop(c, now);
  if (!stop && c->work_limit > 0 && c->work >= c->work_limit) c->stop = STOP_WORK, stop = true;
  if (stop) glp_ios_terminate(T);
  else if (reason == GLP_IBRANCH && c->o->priority) Ilp_branchByPriority(c, T);
  else if (reason == GLP_IBRANCH && !c->o->pseudocost) Ilp_branch(c, T);
  if (stop || now - c->last_report >= c->o->progress_interval || reason == GLP_IBINGO) {
    int p = glp_ios_best_node(T);
    if (p) Ilp_setBound(c, glp_ios_node_bound(T, p));
    glp_prob *P = glp_ios_get_prob(T);
    bool has_inc = glp_mip_status(P) == GLP_FEAS || glp_mip_status(P) == GLP_OPT;
    Ilp_report(c, "branch and bound", has_inc, has_inc ? glp_mip_obj_val(P) : 0, now);
  }
}

/* A MIP solution's continuous columns come from the branch and bound's last LP,
 * solved on the scaled problem within GLPK's tolerances: next to a log-domain
 * row (CoSA's reuse credits: credit <= sum of log factors, all factors 0) a
 * credit of 3e-6 is within them and breaks the row by more than the check's
 * 1e-6 once unscaled. Polish: fix every integer column at its rounded value and
 * solve the LP over the continuous ones again, with GLPK's LP presolver (which
 * takes the fixed columns out exactly). x gets the new continuous values; false
 * when that LP has no optimum (x unchanged). */
static bool Ilp_polish(glp_prob *P, const IlpModel *m, double *x) {
  for (int j = 0; j < m->ncols; j++)
    if (m->kind[j] != ILP_CONTINUOUS) {
      glp_set_col_kind(P, j + 1, GLP_CV);
      glp_set_col_bnds(P, j + 1, GLP_FX, x[j], x[j]);
    }
  glp_smcp sm;
  glp_init_smcp(&sm);
  sm.msg_lev = GLP_MSG_OFF;
  sm.presolve = GLP_ON;
  if (glp_simplex(P, &sm) != 0 || glp_get_status(P) != GLP_OPT) return false;
  for (int j = 0; j < m->ncols; j++)
    if (m->kind[j] == ILP_CONTINUOUS) x[j] = glp_get_col_prim(P, j + 1);
  return true;
}

/* Everything GLPK-related, between setjmp and the end; c is on the heap so its
 * fields are well defined after a longjmp. */
static void Ilp_run(IlpCtx *c, IlpResult *r, int *ind, double *val) {
  const IlpModel *m = c->m;
  glp_prob *P = glp_create_prob();
  glp_set_obj_dir(P, GLP_MIN);
  if (m->ncols) glp_add_cols(P, m->ncols);
  if (m->nrows) glp_add_rows(P, m->nrows);
  for (int j = 0; j < m->ncols; j++) {
    int J = j + 1;
    double lo = m->clo[j], hi = m->chi[j];
    if (m->kind[j] == ILP_BINARY) glp_set_col_kind(P, J, GLP_BV);
    else {
      bool fl = lo <= -ILP_INF, fh = hi >= ILP_INF;
      int type = fl && fh ? GLP_FR : fl ? GLP_UP : fh ? GLP_LO : lo == hi ? GLP_FX : GLP_DB;
      glp_set_col_bnds(P, J, type, fl ? 0 : lo, fh ? 0 : hi);
      if (m->kind[j] == ILP_INTEGER) glp_set_col_kind(P, J, GLP_IV);
    }
    glp_set_obj_coef(P, J, m->obj[j]);
  }
  for (int i = 0; i < m->nrows; i++) {
    if ((i & 4095) == 4095 && Ilp_shouldStop(c, Clock_now())) { /* a large model: stop while loading too */
      r->status = c->stop == STOP_CANCEL ? ILP_CANCELLED : ILP_TIMEOUT;
      goto done;
    }
    double lo = m->rlo[i], hi = m->rhi[i];
    bool fl = lo <= -ILP_INF, fh = hi >= ILP_INF;
    int type = fl && fh ? GLP_FR : fl ? GLP_UP : fh ? GLP_LO : lo == hi ? GLP_FX : GLP_DB;
    glp_set_row_bnds(P, i + 1, type, fl ? 0 : lo, fh ? 0 : hi);
    int len = m->rstart[i + 1] - m->rstart[i];
    for (int k = 0; k < len; k++) {
      ind[k + 1] = m->nzcol[m->rstart[i] + k] + 1;
      val[k + 1] = m->nzval[m->rstart[i] + k];
    }
    glp_set_mat_row(P, i + 1, len, ind, val);
  }

  if (Ilp_shouldStop(c, Clock_now())) {
    r->status = c->stop == STOP_CANCEL ? ILP_CANCELLED : ILP_TIMEOUT;
    goto done;
  }
  glp_scale_prob(P, GLP_SF_AUTO); /* big-M rows next to unit rows: scaling keeps the simplex stable */
  /* Root LP in slices of a fixed number of iterations (about 0.1 s each on an idle
   * core): each call resumes from the last basis, and a slice's end depends on the
   * model only, so the path (and the optimal basis branch and bound starts from) is
   * the same on any machine; between slices: progress, cancel and the limits. The
   * outer time limit also ends a slice early (the run stops there anyway). */
  glp_smcp sm;
  glp_init_smcp(&sm);
  sm.msg_lev = GLP_MSG_ERR;
  double now = Clock_now();
  Ilp_report(c, "root LP", false, 0, now);
  long slice = Ilp_workFor(0.2, m->nnz, m->nrows, m->ncols);
  if (slice < 50) slice = 50;
  if (slice > 20000) slice = 20000;
  int ret, retries = 0;
  for (;;) {
    long it = slice;
    if (c->work_limit > 0) {
      long left = c->work_limit - (long)glp_get_it_cnt(P);
      if (left <= 0) {
        c->stop = STOP_WORK;
        ret = GLP_EITLIM;
        break;
      }
      if (left < it) it = left;
    }
    sm.it_lim = (int)it;
    sm.tm_lim = INT_MAX;
    if (c->deadline > 0) {
      double left = c->deadline - now;
      sm.tm_lim = left * 1000 < 1 ? 1 : left * 1000 < 2e9 ? (int)(left * 1000) : 2000000000;
    }
    ret = glp_simplex(P, &sm);
    now = Clock_now();
    if ((ret == GLP_EFAIL || ret == GLP_ESING || ret == GLP_ECOND) && retries++ < 2) {
      /* numerical trouble: restart from a fresh basis, then with the dual simplex */
      glp_adv_basis(P, 0);
      sm.meth = retries == 1 ? GLP_PRIMAL : GLP_DUALP;
      continue;
    }
    if (ret != GLP_EITLIM && ret != GLP_ETMLIM) break;
    if (Ilp_shouldStop(c, now)) break;
    if (ret == GLP_ETMLIM) { /* the outer limit, a moment early */
      c->stop = STOP_TIME;
      break;
    }
    Ilp_report(c, "root LP", false, 0, now);
  }
  c->work = (long)glp_get_it_cnt(P);
  if (ret == GLP_ETMLIM || ret == GLP_EITLIM || c->stop != STOP_NONE || Ilp_shouldStop(c, now)) {
    if (!c->stop) Ilp_shouldStop(c, 1e300);
    r->status = c->stop == STOP_CANCEL ? ILP_CANCELLED : ILP_TIMEOUT;
    r->work_limited = c->stop == STOP_WORK;
    goto done;
  }
  if (ret != 0) {
    r->status = ILP_ERROR;
    snprintf(r->message, sizeof r->message, "root LP failed (glp_simplex code %d): %.160s", ret, c->tail);
    goto done;
  }
  int lps = glp_get_status(P);
  if (lps == GLP_NOFEAS) {
    r->status = ILP_INFEASIBLE;
    goto done;
  }
  if (lps != GLP_OPT) {
    r->status = ILP_ERROR;
    snprintf(r->message, sizeof r->message, "root LP is %s", lps == GLP_UNBND ? "unbounded" : "not solved");
    goto done;
  }
  Ilp_setBound(c, glp_get_obj_val(P));

  glp_iocp io;
  glp_init_iocp(&io);
  io.msg_lev = GLP_MSG_ON;
  io.presolve = GLP_OFF;
  io.cb_func = Ilp_callback;
  io.cb_info = c;
  io.mip_gap = c->o->rel_gap > 0 ? c->o->rel_gap : 0;
  if (c->o->proximity > 0) io.ps_heur = GLP_ON, io.ps_tm_lim = (int)(c->o->proximity * 1000 + 1);
  if (c->o->pseudocost) io.br_tech = GLP_BR_PCH;
  if (c->o->cuts) io.gmi_cuts = io.mir_cuts = io.cov_cuts = io.clq_cuts = GLP_ON;
  if (c->deadline > 0) {
    double left = c->deadline - now + 0.5; /* the callback stops first; this is the backstop */
    io.tm_lim = left * 1000 < 2e9 ? (int)(left * 1000) : 2000000000;
  }
  Ilp_report(c, "branch and bound", false, 0, now);
  ret = glp_intopt(P, &io);
  c->work = (long)glp_get_it_cnt(P) + c->nodes;
  int ms = glp_mip_status(P);
  r->has_solution = ms == GLP_OPT || ms == GLP_FEAS;
  switch (ret) {
  case 0:
    r->status = ms == GLP_OPT ? ILP_OPTIMAL : ms == GLP_NOFEAS ? ILP_INFEASIBLE : ILP_ERROR;
    if (r->status == ILP_ERROR) snprintf(r->message, sizeof r->message, "glp_intopt: unexpected MIP status %d", ms);
    break;
  case GLP_EMIPGAP: r->status = ILP_FEASIBLE; break;
  case GLP_ETMLIM: r->status = ILP_TIMEOUT; break;
  case GLP_ESTOP:
    r->status = c->stop == STOP_CANCEL ? ILP_CANCELLED : ILP_TIMEOUT;
    r->work_limited = c->stop == STOP_WORK;
    break;
  default:
    r->status = ILP_ERROR;
    snprintf(r->message, sizeof r->message, "glp_intopt failed (code %d): %.160s", ret, c->tail);
  }
  if (r->has_solution) {
    r->objective = glp_mip_obj_val(P);
    for (int j = 0; j < m->ncols; j++) {
      double v = glp_mip_col_val(P, j + 1);
      r->x[j] = m->kind[j] == ILP_CONTINUOUS ? v : floor(v + 0.5);
    }
    /* GLPK accepts integers within tol_int (1e-5): next to a big-M of 10^6 that
     * leaves whole units of slack, and a rounded "solution" can break its rows.
     * Such a result is never passed on as a solution. */
    int bad = IlpModel_check(m, r->x, 1e-6);
    if (bad != -1 && Ilp_polish(P, m, r->x)) bad = IlpModel_check(m, r->x, 1e-6);
    if (bad != -1) {
      r->has_solution = false;
      r->status = ILP_ERROR;
      snprintf(r->message, sizeof r->message,
               "numerical trouble: GLPK's solution, rounded to integers, breaks %s %d (a big-M too large for "
               "the integrality tolerance?)",
               bad >= 0 ? "row" : "the bounds of column", bad >= 0 ? bad : -2 - bad);
    } else {
      r->objective = IlpModel_objective(m, r->x);
      if (r->status == ILP_OPTIMAL) Ilp_setBound(c, r->objective);
    }
  }
done:
  glp_delete_prob(P);
}

Status Ilp_solve(const IlpModel *m, const IlpOptions *o, IlpResult *r, SpError *err) {
  memset(r, 0, sizeof *r);
  r->status = ILP_ERROR;
  if (m->nomem) return SpError_set(err, SP_ERR_NOMEM, "out of memory building the ILP model");
  double est = Ilp_estimateSeconds(m->nnz, m->nrows, m->ncols);
  if ((o->time_limit > 0 && est > o->time_limit) || (o->work_seconds > 0 && 2 * est > o->work_seconds)) {
    /* GLPK cannot be stopped while it loads the model and starts the simplex */
    r->status = ILP_TIMEOUT;
    r->gap = -1;
    snprintf(r->message, sizeof r->message,
             "not started: the model (%d columns, %d rows, %d nonzeros) needs about %.1f s before GLPK can be "
             "stopped; the %s is %.2f s",
             m->ncols, m->nrows, m->nnz, est, o->time_limit > 0 && est > o->time_limit ? "time limit" : "work budget",
             o->time_limit > 0 && est > o->time_limit ? o->time_limit : o->work_seconds / 2);
    return SP_OK;
  }
  int maxlen = 1;
  for (int i = 0; i < m->nrows; i++)
    if (m->rstart[i + 1] - m->rstart[i] > maxlen) maxlen = m->rstart[i + 1] - m->rstart[i];
  IlpCtx *c = calloc(1, sizeof *c);
  int *ind = malloc(sizeof(int) * (size_t)(maxlen + 1));
  double *val = malloc(sizeof(double) * (size_t)(maxlen + 1));
  r->x = calloc((size_t)m->ncols + 1, sizeof(double));
  double *warm1 = o->warm_start ? malloc(sizeof(double) * ((size_t)m->ncols + 1)) : NULL;
  Status st = SP_OK;
  if (!c || !ind || !val || !r->x || (o->warm_start && !warm1)) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory in the ILP solver");
    goto out;
  }
  c->m = m;
  c->o = o;
  c->t0 = c->last_report = Clock_now();
  c->deadline = o->time_limit > 0 ? c->t0 + o->time_limit : 0;
  c->work_limit = o->work_limit > 0 ? o->work_limit : Ilp_workFor(o->work_seconds, m->nnz, m->nrows, m->ncols);
  if (o->warm_start) {
    int bad = IlpModel_check(m, o->warm_start, 1e-6);
    if (bad == -1) {
      warm1[0] = 0;
      memcpy(warm1 + 1, o->warm_start, sizeof(double) * (size_t)m->ncols);
      c->warm1 = warm1;
      r->warm_start_accepted = true;
    } else if (bad >= 0) {
      snprintf(r->message, sizeof r->message, "warm start rejected: it violates row %d", bad);
    } else {
      snprintf(r->message, sizeof r->message, "warm start rejected: column %d is out of bounds or not integral",
               -2 - bad);
    }
  }
  glp_term_hook(Ilp_termHook, c);
  glp_error_hook(Ilp_errorHook, c);
  if (setjmp(c->jb) == 0) {
    Ilp_run(c, r, ind, val);
    glp_free_env();
  } else {
    glp_free_env(); /* frees every GLPK object of this thread, the problem included */
    char msg[ILP_TAIL];
    snprintf(msg, sizeof msg, "%s", c->tail);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    for (char *p = msg; *p; p++)
      if (*p == '\n') *p = ';';
    st = SpError_set(err, SP_ERR_SOLVER, "GLPK error: %s", msg[0] ? msg : "(no message)");
    r->status = ILP_ERROR;
    r->has_solution = false;
  }
  r->seconds = Clock_now() - c->t0;
  /* loading counts as work too (estimated from the size, as the limit check below does) */
  WorkClock_add(2 * Ilp_estimateSeconds(m->nnz, m->nrows, m->ncols) +
                (double)c->work * Ilp_unitSeconds(m->nnz, m->nrows, m->ncols));
  r->has_bound = c->has_bound;
  r->bound = c->bound;
  r->nodes = c->nodes;
  r->work = c->work;
  r->branch_picks = c->branch_picks;
  if (r->has_solution && r->has_bound) {
    if (r->bound > r->objective) r->bound = r->objective; /* tolerance noise */
    r->gap = (r->objective - r->bound) / fmax(fabs(r->objective), 1e-9);
  } else {
    r->gap = -1;
  }
  if (o->progress) {
    IlpProgress p = {.incumbent = r->objective, .bound = r->bound, .gap = r->gap, .has_incumbent = r->has_solution,
                     .has_bound = r->has_bound, .nodes = r->nodes, .elapsed = r->seconds, .stage = "done"};
    o->progress(&p, o->user);
  }
  if (st == SP_OK) { /* on an error the result holds nothing to free (callers return at once) */
    r->log = c->log;
    c->log = NULL;
  }
out:
  if (st || !r->has_solution) {
    free(r->x);
    r->x = NULL;
  }
  if (c) free(c->log);
  free(c), free(ind), free(val), free(warm1);
  return st;
}

/* ilp: a small wrapper around GLPK's MIP solver, the only module that includes
 * glpk.h. Build a model (columns with bounds, kind and objective; sparse rows),
 * solve it under a time limit / gap / cancel flag with a progress callback and an
 * optional warm-start incumbent, and get back a status, the objective, the best
 * proven bound and the column values. Minimisation only.
 *
 * Every solve adds its work (loading the model, its iterations) to the calling
 * thread's WorkClock (workclock.h).
 *
 * GLPK never prints: its terminal output is captured into the result's log. A GLPK
 * fatal error is caught (glp_error_hook + longjmp) and returned as SP_ERR_SOLVER
 * with GLPK's message; the process is never aborted.
 *
 * Threads: GLPK 5.0 keeps its environment in thread-local storage, so one
 * Ilp_solve per thread at a time is safe. Ilp_solve frees the calling thread's
 * GLPK environment before it returns (glp_free_env: needed after a caught error,
 * and it keeps valgrind clean), so no other code may hold GLPK objects in the same
 * thread across the call -- nothing else in spadmap uses GLPK directly. The
 * progress callback runs in the calling thread. */
#ifndef SPADMAP_ILP_H
#define SPADMAP_ILP_H

#include <stdatomic.h>
#include <stdbool.h>

#include "status.h"

#define ILP_INF 1e300 /* an absent bound: -ILP_INF / ILP_INF */

typedef enum { ILP_CONTINUOUS, ILP_INTEGER, ILP_BINARY } IlpKind;

typedef enum {
  ILP_OPTIMAL,     /* proven optimal (within the default tiny tolerance) */
  ILP_FEASIBLE,    /* stopped at the requested relative gap: solution + bound */
  ILP_TIMEOUT,     /* time limit: has_solution says whether an incumbent exists */
  ILP_CANCELLED,   /* *cancel was set: has_solution as for a timeout */
  ILP_INFEASIBLE,  /* proven: no solution */
  ILP_ERROR,       /* GLPK gave up (numerical trouble, unbounded LP): see message */
  ILP_STATUS_COUNT
} IlpStatus;

typedef struct IlpModel IlpModel;

IlpModel *IlpModel_new(void);
void IlpModel_free(IlpModel *m);
/* Adds a column; returns its index (0-based) or -1 when out of memory (the model
 * then remembers the failure and Ilp_solve returns SP_ERR_NOMEM). Binary columns
 * ignore lo/hi. */
int IlpModel_addCol(IlpModel *m, IlpKind kind, double lo, double hi, double obj);
/* Adds lo <= sum coef[k] * x[cols[k]] <= hi (use +-ILP_INF for a missing side);
 * returns the row index or -1. A column listed twice is a GLPK error at solve time
 * (reported as SP_ERR_SOLVER); a column index out of range gives -1 at once. */
int IlpModel_addRow(IlpModel *m, double lo, double hi, int n, const int *cols, const double *coef);
int IlpModel_ncols(const IlpModel *m);
int IlpModel_nrows(const IlpModel *m);
long IlpModel_nnz(const IlpModel *m);
/* A work limit (IlpOptions.work_limit) worth `seconds` nominal seconds of GLPK
 * (workclock.h: half a second of an idle core each) for a model of this size: a
 * simplex iteration costs about (rows + cols + nnz) x 35 ns on an idle core of the
 * build machine (measured on the cosa models: about 20,000 iterations per CPU
 * second at 1,400). For budgets that were once "a share of the time limit": the
 * share becomes this many iterations, the same on any machine. seconds <= 0: 0. */
long Ilp_workFor(double seconds, long nnz, long rows, long cols);
/* Seconds GLPK needs before it can first be stopped (loading, scaling, the first
 * simplex slice), estimated from the model's size: measured 1.3-4.5 us per nonzero
 * on the bundled models, so this is a low estimate. Ilp_solve refuses a model
 * whose estimate exceeds its time limit (ILP_TIMEOUT at once, with a message). */
double Ilp_estimateSeconds(long nnz, long rows, long cols);
/* Checks x against bounds, integrality and rows (tolerance tol); returns the index
 * of the first violated row, or -2 - j for column j, or -1 when x is feasible. */
int IlpModel_check(const IlpModel *m, const double *x, double tol);
double IlpModel_objective(const IlpModel *m, const double *x);

typedef struct {
  double incumbent;       /* objective of the best solution so far (if has_incumbent) */
  double bound;           /* best proven lower bound (if has_bound) */
  double gap;             /* (incumbent - bound) / max(|incumbent|, 1e-9); <0 if unknown */
  bool has_incumbent, has_bound;
  long nodes;             /* branch-and-bound nodes so far */
  double elapsed;         /* seconds since Ilp_solve started */
  const char *stage;      /* "root LP", "branch and bound", "done", or the caller's label */
} IlpProgress;

typedef struct {
  double time_limit;      /* seconds; <= 0: none. Wall clock: only the caller's outer limit
                             belongs here (an answer it stops is marked ILP_TIMEOUT) */
  long work_limit;        /* simplex iterations plus branch-and-bound nodes, root LP included;
                             <= 0: none. Past it: ILP_TIMEOUT with work_limited set. The same
                             model and options stop at the same point on any machine and load */
  double work_seconds;    /* > 0 (and no work_limit): work_limit = Ilp_workFor(work_seconds, the model) */
  double rel_gap;         /* stop at this relative gap (status ILP_FEASIBLE); 0: prove optimality */
  void (*progress)(const IlpProgress *p, void *user); /* at least every progress_interval while solving */
  void *user;
  double progress_interval; /* seconds (default 0.2) */
  atomic_int *cancel;   /* non-zero: stop as soon as possible (ILP_CANCELLED) */
  const double *warm_start; /* ncols values of a feasible solution, or NULL */
  const char *label;      /* prefix for progress stages (e.g. "full model"), or NULL */
  bool integral_objective; /* every solution's objective is an integer: round bounds up */
  double proximity;       /* > 0: GLPK's proximity search heuristic, at most this many seconds
                             per call (it is not interruptible: keep it short). Wall clock inside
                             GLPK: its answer depends on the machine's speed when it is cut short */
  bool pseudocost;        /* pseudocost branching instead of GLPK's default */
  const double *priority; /* ncols branching priorities, or NULL (GLPK's own rule). At each
                             branching: the most fractional of the fractional columns of the
                             highest priority (the first of equals), priority 0 the lowest */
  bool cuts;              /* GLPK's Gomory, MIR, cover and clique cuts (CoSA's log-space knapsacks need them) */
} IlpOptions;

typedef struct {
  IlpStatus status;
  bool has_solution;      /* x and objective hold the best solution found */
  bool has_bound;
  double objective, bound, gap;
  double seconds;
  long nodes;
  long work;              /* simplex iterations plus nodes spent (what work_limit counts) */
  bool work_limited;      /* ILP_TIMEOUT came from work_limit, not from time_limit */
  bool warm_start_accepted; /* the warm start was feasible and handed to GLPK */
  long branch_picks;      /* nodes where the wrapper chose the branching column (most fractional)
                             because GLPK's heuristic would have run long without a callback */
  double *x;              /* ncols values (malloc'd) if has_solution */
  char *log;              /* GLPK's captured terminal output (malloc'd, may be NULL) */
  char message[256];      /* why, for ILP_ERROR / rejected warm starts */
} IlpResult;

void IlpOptions_init(IlpOptions *o);
/* SP_OK whenever GLPK ran to one of the statuses above (even infeasible or timeout);
 * SP_ERR_SOLVER on a GLPK fatal error (err has GLPK's message), SP_ERR_NOMEM: then
 * r owns no memory (IlpResult_free is harmless but not needed). */
Status Ilp_solve(const IlpModel *m, const IlpOptions *o, IlpResult *r, SpError *err);
void IlpResult_free(IlpResult *r);
const char *IlpStatus_name(IlpStatus s);
/* The linked GLPK's version ("5.0"), for reports, so callers need not include
 * glpk.h. A static buffer: call it from one thread at a time. */
const char *Ilp_version(void);

#endif

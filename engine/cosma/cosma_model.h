/* cosma_model: what the two COSMA models share (cosma_minpeak.c, cosma_fs.c):
 * a sparse row builder, the progress relay from GLPK's units to bytes, and the
 * mapping of ILP options and statuses. Internal to the engine. */
#ifndef SPADMAP_COSMA_MODEL_H
#define SPADMAP_COSMA_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "cosma.h"
#include "ilp.h"

/* Row builder: a growable list of (col, coef). */
typedef struct {
  int *cols;
  double *coef;
  int n, cap;
  bool nomem;
} Row;

/* Progress relay: model units -> bytes, with the pipeline's own incumbent/bound. */
typedef struct {
  const SolveSettings *s;
  double scale;           /* bytes per model unit */
  double t0;
  double incumbent, bound; /* pipeline-wide, in model units */
  bool has_incumbent, has_bound;
} Relay;

int64_t Cosma_gcd(int64_t a, int64_t b);
void Row_add(Row *r, int col, double coef);
void Row_commit(IlpModel *m, Row *r, double lo, double hi);
void Row_free(Row *r);
void Relay_report(Relay *r, const char *stage, bool has_inc, double inc, bool has_bnd, double bnd, long nodes);
void Relay_ilp(const IlpProgress *p, void *user);
/* Options for a stage's solve: time_limit is the stage's nominal seconds (its work
 * budget, IlpOptions.work_seconds); the wall clock stops it at s->deadline only. */
void Cosma_ilpOptions(IlpOptions *o, const SolveSettings *s, Relay *relay, double time_limit, const char *label);
/* Seconds of wall clock left before s->deadline (at least 0.01); 0: no deadline. */
double Cosma_wallLeft(const SolveSettings *s);
SolverStatus Cosma_status(IlpStatus st);
/* The end of a pipeline: the plan's solver block (objective = its non-compulsory
 * bytes, bound in bytes, clamped to it) and the final "done" report. */
/* Stage (a) of both pipelines: simulates every fast replacement x allocator pair on
 * the order and keeps *best the cheapest (it may already hold a plan); a new best
 * names itself in policy as "PREFIX/replacement/allocator" (no prefix: NULL). */
void Cosma_bestSimulated(const Net *net, const SolveSettings *s, const int *order, const char *prefix, Plan **best,
                         char *policy, size_t n);
void Cosma_finish(Plan *plan, SolverStatus status, int64_t bound, double seconds, Relay *relay);
/* Seconds of proximity search for a mid-sized model, else 0 (measured: it finds the
 * better orders and evictions GLPK's default search misses there, but costs seconds
 * on small models and cannot be interrupted on very large ones). */
double Cosma_proximity(const IlpModel *m, double stage_seconds);
/* ASAP (number of ancestors) and ALAP (n - 1 - number of descendants) of every op:
 * the steps an op can take in any topological order. */
bool Cosma_windows(const Net *net, int *asap, int *alap);

/* Limits on building a model, shared by the FS and joint builders: stop past the
 * (wall-clock, outer) deadline, above max_nnz nonzeros (what GLPK could load in the time left; the
 * full models' pairs can be millions) or on cancel. hit stays set once reached. */
typedef struct {
  double deadline;    /* Clock_now() seconds; 0: none */
  long max_nnz;       /* 0: none */
  atomic_int *cancel;
  bool hit;
  const char *stage; /* the test hook's name (testhook.h): cosma.model, cosma.minpeak */
} CosmaBuildLimit;

/* Limits for a model built now that must be loaded within `seconds` (<= 0: none). */
void CosmaBuildLimit_set(CosmaBuildLimit *l, double deadline, double seconds, atomic_int *cancel);
bool CosmaBuildLimit_over(CosmaBuildLimit *l, const IlpModel *m);

#endif

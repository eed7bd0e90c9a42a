/* figures: the budget presets and footprints of the contract's memory model.
 * M_R (largest single op), M_P (exact minimum peak over all topological orders,
 * with the order that reaches it), M_H, and the peak of any schedule. */
#ifndef SPADMAP_FIGURES_H
#define SPADMAP_FIGURES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "net.h"

/* Bytes an op holds while it runs: its distinct on-chip inputs and outputs. */
int64_t Figures_opBytes(const Net *net, int op, bool params);
/* M_R: the largest Figures_opBytes over all ops. */
int64_t Figures_minRequired(const Net *net, bool params);
/* Peak footprint of a schedule (order[step] = op) and the first step reaching it. */
int64_t Figures_peak(const Net *net, bool params, const int *order, int *peak_step);
/* A lower bound on every schedule's peak: per op, its own bytes plus the tensors
 * that must be live across it whatever the order. */
int64_t Figures_peakLowerBound(const Net *net, bool params);
/* The same bound per op (per_op: nops entries, may be NULL); returns their maximum. */
int64_t Figures_opLowerBounds(const Net *net, bool params, int64_t *per_op);
/* Ancestor sets, one bitset of Bitset_words(nops) words per op (NULL: no memory). */
uint64_t *Figures_ancestors(const Net *net, int words);

typedef struct {
  long max_states;      /* give up (SP_ERR_LIMIT) after this many stored states */
  size_t max_bytes;     /* give up (SP_ERR_LIMIT) before the search's own memory passes this
                           (states are n/64 words each: the byte cap is what bounds memory) */
  double time_limit;    /* seconds; <= 0: none (SP_ERR_LIMIT): nominal seconds of work on the work
                           clock (workclock.h), and the wall-clock stop unless deadline is set */
  double deadline;      /* Clock_now() seconds: the wall-clock stop instead; 0: from time_limit */
  atomic_int *cancel; /* set non-zero to stop (SP_ERR_CANCELLED) */
  bool whole;           /* one search over the whole network (no cuts, no weight-only ops taken out):
                           the search before issue 37, kept for tests to compare against */
} MinPeakOptions;

typedef struct {
  int64_t peak;         /* M_P when the status is SP_OK, else the best peak found */
  int64_t lower_bound;  /* proven lower bound */
  long states;          /* search states stored */
  long expanded;
  int segments;         /* pieces the file order was cut into at cut ops (1: none) */
  int removed;          /* weight-only ops taken out before the search */
  double seconds;
} MinPeakResult;

void MinPeakOptions_init(MinPeakOptions *o);
/* Exact M_P (docs/design/minpeak.md): weight-only ops taken out, the file order
 * cut at ops every other op precedes or follows, and a best-first search over sets
 * of executed ops within each piece; fills order (nops
 * entries) with a schedule reaching it. On SP_ERR_LIMIT and SP_ERR_CANCELLED the
 * order is the best found (res->peak its peak, res->lower_bound what is proven).
 * Defaults: 3,000,000 states, 256 MiB, no time limit. */
Status Figures_minPeak(const Net *net, bool params, const MinPeakOptions *opt, int *order,
                       MinPeakResult *res, SpError *err);

typedef struct {
  int64_t m_r, m_p, m_h;
  int64_t default_peak;
  bool m_p_exact;       /* false when the search hit its limit (m_p is then an upper bound) */
  MinPeakResult search;
} NetFigures;

/* All presets for one setting; mp_order (nops entries, may be NULL) gets the M_P order. */
Status Figures_compute(const Net *net, bool params, NetFigures *f, int *mp_order, SpError *err);
/* The same with the M_P search's options (limits, cancel flag); a cancelled search
 * gives SP_ERR_CANCELLED, a limit gives SP_OK with m_p_exact false. */
Status Figures_computeWith(const Net *net, bool params, const MinPeakOptions *opt, NetFigures *f, int *mp_order,
                           SpError *err);

#endif

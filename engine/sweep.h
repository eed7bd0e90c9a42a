/* sweep: what-if over the budget. Every fast policy combination (schedule x
 * replacement x allocator; a joint schedule once) solved at evenly spaced
 * budgets from M_R to a little past M_P: traffic, spills and peak per point.
 * Below M_R (SweepOptions.from), budgets halve down to `from` and each is
 * planned on the tiled network (engine/netcost: NetCostStage). With a mapper
 * (an arch and a layer method) every point also gets the network's cycles,
 * energy and DRAM bytes (engine/netcost/netcost.h).
 * Heuristic solves take about a millisecond, so a sweep can be dense. Each
 * schedule's order is computed once (a fast schedule does not depend on the
 * budget) and reused for every budget. */
#ifndef SPADMAP_SWEEP_H
#define SPADMAP_SWEEP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "figures.h"
#include "net.h"
#include "plan.h"

typedef struct NetCostMapper NetCostMapper;

typedef struct {
  int budgets;           /* points along the budget axis (default 24, at least 2) */
  double past_mp;        /* the last budget is M_P * past_mp (default 1.25) */
  bool params;
  int64_t from;          /* the first budget in bytes; <= 0: M_R. Below M_R: from, then doubling
                            (geometric) up to M_R, then the evenly spaced budgets */
  int64_t to;            /* the last budget in bytes; <= 0: M_P * past_mp */
  int64_t only;          /* > 0: this one budget alone (a job of a split sweep) */
  NetCostMapper *mapper; /* non-NULL: each point's cost on its arch (cycles, energy, DRAM bytes) */
  atomic_int *cancel;    /* non-zero: stop between solves (SP_ERR_CANCELLED) */
  /* called after each point (the sweep so far is readable); NULL: none */
  void (*progress)(int done, int total, void *user);
  void *user;
} SweepOptions;

void SweepOptions_init(SweepOptions *o);

typedef struct {
  const char *schedule, *replacement, *allocator; /* policy-table names */
} SweepCombo;

typedef struct {
  bool done;             /* computed (a sweep being filled has some not yet) */
  Status status;         /* SP_OK, or why there is no plan (below M_R cannot happen) */
  int64_t traffic;       /* non-compulsory bytes */
  int spills;
  int64_t peak;
  bool tiled;            /* below M_R: the tiled network's plan */
  int64_t latency_cycles, dram_bytes; /* with a mapper (NetCost totals) */
  double energy_pj;
} SweepPoint;

typedef struct {
  int ncombos, nbudgets;
  SweepCombo *combos;
  int64_t *budgets;      /* ascending; budgets[0] = M_R unless from says otherwise */
  int64_t m_r, m_p;      /* the figures the budgets came from */
  SweepPoint *points;    /* [combo * nbudgets + budget] */
} Sweep;

/* The empty grid of a sweep for these figures (points not done). */
Status Sweep_new(const Net *net, const NetFigures *f, const SweepOptions *o, Sweep **out, SpError *err);
/* Solves every point, in budget order (each budget for all combinations, then the
 * next). A budget whose tiled network cannot be made has every point's status
 * set (no plan); a mapper failure stops the sweep with its error. */
Status Sweep_fill(const Net *net, const SweepOptions *o, Sweep *sw, SpError *err);
static inline SweepPoint *Sweep_at(Sweep *sw, int combo, int budget) {
  return &sw->points[combo * sw->nbudgets + budget];
}
void Sweep_free(Sweep *sw);

#endif

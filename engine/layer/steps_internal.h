/* steps_internal: what the steps files share and nothing else includes. */
#ifndef SPADMAP_STEPS_INTERNAL_H
#define SPADMAP_STEPS_INTERNAL_H

#include "steps.h"

/* The layer is one the step model covers (no groups, sane sizes). */
Status Steps_checkLayer(const Layer *l, SpError *err);
/* The patch order of a heuristic strategy (row-major or boustrophedon). */
void Steps_heuristicOrder(int hout, int wout, bool zigzag, int *order);
/* Strip snake: strips of a patch rows, left to right then back, each strip
 * column by column, the columns alternating up and down (snake_cols) or all
 * taken downwards (a = 1: ZigZag). */
void Steps_stripOrder(int hout, int wout, int a, bool snake_cols, int *order);
/* A plan with the same groups as src (recomputed under o). */
Status Steps_copyGroups(const Layer *l, const StepsOptions *o, const StepsPlan *src, StepsPlan *plan, SpError *err);
/* The ILP grouping (Section 5): fills plan; warm is the best heuristic plan. */
Status Steps_solveIlp(const Layer *l, const StepsOptions *o, int g, const StepsPlan *warm, StepsPlan *plan,
                      SpError *err);

/* The exact search (steps_exact.c): looks for a grouping of the layer of geo into n
 * groups of at most g with fewer than best_loaded loaded pixels under o's Eq. 9 and
 * sizeMEM, within o->time_limit x Steps_exactRate() nodes (the clock at o->time_limit
 * only stops it early on a slow machine); floor_loaded is a known lower bound (finding it ends
 * the search). */
typedef struct {
  bool skipped;      /* the layer is too large for the search (over 128 patches, 256 pixels) */
  bool proven;       /* the search finished: best_loaded is the optimum */
  bool improved;     /* groups holds a grouping with best_loaded < the given bound */
  bool cancelled;
  bool stopped;      /* the time limit or cancel stopped it (not its node budget) */
  int best_loaded;
  int bound_loaded;  /* no plan loads fewer pixels (proven by the search) */
  uint64_t groups[64][2]; /* patch sets of the groups (bits of patches 0-63, 64-127), in order */
  long nodes;
  int threads;       /* threads it ran on */
  double seconds;
} StepsExact;
/* The search's node budget per second of o->time_limit (all lanes together). */
double Steps_exactRate(void);
Status Steps_exact(const StepsPlan *geo, const StepsOptions *o, int g, int n, int best_loaded, int floor_loaded,
                   StepsExact *res, SpError *err);

#endif

/* mapping: how one layer runs on an architecture (per memory level: temporal
 * factors, spatial factors, loop order) and the analytical cost model every
 * layer mapper is judged by (cost.c).
 *
 * Conventions (Timeloop's): level i's temporal loops iterate inside level i's
 * buffer; its spatial factors split the work among the fanout(i) copies of level
 * i-1 (or MACs) that each copy of level i feeds. So the tile a copy of level i
 * holds covers every loop at levels <= i, spatial and temporal. For each
 * dimension the product of all factors is the layer's bound. */
#ifndef SPADMAP_MAPPING_H
#define SPADMAP_MAPPING_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "layer.h"

typedef enum { DIM_R, DIM_S, DIM_P, DIM_Q, DIM_C, DIM_K, DIM_N, DIM_COUNT } Dim;

typedef struct {
  int nlevels;
  int64_t t[ARCH_MAX_LEVELS][DIM_COUNT];   /* temporal factor of each dim at each level */
  int64_t s[ARCH_MAX_LEVELS][DIM_COUNT];   /* spatial factor */
  uint8_t order[ARCH_MAX_LEVELS][DIM_COUNT]; /* temporal loops at a level, innermost first (a permutation of Dim) */
} Mapping;

const char *Dim_name(Dim d);               /* "R", "S", ... */
const char *Dim_lower(Dim d);              /* "r", "s", ... (Listing 1's loop variables) */
int64_t Layer_dim(const Layer *l, Dim d);
/* CoSA's matrix A: does dimension d index operand v? Inputs depend on R and S
 * through the halo (h = p * stride + r), so R, S count for inputs here. */
bool Dim_relevant(Dim d, Operand v);

/* Every factor temporal at the outermost level, loops in R..N order (valid when
 * the outermost level is unbounded). */
void Mapping_init(Mapping *m, const Arch *a, const Layer *l);
/* Elements of operand v in the tile one copy of `level` holds (-1: one MAC's). */
int64_t Mapping_tile(const Mapping *m, const Layer *l, int level, Operand v);
/* Bytes one copy of `level` must hold (its held operands' tiles). */
int64_t Mapping_used(const Mapping *m, const Arch *a, const Layer *l, int level);
/* How level's spatial factors run over its fanout_x x fanout_y array: bit d of
 * *ymask set = dimension d along Y, the others along X (one axis per dimension,
 * as Timeloop's spatial split). The first fitting split in subset order (all
 * on X when that fits); false when none fits. */
bool Mapping_spatialSplit(const Mapping *m, const Arch *a, int level, unsigned *ymask);
/* Structure (factor products, spatial fan-out and its X/Y split, orders) and capacity; on false,
 * why (when non-NULL) says what breaks, naming the level and operand, and
 * *bad_level (when non-NULL) the level whose capacity binds (-1: not capacity). */
bool Mapping_valid(const Mapping *m, const Arch *a, const Layer *l, char *why, int n, int *bad_level);

typedef enum { OBJ_LATENCY, OBJ_ENERGY, OBJ_EDP, OBJ_COUNT } LayerObjective;
const char *LayerObjective_name(LayerObjective o);   /* "latency", "energy", "edp" */
bool LayerObjective_parse(const char *s, LayerObjective *o);

typedef struct {
  bool valid;
  char why[200];          /* when !valid */
  int bad_level;          /* the level whose capacity binds when !valid, else -1 */
  int64_t tile[ARCH_MAX_LEVELS][OPND_COUNT]; /* elements per copy (for all operands, held or not) */
  int64_t used[ARCH_MAX_LEVELS];             /* bytes per copy of the held operands */
  int64_t active[ARCH_MAX_LEVELS];           /* copies of the level in use (spatial factors above) */
  double reads[ARCH_MAX_LEVELS][OPND_COUNT], writes[ARCH_MAX_LEVELS][OPND_COUNT]; /* element accesses, all copies */
  double level_bytes[ARCH_MAX_LEVELS];       /* bytes read + written at the level, all copies */
  double transfer_cycles[ARCH_MAX_LEVELS];   /* level_bytes / (bandwidth x active copies) */
  double compute_cycles;  /* product of the temporal factors (x groups) */
  double latency;         /* max(compute, every transfer): double buffering hides the rest */
  int bound_by;           /* level whose transfers set the latency, -1: compute */
  double energy_pj;
  double dram_bytes;      /* the outermost level's traffic */
  double utilization;     /* MACs / (compute cycles x the arch's MACs) */
  double macs;
} Cost;

/* Evaluates a mapping: cost->valid false (with why) when it breaks a rule; the
 * access counts are filled only for valid mappings. */
void Cost_evaluate(const Arch *a, const Layer *l, const Mapping *m, Cost *cost);
/* The objective's value (smaller is better; invalid: +inf). */
double Cost_objective(const Cost *c, LayerObjective o);

#endif

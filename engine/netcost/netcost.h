/* netcost: one answer for a whole network on an architecture with a scratchpad
 * of B bytes: its latency (cycles) and energy, op by op. It joins three papers'
 * engines: the network's plan at the budget (COSMA's traffic, solve.h), below
 * M_R the tiled network (TAA's tiling, tiles/tiles.h), and each layer's compute
 * from a layer mapper (CoSA, layer/layer_map.h), one mapping per distinct layer
 * shape. The model, and why, is docs/design/cost.md; in short, per op s of the
 * plan's schedule:
 *   compute_cycles(s) = the mapping's compute cycles (conv/matmul), else
 *                       ceil(max(elements read, elements written) / MACs) (the roofline);
 *   onchip_cycles(s)  = the mapping's latency without its DRAM level: max(compute, every
 *                       on-chip level's transfer cycles), rounded up (roofline: compute);
 *   dram_bytes(s)     = the plan's loads and retrievals before s + its spills and
 *                       stores after s (every sub-step of s below M_R), + the weights
 *                       s reads from DRAM when parameters are not held on chip
 *                       (the mapping's DRAM-level weight traffic; other params once);
 *   dram_cycles(s)    = ceil(dram_bytes(s) / the arch's DRAM bandwidth);
 *   cycles(s)         = max(onchip_cycles(s), dram_cycles(s))  (transfers overlap compute);
 *   energy_pj(s)      = the mapping's energy below DRAM (or MACs x work for the roofline)
 *                       + DRAM bytes read/written x the arch's DRAM pJ per byte.
 * Totals are the sums over ops. Everything is integer but energy. */
#ifndef SPADMAP_NETCOST_H
#define SPADMAP_NETCOST_H

#include <stdbool.h>
#include <stdint.h>

#include "layer/arch.h"
#include "layer/layer.h"
#include "layer/layer_map.h"
#include "net.h"
#include "plan.h"
#include "solve.h"
#include "status.h"

/* ---- the mappings, one per distinct layer shape --------------------------- */

typedef struct NetCostMapper NetCostMapper;

/* A cache of method's mappings onto arch under o (copied; o->cancel may be set). */
Status NetCostMapper_new(const Arch *arch, const LayerMethod *method, const LayerMapOptions *o, NetCostMapper **out,
                         SpError *err);
void NetCostMapper_free(NetCostMapper *m);
/* The mapping of l's shape (mapped on first use, then reused): *out points into
 * the cache. A mapper failure is returned (with its message) every time it is asked again. */
Status NetCostMapper_map(NetCostMapper *m, const Layer *l, const LayerMapResult **out, SpError *err);
const Arch *NetCostMapper_arch(const NetCostMapper *m);
const char *NetCostMapper_method(const NetCostMapper *m);
/* Distinct shapes mapped so far, and the mapper's runs (equal: each shape once). */
int NetCostMapper_count(const NetCostMapper *m);

/* ---- the network planned at a budget --------------------------------------- */

/* What the scratchpad plan is made for: the network itself at or above its M_R,
 * else its tiled network (Tiles_tiledNetUsed, file order) whose op u is a tile
 * of the network's op op_of[u]. */
typedef struct {
  const Net *orig;       /* the network costed */
  const Net *net;        /* the one to plan: orig or `tiled` */
  Net *tiled;            /* NULL at or above M_R */
  int *op_of;            /* per op of `net`: the original op (identity when not tiled) */
  int64_t budget, m_r;   /* m_r: the original network's */
} NetCostStage;

Status NetCostStage_build(const Net *orig, bool params, int64_t budget, NetCostStage *out, SpError *err);
void NetCostStage_free(NetCostStage *st);

/* ---- the cost ------------------------------------------------------------- */

typedef struct {
  const char *name;      /* the network op's (borrowed from the network) */
  int op;                /* its index */
  bool mapped;           /* compute from the layer mapper; false: the roofline */
  int64_t compute_cycles, onchip_cycles, dram_cycles, cycles;
  int64_t dram_bytes;    /* = plan_bytes + weight_bytes */
  int64_t plan_bytes;    /* the plan's loads, retrievals, spills and stores for it */
  int64_t weight_bytes;  /* parameters read from DRAM (0 when params are on chip) */
  int64_t read_bytes, write_bytes; /* dram_bytes split by direction */
  double energy_pj;
} NetCostOp;

typedef struct {
  int nops;
  NetCostOp *ops;        /* in the plan's schedule order (below M_R: the order of first sub-steps) */
  int64_t cycles, compute_cycles, onchip_cycles, dram_cycles, dram_bytes, plan_bytes, weight_bytes;
  double energy_pj;
  int mapped, roofline;  /* how many ops each */
  bool tiled;            /* the plan is the tiled network's (budget below M_R) */
} NetCost;

/* The cost of the original network under a plan of stage->net (validated by
 * the caller when it wants to: the tests do). */
Status NetCost_evaluate(const NetCostStage *stage, const Plan *plan, bool params, NetCostMapper *mapper, NetCost *out,
                        SpError *err);
/* Stage, solve with s (its budget; s->order is used only at or above M_R) and
 * evaluate. *plan_out (may be NULL) gets the plan of stage->net, *stage_out
 * (may be NULL) the stage; the caller frees both. */
Status NetCost_run(const Net *net, const SolveSettings *s, NetCostMapper *mapper, NetCost *out, NetCostStage *stage_out,
                   Plan **plan_out, SpError *err);
void NetCost_free(NetCost *c);

#endif

/* cost: the analytical loop-nest model (see mapping.h for the conventions).
 *
 * Level by level against Timeloop's model (NVlabs/timeloop, "Timeloop: A
 * Systematic Approach to DNN Accelerator Evaluation", ISPASS 2019):
 *  - Tiles: as Timeloop, a copy of level i holds the data of every loop at
 *    levels <= i; the input tile includes the halo, (p-1)*stride + r rows.
 *  - Capacity: the held operands' tiles (times their precision) must fit one
 *    copy's capacity. Like Timeloop we do not halve it for double buffering.
 *  - Fills: a child tile of operand v is refetched once per iteration of the
 *    loops above it, except the innermost run of loops that do not index v
 *    (temporal reuse: Timeloop's "stationary" analysis, CoSA's Y variables in
 *    Eq. 9). Bypassed levels (not holding v) pass their loops through.
 *  - Spatial: a parent sends each distinct child tile once (multicast to the
 *    children that share it, as Timeloop with multicast networks); each child
 *    copy is written once per fill. Partial sums of children that differ only
 *    in R, S or C are reduced on the way up (DIFFERS from Timeloop's default,
 *    which charges the parent one update per child unless the network has
 *    adders; Simba's PEs reduce across lanes in an adder tree).
 *  - MACs: each MAC reads its weight and input and updates its output at the
 *    innermost level holding each (no reuse inside the MAC, as Timeloop).
 *  - Outputs: the first write of each partial sum reads nothing; later updates
 *    are read-modify-write.
 *  - Latency: compute cycles = product of temporal factors (every active MAC
 *    busy each cycle); each level's transfer time = its bytes / (bandwidth x
 *    copies in use); with double buffering the layer takes the max of all of
 *    them (Timeloop: max over levels of accesses / bandwidth, same idea).
 *  - Energy: accesses x precision x pJ per byte + MACs x pJ per MAC (Timeloop
 *    uses pJ per access of a word from Accelergy; we use per byte).
 *  - DIFFERS: no halo sharing between neighbouring spatial tiles, no network
 *    hop costs, no sliding-window reuse of the input halo across temporal steps.
 *  - Groups (depthwise, batched matmuls) run one after another: every count is
 *    multiplied by the group count. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mapping.h"

static const char *const Dim_names[DIM_COUNT] = {"R", "S", "P", "Q", "C", "K", "N"};
static const char *const Dim_lowers[DIM_COUNT] = {"r", "s", "p", "q", "c", "k", "n"};
/* CoSA's matrix A (Table IV), with R, S counted for inputs (the halo). */
static const bool Dim_rel[DIM_COUNT][OPND_COUNT] = {
    /*        W      I      O  */
    /* R */ {true, true, false},
    /* S */ {true, true, false},
    /* P */ {false, true, true},
    /* Q */ {false, true, true},
    /* C */ {true, true, false},
    /* K */ {true, false, true},
    /* N */ {false, true, true},
};

const char *Dim_name(Dim d) { return d < DIM_COUNT ? Dim_names[d] : "?"; }
const char *Dim_lower(Dim d) { return d < DIM_COUNT ? Dim_lowers[d] : "?"; }
bool Dim_relevant(Dim d, Operand v) { return Dim_rel[d][v]; }

int64_t Layer_dim(const Layer *l, Dim d) {
  switch (d) {
  case DIM_R: return l->R;
  case DIM_S: return l->S;
  case DIM_P: return l->P;
  case DIM_Q: return l->Q;
  case DIM_C: return l->C;
  case DIM_K: return l->K;
  default: return l->N;
  }
}

static const char *const Objective_names[OBJ_COUNT] = {"latency", "energy", "edp"};
const char *LayerObjective_name(LayerObjective o) { return o < OBJ_COUNT ? Objective_names[o] : "?"; }
bool LayerObjective_parse(const char *s, LayerObjective *o) {
  for (int i = 0; i < OBJ_COUNT; i++)
    if (strcmp(s, Objective_names[i]) == 0) {
      *o = (LayerObjective)i;
      return true;
    }
  return false;
}

void Mapping_init(Mapping *m, const Arch *a, const Layer *l) {
  memset(m, 0, sizeof *m);
  m->nlevels = a->nlevels;
  for (int i = 0; i < a->nlevels; i++)
    for (int d = 0; d < DIM_COUNT; d++) {
      m->t[i][d] = i == a->nlevels - 1 ? Layer_dim(l, (Dim)d) : 1;
      m->s[i][d] = 1;
      m->order[i][d] = (uint8_t)d;
    }
}

/* The extent of dim d covered by one copy of `level` (all loops at levels <= level). */
static int64_t Mapping_extent(const Mapping *m, int level, int d) {
  int64_t e = 1;
  for (int i = 0; i <= level; i++) e *= m->t[i][d] * m->s[i][d];
  return e;
}

int64_t Mapping_tile(const Mapping *m, const Layer *l, int level, Operand v) {
  if (level < 0) return 1;
  int64_t e[DIM_COUNT];
  for (int d = 0; d < DIM_COUNT; d++) e[d] = Mapping_extent(m, level, d);
  switch (v) {
  case OPND_W: return e[DIM_R] * e[DIM_S] * e[DIM_C] * e[DIM_K];
  case OPND_O: return e[DIM_P] * e[DIM_Q] * e[DIM_K] * e[DIM_N];
  default: /* the halo: (p - 1) * stride + r rows for p output rows and r filter rows */
    return e[DIM_N] * e[DIM_C] * ((e[DIM_P] - 1) * l->stride_h + e[DIM_R]) * ((e[DIM_Q] - 1) * l->stride_w + e[DIM_S]);
  }
}

int64_t Mapping_used(const Mapping *m, const Arch *a, const Layer *l, int level) {
  int64_t used = 0;
  for (int v = 0; v < OPND_COUNT; v++)
    if (Arch_holds(a, level, (Operand)v)) used += Mapping_tile(m, l, level, (Operand)v) * a->precision[v];
  return used;
}

bool Mapping_spatialSplit(const Mapping *m, const Arch *a, int level, unsigned *ymask) {
  const ArchLevel *lv = &a->level[level];
  unsigned used = 0;
  for (int d = 0; d < DIM_COUNT; d++)
    if (m->s[level][d] > 1) used |= 1u << d;
  /* the subsets of the used dimensions, {} first: a 1-D level puts all on X */
  for (unsigned y = 0;; y = (y - used) & used) {
    int64_t px = 1, py = 1;
    for (int d = 0; d < DIM_COUNT; d++) {
      if (!((used >> d) & 1u)) continue;
      if ((y >> d) & 1u) py *= m->s[level][d];
      else px *= m->s[level][d];
    }
    if (px <= lv->fanout_x && py <= lv->fanout_y) {
      *ymask = y;
      return true;
    }
    if (y == used) return false;
  }
}

bool Mapping_valid(const Mapping *m, const Arch *a, const Layer *l, char *why, int n, int *bad_level) {
  char dummy[8];
  if (!why) {
    why = dummy;
    n = sizeof dummy;
  }
  if (bad_level) *bad_level = -1;
  if (m->nlevels != a->nlevels) {
    snprintf(why, (size_t)n, "mapping has %d levels, the architecture %d", m->nlevels, a->nlevels);
    return false;
  }
  for (int d = 0; d < DIM_COUNT; d++) {
    int64_t p = 1;
    for (int i = 0; i < a->nlevels; i++) {
      if (m->t[i][d] < 1 || m->s[i][d] < 1) {
        snprintf(why, (size_t)n, "%s: factor below 1 at %s", Dim_name((Dim)d), a->level[i].name);
        return false;
      }
      p *= m->t[i][d] * m->s[i][d];
      if (p > Layer_dim(l, (Dim)d)) break;
    }
    if (p != Layer_dim(l, (Dim)d)) {
      snprintf(why, (size_t)n, "%s: the factors multiply to %lld, not the layer's %lld", Dim_name((Dim)d),
               (long long)p, (long long)Layer_dim(l, (Dim)d));
      return false;
    }
  }
  for (int i = 0; i < a->nlevels; i++) {
    unsigned seen = 0;
    int64_t sp = 1;
    for (int k = 0; k < DIM_COUNT; k++) {
      if (m->order[i][k] >= DIM_COUNT || (seen >> m->order[i][k]) & 1u) {
        snprintf(why, (size_t)n, "%s: the loop order is not a permutation", a->level[i].name);
        return false;
      }
      seen |= 1u << m->order[i][k];
      sp *= m->s[i][k];
    }
    if (sp > a->level[i].fanout) {
      snprintf(why, (size_t)n, "%s: spatial factors %lld exceed its fan-out %lld", a->level[i].name, (long long)sp,
               (long long)a->level[i].fanout);
      return false;
    }
    unsigned ymask;
    if (!Mapping_spatialSplit(m, a, i, &ymask)) {
      snprintf(why, (size_t)n, "%s: spatial factors %lld do not split over its %lldx%lld array (one axis per dimension)",
               a->level[i].name, (long long)sp, (long long)a->level[i].fanout_x, (long long)a->level[i].fanout_y);
      return false;
    }
  }
  for (int i = 0; i < a->nlevels; i++) {
    if (!a->level[i].capacity) continue;
    int64_t used = Mapping_used(m, a, l, i);
    if (used > a->level[i].capacity) {
      char parts[96] = "";
      size_t len = 0;
      for (int v = 0; v < OPND_COUNT && len < sizeof parts; v++)
        if (Arch_holds(a, i, (Operand)v))
          len += (size_t)snprintf(parts + len, sizeof parts - len, " %s %lld B", Operand_short((Operand)v),
                                  (long long)(Mapping_tile(m, l, i, (Operand)v) * a->precision[v]));
      snprintf(why, (size_t)n, "%s capacity: needs %lld B (%s ) > %lld B", a->level[i].name, (long long)used, parts,
               (long long)a->level[i].capacity);
      if (bad_level) *bad_level = i;
      return false;
    }
  }
  return true;
}

/* Fills of a child tile at level c (-1: the MACs) of operand v: the product of
 * the temporal loops above c, skipping the innermost run of loops that do not
 * index v (the tile stays while they turn). The MACs keep nothing: every loop counts. */
static double Cost_fills(const Mapping *m, int c, Operand v) {
  double f = 1;
  bool reuse_over = c < 0;
  for (int i = c + 1; i < m->nlevels; i++)
    for (int k = 0; k < DIM_COUNT; k++) {
      int d = m->order[i][k];
      if (m->t[i][d] == 1) continue;
      if (!reuse_over && !Dim_relevant((Dim)d, v)) continue;
      reuse_over = true;
      f *= (double)m->t[i][d];
    }
  return f;
}

/* Product of spatial factors at levels lo..hi (inclusive); only dims relevant to v when rel_only. */
static double Cost_spatial(const Mapping *m, int lo, int hi, Operand v, int mode) {
  double p = 1;
  for (int i = lo < 0 ? 0 : lo; i <= hi && i < m->nlevels; i++)
    for (int d = 0; d < DIM_COUNT; d++) {
      bool rel = Dim_relevant((Dim)d, v);
      if (mode == 0 || (mode == 1 && rel) || (mode == 2 && !rel)) p *= (double)m->s[i][d];
    }
  return p;
}

enum { SP_ALL = 0, SP_REL = 1, SP_IRREL = 2 };

void Cost_evaluate(const Arch *a, const Layer *l, const Mapping *m, Cost *c) {
  memset(c, 0, sizeof *c);
  c->bad_level = -1;
  c->bound_by = -1;
  c->valid = Mapping_valid(m, a, l, c->why, sizeof c->why, &c->bad_level);
  int L = a->nlevels;
  for (int i = 0; i < L; i++) {
    for (int v = 0; v < OPND_COUNT; v++) c->tile[i][v] = Mapping_tile(m, l, i, (Operand)v);
    c->used[i] = Mapping_used(m, a, l, i);
    c->active[i] = (int64_t)Cost_spatial(m, i + 1, L - 1, OPND_W, SP_ALL);
  }
  if (!c->valid) return;
  double groups = l->groups;
  double out_size = (double)(l->P * l->Q * l->K * l->N);
  for (int v = 0; v < OPND_COUNT; v++) {
    /* the chain of levels holding v, innermost first, below it the MACs (-1) */
    int child = -1;
    for (int p = 0; p < L; p++) {
      if (!Arch_holds(a, p, (Operand)v)) continue;
      double fills = Cost_fills(m, child, (Operand)v);
      double tile = (double)Mapping_tile(m, l, child, (Operand)v);
      double parents = Cost_spatial(m, p + 1, L - 1, (Operand)v, SP_ALL);
      double moved = fills * tile * Cost_spatial(m, child + 1, p, (Operand)v, SP_REL) * parents;
      double child_side = fills * tile * Cost_spatial(m, child + 1, L - 1, (Operand)v, SP_ALL);
      if (v == OPND_O) {
        double first_p = out_size * Cost_spatial(m, p + 1, L - 1, OPND_O, SP_IRREL);
        c->writes[p][v] += moved;
        c->reads[p][v] += fmax(0, moved - first_p);
        if (child >= 0) {
          double first_c = out_size * Cost_spatial(m, child + 1, L - 1, OPND_O, SP_IRREL);
          c->reads[child][v] += child_side;
          c->writes[child][v] += fmax(0, child_side - first_c);
        }
      } else {
        c->reads[p][v] += moved;
        if (child >= 0) c->writes[child][v] += child_side;
      }
      child = p;
    }
  }
  double compute = 1;
  for (int i = 0; i < L; i++)
    for (int d = 0; d < DIM_COUNT; d++) compute *= (double)m->t[i][d];
  c->macs = (double)Layer_macs(l);
  c->compute_cycles = compute * groups;
  c->latency = c->compute_cycles;
  c->energy_pj = c->macs * a->mac_pj;
  for (int i = 0; i < L; i++) {
    double bytes = 0, pj = 0;
    for (int v = 0; v < OPND_COUNT; v++) {
      c->reads[i][v] *= groups;
      c->writes[i][v] *= groups;
      bytes += (c->reads[i][v] + c->writes[i][v]) * a->precision[v];
      pj += (c->reads[i][v] * a->level[i].read_pj + c->writes[i][v] * a->level[i].write_pj) * a->precision[v];
    }
    c->level_bytes[i] = bytes;
    c->energy_pj += pj;
    c->transfer_cycles[i] = bytes / (a->level[i].bandwidth * (double)c->active[i]);
    if (c->transfer_cycles[i] > c->latency) {
      c->latency = c->transfer_cycles[i];
      c->bound_by = i;
    }
  }
  c->dram_bytes = c->level_bytes[L - 1];
  c->utilization = c->macs / (c->compute_cycles * (double)a->macs);
}

double Cost_objective(const Cost *c, LayerObjective o) {
  if (!c->valid) return INFINITY;
  switch (o) {
  case OBJ_ENERGY: return c->energy_pj;
  case OBJ_EDP: return c->energy_pj * c->latency;
  default: return c->latency;
  }
}

/* cosa: CoSA's prime-factor MIP (Huang et al., ISCA 2021, section III) in GLPK
 * through engine/ilp.h. The paper's text (a PDF extraction) garbles some
 * equations; this follows their stated intent, and says where it deviates.
 *
 * Variables (the paper's X, Table III): each prime factor of each loop bound
 * goes to exactly one (level, temporal|spatial) slot (Eq. 3); spatial only where
 * the level fans out. DEVIATION (symmetry): equal prime factors of one dimension
 * (the eight 2s of 256) are interchangeable, so instead of one binary per factor
 * and slot we use one integer per distinct prime and slot counting its copies
 * there (the sum of the paper's binaries over the copies).
 *
 * Constraints:
 *  Eq. 2 capacity, in log space: for every level with a capacity and every
 *    operand v it holds, sum of log(p) over the factors at that level or below
 *    whose dimension indexes v <= log(capacity / precision_v). The paper's A
 *    relates inputs to P, Q, C, N only (no halo); for capacity we count R, S
 *    too and subtract log(stride) (p * r * stride >= (p - 1) * stride + r), so
 *    input tiles the MIP accepts always fit. Operands sharing a level (the
 *    global buffer's inputs and outputs) each get the whole capacity as in the
 *    paper (M_{I,v}); the decoded mapping is re-checked by the cost model and,
 *    where the sum overflows, that level's budgets shrink by the overflow and
 *    the MIP runs again (at most 8 rounds).
 *  Eq. 4 spatial: sum of log(p) of the spatial factors at a level <= log(fanout).
 * Objective (Eq. 12): -w_U Util + w_C Comp + w_T Traf with
 *  Eq. 5 Util = the capacity rows' left-hand sides (paper's A) summed,
 *  Eq. 6 Comp = log of the product of all temporal factors,
 *  Eq. 11 Traf = sum over operands of D_v (Eq. 7, log of the per-PE tile: the
 *    factors below the NoC level that index v), L_v (Eq. 8, log of the spatial
 *    factors at the NoC level that index v: unicast instead of multicast) and
 *    T_v (Eqs. 9-10: the temporal iterations that refetch v's per-PE tile).
 *  Eqs. 9-10 as the paper writes them (rank mode, the method `cosa`;
 *    Cosa_ranks): the NoC level's temporal factors take rank slots, Y[v][z]
 *    marks the ranks at and outside the innermost loop that indexes v, T_v
 *    sums log(p) Y X over the ranks plus every temporal factor above the NoC
 *    level; Eq. 10's product Y X is linearised exactly at integer points
 *    (one column per rank and operand, big-M = the largest log p).
 *    Loop orders at the other levels are not in the paper's model: `cosa`
 *    keeps the reference code's default there (R S P Q C K N, innermost first).
 *  Stationary mode (`cosa-stationary`, and the base of `cosa-plus`): Eqs. 9-10
 *    replaced by the choice of one stationary operand at the NoC level (its
 *    unrelated loops innermost; T_v = every temporal factor at and above the
 *    NoC level minus, for that operand, the factors of its unrelated loops
 *    there), and the other levels' loop orders chosen afterwards with the cost
 *    model (all orders of each level's non-trivial loops). Before issue 35
 *    this was `cosa`: the big-M rank model then tried left GLPK a 220 % gap
 *    after 20 s on 3_14_256_256_1; the exact linearisation proves it optimal
 *    in 807 nodes (1.0 s of CPU).
 *  Symmetry (both modes, removing mirror images only): equal dimensions R/S
 *    and P/Q are ordered (Cosa_symmetry), a square PE array keeps at least as
 *    much along X as along Y (Cosa_mesh).
 *  Branching (rank mode): the largest primes' placements first (Cosa_priority),
 *    a search order only; it took ResNet-50's conv1 on cosa_4xpe from 34,269
 *    nodes to 771 (issue 35, point 5).
 * The method `cosa` (LayerMap_cosa, at the end) is the paper's: one solve of this
 * MIP with Eq. 12 as published (no latency term, no local search). The method
 * `cosa-plus` (LayerMap_cosaPlus) is ours: a latency term (Cosa_latency), three
 * weight vectors, each round capped at o->mip_limit, and the cost model's local
 * search (refine.c) on each mapping before keeping the best; measured against
 * the paper's in docs/results/cosa.md (bench layer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ilp.h"
#include "layer_map.h"

#define COSA_MAXF 96
#define COSA_EPS 1e-7
#define COSA_MAXZ 64 /* rank slots (Eqs. 9-10): at most 64 prime-factor copies */

typedef struct {
  int dim;
  int64_t p;
  int mult;     /* p appears mult times in the dim's bound */
  double lg;
} CosaFactor;

typedef struct {
  const Arch *a;
  const Layer *l;
  CosaFactor f[COSA_MAXF];
  int nf;
  int lo;                      /* first permuted level (the NoC level) */
  int dims[DIM_COUNT], nd;     /* dims with a bound > 1: the ones that get ranks */
  double budget[ARCH_MAX_LEVELS][OPND_COUNT]; /* log of the elements allowed (precision taken out) */
  /* column indices, -1 when absent */
  int xt[COSA_MAXF][ARCH_MAX_LEVELS], xs[COSA_MAXF][ARCH_MAX_LEVELS];
  int sel[OPND_COUNT];         /* the operand kept stationary at the NoC level (stationary mode) */
  bool ranks;                  /* Eqs. 9-10 as published: rank slots at the NoC level (LayerMap_cosa) */
  int nz;                      /* rank slots: one per prime-factor copy */
  int xr[COSA_MAXF][COSA_MAXZ]; /* factor f (one copy) temporal at the NoC level at rank z (0: innermost) */
} Cosa;

/* Capacity rows: inputs count R and S too, and log(stride) is added, so that
 * p * r * stride >= (p - 1) * stride + r bounds the halo from above: a mapping
 * the MIP accepts always fits its input tiles (no re-solve for inputs). */
static bool Cosa_capRel(int d, int v) { return Dim_relevant((Dim)d, (Operand)v); }

/* The paper's A for the objective: inputs follow P, Q, C, N only. */
static bool Cosa_rel(int d, int v) {
  if (v == OPND_I) return d == DIM_P || d == DIM_Q || d == DIM_C || d == DIM_N;
  return Dim_relevant((Dim)d, (Operand)v);
}

static double Cosa_objective(const Cosa *c, const LayerMapOptions *o, int f, int i, bool spatial) {
  const Arch *a = c->a;
  int d = c->f[f].dim;
  double lg = c->f[f].lg, util = 0, traf = 0;
  for (int lv = i; lv < a->nlevels; lv++)
    if (a->level[lv].capacity)
      for (int v = 0; v < OPND_COUNT; v++)
        if (Arch_holds(a, lv, (Operand)v) && Cosa_rel(d, v)) util += lg;
  for (int v = 0; v < OPND_COUNT; v++) {
    /* T_v: every temporal factor above the NoC level; at it, before the stationarity credit (stationary mode),
     * or only for the operands it indexes (rank mode: the rest through Cosa_ranks' products) */
    if (!spatial && (i > c->lo || (i == c->lo && (!c->ranks || Cosa_rel(d, v))))) traf += lg;
    if (!Cosa_rel(d, v)) continue;
    if (i < c->lo) traf += lg;                 /* D_v */
    if (spatial && i == c->lo) traf += lg;     /* L_v */
  }
  return -o->w_util * util + (spatial ? 0 : o->w_comp * lg) + o->w_traf * traf;
}

/* EXTENSION (not in the paper): a latency term w_L * lambda for the cost model's
 * latency = max(compute, every level's transfer time). In log space, lambda >=
 * log(compute cycles) and lambda >= log(bytes / (bandwidth x copies in use)) of
 * every operand stream at every level it crosses (the max over streams stands
 * in for their sum). A stream's bytes = fills x tile x relevant spatial factors:
 * fills count every temporal factor above the child minus a reuse credit for
 * the unrelated factors one level up when that level keeps the operand
 * stationary (one stationary operand per level, as at the NoC level). This is
 * the paper's remark that w_T can map traffic to cycles for double buffering,
 * applied at every level and not only the NoC. */
static void Cosa_latency(Cosa *c, const LayerMapOptions *o, IlpModel *m) {
  const Arch *a = c->a;
  int L = a->nlevels;
  int lam = IlpModel_addCol(m, ILP_CONTINUOUS, -ILP_INF, ILP_INF, o->w_lat);
  enum { MAXC = COSA_MAXF * 2 * ARCH_MAX_LEVELS + 8 };
  int cols[MAXC];
  double coef[MAXC];
  int n = 0;
  cols[n] = lam;
  coef[n++] = 1;
  for (int f = 0; f < c->nf; f++)
    for (int i = 0; i < L; i++) {
      cols[n] = c->xt[f][i];
      coef[n++] = -c->f[f].lg;
    }
  IlpModel_addRow(m, 0, ILP_INF, n, cols, coef); /* lambda >= log compute */
  int stat[ARCH_MAX_LEVELS][OPND_COUNT];
  for (int x = 0; x < L; x++) {
    int sc[OPND_COUNT];
    double one[OPND_COUNT] = {1, 1, 1};
    for (int v = 0; v < OPND_COUNT; v++) stat[x][v] = sc[v] = x == c->lo && !c->ranks ? c->sel[v] : IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
    if (x != c->lo || c->ranks) IlpModel_addRow(m, -ILP_INF, 1, OPND_COUNT, sc, one);
  }
  for (int v = 0; v < OPND_COUNT; v++) {
    int child = -1;
    for (int p = 0; p < L; p++) {
      if (!Arch_holds(a, p, (Operand)v)) continue;
      int cr = -1;
      if (child >= 0) { /* the reuse credit from level child + 1 */
        int x = child + 1;
        cr = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, 0);
        double big = 0;
        n = 0;
        cols[n] = cr;
        coef[n++] = 1;
        for (int f = 0; f < c->nf; f++) {
          if (Dim_relevant((Dim)c->f[f].dim, (Operand)v)) continue;
          cols[n] = c->xt[f][x];
          coef[n++] = -c->f[f].lg;
          big += c->f[f].lg * c->f[f].mult;
        }
        IlpModel_addRow(m, -ILP_INF, 0, n, cols, coef);
        int cc[2] = {cr, stat[x][v]};
        double cf[2] = {1, -big};
        IlpModel_addRow(m, -ILP_INF, 0, 2, cc, cf);
      }
      double k = v == OPND_O ? 2 : 1; /* partial sums: read and write */
      for (int side = 0; side < 2; side++) {
        int at = side ? child : p;
        if (at < 0) continue;
        n = 0;
        cols[n] = lam;
        coef[n++] = 1;
        if (cr >= 0) {
          cols[n] = cr;
          coef[n++] = 1;
        }
        for (int f = 0; f < c->nf; f++) {
          bool rel = Dim_relevant((Dim)c->f[f].dim, (Operand)v);
          for (int i = 0; i < L; i++) {
            if (i > child) { /* fills: every temporal factor above the child */
              cols[n] = c->xt[f][i];
              coef[n++] = -c->f[f].lg;
            } else if (rel) { /* the child's tile */
              cols[n] = c->xt[f][i];
              coef[n++] = -c->f[f].lg;
            }
            if (c->xs[f][i] < 0 || !rel) continue;
            /* spatial: the tile (at or below the child), distinct tiles (up to the parent, parent side) */
            if (i <= child || (side == 0 && i <= p)) {
              cols[n] = c->xs[f][i];
              coef[n++] = -c->f[f].lg;
            }
          }
        }
        IlpModel_addRow(m, log(a->precision[v] * k / a->level[at].bandwidth), ILP_INF, n, cols, coef);
      }
      child = p;
    }
  }
}

/* A 2-D array at level i (fanout_x and fanout_y > 1, arch.h): each dimension's
 * spatial factors run along one axis (Timeloop's split), so Eq. 4 holds per
 * axis. Binary y_d (d along Y) covers dimension d's log spatial factor S_d by
 * x_d + y'_d with x_d <= M_d (1 - y_d), y'_d <= M_d y_d; the x parts sum to at
 * most log fanout_x, the y parts to log fanout_y. Not in the paper (its PE array
 * is one fan-out); it keeps every mapping expressible in Timeloop. */
static void Cosa_mesh(Cosa *c, IlpModel *m, int i) {
  const ArchLevel *lv = &c->a->level[i];
  int xcol[DIM_COUNT], ycol[DIM_COUNT], nx = 0;
  double one[DIM_COUNT];
  for (int d = 0; d < DIM_COUNT; d++) {
    int cols[COSA_MAXF + 2];
    double coef[COSA_MAXF + 2], big = 0;
    int n = 0;
    for (int f = 0; f < c->nf; f++)
      if (c->f[f].dim == d && c->xs[f][i] >= 0) {
        cols[n] = c->xs[f][i];
        coef[n++] = c->f[f].lg;
        big += c->f[f].lg * c->f[f].mult;
      }
    if (!n) continue;
    int x = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, 0), y = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, 0);
    int b = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
    cols[n] = x;
    coef[n++] = -1;
    cols[n] = y;
    coef[n++] = -1;
    IlpModel_addRow(m, -ILP_INF, 0, n, cols, coef); /* S_d <= x_d + y_d (an equality gains nothing) */
    /* the smallest big-Ms that cut nothing off: x_d never exceeds log fanout_x (the row below), y_d log
     * fanout_y; M = all of d's factors left the LP relaxation far from the integer hull */
    double mx = fmin(big, log((double)lv->fanout_x) + COSA_EPS), my = fmin(big, log((double)lv->fanout_y) + COSA_EPS);
    int c2[2] = {x, b};
    double f2[2] = {1, mx};
    IlpModel_addRow(m, -ILP_INF, mx, 2, c2, f2); /* x_d <= Mx (1 - b) */
    c2[0] = y;
    f2[1] = -my;
    IlpModel_addRow(m, -ILP_INF, 0, 2, c2, f2);   /* y_d <= My b */
    xcol[nx] = x;
    ycol[nx] = y;
    one[nx++] = 1;
  }
  if (!nx) return;
  IlpModel_addRow(m, -ILP_INF, log((double)lv->fanout_x) + COSA_EPS, nx, xcol, one);
  IlpModel_addRow(m, -ILP_INF, log((double)lv->fanout_y) + COSA_EPS, nx, ycol, one);
  if (lv->fanout_x == lv->fanout_y) { /* a square array: X and Y are interchangeable in
                                         * the model, so keep the mirror image with at least as much along X */
    int cols[2 * DIM_COUNT];
    double coef[2 * DIM_COUNT];
    for (int k = 0; k < nx; k++) {
      cols[k] = xcol[k], coef[k] = 1;
      cols[nx + k] = ycol[k], coef[nx + k] = -1;
    }
    IlpModel_addRow(m, 0, ILP_INF, 2 * nx, cols, coef);
  }
}

/* Symmetry (not in the paper; it removes only mirror images): R and S with
 * equal bounds play the same part in every row and in the objective (each
 * indexes weights and inputs), and so do P and Q (inputs and outputs). Of a
 * solution and its image with the two dimensions swapped, keep one: g(d1) >=
 * g(d2), g = the dimension's factors weighted by slot (a different weight per
 * slot, so a swap that changes anything changes g). Conv1's 7x7 kernel and
 * 112x112 output (held-out in docs/results/cosa.md) left GLPK proving one
 * optimum four times over on cosa_4xpe. */
static void Cosa_symmetry(Cosa *c, IlpModel *m) {
  static const int pairs[2][2] = {{DIM_R, DIM_S}, {DIM_P, DIM_Q}};
  const Layer *l = c->l;
  for (int k = 0; k < 2; k++) {
    int d1 = pairs[k][0], d2 = pairs[k][1];
    if (Layer_dim(l, (Dim)d1) != Layer_dim(l, (Dim)d2) || Layer_dim(l, (Dim)d1) == 1) continue;
    int cols[2 * COSA_MAXF * 2 * ARCH_MAX_LEVELS];
    double coef[2 * COSA_MAXF * 2 * ARCH_MAX_LEVELS];
    int n = 0;
    for (int f = 0; f < c->nf; f++) {
      double sign = c->f[f].dim == d1 ? 1 : c->f[f].dim == d2 ? -1 : 0;
      if (sign == 0) continue;
      for (int i = 0; i < c->a->nlevels; i++) {
        cols[n] = c->xt[f][i], coef[n++] = sign * c->f[f].lg * (2 * i + 1);
        if (c->xs[f][i] >= 0) cols[n] = c->xs[f][i], coef[n++] = sign * c->f[f].lg * (2 * i + 2);
      }
    }
    if (n) IlpModel_addRow(m, -COSA_EPS, ILP_INF, n, cols, coef);
  }
}

/* Eqs. 9-10 as the paper writes them (rank mode, the method `cosa`). The NoC
 * level's temporal factors take rank slots z = 0 (innermost) .. nz-1, at most
 * one factor copy per slot (Table III's O_0..O_Z); xr[f][z] = 1 when a copy of
 * f sits at rank z, and their sum over z is that level's count xt[f][lo].
 * Eq. 9: Y[v][z] >= the factors at rank z that index v, Y[v][z] >= Y[v][z-1]
 * (once a loop that indexes v is seen, every loop outside it refetches v's
 * tile). Eq. 10: T_v = sum over z of log(p) Y[v][z] X[f][z]; for a factor that
 * indexes v, Y = 1 wherever X = 1, so the product is X itself (in
 * Cosa_objective); for the others, one column per rank and operand, exact at
 * integer points with the smallest big-M (the largest log(p), see below).
 * Y needs no integrality: its rows bound it below by 0/1 values once X is
 * integral, and the objective pushes it down. Symmetry: slots are filled from
 * rank 0 without gaps (an empty slot between two loops changes nothing). */
static void Cosa_ranks(Cosa *c, const LayerMapOptions *o, IlpModel *m) {
  int lo = c->lo, nz = c->nz;
  int cols[COSA_MAXF * COSA_MAXZ + 8];
  double coef[COSA_MAXF * COSA_MAXZ + 8];
  for (int f = 0; f < c->nf; f++)
    for (int z = 0; z < nz; z++) c->xr[f][z] = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
  for (int f = 0; f < c->nf; f++) { /* xt[f][lo] = its copies over the ranks */
    int n = 0;
    cols[n] = c->xt[f][lo];
    coef[n++] = -1;
    for (int z = 0; z < nz; z++) {
      cols[n] = c->xr[f][z];
      coef[n++] = 1;
    }
    IlpModel_addRow(m, 0, 0, n, cols, coef);
  }
  for (int z = 0; z < nz; z++) { /* one copy per rank; rank z+1 used only if rank z is */
    int n = 0;
    for (int f = 0; f < c->nf; f++) {
      cols[n] = c->xr[f][z];
      coef[n++] = 1;
    }
    IlpModel_addRow(m, -ILP_INF, 1, n, cols, coef);
    if (z + 1 < nz) {
      for (int f = 0; f < c->nf; f++) {
        cols[n] = c->xr[f][z + 1];
        coef[n++] = -1;
      }
      IlpModel_addRow(m, 0, ILP_INF, n, cols, coef);
    }
  }
  for (int v = 0; v < OPND_COUNT; v++) {
    int prev = -1;
    for (int z = 0; z < nz; z++) {
      int y = IlpModel_addCol(m, ILP_CONTINUOUS, 0, 1, 0);
      int n = 0;
      cols[n] = y;
      coef[n++] = 1;
      for (int f = 0; f < c->nf; f++)
        if (Cosa_rel(c->f[f].dim, v)) {
          cols[n] = c->xr[f][z];
          coef[n++] = -1;
        }
      IlpModel_addRow(m, 0, ILP_INF, n, cols, coef); /* Eq. 9 */
      if (prev >= 0) {
        int c2[2] = {y, prev};
        double f2[2] = {1, -1};
        IlpModel_addRow(m, 0, ILP_INF, 2, c2, f2);   /* Y[v][z] >= Y[v][z-1] */
      }
      prev = y;
      /* Eq. 10's product for the factors that do not index v: Q >= sum log(p) X - M (1 - Y), M the largest
       * such log(p) (one factor per rank, so the sum never exceeds it): Q = the sum when Y = 1, 0 when Y = 0 */
      int n2 = 0;
      double big = 0;
      int q = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, o->w_traf);
      cols[n2] = q;
      coef[n2++] = 1;
      for (int f = 0; f < c->nf; f++) {
        if (Cosa_rel(c->f[f].dim, v)) continue;
        cols[n2] = c->xr[f][z];
        coef[n2++] = -c->f[f].lg;
        if (c->f[f].lg > big) big = c->f[f].lg;
      }
      if (n2 == 1) continue;
      cols[n2] = y;
      coef[n2++] = -big;
      IlpModel_addRow(m, -big, ILP_INF, n2, cols, coef);
    }
  }
}

/* Builds the model. */
static Status Cosa_build(Cosa *c, const LayerMapOptions *o, IlpModel *m) {
  const Arch *a = c->a;
  int L = a->nlevels;
  memset(c->xt, -1, sizeof c->xt);
  memset(c->xs, -1, sizeof c->xs);
  for (int f = 0; f < c->nf; f++)
    for (int i = 0; i < L; i++) {
      c->xt[f][i] = IlpModel_addCol(m, ILP_INTEGER, 0, c->f[f].mult, Cosa_objective(c, o, f, i, false));
      if (a->level[i].fanout >= c->f[f].p)
        c->xs[f][i] = IlpModel_addCol(m, ILP_INTEGER, 0, c->f[f].mult, Cosa_objective(c, o, f, i, true));
    }
  int cols[COSA_MAXF * 2 * ARCH_MAX_LEVELS + 8];
  double coef[COSA_MAXF * 2 * ARCH_MAX_LEVELS + 8];
  /* Eq. 3: one slot per factor */
  for (int f = 0; f < c->nf; f++) {
    int n = 0;
    for (int i = 0; i < L; i++) {
      cols[n] = c->xt[f][i];
      coef[n++] = 1;
      if (c->xs[f][i] >= 0) {
        cols[n] = c->xs[f][i];
        coef[n++] = 1;
      }
    }
    IlpModel_addRow(m, c->f[f].mult, c->f[f].mult, n, cols, coef);
  }
  /* Eq. 4: spatial fan-out */
  for (int i = 0; i < L; i++) {
    if (a->level[i].fanout <= 1) continue;
    int n = 0;
    for (int f = 0; f < c->nf; f++)
      if (c->xs[f][i] >= 0) {
        cols[n] = c->xs[f][i];
        coef[n++] = c->f[f].lg;
      }
    if (n) IlpModel_addRow(m, -ILP_INF, log((double)a->level[i].fanout) + COSA_EPS, n, cols, coef);
    if (a->level[i].fanout_x > 1 && a->level[i].fanout_y > 1) Cosa_mesh(c, m, i);
  }
  Cosa_symmetry(c, m);
  /* Eq. 2: capacity per level and held operand */
  for (int lv = 0; lv < L; lv++) {
    if (!a->level[lv].capacity) continue;
    for (int v = 0; v < OPND_COUNT; v++) {
      if (!Arch_holds(a, lv, (Operand)v)) continue;
      int n = 0;
      for (int f = 0; f < c->nf; f++) {
        if (!Cosa_capRel(c->f[f].dim, v)) continue;
        for (int i = 0; i <= lv; i++) {
          cols[n] = c->xt[f][i];
          coef[n++] = c->f[f].lg;
          if (c->xs[f][i] >= 0) {
            cols[n] = c->xs[f][i];
            coef[n++] = c->f[f].lg;
          }
        }
      }
      double halo = v == OPND_I ? log((double)c->l->stride_h * c->l->stride_w) : 0;
      if (n) IlpModel_addRow(m, -ILP_INF, c->budget[lv][v] - halo + COSA_EPS, n, cols, coef);
    }
  }
  if (c->ranks) {
    Cosa_ranks(c, o, m);
    if (o->w_lat > 0) Cosa_latency(c, o, m);
    return IlpModel_ncols(m) < 0 ? SP_ERR_NOMEM : SP_OK;
  }
  /* Eqs. 9-10, restricted (see the top): at the NoC level one operand is made
   * stationary (its unrelated loops innermost); its credit is the log of those
   * loops' factors, at most M * sel[v]. T_v = all temporal factors at and above
   * the NoC level (in Cosa_objective) - credit_v. */
  int selrow[OPND_COUNT];
  for (int v = 0; v < OPND_COUNT; v++) {
    c->sel[v] = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
    selrow[v] = c->sel[v];
  }
  double ones[OPND_COUNT] = {1, 1, 1};
  IlpModel_addRow(m, 1, 1, OPND_COUNT, selrow, ones);
  for (int v = 0; v < OPND_COUNT; v++) {
    int cr = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, -o->w_traf);
    double big = 0;
    int n = 0;
    cols[n] = cr;
    coef[n++] = 1;
    for (int f = 0; f < c->nf; f++) {
      if (Cosa_rel(c->f[f].dim, v)) continue;
      cols[n] = c->xt[f][c->lo];
      coef[n++] = -c->f[f].lg;
      big += c->f[f].lg * c->f[f].mult;
    }
    IlpModel_addRow(m, -ILP_INF, 0, n, cols, coef); /* credit <= unrelated factors at the NoC level */
    int cc[2] = {cr, c->sel[v]};
    double cf[2] = {1, -big};
    IlpModel_addRow(m, -ILP_INF, 0, 2, cc, cf);     /* credit <= M sel */
  }
  if (o->w_lat > 0) Cosa_latency(c, o, m);
  return IlpModel_ncols(m) < 0 ? SP_ERR_NOMEM : SP_OK;
}

static void Cosa_decode(const Cosa *c, const double *x, Mapping *m) {
  const Arch *a = c->a;
  Mapping_init(m, a, c->l);
  for (int i = 0; i < a->nlevels; i++)
    for (int d = 0; d < DIM_COUNT; d++) m->t[i][d] = 1;
  for (int f = 0; f < c->nf; f++)
    for (int i = 0; i < a->nlevels; i++) {
      for (long k = lround(x[c->xt[f][i]]); k > 0; k--) m->t[i][c->f[f].dim] *= c->f[f].p;
      if (c->xs[f][i] >= 0)
        for (long k = lround(x[c->xs[f][i]]); k > 0; k--) m->s[i][c->f[f].dim] *= c->f[f].p;
    }
  if (c->ranks) { /* the NoC level's loops by their innermost rank (the reference code's merge: a dimension's
                   * factors gathered at its innermost rank never refetch more, Eq. 10), the rest after */
    int first[DIM_COUNT], k = 0;
    for (int d = 0; d < DIM_COUNT; d++) first[d] = COSA_MAXZ;
    for (int f = 0; f < c->nf; f++)
      for (int z = 0; z < c->nz; z++)
        if (x[c->xr[f][z]] > 0.5 && z < first[c->f[f].dim]) first[c->f[f].dim] = z;
    for (int z = 0; z <= COSA_MAXZ; z++)
      for (int d = 0; d < DIM_COUNT; d++)
        if (first[d] == z || (z == COSA_MAXZ && first[d] == COSA_MAXZ)) m->order[c->lo][k++] = (uint8_t)d;
    return;
  }
  /* the stationary operand's unrelated loops innermost at the NoC level */
  int stat = 0;
  for (int v = 0; v < OPND_COUNT; v++)
    if (x[c->sel[v]] > 0.5) stat = v;
  int k = 0;
  for (int d = 0; d < DIM_COUNT; d++)
    if (!Cosa_rel(d, stat)) m->order[c->lo][k++] = (uint8_t)d;
  for (int d = 0; d < DIM_COUNT; d++)
    if (Cosa_rel(d, stat)) m->order[c->lo][k++] = (uint8_t)d;
}

/* The MIP's own measure of operand v's tile at level lv (log elements). */
static double Cosa_mipSize(const Mapping *m, int lv, int v) {
  double s = 0;
  for (int i = 0; i <= lv; i++)
    for (int d = 0; d < DIM_COUNT; d++)
      if (Cosa_capRel(d, v)) s += log((double)(m->t[i][d] * m->s[i][d]));
  return s;
}

/* Branching priorities (rank mode; not in the paper, a search order only: the
 * optimum and its proof are the same MIP's). At every branching GLPK takes the
 * most fractional column of the highest priority still fractional (ilp.h,
 * IlpOptions.priority): the placements of the largest primes first (conv1's
 * 7s before its 2s), and for one prime the slots at and above the NoC level
 * before those below it, spatial before temporal; rank slots, Y, the mesh's
 * axis choice and the products last (priority 0): they follow from the
 * placements. Measured in docs/design/cosa.md: conv1 on cosa_4xpe from 34,269
 * nodes / 28 s of CPU to 771 / 0.4 s; GLPK's own rule branched on rank slots
 * and products whose value changes nothing until the primes under them are placed. */
static double *Cosa_priority(const Cosa *c, const IlpModel *m) {
  double *prio = calloc((size_t)IlpModel_ncols(m), sizeof *prio);
  if (!prio) return NULL; /* GLPK's own rule: slower, the same answer */
  for (int f = 0; f < c->nf; f++)
    for (int i = 0; i < c->a->nlevels; i++) {
      double up = i >= c->lo; /* at or above the NoC level */
      prio[c->xt[f][i]] = 10 * c->f[f].lg + 1 + up;
      if (c->xs[f][i] >= 0) prio[c->xs[f][i]] = 10 * c->f[f].lg + 2 + up;
    }
  return prio;
}

typedef struct {
  const LayerMapOptions *o;
  int round;
} CosaRelay;

static void Cosa_progress(const IlpProgress *p, void *user) {
  const CosaRelay *r = user;
  char stage[64];
  snprintf(stage, sizeof stage, "cosa MIP round %d: %s", r->round, p->stage ? p->stage : "");
  r->o->progress(stage, p->has_incumbent ? p->incumbent : NAN, p->has_bound ? p->bound : NAN, p->gap, p->elapsed,
                 r->o->user);
}

/* One MIP solve (with its re-solve rounds) under o's weights, then the cost
 * model's local search (o->refine). */
static Status Cosa_solve(const Arch *a, const Layer *l, const LayerMapOptions *o, bool ranks, LayerMapResult *r,
                         SpError *err) {
  memset(r, 0, sizeof *r);
  double t0 = Clock_now();
  /* the wall-clock stop: the caller's (cosa-plus: its own start + time_limit), else this start's */
  double wall = o->wall_limit > 0 ? o->wall_limit : o->time_limit;
  double deadline = o->deadline > 0 ? o->deadline : wall > 0 ? t0 + wall : 0;
  Cosa *c = calloc(1, sizeof *c);
  if (!c) return SpError_set(err, SP_ERR_NOMEM, "cosa: out of memory");
  c->a = a;
  c->l = l;
  c->ranks = ranks;
  c->lo = a->noc_level >= 0 ? a->noc_level : a->nlevels - 1;
  for (int d = 0; d < DIM_COUNT; d++) {
    int64_t pr[64];
    int k = LayerMap_primes(Layer_dim(l, (Dim)d), pr);
    if (k > 1 || pr[0] > 1) c->dims[c->nd++] = d;
    for (int j = 0; j < k && pr[j] > 1; j++) {
      if (j > 0 && pr[j] == pr[j - 1]) {
        c->f[c->nf - 1].mult++;
        continue;
      }
      if (c->nf == COSA_MAXF) {
        free(c);
        return SpError_set(err, SP_ERR_ARG, "cosa: more than %d distinct prime factors", COSA_MAXF);
      }
      c->f[c->nf++] = (CosaFactor){d, pr[j], 1, log((double)pr[j])};
    }
  }
  for (int f = 0; f < c->nf; f++) c->nz += c->f[f].mult;
  if (c->nz > COSA_MAXZ) {
    free(c);
    return SpError_set(err, SP_ERR_ARG, "cosa: more than %d prime factors to rank", COSA_MAXZ);
  }
  for (int lv = 0; lv < a->nlevels; lv++)
    for (int v = 0; v < OPND_COUNT; v++)
      c->budget[lv][v] = a->level[lv].capacity ? log((double)a->level[lv].capacity / a->precision[v]) : 0;
  /* a level that cannot hold even one element of its operands binds for every mapping */
  for (int lv = 0; lv < a->nlevels - 1; lv++) {
    int64_t need = 0;
    for (int v = 0; v < OPND_COUNT; v++)
      if (Arch_holds(a, lv, (Operand)v))
        need += a->precision[v];
    if (a->level[lv].capacity && need > a->level[lv].capacity) {
      free(c);
      return SpError_set(err, SP_ERR_INFEASIBLE,
                         "cosa: no mapping fits: %s capacity binds (%lld B < %lld B for the smallest tiles)",
                         a->level[lv].name, (long long)a->level[lv].capacity, (long long)need);
    }
  }
  Status st = SP_OK;
  int bad_level = -1;
  char last_why[200] = "";
  int round;
  bool cap = true;
  long work_used = 0; /* GLPK work of the rounds so far */
  long nodes = 0;     /* branch-and-bound nodes of the rounds so far */
  for (round = 1; round <= 8; round++) {
    IlpModel *m = IlpModel_new();
    if (!m) {
      st = SpError_set(err, SP_ERR_NOMEM, "cosa: out of memory");
      break;
    }
    if ((st = Cosa_build(c, o, m))) {
      IlpModel_free(m);
      SpError_set(err, st, "cosa: building the model failed (out of memory)");
      break;
    }
    IlpOptions io;
    IlpOptions_init(&io);
    double left = deadline > 0 ? deadline - Clock_now() : 0;
    if (deadline > 0 && left <= 0.05) {
      IlpModel_free(m);
      st = SpError_set(err, SP_ERR_LIMIT, "cosa: the wall clock (%.3g s) stopped it after %d rounds, before its work budget%s%s", wall,
                       round - 1, last_why[0] ? "; last: " : " (no MIP solved in it)", last_why);
      break;
    }
    /* The first round leaves 40 % for re-solves after a shared-level overflow: 60 % of the
     * work budget (time_limit x LAYER_WORK_PER_SECOND), a later round what is left of it, so
     * the same on any machine; the wall clock likewise, as a stop only (on a machine too slow
     * for the work, it ends the round first and the note says so). */
    io.time_limit = round == 1 && deadline > 0 ? 0.6 * left : left;
    bool capped = false;
    if (o->time_limit > 0) {
      double budget = o->time_limit * LAYER_WORK_PER_SECOND;
      io.work_limit = round == 1 ? (long)(0.6 * budget) : (long)(budget - (double)work_used);
      if (io.work_limit < 1) io.work_limit = 1;
    }
    /* each round's cap, in work (the same on any machine): the refinement below recovers most
     * of what stopping early leaves. The cap only ends the search for better incumbents: a
     * round it stops without any goes again uncapped. */
    if (cap && o->mip_limit > 0 && (io.work_limit <= 0 || io.work_limit > o->mip_limit)) {
      io.work_limit = o->mip_limit;
      capped = true;
    }
    io.cancel = o->cancel;
    io.cuts = true;
    /* rank mode (the paper's method): branch on the placements of the largest primes first */
    double *prio = c->ranks ? Cosa_priority(c, m) : NULL;
    io.priority = prio;
    CosaRelay relay = {o, round};
    if (o->progress) {
      io.progress = Cosa_progress;
      io.user = &relay;
    }
    IlpResult res;
    st = Ilp_solve(m, &io, &res, err);
    work_used += res.work;
    free(prio);
    nodes += res.nodes;
    IlpModel_free(m);
    if (st) break;
    if (res.status == ILP_CANCELLED) {
      IlpResult_free(&res);
      st = SpError_set(err, SP_ERR_CANCELLED, "cosa: cancelled");
      break;
    }
    if (!res.has_solution && capped && res.work_limited) {
      IlpResult_free(&res);
      cap = false;
      continue;
    }
    if (!res.has_solution) {
      IlpStatus s = res.status;
      char msg[sizeof res.message];
      snprintf(msg, sizeof msg, "%s", res.message);
      IlpResult_free(&res);
      if (s == ILP_TIMEOUT && res.work_limited)
        st = SpError_set(err, SP_ERR_LIMIT, "cosa: work limit (%ld, --time-limit %.3g s x %d) without a solution",
                         io.work_limit, o->time_limit, LAYER_WORK_PER_SECOND);
      else if (s == ILP_TIMEOUT)
        st = SpError_set(err, SP_ERR_LIMIT, "cosa: the wall clock (%.1f s) stopped it without a solution, before its work budget", wall);
      else if (s == ILP_INFEASIBLE && bad_level >= 0)
        st = SpError_set(err, SP_ERR_INFEASIBLE,
                         "cosa: no mapping found: %s capacity binds (after %d rounds of tightening; last: %s)",
                         a->level[bad_level].name, round - 1, last_why);
      else
        st = SpError_set(err, SP_ERR_SOLVER, "cosa: the MIP ended %s%s%s", IlpStatus_name(s), msg[0] ? ": " : "", msg);
      break;
    }
    Mapping map;
    Cosa_decode(c, res.x, &map);
    if (!ranks) { /* the paper's model orders the NoC level only; the reference code leaves the others in the
                   * default order (R S P Q C K N, innermost first), as Mapping_init does; stationary mode enumerates */
      LayerMap_bestOrders(a, l, &map, o->objective, 0, c->lo - 1);
      LayerMap_bestOrders(a, l, &map, o->objective, c->lo + 1, a->nlevels - 1);
    }
    Cost cost;
    Cost_evaluate(a, l, &map, &cost);
    if (cost.valid) {
      int steps = 0;
      if (o->refine) {
        steps = LayerMap_refine(a, l, &map, o->objective, 1000, deadline);
        Cost_evaluate(a, l, &map, &cost);
      }
      r->map = map;
      r->cost = cost;
      r->tried = r->valid = 1;
      r->nodes = nodes;
      snprintf(r->note, sizeof r->note, "MIP %s%s, objective %.3f (gap %.1f %%, %ld nodes), %d round%s; %s; %d local-search step%s",
               IlpStatus_name(res.status),
               res.status != ILP_TIMEOUT ? "" : !res.work_limited ? " (stopped by the wall clock before its work budget: a slower or busier machine)" : capped ? " (work cap)" : " (work limit)",
               res.objective, res.gap < 0 ? 0 : 100 * res.gap, nodes, round, round > 1 ? "s" : "",
               ranks ? "NoC loop order by Eqs. 9-10's ranks, other levels R S P Q C K N"
                     : "one stationary operand at the NoC level, other levels' loop orders by the cost model",
               steps, steps == 1 ? "" : "s");
      IlpResult_free(&res);
      r->seconds = Clock_now() - t0;
      free(c);
      return SP_OK;
    }
    IlpResult_free(&res);
    snprintf(last_why, sizeof last_why, "%s", cost.why);
    if (cost.bad_level < 0) {
      st = SpError_set(err, SP_ERR_SOLVER, "cosa: the MIP's mapping is invalid: %s", cost.why);
      break;
    }
    /* shrink the overflowing level's budgets by the overflow (the MIP's own measure) */
    bad_level = cost.bad_level;
    double over = log((double)cost.used[bad_level] / (double)a->level[bad_level].capacity);
    for (int v = 0; v < OPND_COUNT; v++)
      if (Arch_holds(a, bad_level, (Operand)v)) {
        double halo = v == OPND_I ? log((double)l->stride_h * l->stride_w) : 0;
        double want = Cosa_mipSize(&map, bad_level, v) + halo - over - 1e-6;
        if (want < c->budget[bad_level][v]) c->budget[bad_level][v] = want;
      }
  }
  if (!st)
    st = SpError_set(err, SP_ERR_INFEASIBLE, "cosa: no valid mapping after 8 rounds: %s capacity binds (%s)",
                     bad_level >= 0 ? a->level[bad_level].name : "?", last_why);
  r->seconds = Clock_now() - t0;
  free(c);
  return st;
}

Status LayerMap_cosaSingle(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r,
                           SpError *err) {
  return Cosa_solve(a, l, o, false, r, err);
}

/* The paper's method as published: Eq. 12 with the caller's three weights (the
 * paper names no values; 1,1,1 by default), no latency term, one solve to the
 * time limit (no per-round cap), no local search. */
Status LayerMap_cosa(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r, SpError *err) {
  LayerMapOptions p = *o;
  p.w_lat = 0;
  p.refine = false;
  p.mip_limit = 0;
  return Cosa_solve(a, l, &p, true, r, err);
}

/* cosa-stationary: the paper's objective with Eqs. 9-10 replaced by the choice
 * of one stationary operand at the NoC level and every other level's loop order
 * by the cost model (what `cosa` was before issue 35); one solve, no latency
 * term, no local search. Measured against `cosa` in docs/results/cosa.md. */
Status LayerMap_cosaStationary(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r,
                               SpError *err) {
  LayerMapOptions p = *o;
  p.w_lat = 0;
  p.refine = false;
  p.mip_limit = 0;
  return Cosa_solve(a, l, &p, false, r, err);
}

/* cosa-plus (ours). The paper's section III-E: "CoSA can be augmented with an
 * iterative search on the objective functions and their corresponding
 * hyperparameters". cosa-plus solves the MIP with three weight vectors (the
 * caller's first, then 0,1,1,5 and 0,0,0,1), each solve capped at o->mip_limit
 * per round and refined by the cost model's local search, and keeps the best
 * mapping under the cost model. With the caller's w_lat = 0 (the ablation
 * without the latency term) the other vectors lose theirs too: 0,1,1,0, and
 * 0,0,0,0 is skipped. Measured in docs/results/cosa.md (bench layer). */
Status LayerMap_cosaPlus(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r, SpError *err) {
  static const double weights[][4] = {{0, 1, 1, 5}, {0, 0, 0, 1}};
  double t0 = Clock_now();
  Status st = Cosa_solve(a, l, o, false, r, err);
  if (st == SP_ERR_CANCELLED) return st;
  int runs = 1, best_run = st ? -1 : 0;
  bool cut = false; /* the time limit (wall clock) ended the sweep before its last vector */
  for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++) {
    LayerMapOptions w = *o;
    w.w_util = weights[i][0];
    w.w_comp = weights[i][1];
    w.w_traf = weights[i][2];
    w.w_lat = o->w_lat > 0 ? weights[i][3] : 0;
    if (w.w_util + w.w_comp + w.w_traf + w.w_lat == 0) continue;
    double wall = o->wall_limit > 0 ? o->wall_limit : o->time_limit;
    if (wall > 0 || o->deadline > 0) { /* the whole method stays within the caller's limit (the work stays per vector) */
      w.deadline = o->deadline > 0 ? o->deadline : t0 + wall;
      if (w.deadline - Clock_now() <= 0.05) {
        cut = true;
        break;
      }
    }
    LayerMapResult x;
    SpError e = {0};
    Status s = Cosa_solve(a, l, &w, false, &x, &e);
    runs++;
    if (s == SP_ERR_CANCELLED) return SpError_set(err, s, "%s", e.text);
    if (s) continue;
    if (best_run < 0 || Cost_objective(&x.cost, o->objective) < Cost_objective(&r->cost, o->objective)) {
      *r = x;
      best_run = runs - 1;
      st = SP_OK;
    }
  }
  if (best_run < 0) return st; /* err holds the first solve's message */
  char note[sizeof r->note];
  memcpy(note, r->note, sizeof note);
  snprintf(r->note, sizeof r->note, "best of %d weight vectors (#%d)%s: %.200s", runs, best_run + 1,
           cut ? ", the time limit (wall clock) stopped the others" : "", note);
  r->seconds = Clock_now() - t0;
  return SP_OK;
}

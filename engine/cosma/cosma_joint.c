/* COSMA's joint model (Eqs. 1-12): the op order, the addresses and the spills and
 * retrievals together, minimising non-compulsory traffic.
 *
 * The paper's model as written has an LP bound of 0 (its big-M rows give nothing)
 * and per-step address pairs for every tensor pair, so GLPK proves nothing on it
 * beyond toy graphs. The "cosma" policy is therefore a pipeline that proves what it
 * can, each stage a valid plan or a valid bound for the *joint* problem:
 *   1. incumbent: every simulated plan on the default and the exact-M_P schedules;
 *      cost 0 is optimal at once;
 *   2. lower bound: the joint model without addresses (order + residency with a
 *      capacity row per step: a relaxation, since any placement obeys it); its
 *      order is a new candidate schedule;
 *   3. COSMA FS (cosma_fs.c) on each candidate schedule (the relaxation's, mpmf,
 *      default): exact allocation + replacement for that order; a plan at the
 *      bound is optimal;
 *   4. otherwise the joint model with addresses, warm-started with the best plan.
 * Every model restricts an op to its ASAP..ALAP steps and a tensor to the steps it
 * can be live, and uses one ordering binary per pair of tensors that may be
 * resident at the same step. With s->paper_model the paper's model is built as
 * written instead (V/u/d variables, per-step spills, no capacity or precedence
 * rows) and solved alone, with the paper's own size reduction (Section III-F, "a
 * tensor overlap analysis ... based on the minimum/maximum timesteps (or maximum
 * lifetime) of tensors and data dependencies between tensors"): an op's C only in
 * its ASAP..ALAP steps, a tensor's P/R/S/L/V only in the steps it can be live
 * (from its producer's ASAP to its last reader's ALAP), and u/d only for the pairs
 * that can be live at once: not when every reader of one runs before the other is
 * made in every order (the paper's a0 and a6 of Fig. 1). Neither loses a plan: a
 * dead tensor is never needed, and Jm_toPlan keeps a tensor only from its birth to
 * its last read. CosmaJointOptions.paper_unreduced builds it without (tests). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "clock.h"
#include "workclock.h"
#include "cosma_model.h"
#include "figures.h"
#include "schedule.h"
#include "sim.h"

enum { JOINT_MAX_PAIRS = 400000, JOINT_MAX_FULL_COLS = 50000 };

typedef struct {
  const Net *net;
  bool params, paper;
  bool reduced;       /* ours, or the paper's with its overlap analysis (Section III-F) */
  int64_t budget, g, cap;
  int n, nt;
  int *asap, *alap;   /* op windows */
  int *lo, *hi;       /* tensor t may be resident at steps lo..hi (lo > hi: never on chip) */
  int *ccol;          /* C[v][asap..alap]: op v runs at the step (creates its outputs) */
  int *fcol;          /* inputs/params: F[t][lo..hi], the first (compulsory) load */
  int *rcol;          /* R[t][lo+1..hi]: paid retrievals */
  int *pcol;          /* P[t][lo+1..hi]: kept from the previous step */
  int *scol;          /* spill: one column (ours) or S[t][lo+1..hi] (paper) */
  int *lcol;          /* L[t][lo..hi]: base address in units of g */
  int *vcol;          /* paper: V[t][lo+1..hi] */
  long npairs;
  int pair0;          /* the first ordering column (pairs follow in step, tensor order), or -1 */
  uint64_t *after;    /* paper, reduced: per tensor, the ops made after its last read in every order */
  int words;          /* Bitset_words(n) */
  CosmaBuildLimit lim; /* building stops (Jm_build gives NULL, lim.hit set) at it */
} Jm;

static bool Jm_over(Jm *j, const IlpModel *m) { return CosmaBuildLimit_over(&j->lim, m); }
static void Jm_limit(Jm *j, double deadline, double seconds, atomic_int *cancel) {
  CosmaBuildLimit_set(&j->lim, deadline, seconds, cancel);
}

static void Jm_free(Jm *j) {
  free(j->asap), free(j->alap), free(j->lo), free(j->hi), free(j->ccol), free(j->fcol), free(j->rcol);
  free(j->pcol), free(j->scol), free(j->lcol), free(j->vcol), free(j->after);
}

static bool Jm_onChip(const Jm *j, int t) { return j->lo[t] <= j->hi[t]; }
static bool Jm_made(const Jm *j, int t) { return j->net->tensors[t].producer >= 0; }

static int Jm_c(const Jm *j, int v, int s) {
  return s >= j->asap[v] && s <= j->alap[v] ? j->ccol[v] + s - j->asap[v] : -1;
}
static int Jm_at(const Jm *j, const int *col, int t, int s, int first) {
  return col[t] >= 0 && s >= first && s <= j->hi[t] ? col[t] + s - first : -1;
}
static int Jm_f(const Jm *j, int t, int s) { return Jm_at(j, j->fcol, t, s, j->lo[t]); }
static int Jm_r(const Jm *j, int t, int s) { return Jm_at(j, j->rcol, t, s, j->lo[t] + 1); }
static int Jm_p(const Jm *j, int t, int s) { return Jm_at(j, j->pcol, t, s, j->lo[t] + 1); }
static int Jm_l(const Jm *j, int t, int s) { return Jm_at(j, j->lcol, t, s, j->lo[t]); }
static int Jm_v(const Jm *j, int t, int s) { return Jm_at(j, j->vcol, t, s, j->lo[t] + 1); }
static int Jm_sp(const Jm *j, int t, int s) { return j->paper ? Jm_at(j, j->scol, t, s, j->lo[t] + 1) : -1; }

/* The columns whose sum says "t is resident at step s" (created, loaded, kept or retrieved). */
static int Jm_res(const Jm *j, int t, int s, int cols[3]) {
  int k = 0, c;
  if ((c = Jm_made(j, t) ? Jm_c(j, j->net->tensors[t].producer, s) : Jm_f(j, t, s)) >= 0) cols[k++] = c;
  if ((c = Jm_p(j, t, s)) >= 0) cols[k++] = c;
  if ((c = Jm_r(j, t, s)) >= 0) cols[k++] = c;
  return k;
}

/* Row_add that merges a repeated column (two outputs of one op share C). */
static void Jm_add(Row *r, int col, double coef) {
  if (col < 0) return;
  for (int i = 0; i < r->n; i++)
    if (r->cols[i] == col) {
      r->coef[i] += coef;
      return;
    }
  Row_add(r, col, coef);
}

static void Jm_addRes(const Jm *j, Row *r, int t, int s, double coef) {
  int cols[3], k = Jm_res(j, t, s, cols);
  for (int i = 0; i < k; i++) Jm_add(r, cols[i], coef);
}

/* The paper's overlap analysis by precedence: after[t] = the ops that are proper
 * descendants of every op that reads t (of its producer if none reads it), i.e.
 * the ops that run after t's last use in every order. */
static bool Jm_afterSets(Jm *j) {
  const Net *net = j->net;
  int n = j->n, w = j->words = Bitset_words(n);
  uint64_t *desc = calloc((size_t)n * (size_t)w + 1, sizeof(uint64_t));
  j->after = calloc((size_t)j->nt * (size_t)w + 1, sizeof(uint64_t));
  if (!desc || !j->after) {
    free(desc);
    return false;
  }
  for (int v = n - 1; v >= 0; v--) /* file order is topological */
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p < 0) continue;
      for (int i = 0; i < w; i++) desc[(size_t)p * w + i] |= desc[(size_t)v * w + i];
      Bitset_set(desc + (size_t)p * w, v);
    }
  for (int t = 0; t < j->nt; t++) {
    const Tensor *tt = &net->tensors[t];
    uint64_t *a = j->after + (size_t)t * w;
    int nd = tt->nconsumers ? tt->nconsumers : tt->producer >= 0;
    for (int i = 0; i < w; i++) a[i] = nd ? ~(uint64_t)0 : 0;
    for (int k = 0; k < nd; k++) {
      int d = tt->nconsumers ? tt->consumers[k] : tt->producer;
      for (int i = 0; i < w; i++) a[i] &= desc[(size_t)d * w + i];
    }
  }
  free(desc);
  return true;
}

/* b is born (made, or first read if an input) after a's last use in every order. */
static bool Jm_bornAfter(const Jm *j, int a, int b) {
  const Tensor *tb = &j->net->tensors[b];
  const uint64_t *after = j->after + (size_t)a * j->words;
  if (tb->producer >= 0) return Bitset_has(after, tb->producer);
  for (int k = 0; k < tb->nconsumers; k++)
    if (!Bitset_has(after, tb->consumers[k])) return false;
  return tb->nconsumers > 0;
}

/* The paper's reduction: a and b are never live at the same step. */
static bool Jm_apart(const Jm *j, int a, int b) {
  return j->paper && j->after && (Jm_bornAfter(j, a, b) || Jm_bornAfter(j, b, a));
}

static bool Jm_init(Jm *j, const Net *net, bool params, int64_t budget, bool paper, bool reduced) {
  memset(j, 0, sizeof *j);
  j->net = net, j->params = params, j->budget = budget, j->paper = paper, j->reduced = reduced || !paper;
  int n = j->n = net->nops, nt = j->nt = net->ntensors;
  j->asap = malloc(sizeof(int) * (size_t)n), j->alap = malloc(sizeof(int) * (size_t)n);
  j->ccol = malloc(sizeof(int) * (size_t)n);
  j->lo = malloc(sizeof(int) * (size_t)nt), j->hi = malloc(sizeof(int) * (size_t)nt);
  int **cols[] = {&j->fcol, &j->rcol, &j->pcol, &j->scol, &j->lcol, &j->vcol};
  for (int i = 0; i < 6; i++) *cols[i] = malloc(sizeof(int) * (size_t)nt);
  if (!j->asap || !j->alap || !j->ccol || !j->lo || !j->hi || !j->fcol || !j->rcol || !j->pcol || !j->scol ||
      !j->lcol || !j->vcol || !Cosma_windows(net, j->asap, j->alap))
    return false;
  if (paper && j->reduced && !Jm_afterSets(j)) return false;
  if (!j->reduced)
    for (int v = 0; v < n; v++) j->asap[v] = 0, j->alap[v] = n - 1;
  for (int t = 0; t < nt; t++) {
    const Tensor *tt = &net->tensors[t];
    j->lo[t] = 0, j->hi[t] = -1;
    if (!Net_onChip(net, t, params) || (tt->producer < 0 && tt->nconsumers == 0)) continue;
    j->g = Cosma_gcd(tt->bytes, j->g);
    int lo = tt->producer >= 0 ? j->asap[tt->producer] : n, hi = tt->producer >= 0 ? j->alap[tt->producer] : -1;
    for (int k = 0; k < tt->nconsumers; k++) {
      int c = tt->consumers[k];
      if (tt->producer < 0 && j->asap[c] < lo) lo = j->asap[c];
      if (j->alap[c] > hi) hi = j->alap[c];
    }
    j->lo[t] = j->reduced ? lo : 0, j->hi[t] = j->reduced ? hi : n - 1;
  }
  if (j->g <= 0) j->g = 1;
  /* Addresses (and so every big-M) in units of g, and never above the sum of the
   * sizes: with that much room every tensor has a slot of its own (cost 0), so the
   * clamp loses nothing, and a 1 GiB budget no longer makes a big-M of 10^6 units
   * that GLPK's integrality tolerance (1e-5) turns into whole units of overlap. */
  int64_t total = 0;
  for (int t = 0; t < nt; t++)
    if (Jm_onChip(j, t)) total += net->tensors[t].bytes / j->g;
  j->cap = budget / j->g;
  if (j->cap > total) j->cap = total;
  return true;
}

static int64_t Jm_sz(const Jm *j, int t) { return j->net->tensors[t].bytes / j->g; }

/* Eq. 7 and one op per step; ours adds the precedence rows (implied for integer
 * points, but they tighten the LP a lot). */
static void Jm_scheduleRows(Jm *j, IlpModel *m, Row *row) {
  const Net *net = j->net;
  for (int v = 0; v < j->n; v++) {
    for (int q = j->asap[v]; q <= j->alap[v]; q++) Row_add(row, Jm_c(j, v, q), 1);
    Row_commit(m, row, 1, 1);
  }
  /* O(ops x steps): polled per row (seconds at tens of thousands of ops) */
  for (int q = 0; q < j->n && !Jm_over(j, m); q++) {
    for (int v = 0; v < j->n; v++) Row_add(row, Jm_c(j, v, q), 1);
    Row_commit(m, row, 1, 1);
  }
  if (j->paper) return;
  for (int c = 0; c < j->n && !Jm_over(j, m); c++)
    for (int k = 0; k < net->ops[c].ninputs; k++) {
      int p = net->tensors[net->ops[c].inputs[k]].producer;
      bool dup = false;
      for (int i = 0; i < k; i++) dup |= net->tensors[net->ops[c].inputs[i]].producer == p;
      if (p < 0 || dup) continue;
      for (int q = j->asap[c]; q <= j->alap[c] && q - 1 < j->alap[p]; q++) {
        for (int z = j->asap[c]; z <= q; z++) Row_add(row, Jm_c(j, c, z), 1);
        for (int z = j->asap[p]; z < q; z++) Row_add(row, Jm_c(j, p, z), -1);
        Row_commit(m, row, -ILP_INF, 0);
      }
    }
}

/* Eqs. 1-5 and 8 (residency and spill logic) and the objective's columns. */
static void Jm_tensorCols(Jm *j, IlpModel *m, int t) {
  const Tensor *tt = &j->net->tensors[t];
  int lo = j->lo[t], hi = j->hi[t];
  double sz = (double)Jm_sz(j, t);
  bool paid_spill = tt->kind == TK_ACTIVATION;
  j->fcol[t] = j->rcol[t] = j->pcol[t] = j->scol[t] = j->lcol[t] = j->vcol[t] = -1;
  if (!Jm_onChip(j, t)) return;
  if (!Jm_made(j, t)) {
    j->fcol[t] = IlpModel_ncols(m);
    for (int q = lo; q <= hi; q++) IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
  }
  if (lo < hi) {
    j->pcol[t] = IlpModel_ncols(m);
    for (int q = lo + 1; q <= hi; q++) IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
    j->rcol[t] = IlpModel_ncols(m);
    for (int q = lo + 1; q <= hi; q++) IlpModel_addCol(m, ILP_BINARY, 0, 1, sz);
    if (j->paper && Jm_made(j, t)) {
      j->scol[t] = IlpModel_ncols(m);
      for (int q = lo + 1; q <= hi; q++) IlpModel_addCol(m, ILP_BINARY, 0, 1, paid_spill ? sz : 0);
    } else if (!j->paper && paid_spill) {
      j->scol[t] = IlpModel_addCol(m, ILP_CONTINUOUS, 0, 1, sz);
    }
  }
}

static void Jm_tensorRows(const Jm *j, IlpModel *m, Row *row, int t) {
  const Tensor *tt = &j->net->tensors[t];
  int lo = j->lo[t], hi = j->hi[t];
  if (!Jm_onChip(j, t)) return;
  if (!Jm_made(j, t)) { /* an input is loaded (compulsorily) once */
    for (int q = lo; q <= hi; q++) Row_add(row, Jm_f(j, t, q), 1);
    Row_commit(m, row, 1, 1);
  }
  for (int q = lo; q <= hi; q++) {
    /* Eq. 1: one action per step */
    Jm_addRes(j, row, t, q, 1);
    Jm_add(row, Jm_sp(j, t, q), 1);
    if (row->n > 1) Row_commit(m, row, -ILP_INF, 1);
    row->n = 0;
    if (q == lo) continue;
    /* Eq. 2: kept only if resident at the step before */
    Row_add(row, Jm_p(j, t, q), 1);
    Jm_addRes(j, row, t, q - 1, -1);
    Row_commit(m, row, -ILP_INF, 0);
    /* Eq. 4: a retrieval needs a host copy: an input's first load, or a spill (ours:
     * any earlier creation, its first eviction being the spill) */
    Row_add(row, Jm_r(j, t, q), 1);
    if (!Jm_made(j, t))
      for (int z = lo; z < q; z++) Row_add(row, Jm_f(j, t, z), -1);
    else if (j->paper)
      for (int z = lo + 1; z <= q; z++) Row_add(row, Jm_sp(j, t, z), -1);
    else
      for (int z = lo; z < q; z++) Jm_add(row, Jm_c(j, tt->producer, z), -1);
    Row_commit(m, row, -ILP_INF, 0);
    if (!j->paper && j->scol[t] >= 0) { /* a paid retrieval implies the paid spill */
      Row_add(row, Jm_r(j, t, q), 1), Row_add(row, j->scol[t], -1);
      Row_commit(m, row, -ILP_INF, 0);
    }
    if (j->paper && Jm_sp(j, t, q) >= 0) { /* Eq. 3: spill only what was resident */
      Row_add(row, Jm_sp(j, t, q), 1);
      Jm_add(row, Jm_c(j, tt->producer, q - 1), -1);
      Jm_add(row, Jm_p(j, t, q - 1), -1);
      Row_commit(m, row, -ILP_INF, 0);
    }
  }
  if (j->paper && j->scol[t] >= 0) { /* Eq. 8 */
    for (int q = lo + 1; q <= hi; q++) Row_add(row, Jm_sp(j, t, q), 1);
    Row_commit(m, row, -ILP_INF, 1);
  }
  /* Eq. 5: an op runs only with its inputs resident */
  for (int k = 0; k < tt->nconsumers; k++) {
    int c = tt->consumers[k];
    for (int q = j->asap[c]; q <= j->alap[c]; q++) {
      Row_add(row, Jm_c(j, c, q), 1);
      Jm_add(row, Jm_f(j, t, q), -1);
      Jm_add(row, Jm_p(j, t, q), -1);
      Jm_add(row, Jm_r(j, t, q), -1);
      Row_commit(m, row, -ILP_INF, 0);
    }
  }
}

/* Addresses: Eq. 9 (column bounds), Eq. 11 (kept = same address), Eq. 10 (no overlap). */
static bool Jm_addressRows(Jm *j, IlpModel *m, Row *row) {
  double M = (double)j->cap;
  for (int t = 0; t < j->nt; t++) {
    if (!Jm_onChip(j, t)) continue;
    j->lcol[t] = IlpModel_ncols(m);
    for (int q = j->lo[t]; q <= j->hi[t]; q++)
      IlpModel_addCol(m, ILP_INTEGER, 0, (double)(j->cap - Jm_sz(j, t) > 0 ? j->cap - Jm_sz(j, t) : 0), 0);
    if (j->paper && j->lo[t] < j->hi[t]) {
      j->vcol[t] = IlpModel_ncols(m);
      for (int q = j->lo[t] + 1; q <= j->hi[t]; q++) IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
    }
    for (int q = j->lo[t] + 1; q <= j->hi[t]; q++) {
      int keep = j->paper ? Jm_v(j, t, q) : Jm_p(j, t, q);
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        Row_add(row, Jm_l(j, t, q), sgn), Row_add(row, Jm_l(j, t, q - 1), -sgn), Row_add(row, keep, M);
        Row_commit(m, row, -ILP_INF, M);
      }
      if (j->paper) { /* V = (resident before) and P */
        Jm_add(row, keep, 1), Jm_addRes(j, row, t, q - 1, -1), Jm_add(row, Jm_p(j, t, q), -1);
        Row_commit(m, row, -1, ILP_INF);
        Jm_add(row, keep, 1), Jm_addRes(j, row, t, q - 1, -1);
        Row_commit(m, row, -ILP_INF, 0);
        Row_add(row, keep, 1), Row_add(row, Jm_p(j, t, q), -1);
        Row_commit(m, row, -ILP_INF, 0);
      }
    }
  }
  int *act = malloc(sizeof(int) * (size_t)(j->nt + 1));
  if (!act) return false;
  j->npairs = 0;
  j->pair0 = IlpModel_ncols(m);
  for (int q = 0; q < j->n; q++) {
    if (Jm_over(j, m)) {
      free(act);
      return false;
    }
    int na = 0;
    for (int t = 0; t < j->nt; t++)
      if (Jm_onChip(j, t) && j->lo[t] <= q && q <= j->hi[t]) act[na++] = t;
    for (int x = 0; x < na; x++)
      for (int y = x + 1; y < na; y++) {
        int a = act[x], b = act[y];
        if (Jm_apart(j, a, b)) continue; /* the paper's overlap analysis */
        double sa = (double)Jm_sz(j, a), sb = (double)Jm_sz(j, b);
        if (!j->paper && sa + sb > M) { /* never together */
          Jm_addRes(j, row, a, q, 1), Jm_addRes(j, row, b, q, 1);
          Row_commit(m, row, -ILP_INF, 1);
          continue;
        }
        if (++j->npairs > JOINT_MAX_PAIRS) {
          free(act);
          return false;
        }
        int la = Jm_l(j, a, q), lb = Jm_l(j, b, q);
        if (j->paper) { /* Eq. 10: u (a above b), d (a below b) */
          int u = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0), d = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
          Row_add(row, u, 1), Row_add(row, d, 1);
          Row_commit(m, row, -ILP_INF, 1);
          Jm_add(row, u, 1), Jm_add(row, d, 1), Jm_addRes(j, row, a, q, -1), Jm_addRes(j, row, b, q, -1);
          Row_commit(m, row, -1, ILP_INF);
          Row_add(row, la, 1), Row_add(row, lb, -1), Row_add(row, d, M);
          Row_commit(m, row, -ILP_INF, M - sa);
          Row_add(row, lb, 1), Row_add(row, la, -1), Row_add(row, u, M);
          Row_commit(m, row, -ILP_INF, M - sb);
        } else { /* o = 1: a below b; both rows relaxed unless both are resident */
          int o = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
          Row_add(row, la, 1), Row_add(row, lb, -1), Row_add(row, o, M);
          Jm_addRes(j, row, a, q, M), Jm_addRes(j, row, b, q, M);
          Row_commit(m, row, -ILP_INF, 3 * M - sa);
          Row_add(row, lb, 1), Row_add(row, la, -1), Row_add(row, o, -M);
          Jm_addRes(j, row, a, q, M), Jm_addRes(j, row, b, q, M);
          Row_commit(m, row, -ILP_INF, 2 * M - sb);
        }
      }
  }
  free(act);
  return true;
}

/* The model: ours (addresses or not) or the paper's (always with addresses).
 * NULL: out of memory, too many pairs (*too_big), or over the build limits
 * (j->lim.hit, see CosmaBuildLimit). */
static IlpModel *Jm_build(Jm *j, bool addresses, bool *too_big) {
  *too_big = false;
  IlpModel *m = IlpModel_new();
  if (!m) return NULL;
  Row row = {0};
  for (int v = 0; v < j->n; v++) {
    j->ccol[v] = IlpModel_ncols(m);
    for (int q = j->asap[v]; q <= j->alap[v]; q++) IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
  }
  for (int t = 0; t < j->nt; t++) Jm_tensorCols(j, m, t);
  Jm_scheduleRows(j, m, &row);
  for (int t = 0; t < j->nt && !Jm_over(j, m); t++) Jm_tensorRows(j, m, &row, t);
  if (!j->paper) /* capacity per step: a relaxation of Eqs. 9-10, and a cut for the full model */
    for (int q = 0; q < j->n && !Jm_over(j, m); q++) {
      int64_t most = 0;
      for (int t = 0; t < j->nt; t++)
        if (Jm_onChip(j, t) && j->lo[t] <= q && q <= j->hi[t]) {
          Jm_addRes(j, &row, t, q, (double)Jm_sz(j, t));
          most += Jm_sz(j, t);
        }
      if (most > j->cap) Row_commit(m, &row, -ILP_INF, (double)j->cap);
      row.n = 0;
    }
  for (int t = 0; t < j->nt; t++) j->lcol[t] = j->vcol[t] = -1;
  j->pair0 = -1;
  bool ok = !Jm_over(j, m) && (!addresses || Jm_addressRows(j, m, &row)) && !Jm_over(j, m);
  if (!ok) *too_big = j->npairs > JOINT_MAX_PAIRS;
  if (!ok || row.nomem) {
    Row_free(&row);
    IlpModel_free(m);
    return NULL;
  }
  Row_free(&row);
  return m;
}

/* The order the C columns choose (false if they are not a topological order). */
static bool Jm_order(const Jm *j, const double *x, int *order) {
  int n = j->n;
  int *pos = malloc(sizeof(int) * (size_t)n);
  if (!pos) return false;
  for (int v = 0; v < n; v++) pos[v] = -1;
  bool ok = true;
  for (int q = 0; q < n && ok; q++) {
    order[q] = -1;
    for (int v = 0; v < n; v++) {
      int c = Jm_c(j, v, q);
      if (c >= 0 && x[c] > 0.5 && pos[v] < 0) order[q] = v;
    }
    ok = order[q] >= 0;
    if (ok) pos[order[q]] = q;
  }
  for (int v = 0; ok && v < n; v++)
    for (int k = 0; k < j->net->ops[v].ninputs; k++) {
      int p = j->net->tensors[j->net->ops[v].inputs[k]].producer;
      if (p >= 0 && pos[p] >= pos[v]) ok = false;
    }
  free(pos);
  return ok;
}

/* A plan from a solution with addresses. A tensor keeps its place from one event
 * (its creation or first load, or a read) to the next only if the model kept it
 * resident at every step between; else it leaves after the event and comes back
 * at the next read. Its stays are thus within the model's residency, at the
 * model's addresses, and it costs at most the model's objective. */
static Status Jm_toPlan(const Jm *j, const double *x, const int *order, Plan **out) {
  const Net *net = j->net;
  int n = j->n;
  Plan *plan = Plan_new(net, j->params, j->budget);
  int *pos = malloc(sizeof(int) * (size_t)n), *ev = malloc(sizeof(int) * (size_t)(n + 1));
  Status st = plan && pos && ev ? SP_OK : SP_ERR_NOMEM;
  if (!st) memcpy(plan->order, order, sizeof(int) * (size_t)n);
  for (int q = 0; !st && q < n; q++) pos[order[q]] = q;
  for (int t = 0; !st && t < j->nt; t++) {
    const Tensor *tt = &net->tensors[t];
    if (!Jm_onChip(j, t)) continue;
    int k = 0;
    if (tt->producer >= 0) ev[k++] = pos[tt->producer];
    for (int c = 0; c < tt->nconsumers; c++) ev[k++] = pos[tt->consumers[c]];
    for (int a = 1; a < k; a++) /* insertion sort: few events */
      for (int b = a; b > 0 && ev[b] < ev[b - 1]; b--) {
        int tmp = ev[b];
        ev[b] = ev[b - 1], ev[b - 1] = tmp;
      }
    bool host = tt->producer < 0;
    for (int i = 0; i < k && !st;) {
      int e = i;
      for (;;) {
        if (e + 1 >= k) break;
        bool kept = true;
        for (int q = ev[e] + 1; q <= ev[e + 1] && kept; q++) {
          int c = Jm_p(j, t, q);
          kept = c >= 0 && x[c] > 0.5;
        }
        if (!kept) break;
        e++;
      }
      int lc = Jm_l(j, t, ev[i]);
      Stay stay = {.tensor = t, .offset = (lc >= 0 ? llround(x[lc]) : 0) * j->g, .start = ev[i], .end = ev[e]};
      stay.in = i > 0 ? STAY_RETRIEVE : tt->producer >= 0 ? STAY_CREATE : STAY_LOAD;
      if (e + 1 == k) stay.out = tt->kind == TK_OUTPUT && !host ? STAY_STORE : STAY_FREE;
      else stay.out = host ? STAY_DROP : STAY_SPILL, host = true;
      st = Plan_addStay(plan, stay);
      i = e + 1;
    }
  }
  if (!st) st = Plan_computeMetrics(plan, net);
  free(pos), free(ev);
  if (st) {
    Plan_free(plan);
    return st;
  }
  *out = plan;
  return SP_OK;
}

/* Column values of a plan (ours only): false if it does not fit the model's shape. */
static bool Jm_assign(const Jm *j, const IlpModel *m, const Plan *p, double *x) {
  int ncols = IlpModel_ncols(m);
  memset(x, 0, sizeof(double) * (size_t)ncols);
  for (int q = 0; q < j->n; q++) {
    int c = Jm_c(j, p->order[q], q);
    if (c < 0) return false;
    x[c] = 1;
  }
  int64_t *addr = malloc(sizeof(int64_t) * (size_t)(j->nt * (size_t)j->n + 1));
  char *res = calloc((size_t)j->nt * (size_t)j->n + 1, 1);
  if (!addr || !res) {
    free(addr), free(res);
    return false;
  }
  bool ok = true;
  for (int i = 0; i < p->nstays && ok; i++) {
    const Stay *st = &p->stays[i];
    int t = st->tensor;
    if (!Jm_onChip(j, t) || st->start < j->lo[t] || st->end > j->hi[t] || st->offset % j->g) {
      ok = false;
      break;
    }
    if (st->in == STAY_LOAD && Jm_f(j, t, st->start) >= 0) x[Jm_f(j, t, st->start)] = 1;
    if (st->in == STAY_RETRIEVE) {
      int c = Jm_r(j, t, st->start);
      if (c < 0) ok = false;
      else x[c] = 1;
      if (j->scol[t] >= 0) x[j->scol[t]] = 1;
    }
    for (int q = st->start; q <= st->end && ok; q++) {
      if (q > st->start && Jm_p(j, t, q) >= 0) x[Jm_p(j, t, q)] = 1;
      int lc = Jm_l(j, t, q);
      if (lc >= 0) x[lc] = (double)(st->offset / j->g);
      addr[(size_t)t * j->n + q] = st->offset / j->g;
      res[(size_t)t * j->n + q] = 1;
    }
  }
  /* ordering binaries, in the order Jm_addressRows made them */
  if (ok && j->pair0 >= 0 && !j->paper) {
    int col = j->pair0;
    for (int q = 0; q < j->n; q++)
      for (int a = 0; a < j->nt; a++) {
        if (!Jm_onChip(j, a) || q < j->lo[a] || q > j->hi[a]) continue;
        for (int b = a + 1; b < j->nt; b++) {
          if (!Jm_onChip(j, b) || q < j->lo[b] || q > j->hi[b] || Jm_sz(j, a) + Jm_sz(j, b) > j->cap) continue;
          bool both = res[(size_t)a * j->n + q] && res[(size_t)b * j->n + q];
          if (col < ncols) x[col] = both && addr[(size_t)a * j->n + q] < addr[(size_t)b * j->n + q];
          col++;
        }
      }
  }
  free(addr), free(res);
  return ok;
}

static int64_t Joint_cost(const Plan *p) { return p->metrics.noncompulsory_bytes; }

/* set while this thread runs DnC for the joint pipeline: DnC solves its segments with
 * the joint pipeline, which must not start DnC again */
static _Thread_local bool Joint_inDnc;

/* Progress of a COSMA FS run, relayed with the joint pipeline's incumbent and bound. */
typedef struct {
  Relay *relay;
  const char *label;
} FsRelay;

static void Joint_fsProgress(const SolveProgress *p, void *user) {
  FsRelay *f = user;
  char stage[128];
  snprintf(stage, sizeof stage, "FS on %s: %s", f->label, p->stage);
  Relay_report(f->relay, stage, p->has_incumbent, p->incumbent / f->relay->scale, false, 0, p->nodes);
}

static bool Joint_cancelled(const SolveSettings *s) { return s->cancel && atomic_load(s->cancel); }

/* COSMA FS on one candidate order (share x the time limit); *best keeps the cheaper
 * plan; *proven says FS proved its plan optimal for that order. */
static Status Joint_fsOn(const Net *net, const SolveSettings *s, const int *order, const char *label,
                         const char *short_name, double tl, double share, Relay *relay, Plan **best,
                         CosmaJointStats *stats, bool *proven, SpError *err) {
  SolveSettings sub = *s;
  FsRelay fsr = {relay, label};
  sub.time_limit = tl * share;
  sub.progress = s->progress ? Joint_fsProgress : NULL;
  sub.progress_user = &fsr;
  Plan *p = NULL;
  CosmaFsOptions fso = {.proximity = true};
  Status st = Cosma_replacement(net, &sub, order, &fso, &p, NULL, err);
  if (st) return st;
  *proven = p->solver.status == SOLVER_OPTIMAL;
  if (!stats->fs_schedule[0] || Joint_cost(p) < stats->fs_bytes) {
    stats->fs_bytes = Joint_cost(p);
    snprintf(stats->fs_schedule, sizeof stats->fs_schedule, "%s", short_name);
  }
  if (Joint_cost(p) < Joint_cost(*best)) {
    Plan_free(*best);
    *best = p, p = NULL;
  }
  Plan_free(p);
  relay->incumbent = (double)Joint_cost(*best) / relay->scale;
  return SP_OK;
}

/* The u/d pairs Jm_addressRows will make (stops counting past limit). */
static long Jm_countPairs(const Jm *j, long limit) {
  int *act = malloc(sizeof(int) * (size_t)(j->nt + 1));
  long pairs = 0;
  if (!act) return limit + 1;
  for (int q = 0; q < j->n && pairs <= limit; q++) {
    int na = 0;
    for (int t = 0; t < j->nt; t++)
      if (Jm_onChip(j, t) && j->lo[t] <= q && q <= j->hi[t]) act[na++] = t;
    for (int x = 0; x < na && pairs <= limit; x++)
      for (int y = x + 1; y < na; y++) pairs += !Jm_apart(j, act[x], act[y]);
  }
  free(act);
  return pairs;
}

static Status Joint_paper(const Net *net, const SolveSettings *s, bool reduced, Plan **out, CosmaJointStats *stats,
                          SpError *err) {
  double t0 = Clock_now(), w0 = WorkClock_now();
  Jm j;
  IlpModel *m = NULL;
  IlpResult r = {0};
  Status st = SP_OK;
  int *order = malloc(sizeof(int) * (size_t)net->nops);
  if (!order || !Jm_init(&j, net, s->params, s->budget, true, reduced)) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  long npairs = Jm_countPairs(&j, JOINT_MAX_PAIRS);
  stats->full_pairs = npairs;
  if (npairs > JOINT_MAX_PAIRS) {
    st = SpError_set(err, SP_ERR_LIMIT,
                     "the paper's model%s needs over %d address-ordering pairs (u/d per step) on %s (%d steps); "
                     "use the cosma pipeline (without --model paper)",
                     reduced ? ", after its overlap analysis," : " without its overlap analysis", JOINT_MAX_PAIRS,
                     net->name, net->nops);
    goto out;
  }
  /* measured on resnet50: about 18 nonzeros, 4 rows and 2 columns per pair */
  double tl = s->time_limit > 0 ? s->time_limit : 0, pairs = (double)npairs;
  double load = Ilp_estimateSeconds((long)(18 * pairs), (long)(4 * pairs), (long)(2 * pairs));
  if (tl > 0 && load > tl) {
    st = SpError_set(err, SP_ERR_LIMIT,
                     "the paper's model on %s (%.0f address-ordering pairs) needs about %.1f s to "
                     "build and load before GLPK can be stopped; the time limit is %.2f s: raise --time-limit or "
                     "use the cosma pipeline (without --model paper)",
                     net->name, pairs, load, tl);
    goto out;
  }
  Jm_limit(&j, s->deadline, tl, s->cancel);
  bool too_big;
  if (!(m = Jm_build(&j, true, &too_big))) {
    if (j.lim.hit && Joint_cancelled(s))
      st = SpError_set(err, SP_ERR_CANCELLED, "the paper's model: cancelled while it was built");
    else if (j.lim.hit)
      st = SpError_set(err, SP_ERR_LIMIT,
                       "the paper's model on %s could not be built and loaded within the time limit (%.2f s)",
                       net->name, tl);
    else
      st = too_big ? SpError_set(err, SP_ERR_LIMIT, "the paper's model has over %d pairs", JOINT_MAX_PAIRS)
                   : SpError_set(err, SP_ERR_NOMEM, "out of memory building the paper's model");
    goto out;
  }
  stats->full_ran = true;
  stats->full_cols = IlpModel_ncols(m), stats->full_rows = IlpModel_nrows(m);
  Relay relay = {.s = s, .t0 = t0, .scale = (double)j.g};
  IlpOptions o;
  double left = tl > 0 ? tl - (WorkClock_now() - w0) : 0;
  if (tl > 0 && left < 0.01) left = 0.01;
  Cosma_ilpOptions(&o, s, &relay, left, "paper's model");
  if ((st = Ilp_solve(m, &o, &r, err))) goto out;
  stats->full_status = Cosma_status(r.status);
  if (r.status == ILP_INFEASIBLE || r.status == ILP_ERROR) {
    st = SpError_set(err, SP_ERR_SOLVER, "the paper's model: %s %s", IlpStatus_name(r.status), r.message);
    goto out;
  }
  if (!r.has_solution) {
    st = r.status == ILP_CANCELLED
             ? SpError_set(err, SP_ERR_CANCELLED, "the paper's model: cancelled before any plan")
             : SpError_set(err, SP_ERR_LIMIT, "the paper's model: no integer solution within %.2f s%s (%d columns, %d rows)%s%s",
                           s->time_limit, r.work_limited ? " of work" : r.message[0] ? "" : " (the wall clock: a slow or busy machine)",
                           stats->full_cols, stats->full_rows, r.message[0] ? ": " : "", r.message);
    goto out;
  }
  if (!Jm_order(&j, r.x, order)) {
    st = SpError_set(err, SP_ERR_SOLVER, "the paper's model: its C columns are not an order");
    goto out;
  }
  Plan *plan = NULL;
  if ((st = Jm_toPlan(&j, r.x, order, &plan))) {
    SpError_set(err, st, "out of memory");
    goto out;
  }
  int64_t bound = r.has_bound ? (int64_t)llround(r.bound) * j.g : 0;
  if (bound > Joint_cost(plan)) bound = Joint_cost(plan);
  plan->solver = (SolverInfo){.status = Joint_cost(plan) <= bound ? SOLVER_OPTIMAL : Cosma_status(r.status),
                              .objective = (double)Joint_cost(plan), .bound = (double)bound,
                              .has_objective = true, .has_bound = true};
  stats->relax_bound = bound;
  /* the model's size beside the pairs of the paper's O(|T| x |A|^2) encoding without its analysis */
  int k = 0;
  for (int t = 0; t < net->ntensors; t++) k += Net_onChip(net, t, s->params) && Jm_onChip(&j, t);
  snprintf(plan->solver.note, sizeof plan->solver.note,
           "the paper's model%s: %d columns, %d rows, %ld u/d pairs (every tensor pair at every step: %.0f)",
           reduced ? " after its overlap analysis" : "", stats->full_cols, stats->full_rows, npairs,
           (double)net->nops * k * (k - 1) / 2);
  *out = plan;
out:
  stats->seconds = Clock_now() - t0;
  if (*out) (*out)->solver.seconds = stats->seconds;
  IlpResult_free(&r);
  IlpModel_free(m);
  Jm_free(&j);
  free(order);
  return st;
}

Status Cosma_jointWith(const Net *net, const SolveSettings *s, const CosmaJointOptions *opt, Plan **out,
                       CosmaJointStats *stats, SpError *err) {
  *out = NULL;
  CosmaJointOptions defaults = {0};
  if (!opt) opt = &defaults;
  CosmaJointStats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  int64_t m_r = Figures_minRequired(net, s->params);
  if (s->budget < m_r)
    return SpError_set(err, SP_ERR_INFEASIBLE, "infeasible: budget %lld < M_R = %lld bytes", (long long)s->budget,
                       (long long)m_r);
  if (s->paper_model) return Joint_paper(net, s, !opt->paper_unreduced, out, stats, err);
  /* t0: the seconds reported; w0: the stages' shares, on the work clock */
  double t0 = Clock_now(), w0 = WorkClock_now(), tl = s->time_limit > 0 ? s->time_limit : 0;
  int n = net->nops;
  /* CAND_MPMF_WHOLE: opt->mp_orders > 1, the M_P order of the whole-network search (another optimal one) */
  enum { CAND_RELAX, CAND_MPMF, CAND_DEFAULT, CAND_MPMF_WHOLE, NCAND };
  static const char *const cand_name[NCAND] = {"the relaxation's order", "mpmf", "default", "mpmf-whole"};
  int *cand[NCAND] = {0};
  bool have[NCAND] = {false, false, true, false}, fs_done[NCAND] = {false};
  bool fs_proven[NCAND] = {false}; /* COSMA FS proved its plan optimal for that order */
  Plan *best = NULL;
  Jm j;
  IlpModel *relax = NULL, *full = NULL;
  IlpResult rr = {0}, fr = {0};
  double *x = NULL;
  Status st = SP_OK;
  SolverStatus status = SOLVER_TIMEOUT;
  int64_t bound = 0; /* bytes */
  bool jm_ok = Jm_init(&j, net, s->params, s->budget, false, true);
  for (int c = 0; c < NCAND; c++) cand[c] = malloc(sizeof(int) * (size_t)n);
  if (!jm_ok || !cand[0] || !cand[1] || !cand[2] || !cand[3]) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  Relay relay = {.s = s, .t0 = t0, .scale = (double)j.g};
  Relay_report(&relay, "heuristics", false, 0, false, 0, 0);
  /* 1. heuristics on the default and the exact-M_P schedules */
  for (int v = 0; v < n; v++) cand[CAND_DEFAULT][v] = v;
  SpError e2;
  SolveSettings mp = *s; /* the exact M_P search gets a share of the time; on its limit, its best order */
  mp.time_limit = tl * 0.2;
  /* no caller's deadline: no wall-clock stop either (the M_P search would take its
   * time limit as one, and a loaded machine would change the order; since issue 35
   * it runs on every DnC segment, where it used to fail at once) */
  if (mp.deadline <= 0) mp.deadline = Clock_now() + 1e9;
  have[CAND_MPMF] = Schedule_mpmf(net, &mp, cand[CAND_MPMF], NULL, &e2) == SP_OK;
  if ((opt->mp_orders ? opt->mp_orders : s->mp_orders) > 1 && have[CAND_MPMF]) { /* the same M_P by the search before issue 37 */
    MinPeakOptions mo;
    MinPeakOptions_init(&mo);
    mo.whole = true, mo.cancel = s->cancel, mo.time_limit = tl * 0.1, mo.deadline = mp.deadline;
    MinPeakResult mr;
    have[CAND_MPMF_WHOLE] = Figures_minPeak(net, s->params, &mo, cand[CAND_MPMF_WHOLE], &mr, &e2) == SP_OK &&
                            memcmp(cand[CAND_MPMF_WHOLE], cand[CAND_MPMF], sizeof(int) * (size_t)n) != 0;
  }
  Cosma_bestSimulated(net, s, cand[CAND_DEFAULT], "default", &best, stats->heuristic_policy,
                      sizeof stats->heuristic_policy);
  if (have[CAND_MPMF])
    Cosma_bestSimulated(net, s, cand[CAND_MPMF], "mpmf", &best, stats->heuristic_policy, sizeof stats->heuristic_policy);
  if (have[CAND_MPMF_WHOLE])
    Cosma_bestSimulated(net, s, cand[CAND_MPMF_WHOLE], "mpmf-whole", &best, stats->heuristic_policy,
                        sizeof stats->heuristic_policy);
  if (!best) {
    st = SpError_set(err, SP_ERR_INFEASIBLE, "no simulated plan fits the budget");
    goto out;
  }
  stats->heuristic_bytes = Joint_cost(best);
  relay.incumbent = (double)(Joint_cost(best) / j.g), relay.has_incumbent = true;
  if (Joint_cost(best) == 0 && !opt->force_full) goto proven;
  /* 1b. the checkpoint bound over every order (max flows, no ILP): often exact
   * where the relaxation's LP is weak (transformers, parallel branches). Two rounds:
   * the chain (and antichain) alone, then, if neither it nor COSMA FS proved the
   * plan, with groups of parallel ops (dearer; RegNet's first blocks need them) and
   * twice the checkpoints, within the rest of the bound's share */
  CosmaBoundOptions bo;
  CosmaBoundOptions_init(&bo);
  if (!opt->force_full) {
    int groups = bo.max_groups, checkpoints = bo.max_checkpoints;
    double share = tl > 0 ? tl * 0.15 : 10; /* no time limit: still bounded (thousands of ops) */
    bool ran_early[NCAND] = {false};
    bo.deadline = s->deadline;
    bo.cancel = s->cancel;
    bo.test_bias = opt->bound_bias;
    for (int round = 0; round < 2; round++) {
      bo.max_groups = round ? groups : 0;
      bo.max_checkpoints = round ? 2 * checkpoints : checkpoints; /* gpt24's 24 blocks need 70 */
      bo.work = share - stats->seconds_order_work;
      if (round && (bo.work <= 0 || stats->order_bound_stopped || Joint_cancelled(s))) break;
      bo.target = Joint_cost(best); /* no need to enumerate orders past the incumbent */
      CosmaBoundResult br;
      double wb = WorkClock_now();
      if ((st = Cosma_orderBound(net, s->params, s->budget, &bo, &br, err))) goto out;
      stats->seconds_order_work += WorkClock_now() - wb;
      if (br.bound > stats->order_bound) stats->order_bound = br.bound;
      stats->order_bound_stopped = !br.complete;
      stats->seconds_order_bound += br.seconds;
      if (br.bound > bound) bound = br.bound;
      relay.bound = (double)(bound / j.g), relay.has_bound = true;
      if (Joint_cost(best) <= bound) goto proven;
      /* with a bound above 0, COSMA FS on the mpmf and default orders first (5 % of
       * the time limit each): on the networks where the checkpoint bound is exact, one
       * of them meets it in well under a second, and the relaxation (30 %) is not
       * needed; an order FS did not finish is solved again after the relaxation */
      for (int c = CAND_MPMF; bound > 0 && c < NCAND; c++) {
        if (!have[c] || ran_early[c] || Joint_cancelled(s)) continue; /* cand[c] unset without have[c] */
        bool dup = false;
        for (int d = CAND_MPMF; d < c; d++) dup |= have[d] && memcmp(cand[c], cand[d], sizeof(int) * (size_t)n) == 0;
        if (dup) continue;
        if ((st = Joint_fsOn(net, s, cand[c], cand_name[c], cand_name[c], tl, 0.05, &relay, &best, stats, &fs_done[c],
                             err)))
          goto out;
        ran_early[c] = true;
        fs_proven[c] = fs_done[c];
        if (Joint_cost(best) <= bound) goto proven;
      }
    }
    bo.max_groups = groups, bo.max_checkpoints = checkpoints;
  }
  /* 2. the joint relaxation (no addresses): a bound and a schedule */
  bool too_big;
  IlpOptions o;
  Jm_limit(&j, s->deadline, tl * 0.3, s->cancel);
  relax = Jm_build(&j, false, &too_big);
  if (!relax && j.lim.hit) goto fs; /* no time to build it: no bound, no order from it */
  if (!relax || !(x = malloc(sizeof(double) * ((size_t)IlpModel_ncols(relax) + 1)))) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory building the joint relaxation");
    goto out;
  }
  Cosma_ilpOptions(&o, s, &relay, tl * 0.3, "joint relaxation");
  o.proximity = Cosma_proximity(relax, tl * 0.3);
  if (!opt->no_warm_start && Jm_assign(&j, relax, best, x)) o.warm_start = x;
  if ((st = Ilp_solve(relax, &o, &rr, err))) goto out;
  stats->relax_status = Cosma_status(rr.status);
  if (rr.status == ILP_INFEASIBLE) {
    st = SpError_set(err, SP_ERR_SOLVER, "joint relaxation: infeasible, but a plan exists");
    goto out;
  }
  if (rr.has_bound && rr.status != ILP_ERROR) stats->relax_bound = (int64_t)llround(rr.bound) * j.g;
  if (stats->relax_bound > bound) bound = stats->relax_bound;
  relay.bound = (double)(bound / j.g), relay.has_bound = true;
  have[CAND_RELAX] = rr.has_solution && Jm_order(&j, rr.x, cand[CAND_RELAX]);
  if (Joint_cost(best) <= bound && !opt->force_full) goto proven;
fs:
  /* 3. COSMA FS on each candidate schedule */
  for (int c = 0; c < NCAND && !opt->force_full; c++) {
    if (!have[c] || fs_done[c] || Joint_cancelled(s)) continue;
    bool seen = false;
    for (int d = 0; d < NCAND; d++) /* an order already solved (earlier here, or before the relaxation) */
      seen |= d != c && have[d] && (d < c || fs_done[d]) && memcmp(cand[c], cand[d], sizeof(int) * (size_t)n) == 0;
    if (seen) continue;
    bool proven_fs;
    if ((st = Joint_fsOn(net, s, cand[c], cand_name[c], c == CAND_RELAX ? "relaxation" : cand_name[c], tl, 0.15,
                         &relay, &best, stats, &proven_fs, err)))
      goto out;
    fs_proven[c] = proven_fs;
    if (Joint_cost(best) <= bound) goto proven;
  }
  if (Joint_cancelled(s)) {
    status = SOLVER_CANCELLED;
    goto done;
  }
  /* 4. the joint model with addresses, warm-started */
  if (tl > 0 && WorkClock_now() - w0 >= tl) { /* status stays timeout */
    snprintf(stats->stop_reason, sizeof stats->stop_reason, "time limit reached before the joint model with addresses");
    goto done;
  }
  if (s->deadline > 0 && Clock_now() >= s->deadline) {
    snprintf(stats->stop_reason, sizeof stats->stop_reason, "the wall clock reached the time limit before the "
             "joint model with addresses (a slow or busy machine)");
    goto done;
  }
  Jm_limit(&j, s->deadline, tl > 0 ? tl - (WorkClock_now() - w0) : 0, s->cancel);
  full = Jm_build(&j, true, &too_big);
  if (!full && j.lim.hit) {
    status = Joint_cancelled(s) ? SOLVER_CANCELLED : SOLVER_TIMEOUT;
    snprintf(stats->stop_reason, sizeof stats->stop_reason, "the joint model with addresses is too large to build "
             "and load in the time left");
    goto rest;
  }
  if (!full) {
    if (!too_big) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory building the joint model");
      goto out;
    }
    status = SOLVER_FEASIBLE; /* too large to build: the FS plan stands, with its gap */
    snprintf(stats->stop_reason, sizeof stats->stop_reason, "the joint model with addresses has over %d "
             "address-ordering pairs (too large for GLPK)", JOINT_MAX_PAIRS);
    goto rest;
  }
  stats->full_cols = IlpModel_ncols(full), stats->full_rows = IlpModel_nrows(full);
  if (stats->full_cols > JOINT_MAX_FULL_COLS) { /* measured: GLPK's node LPs there take minutes each and
                                                  cannot be interrupted; the FS plan stands, with its gap */
    status = SOLVER_FEASIBLE;
    snprintf(stats->stop_reason, sizeof stats->stop_reason, "the joint model with addresses has %d columns (over %d: "
             "GLPK's node LPs take minutes)", stats->full_cols, JOINT_MAX_FULL_COLS);
    goto rest;
  }
  stats->full_ran = true;
  free(x);
  if (!(x = malloc(sizeof(double) * ((size_t)IlpModel_ncols(full) + 1)))) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  double left = tl > 0 ? tl - (WorkClock_now() - w0) : 0;
  if (tl > 0 && left < 0.05) left = 0.05;
  Cosma_ilpOptions(&o, s, &relay, left, "joint model");
  o.proximity = Cosma_proximity(full, left);
  if (!opt->no_warm_start && Jm_assign(&j, full, best, x)) o.warm_start = x;
  if ((st = Ilp_solve(full, &o, &fr, err))) goto out;
  stats->full_status = Cosma_status(fr.status);
  stats->full_warm_accepted = fr.warm_start_accepted;
  if (fr.status == ILP_INFEASIBLE) {
    st = SpError_set(err, SP_ERR_SOLVER, "joint model: infeasible, but a plan exists");
    goto out;
  }
  if (fr.has_bound && fr.status != ILP_ERROR && (int64_t)llround(fr.bound) * j.g > bound)
    bound = (int64_t)llround(fr.bound) * j.g;
  if (fr.has_solution && (llround(fr.objective) * j.g < Joint_cost(best) || opt->force_full)) {
    int *order = cand[CAND_RELAX]; /* reuse: the relaxation's order is no longer needed */
    Plan *p = NULL;
    if (Jm_order(&j, fr.x, order)) {
      if ((st = Jm_toPlan(&j, fr.x, order, &p))) {
        SpError_set(err, st, "out of memory");
        goto out;
      }
      if (Joint_cost(p) > llround(fr.objective) * j.g) {
        st = SpError_set(err, SP_ERR_SOLVER, "joint model: the solution costs %lld bytes, the model said %lld",
                         (long long)Joint_cost(p), (long long)(llround(fr.objective) * j.g));
        Plan_free(p);
        goto out;
      }
      if (Joint_cost(p) < Joint_cost(best) || (opt->force_full && Joint_cost(p) <= Joint_cost(best))) {
        Plan_free(best);
        best = p, p = NULL;
        stats->full_plan = true;
      }
      Plan_free(p);
    }
  }
  status = Joint_cost(best) <= bound         ? SOLVER_OPTIMAL
           : fr.status == ILP_CANCELLED || Joint_cancelled(s) ? SOLVER_CANCELLED
                                                              : SOLVER_TIMEOUT;
  if (status == SOLVER_TIMEOUT)
    snprintf(stats->stop_reason, sizeof stats->stop_reason, "the joint model with addresses reached the time limit%s",
             fr.work_limited ? "" : " (the wall clock: a slow or busy machine)");
  goto done;
rest:
  /* the joint model with addresses will not run: the work budget left goes to the
   * stages that stopped on their share, until the bound meets the plan or it is spent
   * (all on the work clock, so the answer is the same idle or under load) */
  if (tl > 0 && !opt->force_full) {
    IlpModel_free(full), full = NULL; /* its memory is not needed any more */
    double rest_left = tl - (WorkClock_now() - w0);
    bool ran_bound = false, ran_fs = false, ran_dnc = false;
    /* first the checkpoint bound again, with up to half of what is left: where it stopped
     * on its share, to finish; where it finished, with more checkpoints and a wider antichain
     * (every such bound holds; the best stands). Then COSMA FS, then DnC with the rest. */
    double bound_end = WorkClock_now() + rest_left * 0.5;
    for (int round = 1; round <= 8 && bound < Joint_cost(best); round++) {
      rest_left = bound_end - WorkClock_now();
      if (rest_left <= 0.02 * tl || Joint_cancelled(s) || (s->deadline > 0 && Clock_now() >= s->deadline)) break;
      if (!stats->order_bound_stopped) { /* it finished: widen it, while there is more to consider */
        if (bo.max_checkpoints >= n && bo.max_antichain >= 9 && bo.max_groups >= n) break;
        bo.max_checkpoints = bo.max_checkpoints * 2 < n ? bo.max_checkpoints * 2 : n;
        if (bo.max_antichain < 9) bo.max_antichain++;
        bo.max_groups = bo.max_groups * 2 < n ? bo.max_groups * 2 : n; /* NAS cells: more groups raise it */
      }
      bo.work = rest_left;
      bo.target = Joint_cost(best);
      CosmaBoundResult br;
      if ((st = Cosma_orderBound(net, s->params, s->budget, &bo, &br, err))) goto out;
      ran_bound = true;
      stats->order_bound_stopped = !br.complete;
      stats->seconds_order_bound += br.seconds;
      if (br.bound > stats->order_bound) stats->order_bound = br.bound;
      if (br.bound > bound) bound = br.bound;
      relay.bound = (double)(bound / j.g), relay.has_bound = true;
      if (Joint_cost(best) <= bound) goto proven;
    }
    /* COSMA FS again on each distinct candidate order it did not prove, sharing the rest */
    int todo = 0, which[NCAND];
    for (int c = 0; c < NCAND; c++) {
      bool dup = false;
      for (int d = 0; d < c; d++)
        dup |= have[d] && have[c] && memcmp(cand[c], cand[d], sizeof(int) * (size_t)n) == 0;
      if (have[c] && !dup && !fs_proven[c]) which[todo++] = c;
    }
    double fs_end = WorkClock_now() + (tl - (WorkClock_now() - w0)) * 0.5; /* up to half of what is left */
    for (int i = 0; i < todo; i++) {
      int c = which[i];
      rest_left = fs_end - WorkClock_now();
      if (rest_left <= 0.01 * tl || Joint_cancelled(s) || (s->deadline > 0 && Clock_now() >= s->deadline)) break;
      bool proven_fs;
      if ((st = Joint_fsOn(net, s, cand[c], cand_name[c], c == CAND_RELAX ? "relaxation" : cand_name[c], rest_left,
                           1.0 / (todo - i), &relay, &best, stats, &proven_fs, err)))
        goto out;
      ran_fs = true;
      fs_proven[c] = proven_fs;
      if (Joint_cost(best) <= bound) goto proven;
    }
    /* divide and conquer over break nodes: its segments reorder ops the candidate orders
     * fix (on NAS cells it finds cheaper plans than COSMA FS on any of them) */
    rest_left = tl - (WorkClock_now() - w0);
    if (!Joint_inDnc && rest_left > 0.02 * tl && !Joint_cancelled(s) &&
        !(s->deadline > 0 && Clock_now() >= s->deadline)) {
      SolveSettings ds = *s;
      ds.time_limit = rest_left; /* all that is left */
      ds.progress = NULL, ds.progress_user = NULL;
      ds.break_nodes = NULL; /* chosen automatically */
      Plan *p = NULL;
      SpError e3;
      Joint_inDnc = true;
      Status dst = Cosma_dncPlan(net, &ds, &p, &e3);
      Joint_inDnc = false;
      if (dst == SP_OK && p) { /* a DnC failure leaves the plan we have */
        ran_dnc = true;
        if (Joint_cost(p) < Joint_cost(best)) {
          Plan_free(best);
          best = p, p = NULL;
          relay.incumbent = (double)(Joint_cost(best) / j.g);
          snprintf(stats->fs_schedule, sizeof stats->fs_schedule, "dnc");
        }
      }
      Plan_free(p);
      if (Joint_cost(best) <= bound) goto proven;
    }
    if (ran_bound || ran_fs || ran_dnc) {
      size_t len = strlen(stats->stop_reason);
      snprintf(stats->stop_reason + len, sizeof stats->stop_reason - len, "; the rest of the limit went to %s%s%s%s%s",
               ran_bound ? "the bound" : "", ran_bound && (ran_fs || ran_dnc) ? ", " : "", ran_fs ? "COSMA FS" : "",
               ran_fs && ran_dnc ? ", " : "", ran_dnc ? "DnC" : "");
    }
    if (Joint_cancelled(s)) status = SOLVER_CANCELLED;
  }
  goto done;
proven:
  status = SOLVER_OPTIMAL;
  bound = Joint_cost(best);
done:
  stats->seconds = Clock_now() - t0;
  Cosma_finish(best, status, bound, stats->seconds, &relay);
  if (status != SOLVER_OPTIMAL) { /* say why it stopped and where the bound comes from */
    const char *src = bound <= 0 && stats->order_bound_stopped ? "no bound above 0 (the checkpoint bound ran out of time)"
                      : bound <= 0                       ? "no bound above 0"
                      : bound == stats->order_bound     ? "bound from the checkpoint bound"
                      : bound == stats->relax_bound     ? "bound from the joint relaxation"
                                                        : "bound from the joint model";
    snprintf(best->solver.note, sizeof best->solver.note, "%.140s; %s (%lld bytes)",
             stats->stop_reason[0] ? stats->stop_reason : "stopped", src, (long long)(bound > 0 ? bound : 0));
  }
  *out = best;
  best = NULL;
out:
  Plan_free(best);
  IlpResult_free(&rr);
  IlpResult_free(&fr);
  IlpModel_free(relax);
  IlpModel_free(full);
  free(x);
  for (int c = 0; c < NCAND; c++) free(cand[c]);
  Jm_free(&j);
  return st;
}

Status Cosma_joint(const Net *net, const SolveSettings *s, Plan **out, CosmaJointStats *stats, SpError *err) {
  return Cosma_jointWith(net, s, NULL, out, stats, err);
}

Status Cosma_jointPlan(const Net *net, const SolveSettings *s, Plan **out, SpError *err) {
  return Cosma_joint(net, s, out, NULL, err);
}

/* exhaustive: every mapping of a small layer (every split of each loop bound
 * over the levels' temporal and spatial slots, every order of the non-trivial
 * loops at every level); the optimum under the cost model. Splits that already
 * break a capacity or fan-out are cut early: tiles only grow as the dimensions
 * not yet split get their factors, so nothing valid is cut. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "layer_map.h"
#include "testhook.h"

typedef struct {
  const Arch *a;
  const Layer *l;
  const LayerMapOptions *o;
  LayerMapResult *r;
  Mapping m;
  int slot_level[2 * ARCH_MAX_LEVELS], slot_kind[2 * ARCH_MAX_LEVELS], nslots;
  double best, t0;
  Status stop;  /* SP_ERR_LIMIT / SP_ERR_CANCELLED once stopped */
} Exhaustive;

static bool Exhaustive_partialOk(const Exhaustive *x) {
  for (int i = 0; i < x->a->nlevels; i++) {
    int64_t sp = 1;
    for (int d = 0; d < DIM_COUNT; d++) sp *= x->m.s[i][d];
    if (sp > x->a->level[i].fanout) return false;
    if (x->a->level[i].capacity && Mapping_used(&x->m, x->a, x->l, i) > x->a->level[i].capacity) return false;
  }
  return true;
}

static void Exhaustive_visit(Exhaustive *x) {
  x->r->tried++;
  if (x->r->tried > x->o->limit) {
    x->stop = SP_ERR_LIMIT;
    return;
  }
  if ((x->r->tried & 4095) == 0) {
    Testhook_at("layer.exhaustive", x->o->cancel);
    if (x->o->cancel && atomic_load(x->o->cancel)) x->stop = SP_ERR_CANCELLED;
    else if (x->o->time_limit > 0 && Clock_now() - x->t0 > x->o->time_limit) x->stop = SP_ERR_LIMIT;
    if (x->o->progress) x->o->progress("exhaustive", x->best, -1, -1, Clock_now() - x->t0, x->o->user);
  }
  Cost c;
  Cost_evaluate(x->a, x->l, &x->m, &c);
  if (!c.valid) return;
  x->r->valid++;
  double v = Cost_objective(&c, x->o->objective);
  if (v < x->best) {
    x->best = v;
    x->r->map = x->m;
    x->r->cost = c;
  }
}

/* Every joint order of the non-trivial loops, level by level. */
static void Exhaustive_orders(Exhaustive *x, int level) {
  if (x->stop) return;
  if (level == x->a->nlevels) {
    Exhaustive_visit(x);
    return;
  }
  int k = 0;
  uint8_t *ord = x->m.order[level];
  for (int d = 0; d < DIM_COUNT; d++)
    if (x->m.t[level][d] > 1) ord[k++] = (uint8_t)d;
  int nt = k;
  for (int d = 0; d < DIM_COUNT; d++)
    if (x->m.t[level][d] == 1) ord[k++] = (uint8_t)d;
  for (;;) {
    Exhaustive_orders(x, level + 1);
    if (x->stop) return;
    /* next permutation of ord[0..nt) */
    int i = nt - 2;
    while (i >= 0 && ord[i] >= ord[i + 1]) i--;
    if (i < 0) return;
    int j = nt - 1;
    while (ord[j] <= ord[i]) j--;
    uint8_t t = ord[i];
    ord[i] = ord[j];
    ord[j] = t;
    for (int p = i + 1, q = nt - 1; p < q; p++, q--) {
      t = ord[p];
      ord[p] = ord[q];
      ord[q] = t;
    }
  }
}

/* Split what is left of dim d over slots slot.. (the last slot takes the rest). */
static void Exhaustive_split(Exhaustive *x, int d, int slot, int64_t left) {
  if (x->stop) return;
  if (d == DIM_COUNT) {
    Exhaustive_orders(x, 0);
    return;
  }
  if (slot == x->nslots - 1 || left == 1) {
    int lv = x->slot_level[x->nslots - 1];
    int64_t *cell = left == 1 ? NULL : &x->m.t[lv][d];
    if (cell) *cell = left;
    if (Exhaustive_partialOk(x)) Exhaustive_split(x, d + 1, 0, Layer_dim(x->l, (Dim)(d + 1 < DIM_COUNT ? d + 1 : d)));
    if (cell) *cell = 1;
    return;
  }
  int lv = x->slot_level[slot];
  int64_t *cell = x->slot_kind[slot] ? &x->m.s[lv][d] : &x->m.t[lv][d];
  for (int64_t f = 1; f <= left; f++) {
    if (left % f) continue;
    *cell = f;
    if (f == 1 || Exhaustive_partialOk(x)) Exhaustive_split(x, d, slot + 1, left / f);
    *cell = 1;
    if (x->stop) return;
  }
}

Status LayerMap_exhaustive(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r,
                           SpError *err) {
  memset(r, 0, sizeof *r);
  Exhaustive x = {.a = a, .l = l, .o = o, .r = r, .best = INFINITY, .t0 = Clock_now()};
  Mapping_init(&x.m, a, l);
  for (int i = 0; i < a->nlevels; i++)
    for (int d = 0; d < DIM_COUNT; d++) x.m.t[i][d] = 1;
  /* slots: outermost temporal last (it takes what is left) */
  for (int i = 0; i < a->nlevels; i++) {
    if (a->level[i].fanout > 1) {
      x.slot_level[x.nslots] = i;
      x.slot_kind[x.nslots++] = 1;
    }
    if (i < a->nlevels - 1) {
      x.slot_level[x.nslots] = i;
      x.slot_kind[x.nslots++] = 0;
    }
  }
  x.slot_level[x.nslots] = a->nlevels - 1;
  x.slot_kind[x.nslots++] = 0;
  Exhaustive_split(&x, 0, 0, Layer_dim(l, DIM_R));
  r->seconds = Clock_now() - x.t0;
  if (x.stop == SP_ERR_CANCELLED) return SpError_set(err, SP_ERR_CANCELLED, "exhaustive: cancelled");
  if (x.stop == SP_ERR_LIMIT)
    return SpError_set(err, SP_ERR_LIMIT,
                       "exhaustive: stopped after %ld mappings (limit %ld, %.1f s): the layer is too large for "
                       "a complete search; use cosa or random",
                       r->tried, o->limit, r->seconds);
  if (!r->valid) return SpError_set(err, SP_ERR_INFEASIBLE, "exhaustive: no mapping fits the architecture");
  snprintf(r->note, sizeof r->note, "optimum over all %ld mappings (%ld valid)", r->tried, r->valid);
  return SP_OK;
}

/* layer_map: the method table and what the mappers share. */
#include "layer_map.h"

#include <math.h>
#include <string.h>

/* One row per method; SmartShuttle and the offloading steps add theirs here. */
const LayerMethod LayerMap_methods[] = {
    {"cosa", "the CoSA paper's MIP (Eqs. 2-12, loop ranks at the NoC level) in GLPK, its objective as published: "
     "one solve, weights 1,1,1", LayerMap_cosa},
    {"cosa-plus", "ours: CoSA's MIP + a latency term (L=5), 3 weight vectors, each refined by the cost model",
     LayerMap_cosaPlus},
    {"random", "best of --samples random valid mappings (the paper's Random: 5)", LayerMap_random},
    {"exhaustive", "every mapping (small layers): the optimum under the cost model", LayerMap_exhaustive},
    {"cosa-single", "cosa-plus with one weight vector: one MIP solve with --weights, refined by the cost model",
     LayerMap_cosaSingle},
    /* last, so the explorer's method keys (m) reach the others as before */
    {"cosa-stationary", "cosa with Eqs. 9-10 replaced by one stationary operand at the NoC level, other levels' "
     "loop orders by the cost model", LayerMap_cosaStationary},
};
const int LayerMap_nmethods = (int)(sizeof LayerMap_methods / sizeof LayerMap_methods[0]);

const LayerMethod *LayerMap_find(const char *name) {
  for (int i = 0; i < LayerMap_nmethods; i++)
    if (strcmp(LayerMap_methods[i].name, name) == 0) return &LayerMap_methods[i];
  return NULL;
}

void LayerMapOptions_init(LayerMapOptions *o) {
  memset(o, 0, sizeof *o);
  o->objective = OBJ_LATENCY;
  o->time_limit = 10;
  o->samples = 5;
  o->seed = 1;
  o->limit = 20000000;
  o->w_util = 1;
  o->w_comp = 1;
  o->w_traf = 1;
  o->w_lat = 5; /* tuned on ResNet-50 (bench layer), as the paper tunes its weights per architecture */
  o->mip_limit = LAYER_MIP_WORK;
  o->refine = true;
}

int LayerMap_primes(int64_t n, int64_t *out) {
  int k = 0;
  for (int64_t p = 2; p * p <= n && k < 63; p++)
    while (n % p == 0 && k < 63) {
      out[k++] = p;
      n /= p;
    }
  if (n > 1) out[k++] = n;
  return k;
}

/* Next permutation of a[0..n) in lexicographic order; false after the last. */
static bool LayerMap_nextPerm(uint8_t *a, int n) {
  int i = n - 2;
  while (i >= 0 && a[i] >= a[i + 1]) i--;
  if (i < 0) return false;
  int j = n - 1;
  while (a[j] <= a[i]) j--;
  uint8_t t = a[i];
  a[i] = a[j];
  a[j] = t;
  for (int x = i + 1, y = n - 1; x < y; x++, y--) {
    t = a[x];
    a[x] = a[y];
    a[y] = t;
  }
  return true;
}

/* Order: the non-trivial loops first (innermost), ascending, then the trivial ones. */
static int LayerMap_sortLevel(Mapping *m, int i) {
  int k = 0;
  for (int d = 0; d < DIM_COUNT; d++)
    if (m->t[i][d] > 1) m->order[i][k++] = (uint8_t)d;
  int nontrivial = k;
  for (int d = 0; d < DIM_COUNT; d++)
    if (m->t[i][d] == 1) m->order[i][k++] = (uint8_t)d;
  return nontrivial;
}

void LayerMap_bestOrders(const Arch *a, const Layer *l, Mapping *m, LayerObjective obj, int first_level,
                         int last_level) {
  for (int i = first_level; i <= last_level && i < m->nlevels; i++) {
    int k = LayerMap_sortLevel(m, i);
    if (k < 2) continue;
    uint8_t best[DIM_COUNT];
    memcpy(best, m->order[i], sizeof best);
    double best_v = INFINITY;
    do {
      Cost c;
      Cost_evaluate(a, l, m, &c);
      double v = Cost_objective(&c, obj);
      if (v < best_v) {
        best_v = v;
        memcpy(best, m->order[i], sizeof best);
      }
    } while (LayerMap_nextPerm(m->order[i], k));
    memcpy(m->order[i], best, sizeof best);
  }
}

/* refine: a cost-model-guided local search around a mapping (used by `cosa`
 * after its MIP; see layer_map.h).
 *
 * The MIP optimises log-space proxies of the cost model (a max over streams
 * where the model sums them, one stationary operand per level, a halo bound),
 * so its mapping is often a few prime-factor moves away from a better one under
 * the exact model. This searches those moves: every prime factor of every
 * dimension from its (level, temporal|spatial) slot to every other slot, and
 * every exchange of two factors between two slots (a move that alone would
 * overflow a buffer may fit as a swap). Each candidate is evaluated exactly by
 * Cost_evaluate, which also rejects every invalid one (capacity, fan-out), so
 * the result stays valid. Best improvement per step; after a step the loop
 * orders of every level are re-chosen by the cost model. It stops at a local
 * optimum, after max_steps steps, or when the deadline (Clock_now) passes. */
#include <math.h>
#include <string.h>

#include "clock.h"
#include "layer_map.h"

/* A slot: level * 2 + (spatial ? 1 : 0). */
static int64_t *Refine_cell(Mapping *m, int slot, int d) {
  return slot & 1 ? &m->s[slot / 2][d] : &m->t[slot / 2][d];
}

typedef struct {
  int dim;
  int64_t p;
} RefinePrime;

static double Refine_eval(const Arch *a, const Layer *l, const Mapping *m, LayerObjective obj) {
  Cost c;
  Cost_evaluate(a, l, m, &c);
  return Cost_objective(&c, obj);
}

int LayerMap_refine(const Arch *a, const Layer *l, Mapping *m, LayerObjective obj, int max_steps, double deadline) {
  RefinePrime pr[DIM_COUNT * 8];
  int np = 0;
  for (int d = 0; d < DIM_COUNT; d++) {
    int64_t f[64];
    int k = LayerMap_primes(Layer_dim(l, (Dim)d), f);
    for (int j = 0; j < k; j++)
      if (f[j] > 1 && (j == 0 || f[j] != f[j - 1]) && np < (int)(sizeof pr / sizeof pr[0]))
        pr[np++] = (RefinePrime){d, f[j]};
  }
  int nslots = 2 * a->nlevels, steps = 0;
  double cur = Refine_eval(a, l, m, obj);
  if (!isfinite(cur)) return 0;
  while (steps < max_steps && (deadline <= 0 || Clock_now() < deadline)) {
    Mapping best = *m, t = *m;
    double best_v = cur;
    for (int x = 0; x < np; x++)
      for (int from = 0; from < nslots; from++) {
        int64_t *src = Refine_cell(&t, from, pr[x].dim);
        if (*src % pr[x].p) continue;
        *src /= pr[x].p;
        /* move p^j (every j up to the copies in the slot: 2x2x2 of a 32 moves as 8 too) */
        int64_t pj = pr[x].p;
        for (int j = 1;; j++) {
          for (int to = 0; to < nslots; to++) {
            if (to == from) continue;
            int64_t *dst = Refine_cell(&t, to, pr[x].dim);
            *dst *= pj;
            double v = Refine_eval(a, l, &t, obj);
            if (v < best_v * (1 - 1e-12)) {
              best_v = v;
              best = t;
            }
            *dst /= pj;
          }
          if (*src % pr[x].p) break;
          *src /= pr[x].p;
          pj *= pr[x].p;
        }
        *src *= pj / pr[x].p; /* back to one copy taken out */
        /* exchange with another prime y (y after x, or a different copy of the same prime's dim) */
        for (int y = x; y < np; y++)
          for (int to = 0; to < nslots; to++) {
            if (to == from) continue;
            int64_t *ysrc = Refine_cell(&t, to, pr[y].dim);
            if (*ysrc % pr[y].p) continue;
            if (y == x) continue; /* same prime both ways is a move pair, covered by moves */
            int64_t *ydst = Refine_cell(&t, from, pr[y].dim);
            int64_t *xdst = Refine_cell(&t, to, pr[x].dim);
            *ysrc /= pr[y].p;
            *ydst *= pr[y].p;
            *xdst *= pr[x].p;
            double v = Refine_eval(a, l, &t, obj);
            if (v < best_v * (1 - 1e-12)) {
              best_v = v;
              best = t;
            }
            *xdst /= pr[x].p;
            *ydst /= pr[y].p;
            *ysrc *= pr[y].p;
          }
        *src *= pr[x].p;
      }
    if (best_v >= cur) break;
    /* every level's orders again: each level's search includes its current order, so never worse */
    LayerMap_bestOrders(a, l, &best, obj, 0, a->nlevels - 1);
    *m = best;
    cur = Refine_eval(a, l, m, obj);
    steps++;
  }
  return steps;
}


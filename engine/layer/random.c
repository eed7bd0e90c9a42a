/* random: the paper's Random baseline, best of N valid random mappings.
 *
 * The paper samples uniformly and keeps the valid ones (20,000 samples gave 5
 * valid schedules per layer). Rejection at that rate makes best-of-10,000 far
 * too slow, so we draw valid mappings directly: prime factors in random order,
 * each to a random (level, temporal|spatial) slot among those that keep every
 * capacity and fan-out (factors not yet placed wait at the unbounded outermost
 * level, and tiles only grow as factors move in, so every step stays valid);
 * then a random loop order per level. Every drawn mapping is valid. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "layer_map.h"
#include "testhook.h"

static uint64_t Rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int Rng_below(uint64_t *s, int n) { return (int)(Rng_next(s) % (uint64_t)n); }

typedef struct {
  int dim;
  int64_t p;
} Factor;

static bool Random_fits(const Arch *a, const Layer *l, const Mapping *m, int from) {
  for (int i = from; i < a->nlevels; i++)
    if (a->level[i].capacity && Mapping_used(m, a, l, i) > a->level[i].capacity) return false;
  return true;
}

/* One random valid mapping into m. */
static void Random_draw(const Arch *a, const Layer *l, uint64_t *rng, Mapping *m) {
  Factor f[DIM_COUNT * 64];
  int nf = 0;
  for (int d = 0; d < DIM_COUNT; d++) {
    int64_t pr[64];
    int k = LayerMap_primes(Layer_dim(l, (Dim)d), pr);
    for (int j = 0; j < k; j++) f[nf++] = (Factor){d, pr[j]};
  }
  for (int i = nf - 1; i > 0; i--) { /* Fisher-Yates */
    int j = Rng_below(rng, i + 1);
    Factor t = f[i];
    f[i] = f[j];
    f[j] = t;
  }
  Mapping_init(m, a, l);
  int L = a->nlevels, top = L - 1;
  for (int x = 0; x < nf; x++) {
    int d = f[x].dim;
    int64_t p = f[x].p;
    m->t[top][d] /= p;
    int slots[2 * ARCH_MAX_LEVELS], ns = 0;
    for (int i = 0; i < L; i++)
      for (int kind = 0; kind < 2; kind++) {
        int64_t *cell = kind ? &m->s[i][d] : &m->t[i][d];
        if (kind) {
          int64_t sp = 1;
          for (int e = 0; e < DIM_COUNT; e++) sp *= m->s[i][e];
          if (sp * p > a->level[i].fanout) continue;
        }
        *cell *= p;
        if (Random_fits(a, l, m, i)) slots[ns++] = i * 2 + kind;
        *cell /= p;
      }
    /* the outermost level's temporal slot always fits, so ns >= 1 */
    int pick = slots[Rng_below(rng, ns)];
    if (pick & 1) m->s[pick / 2][d] *= p;
    else m->t[pick / 2][d] *= p;
  }
  for (int i = 0; i < L; i++)
    for (int k = DIM_COUNT - 1; k > 0; k--) {
      int j = Rng_below(rng, k + 1);
      uint8_t t = m->order[i][k];
      m->order[i][k] = m->order[i][j];
      m->order[i][j] = t;
    }
}

Status LayerMap_random(const Arch *a, const Layer *l, const LayerMapOptions *o, LayerMapResult *r, SpError *err) {
  memset(r, 0, sizeof *r);
  double t0 = Clock_now();
  uint64_t rng = o->seed ? o->seed : 1;
  long n = o->samples > 0 ? o->samples : 5;
  double best = INFINITY;
  bool stopped = false; /* the time limit (wall clock) ended the draws early: the note says so */
  for (long s = 0; s < n; s++) {
    Testhook_at("layer.random", o->cancel);
    if (o->cancel && atomic_load(o->cancel)) return SpError_set(err, SP_ERR_CANCELLED, "random: cancelled");
    double wall = o->wall_limit > 0 ? o->wall_limit : o->time_limit;
    if (wall > 0 && (s & 255) == 0 && Clock_now() - t0 > wall && r->valid > 0) {
      stopped = true;
      break;
    }
    Mapping m;
    Random_draw(a, l, &rng, &m);
    Cost c;
    Cost_evaluate(a, l, &m, &c);
    r->tried++;
    if (!c.valid) continue; /* cannot happen by construction; never returned if it does */
    r->valid++;
    double v = Cost_objective(&c, o->objective);
    if (v < best) {
      best = v;
      r->map = m;
      r->cost = c;
    }
    if (o->progress && (s & 1023) == 1023) o->progress("random", best, -1, -1, Clock_now() - t0, o->user);
  }
  r->seconds = Clock_now() - t0;
  if (!r->valid) return SpError_set(err, SP_ERR_INFEASIBLE, "random: no valid mapping drawn");
  snprintf(r->note, sizeof r->note, "best of %ld valid random mappings (seed %llu)%s", r->valid,
           (unsigned long long)(o->seed ? o->seed : 1),
           stopped ? "; the time limit (wall clock) stopped the draws before the number asked" : "");
  return SP_OK;
}

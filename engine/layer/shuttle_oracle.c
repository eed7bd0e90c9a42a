/* shuttle_oracle: Eq. 3, the tiling of least DRAM volume (Eq. 2) among all that
 * fit the buffer, for one reuse scheme. The volume is counted in bytes, each
 * operand at its own precision (the element count scaled when they share one).
 *
 * Why the search can skip most tilings and still be exact: in Eq. 2 every term
 * B_x * A_x depends on the factors only through
 *   Tm: ceil(M/Tm)            (Tm cancels everywhere else)
 *   Tn: ceil(N/Tn)            (likewise)
 *   Tr: ceil(R/Tr) and (S*Tr + K - S)/Tr,   Tc: the same with C,
 * and each of these is non-increasing in its factor, while the occupancy grows
 * with every factor. So
 *   - among the Tm with the same ceil(M/Tm) the smallest dominates (same volume,
 *     less buffer): only Tm = ceil(M/q), q = 1..ceil(M/lower), are tried; the same
 *     for Tn;
 *   - for fixed Tm, Tn, Tr the largest Tc that fits is best;
 *   - every Tr is tried.
 * The halo ratio (S*Tr + K - S)/Tr falls with Tr only when K >= S; for a kernel
 * smaller than its stride it rises, and then every Tc up to the largest is tried.
 * Shuttle_oracleFull enumerates all four factors; tests check both agree. */
#include "shuttle.h"

#include <math.h>
#include <stdlib.h>

#include "clock.h"
#include "testhook.h"

static int64_t Oracle_lower(int64_t th, int64_t dim) { return th < dim ? th : dim; }

/* The largest Tc in [lo, hi] that fits with the other factors of *t, or 0. The
 * occupancy is affine in Tc: solve, then correct the rounding by probing. */
static int64_t Oracle_maxTc(const Layer *l, const ShuttleOptions *o, ShuttleTiling *t, int64_t lo,
                            int64_t hi) {
  t->Tc = lo;
  double at_lo = Shuttle_occupancy(l, o, t);
  if (at_lo > (double)o->glb_bytes + 1e-6) return 0;
  t->Tc = lo + 1;
  double slope = Shuttle_occupancy(l, o, t) - at_lo;
  int64_t guess = hi;
  if (slope > 0) {
    double k = floor(((double)o->glb_bytes - at_lo) / slope);
    if (k < (double)(hi - lo)) guess = lo + (int64_t)k;
  }
  if (guess < lo) guess = lo;
  if (guess > hi) guess = hi;
  t->Tc = guess;
  while (guess > lo && !Shuttle_fits(l, o, t)) t->Tc = --guess;
  while (guess < hi) {
    t->Tc = guess + 1;
    if (!Shuttle_fits(l, o, t)) break;
    guess++;
  }
  t->Tc = guess;
  return guess;
}

/* Candidate values of a factor: ceil(dim/q) for every q, at least lower, each once,
 * ascending. Returns the count; out has room for dim entries. */
static int64_t Oracle_candidates(int64_t dim, int64_t lower, int64_t *out) {
  int64_t n = 0;
  for (int64_t q = (dim + lower - 1) / lower; q >= 1; q--) {
    int64_t v = (dim + q - 1) / q;
    if (v < lower) v = lower;
    if (n == 0 || out[n - 1] != v) out[n++] = v;
  }
  return n;
}

static Status Oracle_noFit(const Layer *l, const ShuttleOptions *o, SpError *err) {
  return SpError_set(err, SP_ERR_INFEASIBLE,
                     "%s: no tiling within the lower bounds fits the %lld-byte buffer", l->name,
                     (long long)o->glb_bytes);
}

Status Shuttle_oracle(const Layer *l, const ShuttleOptions *o, ShuttleScheme s, ShuttleTiling *best,
                      ShuttleVolume *vol, int64_t *evaluated, SpError *err) {
  if (l->K < 1 || l->C < 1 || l->P < 1 || l->Q < 1 || l->N < 1)
    return SpError_set(err, SP_ERR_ARG, "%s: a dimension below 1", l->name);
  int64_t lm = Oracle_lower(o->th_m, l->K), ln = Oracle_lower(o->th_n, l->C),
          lr = Oracle_lower(o->th_r, l->P), lc = Oracle_lower(o->th_c, l->Q);
  int64_t *cm = malloc(sizeof(int64_t) * (size_t)(l->K + l->C));
  if (!cm) return SpError_set(err, SP_ERR_NOMEM, "oracle candidates");
  int64_t *cn = cm + l->K;
  int64_t nm = Oracle_candidates(l->K, lm, cm), nn = Oracle_candidates(l->C, ln, cn);
  int64_t count = 0;
  bool found = false;
  bool every_tc = l->S < l->stride_w;
  Status st = SP_OK;
  double deadline = o->time_limit > 0 ? Clock_now() + o->time_limit : 0;
  for (int64_t a = 0; a < nm && st == SP_OK; a++) {
    for (int64_t b = 0; b < nn && st == SP_OK; b++) {
      /* a (Tm, Tn) pair costs at most P * Q tilings: checked often enough on any layer */
      Testhook_at("layer.oracle", o->cancel);
      if (o->cancel && atomic_load(o->cancel)) st = SpError_set(err, SP_ERR_CANCELLED, "oracle cancelled");
      else if (deadline && Clock_now() > deadline)
        st = SpError_set(err, SP_ERR_LIMIT, "%s: the %s oracle's time limit (%.3g s) passed after %lld tilings",
                         l->name, Shuttle_schemeName(s), o->time_limit, (long long)count);
      if (st != SP_OK) break;
      for (int64_t tr = lr; tr <= l->P; tr++) {
        ShuttleTiling t = {cm[a], cn[b], tr, lc};
        int64_t max_tc = Oracle_maxTc(l, o, &t, lc, l->Q);
        if (!max_tc) break; /* larger Tr fits even less */
        for (int64_t tc = every_tc ? lc : max_tc; tc <= max_tc; tc++) {
          t.Tc = tc;
          count++;
          ShuttleVolume v = Shuttle_volume(l, o, s, &t);
          if (!found || v.bytes < vol->bytes) {
            found = true;
            *best = t;
            *vol = v;
          }
        }
      }
    }
  }
  free(cm);
  if (evaluated) *evaluated = count;
  if (st != SP_OK) return st;
  return found ? SP_OK : Oracle_noFit(l, o, err);
}

Status Shuttle_oracleFull(const Layer *l, const ShuttleOptions *o, ShuttleScheme s,
                          ShuttleTiling *best, ShuttleVolume *vol, SpError *err) {
  int64_t lm = Oracle_lower(o->th_m, l->K), ln = Oracle_lower(o->th_n, l->C),
          lr = Oracle_lower(o->th_r, l->P), lc = Oracle_lower(o->th_c, l->Q);
  bool found = false;
  for (int64_t tm = lm; tm <= l->K; tm++)
    for (int64_t tn = ln; tn <= l->C; tn++)
      for (int64_t tr = lr; tr <= l->P; tr++)
        for (int64_t tc = lc; tc <= l->Q; tc++) {
          ShuttleTiling t = {tm, tn, tr, tc};
          if (!Shuttle_fits(l, o, &t)) break;
          ShuttleVolume v = Shuttle_volume(l, o, s, &t);
          if (!found || v.bytes < vol->bytes - 1e-9 * v.bytes) {
            found = true;
            *best = t;
            *vol = v;
          }
        }
  return found ? SP_OK : Oracle_noFit(l, o, err);
}

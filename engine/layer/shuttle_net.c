/* shuttle_net: SmartShuttle over a whole network's convolutions, and the totals
 * the paper reports (MACs per DRAM access, the "-DP" baselines, SmartShuttle),
 * and the static baselines of its Table III (Zhang, Eyeriss: one ORO tiling for
 * every layer). */
#include "shuttle.h"

#include <stdlib.h>
#include <string.h>

/* ---- the static baselines ------------------------------------------------ */

const char *Shuttle_staticName(ShuttleStatic s) {
  static const char *const names[SHUTTLE_STATICS] = {"Zhang", "Eyeriss"};
  return s >= 0 && s < SHUTTLE_STATICS ? names[s] : "?";
}

static int64_t Static_min(int64_t a, int64_t b) { return a < b ? a : b; }

ShuttleTiling Shuttle_clip(const Layer *l, const ShuttleTiling *t) {
  return (ShuttleTiling){Static_min(t->Tm, l->K), Static_min(t->Tn, l->C), Static_min(t->Tr, l->P),
                         Static_min(t->Tc, l->Q)};
}

/* Layer i's options for a static scheme: Zhang runs without compression. */
static ShuttleOptions Static_options(const ShuttleOptions *o, ShuttleStatic which) {
  ShuttleOptions c = *o;
  if (which == SHUTTLE_STATIC_ZHANG) c.gamma_i = c.gamma_o = c.gamma_w = 1.0;
  return c;
}

/* Does t (clipped per layer) fit every layer, within every layer's bounds? */
static bool Static_fits(const Layer *layers, const ShuttleOptions *opts, int n, ShuttleStatic which,
                        const ShuttleTiling *t) {
  for (int i = 0; i < n; i++) {
    ShuttleOptions o = Static_options(&opts[i], which);
    ShuttleTiling c = Shuttle_clip(&layers[i], t);
    if (!Shuttle_inBounds(&layers[i], &o, &c) || !Shuttle_fits(&layers[i], &o, &c)) return false;
  }
  return true;
}

static ShuttleVolume Static_volume(const Layer *layers, const ShuttleOptions *opts, int n, ShuttleStatic which,
                                   const ShuttleTiling *t, ShuttleVolume *per_layer) {
  ShuttleVolume sum = {0};
  for (int i = 0; i < n; i++) {
    ShuttleOptions o = Static_options(&opts[i], which);
    ShuttleTiling c = Shuttle_clip(&layers[i], t);
    ShuttleVolume v = Shuttle_volume(&layers[i], &o, SHUTTLE_ORO, &c);
    if (per_layer) per_layer[i] = v;
    sum.in += v.in, sum.out += v.out, sum.wt += v.wt, sum.total += v.total, sum.bytes += v.bytes;
  }
  return sum;
}

static int Static_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static Status Static_check(const Layer *layers, int n, ShuttleStatic which, SpError *err) {
  if (n < 1) return SpError_set(err, SP_ERR_ARG, "a static tiling needs at least one layer");
  if ((unsigned)which >= SHUTTLE_STATICS) return SpError_set(err, SP_ERR_ARG, "unknown static baseline");
  for (int i = 0; i < n; i++)
    if (layers[i].K < 1 || layers[i].C < 1 || layers[i].P < 1 || layers[i].Q < 1 || layers[i].N < 1)
      return SpError_set(err, SP_ERR_ARG, "%s: a dimension below 1", layers[i].name);
  return SP_OK;
}

static Status Static_noFit(ShuttleStatic which, SpError *err) {
  return SpError_set(err, SP_ERR_INFEASIBLE, "%s: no static tiling within the lower bounds fits every layer",
                     Shuttle_staticName(which));
}

Status Shuttle_static(const Layer *layers, const ShuttleOptions *opts, int n, ShuttleStatic which,
                      ShuttleTiling *best, ShuttleVolume *total, ShuttleVolume *per_layer, SpError *err) {
  Status st = Static_check(layers, n, which, err);
  if (st) return st;
  /* the static factors start at the thresholds (clipping brings them to each
   * layer's min(th, dim)); they range up to the largest dimension */
  int64_t th_m = opts[0].th_m, th_n = opts[0].th_n, th_r = opts[0].th_r, th_c = opts[0].th_c;
  int64_t max_m = 1, max_p = 1, max_q = 1, ncand = 0;
  bool every_tc = false;
  for (int i = 0; i < n; i++) {
    max_m = layers[i].K > max_m ? layers[i].K : max_m;
    max_p = layers[i].P > max_p ? layers[i].P : max_p;
    max_q = layers[i].Q > max_q ? layers[i].Q : max_q;
    ncand += layers[i].K + 1;
    every_tc |= layers[i].S < layers[i].stride_w;
  }
  int64_t *cand = malloc(sizeof(int64_t) * (size_t)ncand);
  if (!cand) return SpError_set(err, SP_ERR_NOMEM, "static tiling candidates");
  int64_t nc = 0; /* Tm = ceil(M_l/q) for every layer and q: where some ceil(M_l/Tm) steps */
  for (int i = 0; i < n; i++)
    for (int64_t q = 1; q <= layers[i].K; q++) {
      int64_t v = (layers[i].K + q - 1) / q;
      cand[nc++] = v < th_m ? th_m : v;
    }
  cand[nc++] = th_m;
  qsort(cand, (size_t)nc, sizeof *cand, Static_cmp);
  bool found = false;
  for (int64_t a = 0; a < nc; a++) {
    if (a && cand[a] == cand[a - 1]) continue;
    if (cand[a] > max_m) break;
    for (int64_t tr = th_r; tr <= max_p; tr++) {
      ShuttleTiling t = {cand[a], th_n, tr, th_c};
      if (!Static_fits(layers, opts, n, which, &t)) break; /* a larger Tr fits even less */
      int64_t lo = th_c, hi = max_q; /* the largest Tc that fits every layer (lo fits) */
      while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        t.Tc = mid;
        if (Static_fits(layers, opts, n, which, &t)) lo = mid;
        else hi = mid - 1;
      }
      for (int64_t tc = every_tc ? th_c : lo; tc <= lo; tc++) {
        t.Tc = tc;
        ShuttleVolume v = Static_volume(layers, opts, n, which, &t, NULL);
        if (!found || v.bytes < total->bytes) {
          found = true;
          *best = t;
          *total = v;
        }
      }
    }
  }
  free(cand);
  if (!found) return Static_noFit(which, err);
  if (per_layer) (void)Static_volume(layers, opts, n, which, best, per_layer);
  return SP_OK;
}

Status Shuttle_staticFull(const Layer *layers, const ShuttleOptions *opts, int n, ShuttleStatic which,
                          ShuttleTiling *best, ShuttleVolume *total, SpError *err) {
  Status st = Static_check(layers, n, which, err);
  if (st) return st;
  int64_t max_m = 1, max_n = 1, max_p = 1, max_q = 1;
  for (int i = 0; i < n; i++) {
    max_m = layers[i].K > max_m ? layers[i].K : max_m;
    max_n = layers[i].C > max_n ? layers[i].C : max_n;
    max_p = layers[i].P > max_p ? layers[i].P : max_p;
    max_q = layers[i].Q > max_q ? layers[i].Q : max_q;
  }
  bool found = false;
  for (int64_t tm = opts[0].th_m; tm <= max_m; tm++)
    for (int64_t tn = opts[0].th_n; tn <= max_n; tn++)
      for (int64_t tr = opts[0].th_r; tr <= max_p; tr++)
        for (int64_t tc = opts[0].th_c; tc <= max_q; tc++) {
          ShuttleTiling t = {tm, tn, tr, tc};
          if (!Static_fits(layers, opts, n, which, &t)) continue;
          ShuttleVolume v = Static_volume(layers, opts, n, which, &t, NULL);
          if (!found || v.bytes < total->bytes - 1e-9 * v.bytes) {
            found = true;
            *best = t;
            *total = v;
          }
        }
  return found ? SP_OK : Static_noFit(which, err);
}

/* ---- a whole network -------------------------------------------------------- */

const char *Shuttle_policyName(int policy) {
  static const char *const names[SHUTTLE_POLICIES] = {"IRO-DP", "ORO-DP", "WRO-DP", "rule", "oracle"};
  return policy >= 0 && policy < SHUTTLE_POLICIES ? names[policy] : "?";
}

static void Shuttle_add(ShuttleVolume *t, const ShuttleVolume *v) {
  t->in += v->in;
  t->out += v->out;
  t->wt += v->wt;
  t->total += v->total;
  t->bytes += v->bytes;
}

void ShuttleNet_free(ShuttleNet *n) {
  free(n->layers);
  free(n->results);
  memset(n, 0, sizeof *n);
}

double ShuttleNet_macsPerAccess(const ShuttleNet *n, int policy) {
  double v = n->total[policy].total;
  return v > 0 ? (double)n->macs / v : 0;
}

Status Shuttle_network(const Net *net, int64_t batch, const ShuttleOptions *o, ShuttleNet *out, SpError *err) {
  memset(out, 0, sizeof *out);
  if (batch < 1) return SpError_set(err, SP_ERR_ARG, "batch must be at least 1");
  out->layers = malloc(sizeof(Layer) * (size_t)(net->nops > 0 ? net->nops : 1));
  out->results = malloc(sizeof(ShuttleLayer) * (size_t)(net->nops > 0 ? net->nops : 1));
  if (!out->layers || !out->results) {
    ShuttleNet_free(out);
    return SpError_set(err, SP_ERR_NOMEM, "network analysis");
  }
  for (int i = 0; i < net->nops; i++) {
    if (!net->ops[i].type || strcmp(net->ops[i].type, "conv2d") != 0) continue;
    Layer *l = &out->layers[out->nlayers];
    Status st = Layer_fromOp(net, i, l, err);
    if (st == SP_OK) {
      l->N = batch;
      st = Shuttle_analyze(l, o, &out->results[out->nlayers], err);
    }
    if (st != SP_OK) {
      ShuttleNet_free(out);
      return st;
    }
    const ShuttleLayer *r = &out->results[out->nlayers++];
    out->macs += r->macs;
    for (int s = 0; s < SHUTTLE_SCHEMES; s++) Shuttle_add(&out->total[s], &r->oracle_vol[s]);
    Shuttle_add(&out->total[SHUTTLE_POL_RULE], &r->rule_vol[r->rule_scheme]);
    Shuttle_add(&out->total[SHUTTLE_POL_ORACLE], &r->oracle_vol[r->oracle_scheme]);
  }
  if (!out->nlayers) {
    ShuttleNet_free(out);
    return SpError_set(err, SP_ERR_ARG, "%s has no conv2d op", net->name ? net->name : "the network");
  }
  /* the static baselines: every layer has the network's options */
  ShuttleOptions *opts = malloc(sizeof *opts * (size_t)out->nlayers);
  if (!opts) {
    ShuttleNet_free(out);
    return SpError_set(err, SP_ERR_NOMEM, "network analysis");
  }
  opts[0] = *o; /* nlayers >= 1 here; written apart so that GCC -O3 sees it (-Wmaybe-uninitialized) */
  for (int i = 1; i < out->nlayers; i++) opts[i] = *o;
  SpError e2;
  out->have_static =
      Shuttle_static(out->layers, opts, out->nlayers, SHUTTLE_STATIC_ZHANG, &out->zhang_tiling, &out->zhang, NULL, &e2) ==
          SP_OK &&
      Shuttle_static(out->layers, opts, out->nlayers, SHUTTLE_STATIC_EYERISS, &out->eyeriss_tiling, &out->eyeriss, NULL,
                     &e2) == SP_OK;
  free(opts);
  return SP_OK;
}

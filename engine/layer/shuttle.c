/* shuttle: SmartShuttle's analytical DRAM-access model (Eq. 2), the capacity
 * readings of Eq. 3 and the empirical rule (Table I). The oracle is in
 * shuttle_oracle.c, the paper's Table II in shuttle_paper.c. */
#include "shuttle.h"

#include <math.h>

void ShuttleOptions_init(ShuttleOptions *o) {
  o->glb_bytes = SHUTTLE_PAPER_GLB_BYTES;
  for (int v = 0; v < OPND_COUNT; v++) o->bytes[v] = 2;
  o->gamma_i = o->gamma_o = o->gamma_w = 1.0;
  o->th_m = o->th_n = o->th_r = o->th_c = 8;
  o->capacity = SHUTTLE_CAP_PAPER;
  o->cancel = NULL;
  o->time_limit = 0;
}

Status Shuttle_optionsFromArch(const Arch *a, ShuttleOptions *o, SpError *err) {
  if (a->nlevels < 2 || a->level[a->nlevels - 2].capacity <= 0)
    return SpError_set(err, SP_ERR_ARG, "architecture %s: no bounded level inside DRAM to act as the global buffer",
                       a->name);
  const ArchLevel *glb = &a->level[a->nlevels - 2];
  if (__builtin_mul_overflow(glb->capacity, glb->instances, &o->glb_bytes))
    return SpError_set(err, SP_ERR_ARG, "architecture %s: %s is too large", a->name, glb->name);
  for (int v = 0; v < OPND_COUNT; v++) o->bytes[v] = a->precision[v] > 0 ? a->precision[v] : 1;
  return SP_OK;
}

bool Shuttle_onePrecision(const ShuttleOptions *o) {
  return o->bytes[OPND_I] == o->bytes[OPND_O] && o->bytes[OPND_I] == o->bytes[OPND_W];
}

const char *Shuttle_schemeName(ShuttleScheme s) {
  static const char *const names[SHUTTLE_SCHEMES] = {"IRO", "ORO", "WRO"};
  return s >= 0 && s < SHUTTLE_SCHEMES ? names[s] : "?";
}

static double Shuttle_ceilDiv(int64_t a, int64_t b) { return (double)((a + b - 1) / b); }

void Shuttle_tileVolumes(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t,
                         double *bi, double *bo, double *bw) {
  double in_h = (double)(l->stride_h * t->Tr + l->R - l->stride_h);
  double in_w = (double)(l->stride_w * t->Tc + l->S - l->stride_w);
  *bi = o->gamma_i * (double)t->Tn * in_h * in_w;
  *bo = o->gamma_o * (double)t->Tm * (double)t->Tr * (double)t->Tc;
  *bw = o->gamma_w * (double)t->Tm * (double)t->Tn * (double)(l->R * l->S);
}

double Shuttle_occupancy(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t) {
  double bi, bo, bw;
  Shuttle_tileVolumes(l, o, t, &bi, &bo, &bw);
  if (o->capacity == SHUTTLE_CAP_PAPER) /* the input tile without its halo */
    bi = o->gamma_i * (double)t->Tn * (double)(l->stride_h * t->Tr) * (double)(l->stride_w * t->Tc);
  else if (o->capacity == SHUTTLE_CAP_RAW) {
    bi /= o->gamma_i > 0 ? o->gamma_i : 1;
    bo /= o->gamma_o > 0 ? o->gamma_o : 1;
    bw /= o->gamma_w > 0 ? o->gamma_w : 1;
  }
  return bi * o->bytes[OPND_I] + bo * o->bytes[OPND_O] + bw * o->bytes[OPND_W];
}

bool Shuttle_fits(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t) {
  /* a hair of slack: the paper's tilings land within bytes of 108 KB with
   * fractional rates, and double rounding must not reject them */
  return Shuttle_occupancy(l, o, t) <= (double)o->glb_bytes + 1e-6;
}

static int64_t Shuttle_lower(int64_t th, int64_t dim) { return th < dim ? th : dim; }

bool Shuttle_inBounds(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t) {
  return t->Tm >= Shuttle_lower(o->th_m, l->K) && t->Tm <= l->K &&
         t->Tn >= Shuttle_lower(o->th_n, l->C) && t->Tn <= l->C &&
         t->Tr >= Shuttle_lower(o->th_r, l->P) && t->Tr <= l->P &&
         t->Tc >= Shuttle_lower(o->th_c, l->Q) && t->Tc <= l->Q;
}

ShuttleVolume Shuttle_volume(const Layer *l, const ShuttleOptions *o, ShuttleScheme s,
                             const ShuttleTiling *t) {
  double bi, bo, bw;
  Shuttle_tileVolumes(l, o, t, &bi, &bo, &bw);
  const double D = (double)l->N, M = (double)l->K, N = (double)l->C, R = (double)l->P,
               C = (double)l->Q;
  /* Eq. 2 keeps some ratios as plain fractions and rounds others up; we keep
   * exactly what is printed. */
  const double m = M / (double)t->Tm, n = N / (double)t->Tn, r = R / (double)t->Tr,
               c = C / (double)t->Tc;
  const double cm = Shuttle_ceilDiv(l->K, t->Tm), cn = Shuttle_ceilDiv(l->C, t->Tn),
               cr = Shuttle_ceilDiv(l->P, t->Tr), cc = Shuttle_ceilDiv(l->Q, t->Tc);
  double ai, ao, aw;
  switch (s) {
  case SHUTTLE_IRO: /* ifm stays; psums go out and come back: 2*ceil(N/Tn) - 1 */
    ai = D * n * r * c; /* printed as N/Tm: a typo (the ifm tile is indexed by Tn) */
    ao = D * m * (2 * cn - 1) * r * c;
    aw = D * m * n * cr * cc;
    break;
  case SHUTTLE_ORO:
    ai = D * cm * n * r * c;
    ao = D * m * r * c;
    aw = D * m * n * cr * cc;
    break;
  default: /* SHUTTLE_WRO */
    ai = D * cm * n * r * c;
    ao = D * m * (2 * cn - 1) * r * c;
    aw = m * n;
    break;
  }
  ShuttleVolume v;
  double g = (double)(l->groups > 0 ? l->groups : 1);
  v.in = bi * ai * g;
  v.out = bo * ao * g;
  v.wt = bw * aw * g;
  v.total = v.in + v.out + v.wt;
  v.bytes = v.in * o->bytes[OPND_I] + v.out * o->bytes[OPND_O] + v.wt * o->bytes[OPND_W];
  return v;
}

ShuttleScheme Shuttle_ruleScheme(const Layer *l, const ShuttleOptions *o) {
  double lhs = o->gamma_o * (double)l->P * (double)l->Q;
  double rhs = o->gamma_w * (double)l->N * (double)l->C * (double)(l->R * l->S);
  return lhs >= rhs ? SHUTTLE_ORO : SHUTTLE_WRO;
}

/* Which factors a priority group raises: bit 0 Tm, 1 Tn, 2 Tr+Tc. */
enum { GROW_M = 1, GROW_N = 2, GROW_RC = 4 };

/* The tiling with one priority group set to v (Tr and Tc together, each capped
 * by its dimension and never lowered). */
static ShuttleTiling Shuttle_with(const Layer *l, const ShuttleTiling *t, int what, int64_t v) {
  ShuttleTiling p = *t;
  if (what == GROW_M) p.Tm = v;
  else if (what == GROW_N) p.Tn = v;
  else {
    int64_t r = v < l->P ? v : l->P, c = v < l->Q ? v : l->Q;
    p.Tr = r > t->Tr ? r : t->Tr;
    p.Tc = c > t->Tc ? c : t->Tc;
  }
  return p;
}

/* Raises the factors of one group as far as the buffer allows. Occupancy grows
 * with every factor, so the largest fitting value is found by bisection. */
static void Shuttle_grow(const Layer *l, const ShuttleOptions *o, ShuttleTiling *t, int what) {
  int64_t lo, hi;
  if (what == GROW_RC) {
    lo = t->Tr < t->Tc ? t->Tr : t->Tc;
    hi = l->P > l->Q ? l->P : l->Q;
  } else {
    lo = what == GROW_M ? t->Tm : t->Tn;
    hi = what == GROW_M ? l->K : l->C;
  }
  while (lo < hi) { /* invariant: value lo fits */
    int64_t mid = lo + (hi - lo + 1) / 2;
    ShuttleTiling probe = Shuttle_with(l, t, what, mid);
    if (Shuttle_fits(l, o, &probe)) lo = mid;
    else hi = mid - 1;
  }
  *t = Shuttle_with(l, t, what, lo);
}

Status Shuttle_ruleTiling(const Layer *l, const ShuttleOptions *o, ShuttleScheme s,
                          ShuttleTiling *t, SpError *err) {
  t->Tm = Shuttle_lower(o->th_m, l->K);
  t->Tn = Shuttle_lower(o->th_n, l->C);
  t->Tr = Shuttle_lower(o->th_r, l->P);
  t->Tc = Shuttle_lower(o->th_c, l->Q);
  if (!Shuttle_fits(l, o, t))
    return SpError_set(err, SP_ERR_INFEASIBLE,
                       "%s: even the smallest tiling <%lld,%lld,%lld,%lld> needs %.0f bytes, "
                       "more than the %lld-byte buffer",
                       l->name, (long long)t->Tm, (long long)t->Tn, (long long)t->Tr,
                       (long long)t->Tc, Shuttle_occupancy(l, o, t), (long long)o->glb_bytes);
  static const int order[SHUTTLE_SCHEMES][3] = {
      [SHUTTLE_IRO] = {GROW_N, GROW_RC, GROW_M},
      [SHUTTLE_ORO] = {GROW_M, GROW_RC, GROW_N},
      [SHUTTLE_WRO] = {GROW_M, GROW_N, GROW_RC},
  };
  for (int k = 0; k < 3; k++) Shuttle_grow(l, o, t, order[s][k]);
  return SP_OK;
}

Status Shuttle_analyze(const Layer *l, const ShuttleOptions *o, ShuttleLayer *out, SpError *err) {
  out->macs = Layer_macs(l);
  out->evaluated = 0;
  out->rule_scheme = Shuttle_ruleScheme(l, o);
  out->oracle_scheme = SHUTTLE_IRO;
  for (int s = 0; s < SHUTTLE_SCHEMES; s++) {
    Status st = Shuttle_ruleTiling(l, o, (ShuttleScheme)s, &out->rule_tiling[s], err);
    if (st != SP_OK) return st;
    out->rule_vol[s] = Shuttle_volume(l, o, (ShuttleScheme)s, &out->rule_tiling[s]);
    int64_t ev = 0;
    st = Shuttle_oracle(l, o, (ShuttleScheme)s, &out->oracle_tiling[s], &out->oracle_vol[s], &ev, err);
    if (st != SP_OK) return st;
    out->evaluated += ev;
    if (out->oracle_vol[s].bytes < out->oracle_vol[out->oracle_scheme].bytes)
      out->oracle_scheme = (ShuttleScheme)s;
  }
  return SP_OK;
}

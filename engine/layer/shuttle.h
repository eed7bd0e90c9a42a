/* shuttle: SmartShuttle (Li et al., DATE 2018), the DRAM <-> global-buffer traffic
 * of one convolution layer under three loop orders (reuse schemes) and four tiling
 * factors, the paper's empirical rule (Table I) and an exhaustive oracle (Eq. 3).
 *
 * The paper's names against the Layer struct (CoSA's):
 *   M  output channels  = K      N  input channels = C
 *   R  ofm height       = P      C  ofm width      = Q
 *   K  kernel size      = R (height), S (width)    S  stride = stride_h/_w
 *   D  batch            = N
 * Tiling factors <Tm, Tn, Tr, Tc> tile M, N, R, C; the batch loop is not tiled.
 *
 * Units: a volume is a count of DRAM element transfers weighted by the compression
 * rate gamma of its operand (gamma = 1: compression free, the default). Bytes are
 * each operand's elements times its own precision (bytes[OPND_I] for the ifm,
 * bytes[OPND_O] for the ofm, bytes[OPND_W] for the weights): the buffer
 * occupancy and Shuttle_bytes. The engine never prints. */
#ifndef SPADMAP_SHUTTLE_H
#define SPADMAP_SHUTTLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "layer.h"
#include "status.h"

typedef enum { SHUTTLE_IRO, SHUTTLE_ORO, SHUTTLE_WRO, SHUTTLE_SCHEMES } ShuttleScheme;

/* How the buffer occupancy B_i + B_o + B_w (Eq. 3's constraint) is counted. */
typedef enum {
  /* sum(gamma_x * B_x) * bytes with the input tile WITHOUT its halo
   * (Tn * S*Tr * S*Tc): the reading under which the paper's Table II tilings fill
   * the 108 KB buffer exactly (checked in tests/test_shuttle.c). The default. */
  SHUTTLE_CAP_PAPER,
  /* the same with Eq. 2's B_i, i.e. the input tile with its halo
   * (S*Tr + K - S) * (S*Tc + K - S): what the buffer must really hold. */
  SHUTTLE_CAP_HALO,
  /* uncompressed (gamma = 1) with the halo: the conservative reading. */
  SHUTTLE_CAP_RAW,
} ShuttleCapacity;

typedef struct {
  int64_t glb_bytes;        /* global buffer (default 108 KB = 110592 bytes) */
  int bytes[OPND_COUNT];    /* bytes per element of each operand (Operand order; default 2, 16-bit fixed point) */
  double gamma_i, gamma_o, gamma_w; /* compression rates (default 1, 1, 1) */
  int64_t th_m, th_n, th_r, th_c;   /* Eq. 3's lower bounds M_th.. (default 8) */
  ShuttleCapacity capacity; /* default SHUTTLE_CAP_PAPER */
  atomic_int *cancel;       /* oracle: stop when non-zero (SP_ERR_CANCELLED) */
  double time_limit;        /* oracle: seconds per scheme, 0: none (SP_ERR_LIMIT past it) */
} ShuttleOptions;

typedef struct { int64_t Tm, Tn, Tr, Tc; } ShuttleTiling;

typedef struct {
  double in, out, wt, total; /* gamma-weighted element transfers (Eq. 2's V) */
  double bytes;              /* the same in bytes, each operand at its precision (what the oracles minimise) */
} ShuttleVolume;

void ShuttleOptions_init(ShuttleOptions *o);
/* True when every operand has the same precision (then bytes = elements x it). */
bool Shuttle_onePrecision(const ShuttleOptions *o);
const char *Shuttle_schemeName(ShuttleScheme s); /* "IRO", "ORO", "WRO" */
/* The platform in data/arch/smartshuttle.json: 108 KB, 16 bit (also the defaults). */
#define SHUTTLE_PAPER_GLB_BYTES ((int64_t)108 * 1024)
/* The buffer and precisions from an architecture: the level just inside DRAM is
 * the global buffer (capacity x instances); each operand's element size is its
 * precision in the arch file. SP_ERR_ARG when the architecture has no such level. */
Status Shuttle_optionsFromArch(const Arch *a, ShuttleOptions *o, SpError *err);

/* Eq. 2's per-invocation volumes B_i, B_o, B_w (gamma-weighted, with the halo). */
void Shuttle_tileVolumes(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t,
                         double *bi, double *bo, double *bw);
/* Buffer occupancy in bytes under o->capacity, and whether it fits glb_bytes. */
double Shuttle_occupancy(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t);
bool Shuttle_fits(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t);
/* Every factor within [min(th, dim), dim]. */
bool Shuttle_inBounds(const Layer *l, const ShuttleOptions *o, const ShuttleTiling *t);
/* Eq. 2 as written (with A_1^i = D * N/Tn * R/Tr * C/Tc: the text's N/Tm is a
 * typo), for one scheme. Multiplied by the layer's groups. */
ShuttleVolume Shuttle_volume(const Layer *l, const ShuttleOptions *o, ShuttleScheme s,
                             const ShuttleTiling *t);

/* Table I: ORO when gamma_o * R * C >= gamma_w * D * N * K^2, else WRO. */
ShuttleScheme Shuttle_ruleScheme(const Layer *l, const ShuttleOptions *o);
/* The rule's tiling for a scheme: factors start at their lower bounds, then each
 * priority group in turn is made as large as fits (Tr, Tc together, equal):
 * ORO: Tm; Tr,Tc; Tn.  WRO: Tm; Tn; Tr,Tc.  IRO (not in Table I; the order its
 * Table II column follows): Tn; Tr,Tc; Tm. SP_ERR_INFEASIBLE when even the
 * lower bounds do not fit. */
Status Shuttle_ruleTiling(const Layer *l, const ShuttleOptions *o, ShuttleScheme s,
                          ShuttleTiling *t, SpError *err);

/* Eq. 3 for one scheme: the tiling of least volume over every in-bounds tiling
 * that fits. Exhaustive over Tm, Tn, Tr; Tc is taken as the largest that fits,
 * which is exact because every term of Eq. 2 is non-increasing in Tc (see
 * shuttle_oracle.c; a test checks it against the full enumeration). Ties go to
 * the first found (smallest Tm, Tn, Tr). *evaluated (may be NULL) counts the
 * tilings looked at. */
Status Shuttle_oracle(const Layer *l, const ShuttleOptions *o, ShuttleScheme s,
                      ShuttleTiling *best, ShuttleVolume *vol, int64_t *evaluated, SpError *err);
/* The same by full enumeration of all four factors (for tests on small layers). */
Status Shuttle_oracleFull(const Layer *l, const ShuttleOptions *o, ShuttleScheme s,
                          ShuttleTiling *best, ShuttleVolume *vol, SpError *err);

/* Everything about one layer: per scheme the rule's and the oracle's tiling and
 * volume, the rule's pick (Table I) and the oracle's pick (least volume). */
typedef struct {
  ShuttleTiling rule_tiling[SHUTTLE_SCHEMES], oracle_tiling[SHUTTLE_SCHEMES];
  ShuttleVolume rule_vol[SHUTTLE_SCHEMES], oracle_vol[SHUTTLE_SCHEMES];
  ShuttleScheme rule_scheme, oracle_scheme;
  int64_t macs;
  int64_t evaluated;
} ShuttleLayer;

Status Shuttle_analyze(const Layer *l, const ShuttleOptions *o, ShuttleLayer *out, SpError *err);

/* A whole network: every convolution op (type "conv2d") with the batch set to
 * `batch`, analysed; totals of MACs and volumes under five policies:
 * IRO-DP, ORO-DP, WRO-DP (one scheme for all layers, the oracle's tiling per
 * layer: the paper's "-DP" baselines), the rule (Table I's scheme and tiling per
 * layer: SmartShuttle) and the adaptive oracle (per layer the least volume). */
enum { SHUTTLE_POL_RULE = SHUTTLE_SCHEMES, SHUTTLE_POL_ORACLE, SHUTTLE_POLICIES };
typedef struct {
  int nlayers;
  Layer *layers;
  ShuttleLayer *results;
  int64_t macs;
  ShuttleVolume total[SHUTTLE_POLICIES];
  /* Zhang's static baseline (ORO, one tiling, compression free); with the
   * options' rates Eyeriss's is in eyeriss_* (the same when the rates are 1) */
  ShuttleTiling zhang_tiling, eyeriss_tiling;
  ShuttleVolume zhang, eyeriss;
  bool have_static;     /* false when no static tiling fits every layer */
} ShuttleNet;

Status Shuttle_network(const Net *net, int64_t batch, const ShuttleOptions *o, ShuttleNet *out, SpError *err);
void ShuttleNet_free(ShuttleNet *n);
const char *Shuttle_policyName(int policy); /* "IRO-DP", .., "rule", "oracle" */
/* MACs per DRAM access of a policy (total MACs / gamma-weighted elements moved). */
double ShuttleNet_macsPerAccess(const ShuttleNet *n, int policy);

/* The static baselines of the paper's Table III: "Zhang uses static loop order
 * with static tiling factors, and without data compression"; Eyeriss "uses ORO"
 * with "static tiling factors" and compression. Neither paper's factors are
 * printed in SmartShuttle, so the static tiling is the one ORO tiling, the same
 * for every layer (each factor clipped to the layer's dimension), of least total
 * volume over the layers that fits the buffer in every layer: the strongest a
 * static scheme can be, so a gain over it is a lower bound on the paper's.
 * Zhang: every compression rate taken as 1; Eyeriss: each layer's own rates. */
typedef enum { SHUTTLE_STATIC_ZHANG, SHUTTLE_STATIC_EYERISS, SHUTTLE_STATICS } ShuttleStatic;
const char *Shuttle_staticName(ShuttleStatic s); /* "Zhang", "Eyeriss" */
/* Each factor of t capped by the layer's dimension. */
ShuttleTiling Shuttle_clip(const Layer *l, const ShuttleTiling *t);
/* The static tiling for n layers, opts[i] the options of layer i (buffer,
 * precision, capacity rule, thresholds, rates). *total sums Eq. 2 (ORO) over the
 * layers at the clipped tiling; per_layer (may be NULL) gets each layer's.
 * Exact: ORO's volume depends on Tm only through ceil(M/Tm), not on Tn at all
 * (Tn cancels in every term), and falls with Tr and Tc (K >= S), so Tm runs over
 * the values ceil(M_l/q) of every layer, Tn stays at its lower bound, every Tr
 * is tried with the largest Tc that fits every layer (every Tc where a layer
 * has K < S). SP_ERR_INFEASIBLE when no static tiling fits every layer. */
Status Shuttle_static(const Layer *layers, const ShuttleOptions *opts, int n, ShuttleStatic which,
                      ShuttleTiling *best, ShuttleVolume *total, ShuttleVolume *per_layer, SpError *err);
/* The same by enumerating every (Tm, Tn, Tr, Tc) up to the largest dimensions
 * (for tests on small layers). */
Status Shuttle_staticFull(const Layer *layers, const ShuttleOptions *opts, int n, ShuttleStatic which,
                          ShuttleTiling *best, ShuttleVolume *total, SpError *err);

/* The paper's Table II (VGG16, batch 3): the layer configuration as printed
 * (M, N, R, C, K, S; layer 1 printed with N = 1), the compression rates
 * <cri, cro, crw>, the tilings per scheme and the published volumes. */
typedef struct {
  int64_t M, N, R, C, K, S;
  double cri, cro, crw;
  ShuttleTiling tiling[SHUTTLE_SCHEMES];
  double volume[SHUTTLE_SCHEMES]; /* V_i, V_o, V_w as printed */
  ShuttleScheme scheme;           /* the RS column */
  double volume_s;
} ShuttlePaperRow;

#define SHUTTLE_PAPER_VGG16_LAYERS 13
extern const ShuttlePaperRow Shuttle_paperVgg16[SHUTTLE_PAPER_VGG16_LAYERS];
/* A paper row as a Layer (batch D = 3) and options with its compression rates. */
void Shuttle_paperLayer(const ShuttlePaperRow *row, Layer *l);
void Shuttle_paperOptions(const ShuttlePaperRow *row, ShuttleOptions *o);

#endif

/* layer: one convolution or matmul as the layer papers see it (CoSA, SmartShuttle,
 * the offloading steps). The seven loop bounds in CoSA's naming:
 *   R, S  filter height, width        P, Q  output height, width
 *   C     input channels (per group)  K     output channels (per group)
 *   N     batch
 * plus stride, padding and groups. A linear/matmul layer is a 1x1 convolution
 * (R = S = P = Q = 1, C = in features, K = out features, N = rows).
 *
 * This struct and these names are a contract between the CoSA, SmartShuttle and
 * offloading-steps code: extend it, do not change it. The functions are defined
 * in layer.c (extraction from a network op, naming). */
#ifndef SPADMAP_LAYER_H
#define SPADMAP_LAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "net.h"
#include "status.h"

typedef struct {
  char name[128];          /* the op's name, or the CoSA name for a layer from the command line */
  int64_t R, S, P, Q, C, K, N;
  int stride_h, stride_w;
  int pad_h, pad_w;
  int groups;              /* > 1: grouped/depthwise; C and K are per group */
  int op;                  /* the network op it came from, -1 if none */
} Layer;

/* The input tile's height/width for an output tile of p x q (with the halo):
 * (p - 1) * stride + R. */
static inline int64_t Layer_inH(const Layer *l, int64_t p) { return (p - 1) * l->stride_h + l->R; }
static inline int64_t Layer_inW(const Layer *l, int64_t q) { return (q - 1) * l->stride_w + l->S; }
/* Multiply-accumulates of the whole layer (all groups). */
static inline int64_t Layer_macs(const Layer *l) {
  return l->R * l->S * l->P * l->Q * l->C * l->K * l->N * (int64_t)l->groups;
}

/* The layer an op computes (conv2d, linear, matmul); SP_ERR_ARG naming the op when
 * it is not a convolution or matmul, or its tensors do not give the dims. */
Status Layer_fromOp(const Net *net, int op, Layer *out, SpError *err);
/* A layer from "R_P_C_K_stride" (CoSA's naming: S = R, Q = P, N = 1) or the
 * long form "R=3,S=3,P=56,Q=56,C=64,K=64,N=1,stride=1". */
Status Layer_parse(const char *text, Layer *out, SpError *err);
/* CoSA's name, "R_P_C_K_stride", into buf. */
const char *Layer_cosaName(const Layer *l, char *buf, int n);

/* Extensions (cosa branch). Same loop bounds, stride and groups (names differ). */
bool Layer_sameShape(const Layer *a, const Layer *b);
/* The network's distinct layers in op order (ops that are not convolutions or
 * matmuls, or that the model cannot express such as dilated convolutions, are
 * skipped); count[k] = how many ops have layer k's shape. Both malloc'd. */
Status Layer_unique(const Net *net, Layer **out, int **count, int *n, SpError *err);
/* How many convolution/matmul ops Layer_unique skips; the first one's reason in
 * *first (when there is one and first is not NULL). */
int Layer_skipped(const Net *net, SpError *first);

#endif

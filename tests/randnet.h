/* randnet.h: seeded random networks for tests, built as contract JSON text and
 * loaded through the real loader. Graphs have fan-out, joins, multi-output ops,
 * graph inputs read by several ops, dead activations and outputs read later. */
#ifndef SPADMAP_RANDNET_H
#define SPADMAP_RANDNET_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

typedef struct {
  uint64_t s;
} Rng;

static inline uint32_t Rng_next(Rng *r) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(r->s >> 33);
}
static inline int Rng_below(Rng *r, int n) { return (int)(Rng_next(r) % (uint32_t)n); }

/* A random network with nops ops; sizes are multiples of 256 bytes in [256, 4096]. */
static inline Net *RandNet_make(uint64_t seed, int nops, bool with_params) {
  Rng r = {seed * 2654435761u + 1};
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
#define OUT(...) len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__)
  int ninputs = 1 + Rng_below(&r, 2);
  /* tensor ids: inputs 0..ninputs-1, then op k makes tensor ninputs+k (and maybe a second) */
  int produced[64][2], nprod[64];
  int avail[256], navail = 0;
  OUT("{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"rand%llu\",\"tensors\":[", (unsigned long long)seed);
  for (int i = 0; i < ninputs; i++) {
    OUT("%s{\"name\":\"in%d\",\"shape\":[%d],\"kind\":\"input\"}", i ? "," : "", i, 256 * (1 + Rng_below(&r, 16)));
    avail[navail++] = -1 - i; /* negative: input i */
  }
  int ntens = 0;
  char ops[1 << 14];
  size_t olen = 0;
  for (int k = 0; k < nops; k++) {
    nprod[k] = 1 + (Rng_below(&r, 6) == 0);
    int nin = 1 + Rng_below(&r, 3);
    olen += (size_t)snprintf(ops + olen, sizeof ops - olen, "%s{\"name\":\"op%d\",\"type\":\"t\",\"inputs\":[",
                             k ? "," : "", k);
    int chosen[3], nch = 0;
    for (int j = 0; j < nin; j++) {
      /* prefer recent tensors so graphs are deep, sometimes reach far back */
      int pick = Rng_below(&r, 3) ? navail - 1 - Rng_below(&r, navail < 3 ? navail : 3) : Rng_below(&r, navail);
      int t = avail[pick];
      bool dup = false;
      for (int q = 0; q < nch; q++) dup |= chosen[q] == t;
      if (dup) continue;
      chosen[nch++] = t;
      if (t < 0) olen += (size_t)snprintf(ops + olen, sizeof ops - olen, "%s\"in%d\"", nch > 1 ? "," : "", -1 - t);
      else olen += (size_t)snprintf(ops + olen, sizeof ops - olen, "%s\"t%d\"", nch > 1 ? "," : "", t);
    }
    if (with_params && Rng_below(&r, 2))
      olen += (size_t)snprintf(ops + olen, sizeof ops - olen, ",\"w%d\"", k);
    olen += (size_t)snprintf(ops + olen, sizeof ops - olen, "],\"outputs\":[");
    for (int j = 0; j < nprod[k]; j++) {
      produced[k][j] = ntens;
      olen += (size_t)snprintf(ops + olen, sizeof ops - olen, "%s\"t%d\"", j ? "," : "", ntens);
      avail[navail++] = ntens++;
    }
    olen += (size_t)snprintf(ops + olen, sizeof ops - olen, "]}");
  }
  /* The last op's first output is a graph output; one random earlier one too. */
  int extra_out = ntens > 2 ? Rng_below(&r, ntens - 1) : -1;
  for (int k = 0; k < nops; k++)
    for (int j = 0; j < nprod[k]; j++) {
      int t = produced[k][j];
      bool out = (k == nops - 1 && j == 0) || t == extra_out;
      OUT(",{\"name\":\"t%d\",\"shape\":[%d]%s}", t, 256 * (1 + Rng_below(&r, 16)), out ? ",\"kind\":\"output\"" : "");
    }
  if (with_params)
    for (int k = 0; k < nops; k++)
      if (strstr(ops, "\"w") && 1) {
        char name[16];
        snprintf(name, sizeof name, "\"w%d\"", k);
        if (strstr(ops, name)) OUT(",{\"name\":\"w%d\",\"shape\":[%d],\"kind\":\"param\"}", k, 256 * (1 + Rng_below(&r, 4)));
      }
  OUT("],\"ops\":[%s]}", ops);
#undef OUT
  Net *net = NULL;
  SpError err;
  if (Net_parse(buf, len, "random", &net, &err)) {
    fprintf(stderr, "RandNet_make(%llu): %s\n", (unsigned long long)seed, err.text);
    net = NULL;
  }
  free(buf);
  return net;
}

/* A random network shaped like an exported model: blocks of ops on a main path
 * with skips (so some ops are cut ops), and weight-only ops (an identity of a
 * param, the params shared between several of them) read by later ops. */
static inline Net *RandNet_makeLayered(uint64_t seed, int nops) {
  Rng r = {seed * 0x9E3779B97F4A7C15ull + 7};
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap), *ops = malloc(cap);
  if (!buf || !ops) {
    free(buf), free(ops);
    return NULL;
  }
  size_t olen = 0;
  int pending[64], npending = 0; /* weight-only outputs not read yet */
  int recent[64], nrecent = 0;   /* activations, -1: the input */
  recent[nrecent++] = -1;
  for (int k = 0; k < nops; k++) {
    bool weight = k > 0 && k < nops - 1 && Rng_below(&r, 4) == 0;
    olen += (size_t)snprintf(ops + olen, cap - olen, "%s{\"name\":\"op%d\",\"type\":\"%s\",\"inputs\":[",
                             k ? "," : "", k, weight ? "identity" : "t");
    if (weight) {
      olen += (size_t)snprintf(ops + olen, cap - olen, "\"p%d\"", Rng_below(&r, 2));
      pending[npending++] = k;
    } else {
      int a = recent[nrecent - 1], b = recent[Rng_below(&r, nrecent)];
      olen += (size_t)snprintf(ops + olen, cap - olen, a < 0 ? "\"x\"" : "\"t%d\"", a);
      if (b != a && Rng_below(&r, 2))
        olen += (size_t)snprintf(ops + olen, cap - olen, b < 0 ? ",\"x\"" : ",\"t%d\"", b);
      for (int i = 0; i < npending; i++)
        if (k == nops - 1 || Rng_below(&r, 2)) {
          olen += (size_t)snprintf(ops + olen, cap - olen, ",\"t%d\"", pending[i]);
          pending[i--] = pending[--npending];
        }
      if (Rng_below(&r, 3) == 0) olen += (size_t)snprintf(ops + olen, cap - olen, ",\"p%d\"", Rng_below(&r, 2));
      if (Rng_below(&r, 3) == 0) nrecent = 0; /* a cut: later ops read only from here on */
      recent[nrecent++] = k;
    }
    olen += (size_t)snprintf(ops + olen, cap - olen, "],\"outputs\":[\"t%d\"]}", k);
  }
#define OUT(...) len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__)
  OUT("{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"layered%llu\",\"tensors\":[", (unsigned long long)seed);
  OUT("{\"name\":\"x\",\"shape\":[%d],\"kind\":\"input\"}", 256 * (1 + Rng_below(&r, 16)));
  for (int p = 0; p < 2; p++)
    OUT(",{\"name\":\"p%d\",\"shape\":[%d],\"kind\":\"param\"}", p, 256 * (1 + Rng_below(&r, 8)));
  for (int k = 0; k < nops; k++)
    OUT(",{\"name\":\"t%d\",\"shape\":[%d]%s}", k, 256 * (1 + Rng_below(&r, 16)),
        k == nops - 1 ? ",\"kind\":\"output\"" : "");
  OUT("],\"ops\":[%s]}", ops);
#undef OUT
  Net *net = NULL;
  SpError err;
  if (Net_parse(buf, len, "layered", &net, &err)) {
    fprintf(stderr, "RandNet_makeLayered(%llu): %s\n", (unsigned long long)seed, err.text);
    net = NULL;
  }
  free(buf), free(ops);
  return net;
}

#endif

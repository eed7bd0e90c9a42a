/* shuttle_net: SmartShuttle over a whole network's convolutions, and the totals
 * the paper reports (MACs per DRAM access, the "-DP" baselines, SmartShuttle). */
#include "shuttle.h"

#include <stdlib.h>
#include <string.h>

const char *Shuttle_policyName(int policy) {
  static const char *const names[SHUTTLE_POLICIES] = {"IRO-DP", "ORO-DP", "WRO-DP", "rule", "oracle"};
  return policy >= 0 && policy < SHUTTLE_POLICIES ? names[policy] : "?";
}

static void Shuttle_add(ShuttleVolume *t, const ShuttleVolume *v) {
  t->in += v->in;
  t->out += v->out;
  t->wt += v->wt;
  t->total += v->total;
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
  return SP_OK;
}

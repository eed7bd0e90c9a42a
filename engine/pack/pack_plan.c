/* pack_plan: packing a network's tensors (their lifetimes under a schedule), and
 * the offline `pack` allocator built on it. */
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "pack.h"
#include "sim.h"

Status Pack_netBuffers(const Net *net, bool params, const int *order, PackBuffer **b, int **tensor, int *n,
                       SpError *err) {
  *b = NULL, *tensor = NULL, *n = 0;
  int steps = net->nops;
  int *pos = malloc(sizeof *pos * (size_t)(steps + 1));
  PackBuffer *buf = malloc(sizeof *buf * (size_t)(net->ntensors + 1));
  int *tid = malloc(sizeof *tid * (size_t)(net->ntensors + 1));
  if (!pos || !buf || !tid) {
    free(pos), free(buf), free(tid);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  for (int s = 0; s < steps; s++) pos[order[s]] = s;
  int m = 0;
  for (int i = 0; i < net->ntensors; i++) {
    const Tensor *t = &net->tensors[i];
    if (!Net_onChip(net, i, params) || t->bytes <= 0) continue;
    int first = steps, last = -1;
    if (t->producer >= 0) first = pos[t->producer];
    for (int c = 0; c < t->nconsumers; c++) {
      int p = pos[t->consumers[c]];
      if (t->producer < 0 && p < first) first = p;
      if (p > last) last = p;
    }
    if (first == steps) continue; /* never on chip */
    if (last < first) last = first;
    buf[m] = (PackBuffer){first, (int64_t)last + 1, t->bytes, 0};
    tid[m++] = i;
  }
  free(pos);
  *b = buf, *tensor = tid, *n = m;
  return SP_OK;
}

/* Re-addresses a plan that has at most one stay per tensor, each over the
 * tensor's lifetime; false when it has more (then it is not ours to pack). */
static Status Pack_readdress(Plan *plan, const Net *net, int64_t budget, bool *packed, SpError *err) {
  *packed = false;
  int n = plan->nstays;
  PackBuffer *b = malloc(sizeof *b * (size_t)(n + 1));
  bool *seen = calloc((size_t)net->ntensors + 1, sizeof *seen);
  Status st = SP_OK;
  if (!b || !seen) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (int k = 0; k < n; k++) {
    const Stay *s = &plan->stays[k];
    if (seen[s->tensor]) goto done; /* evicted and retrieved: not a fixed lifetime */
    seen[s->tensor] = true;
    b[k] = (PackBuffer){s->start, (int64_t)s->end + 1, net->tensors[s->tensor].bytes, 0};
  }
  if (Pack_maxLoad(b, n) > budget) goto done;
  PackOptions o;
  PackOptions_init(&o);
  /* an allocator must be quick and give the same plan on every run: a short
   * search bounded by nodes, never by the clock (a loaded machine would change
   * the plan); the heuristics alone first */
  o.node_limit = 20000;
  /* two cheap heuristics first (most schedules pack with them), then the search;
   * skyline is quadratic and cannot look at the clock here: only up to 4,096
   * buffers (at 20,000 it took 7 s, inside solve's time limit) */
  static const PackMethod tries[] = {PACK_SKYLINE, PACK_OFFSET_SIZE, PACK_EXACT};
  for (int t = n > 4096 ? 1 : 0; t < 3 && !*packed; t++) {
    o.method = tries[t];
    PackResult r;
    SpError e;
    if ((st = Pack_solve(b, n, budget, &o, &r, &e))) {
      SpError_set(err, st, "%s", e.text);
      goto done;
    }
    if (r.status == PACK_FOUND || r.status == PACK_OPTIMAL) {
      for (int k = 0; k < n; k++) plan->stays[k].offset = r.offsets[k];
      *packed = true;
    }
    PackResult_free(&r);
  }
done:
  free(b);
  free(seen);
  return st;
}

Status Pack_allocatorPlan(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *rp,
                          const PolicyInfo *al, Plan **out, SpError *err) {
  *out = NULL;
  /* The simulator with room for everything gives the stays (and their in/out
   * kinds) exactly as a plan without eviction has them. */
  int64_t all = 0;
  for (int i = 0; i < net->ntensors; i++)
    if (Net_onChip(net, i, params) && net->tensors[i].bytes > 0) {
      if (net->tensors[i].bytes > INT64_MAX / 4 - all) {
        all = -1;
        break;
      }
      all += net->tensors[i].bytes;
    }
  /* the peak (same lifetimes as the stays below) must fit, else no packing can */
  if (all >= 0 && all >= budget && Figures_peak(net, params, order, NULL) <= budget) {
    Plan *plan = NULL;
    SpError e;
    if (Sim_run(net, params, all + 1, order, rp, al, &plan, &e) == SP_OK) {
      bool packed;
      Status st = Pack_readdress(plan, net, budget, &packed, err);
      if (st) {
        Plan_free(plan);
        return st;
      }
      if (packed) {
        plan->budget = budget;
        if (Plan_computeMetrics(plan, net)) {
          Plan_free(plan);
          return SpError_set(err, SP_ERR_NOMEM, "out of memory");
        }
        *out = plan;
        return SP_OK;
      }
    }
    Plan_free(plan);
  }
  /* the peak does not fit, or no packing came in time: the online rule */
  return Sim_run(net, params, budget, order, rp, al, out, err);
}

/* Fuzz target "net": any bytes as a network file. A clean refusal is fine; an
 * accepted network must hold the loader's promises (sizes, producers, order,
 * figures inside int64) and a default solve at M_R, when it succeeds, must give
 * a plan the validator accepts. */
#include <string.h>

#include "figures.h"
#include "fuzz.h"
#include "net.h"
#include "solve.h"
#include "validate.h"

static int Fuzz_netInvariants(const Net *net, char *why, size_t n) {
  int64_t total = 0;
  for (int t = 0; t < net->ntensors; t++) {
    const Tensor *x = &net->tensors[t];
    if (x->bytes < 1) return Fuzz_found(why, n, "tensors[%d]: %lld bytes accepted", t, (long long)x->bytes);
    if (__builtin_add_overflow(total, x->bytes, &total) || total > NET_MAX_TOTAL_BYTES)
      return Fuzz_found(why, n, "summed sizes past 2^62 accepted at tensors[%d]", t);
    bool made = x->kind == TK_ACTIVATION || x->kind == TK_OUTPUT;
    if (made != (x->producer >= 0)) return Fuzz_found(why, n, "tensors[%d]: kind and producer disagree", t);
  }
  for (int o = 0; o < net->nops; o++)
    for (int k = 0; k < net->ops[o].ninputs; k++)
      if (net->tensors[net->ops[o].inputs[k]].producer >= o)
        return Fuzz_found(why, n, "ops[%d] reads a tensor made later: order accepted", o);
  for (int p = 0; p < 2; p++) {
    int64_t mr = Figures_minRequired(net, p);
    if (mr < 0 || mr > total) return Fuzz_found(why, n, "M_R came out as %lld", (long long)mr);
  }
  return FUZZ_OK;
}

int Fuzz_net(const uint8_t *data, size_t size, char *why, size_t n) {
  Net *net = NULL;
  SpError err;
  Status parsed = Net_parse((const char *)data, size, "fuzz.json", &net, &err);
  /* inputs are at most 64 KiB: "out of memory" means the grammar check passed
   * text that cJSON then refused, so the two disagree */
  if (parsed == SP_ERR_NOMEM) return Fuzz_found(why, n, "grammar check and cJSON disagree: %s", err.text);
  if (parsed) return FUZZ_OK;
  int found = Fuzz_netInvariants(net, why, n);
  if (!found && net->nops <= 2000) {
    SolveSettings s;
    SolveSettings_init(&s);
    s.budget = Figures_minRequired(net, false);
    s.time_limit = 1;
    Plan *plan = NULL;
    if (Solve_run(net, &s, &plan, &err) == SP_OK) {
      ValidateReport r;
      Status st = Validate_plan(net, plan, &r);
      if (st == SP_ERR_FORMAT)
        found = Fuzz_found(why, n, "default solve at M_R made an invalid plan: %s", r.nlines ? r.lines[0] : "?");
      ValidateReport_free(&r);
    }
    Plan_free(plan);
  }
  Net_free(net);
  return found ? found : FUZZ_ACCEPTED;
}

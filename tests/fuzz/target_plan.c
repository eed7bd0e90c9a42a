/* Fuzz target "plan": any bytes as a plan file for one of a few small bundled
 * networks (picked by the plan's "network" name). A plan the reader and the
 * validator accept is checked again by a brute-force reference of the
 * contract's rules (every pair of stays, every step) and must survive a write
 * and read back unchanged: an accepted plan that breaks a rule is a finding. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "json.h"
#include "net.h"
#include "plan.h"
#include "validate.h"

static const char *const Fuzz_planNets[] = {"fig1", "diamond", "chain", "skip", "wp"};
enum { FUZZ_PLAN_NETS = 5 };

/* x (input) and w (param) -> op0 -> a -> op1 -> y: the one with a param. */
static const char Fuzz_wp[] =
    "{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"wp\",\"tensors\":["
    "{\"name\":\"x\",\"shape\":[1024],\"kind\":\"input\"},{\"name\":\"w\",\"shape\":[512],\"kind\":\"param\"},"
    "{\"name\":\"a\",\"shape\":[1024]},{\"name\":\"y\",\"shape\":[1024],\"kind\":\"output\"}],\"ops\":["
    "{\"name\":\"op0\",\"type\":\"mul\",\"inputs\":[\"x\",\"w\"],\"outputs\":[\"a\"]},"
    "{\"name\":\"op1\",\"type\":\"relu\",\"inputs\":[\"a\"],\"outputs\":[\"y\"]}]}";

static Net *Fuzz_nets[FUZZ_PLAN_NETS];

static void Fuzz_freeNets(void) {
  for (int i = 0; i < FUZZ_PLAN_NETS; i++) Net_free(Fuzz_nets[i]), Fuzz_nets[i] = NULL;
}

/* Loaded once, on first use, and freed at exit. */
static Net *Fuzz_net_of(int i) {
  Net **nets = Fuzz_nets;
  static bool tried[FUZZ_PLAN_NETS], registered;
  if (!registered) registered = true, atexit(Fuzz_freeNets);
  if (!tried[i]) {
    tried[i] = true;
    SpError err;
    if (strcmp(Fuzz_planNets[i], "wp") == 0) {
      Net_parse(Fuzz_wp, sizeof Fuzz_wp - 1, "wp.json", &nets[i], &err);
    } else {
      char path[512];
      snprintf(path, sizeof path, "%s/networks/%s.json", SPADMAP_DATA_DIR, Fuzz_planNets[i]);
      if (Net_load(path, &nets[i], &err)) fprintf(stderr, "fuzz: %s\n", err.text);
    }
  }
  return nets[i];
}

/* The network the plan names, or fig1. */
static Net *Fuzz_pickNet(const uint8_t *data, size_t size) {
  cJSON *root = NULL;
  SpError err;
  int pick = 0;
  if (Json_parse((const char *)data, size, "fuzz", &root, &err) == SP_OK) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "network");
    for (int i = 0; i < FUZZ_PLAN_NETS && cJSON_IsString(v); i++)
      if (strcmp(v->valuestring, Fuzz_planNets[i]) == 0) pick = i;
  }
  cJSON_Delete(root);
  return Fuzz_net_of(pick);
}

/* The contract's rules, the slow and obvious way (small plans only). */
static int Fuzz_reference(const Net *net, const Plan *p, char *why, size_t n) {
  if (p->nsteps != net->nops) return Fuzz_found(why, n, "accepted with %d steps for %d ops", p->nsteps, net->nops);
  if (p->budget < 0) return Fuzz_found(why, n, "accepted a negative budget");
  for (int s = 0; s < p->nsteps; s++)
    for (int u = 0; u < s; u++)
      if (p->order[s] == p->order[u]) return Fuzz_found(why, n, "accepted op %d twice in the schedule", p->order[s]);
  int *pos = malloc(sizeof(int) * (size_t)net->nops);
  if (!pos) return FUZZ_OK;
  for (int s = 0; s < p->nsteps; s++) pos[p->order[s]] = s;
  int found = FUZZ_OK;
  __int128 noncomp = 0, comp = 0;
  int spills = 0, retrievals = 0;
  int64_t peak = 0, foot = 0;
  for (int i = 0; i < p->nstays && !found; i++) {
    const Stay *a = &p->stays[i];
    int64_t bytes = net->tensors[a->tensor].bytes;
    if (a->start < 0 || a->end >= p->nsteps || a->start > a->end)
      found = Fuzz_found(why, n, "accepted placements[%d] with steps %d..%d", i, a->start, a->end);
    else if (a->offset < 0 || (__int128)a->offset + bytes > p->budget)
      found = Fuzz_found(why, n, "accepted placements[%d] at offset %lld outside the budget", i, (long long)a->offset);
    else if (!Net_onChip(net, a->tensor, p->params))
      found = Fuzz_found(why, n, "accepted a param stay with params off");
    for (int j = 0; j < i && !found; j++) {
      const Stay *b = &p->stays[j];
      bool time = a->start <= b->end && b->start <= a->end;
      bool space = a->offset < b->offset + net->tensors[b->tensor].bytes && b->offset < a->offset + bytes;
      if (time && (space || a->tensor == b->tensor))
        found = Fuzz_found(why, n, "accepted placements[%d] and [%d] overlapping", j, i);
    }
    if (a->offset + bytes > foot) foot = a->offset + bytes;
    if (a->in == STAY_RETRIEVE) noncomp += bytes, retrievals++;
    if (a->in == STAY_LOAD) comp += bytes;
    if (a->out == STAY_STORE || (a->out == STAY_SPILL && net->tensors[a->tensor].kind == TK_OUTPUT)) comp += bytes;
    else if (a->out == STAY_SPILL) noncomp += bytes, spills++;
  }
  for (int s = 0; s < p->nsteps && !found; s++) {
    int64_t live = 0;
    for (int i = 0; i < p->nstays; i++)
      if (p->stays[i].start <= s && s <= p->stays[i].end) live += net->tensors[p->stays[i].tensor].bytes;
    if (live > peak) peak = live;
    const Op *op = &net->ops[p->order[s]];
    for (int k = 0; k < op->ninputs && !found; k++) {
      int t = op->inputs[k];
      if (net->tensors[t].producer >= 0 && pos[net->tensors[t].producer] >= s)
        found = Fuzz_found(why, n, "accepted a schedule that reads before it writes");
      bool covered = !Net_onChip(net, t, p->params);
      for (int i = 0; i < p->nstays && !covered; i++)
        covered = p->stays[i].tensor == t && p->stays[i].start <= s && s <= p->stays[i].end;
      if (!covered) found = Fuzz_found(why, n, "accepted step %d with an input not resident", s);
    }
    for (int k = 0; k < op->noutputs && !found; k++) {
      bool created = false;
      for (int i = 0; i < p->nstays && !created; i++)
        created = p->stays[i].tensor == op->outputs[k] && p->stays[i].start == s && p->stays[i].in == STAY_CREATE;
      if (!created) found = Fuzz_found(why, n, "accepted step %d with an output not created", s);
    }
  }
  free(pos);
  if (found) return found;
  const Metrics *m = &p->metrics;
  if (m->peak_bytes != peak || m->footprint_bytes != foot || m->spills != spills || m->retrievals != retrievals ||
      (__int128)m->noncompulsory_bytes != noncomp || (__int128)m->compulsory_bytes != comp)
    return Fuzz_found(why, n, "accepted metrics that the placements do not imply");
  return FUZZ_OK;
}

/* The numbers and types the contract names, read from the JSON again without
 * the reader under test (doubles compare equal for any exactly-read integer;
 * a value taken modulo 2^32 or through a wrong type does not). */
static int Fuzz_raw(const uint8_t *data, size_t size, const Plan *p, char *why, size_t n) {
  cJSON *root = cJSON_ParseWithLength((const char *)data, size);
  int found = FUZZ_OK;
  if (!root) return FUZZ_OK;
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "metrics");
  const char *keys[] = {"noncompulsory_bytes", "compulsory_bytes", "peak_bytes", "footprint_bytes", "spills", "retrievals"};
  double vals[] = {(double)p->metrics.noncompulsory_bytes, (double)p->metrics.compulsory_bytes,
                   (double)p->metrics.peak_bytes, (double)p->metrics.footprint_bytes, p->metrics.spills,
                   p->metrics.retrievals};
  for (int i = 0; i < 6 && !found; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, keys[i]);
    if (!cJSON_IsNumber(v) || v->valuedouble != vals[i])
      found = Fuzz_found(why, n, "accepted metrics.%s that is not the number the plan carries", keys[i]);
  }
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "budget");
  if (!found && (!cJSON_IsNumber(b) || b->valuedouble != (double)p->budget))
    found = Fuzz_found(why, n, "accepted a budget that is not the number the plan carries");
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(root, "placements");
  int i = 0;
  for (const cJSON *v = pl ? pl->child : NULL; v && !found && i < p->nstays; v = v->next, i++) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(v, "offset");
    if (!cJSON_IsNumber(o) || o->valuedouble != (double)p->stays[i].offset)
      found = Fuzz_found(why, n, "accepted placements[%d].offset that is not the number the plan carries", i);
  }
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "solver");
  if (!found && s) {
    const char *nums[] = {"seconds", "objective", "bound"};
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(s, "status")))
      found = Fuzz_found(why, n, "accepted a solver block whose status is not a string");
    for (int k = 0; k < 3 && !found; k++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, nums[k]);
      if (v && !cJSON_IsNumber(v)) found = Fuzz_found(why, n, "accepted solver.%s that is not a number", nums[k]);
    }
  }
  cJSON_Delete(root);
  return found;
}

/* Written and read back, the plan is the same and still valid. */
static int Fuzz_roundTrip(const Net *net, const Plan *p, char *why, size_t n) {
  char *text = Plan_toJSON(p, net);
  if (!text) return FUZZ_OK;
  Plan *q = NULL;
  SpError err;
  int found = FUZZ_OK;
  if (Plan_parse(text, strlen(text), "again.json", net, &q, &err)) {
    found = Fuzz_found(why, n, "an accepted plan, written out, cannot be read back: %s", err.text);
  } else if (q->budget != p->budget || q->nstays != p->nstays || q->nsteps != p->nsteps ||
             memcmp(q->order, p->order, sizeof(int) * (size_t)p->nsteps) != 0 ||
             memcmp(&q->metrics, &p->metrics, sizeof p->metrics) != 0) {
    found = Fuzz_found(why, n, "an accepted plan changed when written and read back");
  } else {
    for (int i = 0; i < p->nstays && !found; i++) {
      const Stay *a = &p->stays[i], *b = &q->stays[i];
      if (a->tensor != b->tensor || a->offset != b->offset || a->start != b->start || a->end != b->end ||
          a->in != b->in || a->out != b->out)
        found = Fuzz_found(why, n, "placements[%d] changed when written and read back", i);
    }
    ValidateReport r;
    if (!found && Validate_plan(net, q, &r) != SP_OK) found = Fuzz_found(why, n, "the plan read back is invalid");
    if (!found || r.nlines) ValidateReport_free(&r);
  }
  Plan_free(q);
  free(text);
  return found;
}

int Fuzz_plan(const uint8_t *data, size_t size, char *why, size_t n) {
  Net *net = Fuzz_pickNet(data, size);
  if (!net) return Fuzz_found(why, n, "cannot load the bundled networks (SPADMAP_DATA_DIR)");
  Plan *p = NULL;
  SpError err;
  Status parsed = Plan_parse((const char *)data, size, "fuzz.json", net, &p, &err);
  if (parsed == SP_ERR_NOMEM) return Fuzz_found(why, n, "grammar check and cJSON disagree: %s", err.text);
  if (parsed) return FUZZ_OK;
  ValidateReport r;
  Status st = Validate_plan(net, p, &r);
  ValidateReport_free(&r);
  int found = FUZZ_OK;
  if (st == SP_OK && p->nstays <= 4096) found = Fuzz_reference(net, p, why, n);
  if (st == SP_OK && !found) found = Fuzz_raw(data, size, p, why, n);
  if (st == SP_OK && !found) found = Fuzz_roundTrip(net, p, why, n);
  Plan_free(p);
  return found ? found : st == SP_OK ? FUZZ_ACCEPTED : FUZZ_OK;
}

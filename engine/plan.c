#include "plan.h"

#include <stdlib.h>
#include <string.h>

static char *Plan_strdup(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

Plan *Plan_new(const Net *net, bool params, int64_t budget) {
  Plan *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->network = Plan_strdup(net ? net->name : "");
  p->params = params;
  p->budget = budget;
  p->nsteps = net ? net->nops : 0;
  p->order = calloc((size_t)(p->nsteps ? p->nsteps : 1), sizeof(int));
  if (!p->network || !p->order || Plan_setPolicies(p, "", "", "")) {
    Plan_free(p);
    return NULL;
  }
  return p;
}

void Plan_free(Plan *p) {
  if (!p) return;
  free(p->network);
  free(p->schedule_policy);
  free(p->replacement_policy);
  free(p->allocator_policy);
  free(p->order);
  free(p->stays);
  free(p);
}

Status Plan_setPolicies(Plan *p, const char *schedule, const char *replacement, const char *allocator) {
  char *a = Plan_strdup(schedule), *b = Plan_strdup(replacement), *c = Plan_strdup(allocator);
  if (!a || !b || !c) {
    free(a), free(b), free(c);
    return SP_ERR_NOMEM;
  }
  free(p->schedule_policy), free(p->replacement_policy), free(p->allocator_policy);
  p->schedule_policy = a, p->replacement_policy = b, p->allocator_policy = c;
  return SP_OK;
}

Status Plan_addStay(Plan *p, Stay stay) {
  if (p->nstays == p->capstays) {
    int cap = p->capstays ? p->capstays * 2 : 64;
    Stay *s = realloc(p->stays, sizeof(Stay) * (size_t)cap);
    if (!s) return SP_ERR_NOMEM;
    p->stays = s;
    p->capstays = cap;
  }
  p->stays[p->nstays++] = stay;
  return SP_OK;
}

const char *const StayIn_names[3] = {"create", "load", "retrieve"};
const char *const StayOut_names[4] = {"free", "spill", "drop", "store"};
const char *const SolverStatus_names[SOLVER_STATUS_COUNT] = {"none", "optimal", "feasible", "infeasible",
                                                 "timeout", "cancelled", "heuristic"};

const char *StayIn_name(StayIn in) { return (unsigned)in < 3 ? StayIn_names[in] : "?"; }
const char *StayOut_name(StayOut out) { return (unsigned)out < 4 ? StayOut_names[out] : "?"; }
const char *SolverStatus_name(SolverStatus s) {
  return (unsigned)s < SOLVER_STATUS_COUNT ? SolverStatus_names[s] : "?";
}

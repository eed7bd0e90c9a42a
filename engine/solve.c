#include "solve.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "policy.h"
#include "sim.h"
#include "validate.h"

void SolveSettings_init(SolveSettings *s) {
  memset(s, 0, sizeof *s);
  s->schedule = "default";
  s->replacement = "belady";
  s->allocator = "linear";
  s->time_limit = 60;
}

static Status Solve_unknown(PolicyKind kind, const char *name, SpError *err) {
  char list[256] = "";
  for (int i = 0; i < Policy_count(kind); i++) {
    strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
    strncat(list, Policy_at(kind, i)->name, sizeof list - strlen(list) - 1);
  }
  return SpError_set(err, SP_ERR_ARG, "unknown %s policy \"%s\" (expected one of: %s)", PolicyKind_name(kind),
                     name ? name : "", list);
}

Status Solve_schedule(const Net *net, const SolveSettings *s, int *order, SolverInfo *info, SpError *err) {
  const PolicyInfo *sp = Policy_find(POLICY_SCHEDULE, s->schedule);
  if (!sp) return Solve_unknown(POLICY_SCHEDULE, s->schedule, err);
  if (sp->schedule) return sp->schedule(net, s, order, info, err);
  Plan *plan = NULL; /* a whole-plan policy: its plan's order */
  Status st = sp->joint(net, s, &plan, err);
  if (st) return st;
  memcpy(order, plan->order, sizeof(int) * (size_t)net->nops);
  if (info) *info = plan->solver;
  Plan_free(plan);
  return SP_OK;
}

Status Solve_checkPlan(const Net *net, const Plan *plan, SpError *err) {
  if (plan->solver.status == SOLVER_HEURISTIC || plan->solver.status == SOLVER_NONE) return SP_OK;
  ValidateReport rep;
  Status v = Validate_plan(net, plan, &rep);
  if (v == SP_OK) {
    ValidateReport_free(&rep);
    return SP_OK;
  }
  if (v == SP_ERR_NOMEM) {
    ValidateReport_free(&rep);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory validating the solver's plan");
  }
  SpError_set(err, SP_ERR_SOLVER,
              "the solver reported %s, but its plan fails the validator (%d violation(s); first: %s): numerical "
              "trouble in the model, no plan is reported",
              SolverStatus_name(plan->solver.status), rep.count, rep.nlines ? rep.lines[0] : "?");
  ValidateReport_free(&rep);
  return SP_ERR_SOLVER;
}

/* A whole-plan schedule policy (cosma, dnc): it names all three policies. */
static Status Solve_joint(const Net *net, const SolveSettings *s, const PolicyInfo *sp, Plan **out, double t0,
                          SpError *err) {
  Plan *plan = NULL;
  Status st = sp->joint(net, s, &plan, err);
  if (st) return st;
  if (Plan_setPolicies(plan, sp->name, sp->name, sp->name)) {
    Plan_free(plan);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  plan->solver.seconds = Clock_now() - t0;
  if ((st = Solve_checkPlan(net, plan, err))) {
    Plan_free(plan);
    return st;
  }
  *out = plan;
  return SP_OK;
}

Status Solve_simulate(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *rp,
                      const PolicyInfo *ap, Plan **out, SpError *err) {
  OfflineAllocFn run = ap->offline ? ap->offline : Sim_run;
  return run(net, params, budget, order, rp, ap, out, err);
}

Status Solve_run(const Net *net, const SolveSettings *s0, Plan **out, SpError *err) {
  *out = NULL;
  double t0 = Clock_now();
  SolveSettings with_deadline = *s0, *s = &with_deadline;
  if (s->deadline <= 0 && s->time_limit > 0) s->deadline = t0 + s->time_limit;
  const PolicyInfo *sp = Policy_find(POLICY_SCHEDULE, s->schedule);
  const PolicyInfo *rp = Policy_find(POLICY_REPLACEMENT, s->replacement);
  const PolicyInfo *ap = Policy_find(POLICY_ALLOCATOR, s->allocator);
  if (!sp) return Solve_unknown(POLICY_SCHEDULE, s->schedule, err);
  if (!rp) return Solve_unknown(POLICY_REPLACEMENT, s->replacement, err);
  if (!ap) return Solve_unknown(POLICY_ALLOCATOR, s->allocator, err);
  int64_t m_r = Figures_minRequired(net, s->params);
  if (s->budget < m_r)
    return SpError_set(err, SP_ERR_INFEASIBLE, "infeasible: budget %lld < M_R = %lld bytes (%s)", (long long)s->budget,
                       (long long)m_r, s->params ? "with params" : "activations only");
  if (sp->joint && !s->order) return Solve_joint(net, s, sp, out, t0, err);
  int *order = malloc(sizeof(int) * (size_t)net->nops);
  if (!order) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  SolverInfo info = {.status = SOLVER_HEURISTIC};
  Status st = SP_OK;
  if (s->order) memcpy(order, s->order, sizeof(int) * (size_t)net->nops);
  else st = sp->schedule(net, s, order, &info, err);
  Plan *plan = NULL;
  if (!st)
    st = rp->plan ? rp->plan(net, s, order, &plan, err)
                  : Solve_simulate(net, s->params, s->budget, order, rp, ap, &plan, err);
  free(order);
  if (st) return st;
  if (Plan_setPolicies(plan, sp->name, rp->name, rp->plan ? "ilp" : ap->name)) {
    Plan_free(plan);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  SolverInfo sched = info; /* what the schedule policy said (a note, a cancel) */
  if (rp->plan) {
    info = plan->solver; /* the policy's own status, objective and bound */
  } else {
    info = (SolverInfo){.status = SOLVER_HEURISTIC}; /* a schedule search proves nothing about the traffic */
    if (sched.status == SOLVER_CANCELLED) info.status = SOLVER_CANCELLED;
    info.objective = (double)plan->metrics.noncompulsory_bytes;
    info.has_objective = true;
  }
  if (!info.note[0]) memcpy(info.note, sched.note, sizeof info.note);
  info.seconds = Clock_now() - t0;
  plan->solver = info;
  if ((st = Solve_checkPlan(net, plan, err))) {
    Plan_free(plan);
    return st;
  }
  *out = plan;
  return SP_OK;
}

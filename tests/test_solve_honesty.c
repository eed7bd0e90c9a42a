/* Solver honesty: what a searching policy reports is what its plan is. Large byte
 * values (a 1 GiB budget, sizes x 2^17) must not turn the big-M rows into slack;
 * a plan that fails the validator is never reported as optimal. */
#include "bundled.h"
#include "figures.h"
#include "ilp.h"
#include "solve.h"
#include "test.h"
#include "testhook.h"
#include "validate.h"

/* (alexnet too in tests/cli_test.sh: its model takes over 20 s under valgrind) */
static const char *const small_nets[] = {"chain", "skip", "fig1", "diamond"};

/* Solves with the paper's model at budget; the plan must be valid and its status true. */
static void check_paper(const Net *net, int64_t budget) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.schedule = "cosma";
  s.paper_model = true;
  s.budget = budget;
  s.time_limit = 20;
  Plan *plan = NULL;
  SpError err = {0};
  Status st = Solve_run(net, &s, &plan, &err);
  if (st) printf("  %s at %lld: %s\n", net->name, (long long)budget, err.text);
  CHECK_EQ(st, SP_OK);
  if (!plan) return;
  ValidateReport rep;
  Status v = Validate_plan(net, plan, &rep);
  if (v) printf("  %s at %lld: %d violation(s), first: %s\n", net->name, (long long)budget, rep.count,
                rep.nlines ? rep.lines[0] : "");
  CHECK_EQ(v, SP_OK);
  ValidateReport_free(&rep);
  /* a budget above every tensor's sum: nothing needs to leave the chip */
  CHECK_EQ(plan->solver.status, SOLVER_OPTIMAL);
  CHECK_EQ(plan->metrics.noncompulsory_bytes, 0);
  Plan_free(plan);
}

TEST(paper_model_at_one_gib_gives_valid_optimal_plans) {
  for (size_t i = 0; i < sizeof small_nets / sizeof small_nets[0]; i++) {
    Net *net = Bundled_load(small_nets[i]);
    CHECK(net != NULL);
    if (!net) continue;
    check_paper(net, 1LL << 30);
    check_paper(net, 128LL << 20);
    Net_free(net);
  }
}

TEST(paper_model_with_sizes_times_2_17_is_valid) {
  Net *net = Bundled_load("diamond");
  CHECK(net != NULL);
  if (!net) return;
  for (int t = 0; t < net->ntensors; t++) net->tensors[t].bytes <<= 17;
  check_paper(net, 1LL << 40);
  Net_free(net);
}

/* The engine's rule on its own: a broken plan that claims optimal is refused. */
TEST(a_plan_that_fails_the_validator_is_never_reported) {
  Net *net = Bundled_load("diamond");
  CHECK(net != NULL);
  if (!net) return;
  NetFigures f;
  SpError err = {0};
  CHECK_EQ(Figures_compute(net, false, &f, NULL, &err), SP_OK);
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = f.m_p;
  Plan *plan = NULL;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
  if (!plan) {
    Net_free(net);
    return;
  }
  CHECK_EQ(plan->solver.status, SOLVER_HEURISTIC);
  CHECK_EQ(Solve_checkPlan(net, plan, &err), SP_OK);
  plan->solver.status = SOLVER_OPTIMAL;
  CHECK_EQ(Solve_checkPlan(net, plan, &err), SP_OK); /* valid: any status passes */
  for (int i = 0; i < plan->nstays; i++) plan->stays[i].offset = 0; /* everything at 0: overlaps */
  plan->solver.status = SOLVER_HEURISTIC;
  CHECK_EQ(Solve_checkPlan(net, plan, &err), SP_OK); /* heuristics are checked by the tests */
  const SolverStatus claims[] = {SOLVER_OPTIMAL, SOLVER_FEASIBLE, SOLVER_TIMEOUT, SOLVER_CANCELLED};
  for (int k = 0; k < 4; k++) {
    plan->solver.status = claims[k];
    SpError_clear(&err);
    CHECK_EQ(Solve_checkPlan(net, plan, &err), SP_ERR_SOLVER);
    CHECK_HAS(err.text, "fails the validator");
    CHECK_HAS(err.text, SolverStatus_name(claims[k]));
  }
  Plan_free(plan);
  Net_free(net);
}

/* A model GLPK could not even start on within the limit is refused at once. */
TEST(ilp_refuses_a_model_it_cannot_load_in_time) {
  IlpModel *m = IlpModel_new();
  enum { N = 2000 };
  int cols[N];
  double coef[N];
  for (int j = 0; j < N; j++) cols[j] = IlpModel_addCol(m, ILP_BINARY, 0, 1, 1), coef[j] = 1;
  for (int i = 0; i < 50; i++) IlpModel_addRow(m, 1, ILP_INF, N, cols, coef); /* 100,000 nonzeros */
  CHECK_EQ(IlpModel_nnz(m), 100000);
  double est = Ilp_estimateSeconds(IlpModel_nnz(m), IlpModel_nrows(m), IlpModel_ncols(m));
  CHECK(est > 0.1);
  IlpOptions o;
  IlpOptions_init(&o);
  o.time_limit = est / 100;
  IlpResult r;
  SpError err;
  Testhook_arm(TESTHOOK_DEADLINE, "ilp"); /* a poll while loading or solving would be reached */
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK(!Testhook_waitReached("ilp", 0)); /* refused before loading (it was: in less than the estimate) */
  Testhook_arm(TESTHOOK_OFF, NULL);
  CHECK_EQ(r.status, ILP_TIMEOUT);
  CHECK(!r.has_solution);
  CHECK_HAS(r.message, "not started");
  IlpResult_free(&r);
  o.time_limit = 0; /* no limit: it is solved (one binary per row suffices) */
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, ILP_OPTIMAL);
  CHECK(r.has_solution && r.objective > 0.5 && r.objective < 1.5);
  IlpResult_free(&r);
  IlpModel_free(m);
}

TEST_MAIN("solve_honesty", T(ilp_refuses_a_model_it_cannot_load_in_time), T(paper_model_at_one_gib_gives_valid_optimal_plans),
          T(paper_model_with_sizes_times_2_17_is_valid), T(a_plan_that_fails_the_validator_is_never_reported))

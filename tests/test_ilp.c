/* The GLPK wrapper: optimal, infeasible, timeout, cancel, progress, warm start,
 * captured output and caught GLPK errors. */
#include <stdatomic.h>
#include <math.h>

#include "ilp.h"
#include "testhook.h"
#include "test.h"
#include "randnet.h"

/* max 10a + 13b + 7c + 8d, 4a + 6b + 3c + 5d <= 10 -> a, b (23) or a, c, ... */
static IlpModel *knapsack(void) {
  IlpModel *m = IlpModel_new();
  const double v[4] = {10, 13, 7, 8}, w[4] = {4, 6, 3, 5};
  int cols[4];
  for (int i = 0; i < 4; i++) cols[i] = IlpModel_addCol(m, ILP_BINARY, 0, 1, -v[i]);
  IlpModel_addRow(m, -ILP_INF, 10, 4, cols, w);
  return m;
}

TEST(knapsack_is_solved_to_optimality) {
  IlpModel *m = knapsack();
  IlpOptions o;
  IlpOptions_init(&o);
  IlpResult r;
  SpError err;
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, ILP_OPTIMAL);
  CHECK(r.has_solution);
  /* best: a + b = 23 (weight 10) vs a + c = 17, b + c = 20, c + d = 15, a + d = 18 */
  CHECK_EQ(llround(-r.objective), 23);
  CHECK(r.has_bound && fabs(r.bound - r.objective) < 1e-6);
  if (r.x) {
    CHECK_EQ(llround(r.x[0]), 1);
    CHECK_EQ(llround(r.x[1]), 1);
    CHECK_EQ(llround(r.x[2]), 0);
    CHECK_EQ(llround(r.x[3]), 0);
  }
  CHECK(r.log != NULL); /* GLPK's terminal text was captured, not printed */
  IlpResult_free(&r);
  IlpModel_free(m);
}

/* Branching priorities change the search order only: whichever column is put
 * first, the knapsack's optimum and solution are the same as without. */
TEST(priority_keeps_the_optimum) {
  IlpModel *m = knapsack();
  for (int first = 0; first < 4; first++) {
    double prio[4] = {0, 0, 0, 0};
    prio[first] = 1;
    IlpOptions o;
    IlpOptions_init(&o);
    o.priority = prio;
    IlpResult r;
    SpError err;
    CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, ILP_OPTIMAL);
    CHECK_EQ(llround(-r.objective), 23);
    if (r.x) {
      CHECK_EQ(llround(r.x[0]), 1);
      CHECK_EQ(llround(r.x[1]), 1);
      CHECK_EQ(llround(r.x[2]) + llround(r.x[3]), 0);
    }
    IlpResult_free(&r);
  }
  IlpModel_free(m);
}

TEST(infeasible_model_is_reported) {
  IlpModel *m = IlpModel_new();
  int x = IlpModel_addCol(m, ILP_INTEGER, 0, 10, 1), y = IlpModel_addCol(m, ILP_INTEGER, 0, 10, 1);
  int c[2] = {x, y};
  double a[2] = {2, 2};
  IlpModel_addRow(m, 3, 3, 2, c, a); /* 2x + 2y = 3: LP-feasible, integer-infeasible */
  IlpOptions o;
  IlpOptions_init(&o);
  IlpResult r;
  SpError err;
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, ILP_INFEASIBLE);
  CHECK(!r.has_solution);
  IlpResult_free(&r);
  double a2[2] = {1, 1};
  IlpModel_addRow(m, 30, ILP_INF, 2, c, a2); /* LP-infeasible too */
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, ILP_INFEASIBLE);
  IlpResult_free(&r);
  IlpModel_free(m);
}

/* A market-split style model (Cornuejols-Dawande): min total slack of a few dense
 * equality rows over many binaries. Always feasible (x = 0), very hard to prove. */
static IlpModel *market_split(int rows, int n, uint64_t seed) {
  Rng g = {seed};
  IlpModel *m = IlpModel_new();
  int cols[64];
  double a[64];
  for (int j = 0; j < n; j++) cols[j] = IlpModel_addCol(m, ILP_BINARY, 0, 1, 0);
  for (int i = 0; i < rows; i++) {
    double sum = 0;
    for (int j = 0; j < n; j++) a[j] = Rng_below(&g, 100), sum += a[j];
    int sp = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, 1), sm = IlpModel_addCol(m, ILP_CONTINUOUS, 0, ILP_INF, 1);
    cols[n] = sp, a[n] = 1;
    cols[n + 1] = sm, a[n + 1] = -1;
    IlpModel_addRow(m, floor(sum / 2), floor(sum / 2), n + 2, cols, a);
  }
  return m;
}

typedef struct {
  int calls;
  int cancel_after;
  atomic_int *cancel;
  double last_elapsed, max_between;
  bool saw_done;
} Watch;

static void watch(const IlpProgress *p, void *user) {
  Watch *w = user;
  w->calls++;
  if (p->elapsed - w->last_elapsed > w->max_between) w->max_between = p->elapsed - w->last_elapsed;
  w->last_elapsed = p->elapsed;
  if (strcmp(p->stage, "done") == 0) w->saw_done = true;
  if (w->cancel && w->calls == w->cancel_after) *w->cancel = 1;
}

/* The market-split instance with its warm start (x = 0, every row's rhs in its "+" slack). */
static IlpModel *Test_hardModel(double warm[50]) {
  IlpModel *m = market_split(5, 40, 7);
  for (int i = 0; i < 50; i++) warm[i] = 0;
  Rng g = {7};
  for (int i = 0; i < 5; i++) {
    double sum = 0;
    for (int j = 0; j < 40; j++) sum += Rng_below(&g, 100);
    warm[40 + 2 * i] = floor(sum / 2);
  }
  return m;
}

/* A work limit (simplex iterations + nodes) decides where the solve stops: the
 * same incumbent, bound and node count every run, whatever the machine's load. */
TEST(work_limit_gives_timeout_with_incumbent_and_progress) {
  double warm[50];
  IlpModel *m = Test_hardModel(warm);
  IlpResult r[2];
  for (int k = 0; k < 2; k++) {
    Watch w = {0};
    IlpOptions o;
    IlpOptions_init(&o);
    o.work_limit = 20000;
    o.warm_start = warm;
    o.progress = watch;
    o.user = &w;
    SpError err;
    CHECK_EQ(Ilp_solve(m, &o, &r[k], &err), SP_OK);
    CHECK_EQ(r[k].status, ILP_TIMEOUT);
    CHECK(r[k].work_limited);
    CHECK(r[k].work >= 20000);
    CHECK(r[k].has_bound);
    CHECK(r[k].warm_start_accepted);
    CHECK(r[k].has_solution);
    if (r[k].has_solution) CHECK(r[k].objective >= r[k].bound - 1e-6);
    CHECK(w.calls >= 1);
    CHECK(w.saw_done);
  }
  CHECK_EQ(r[0].objective, r[1].objective);
  CHECK_EQ(r[0].bound, r[1].bound);
  CHECK_EQ(r[0].nodes, r[1].nodes);
  CHECK_EQ(r[0].work, r[1].work);
  IlpResult_free(&r[0]);
  IlpResult_free(&r[1]);
  IlpModel_free(m);
}

/* The wall clock only stops a run, and the result says it was the clock: the
 * deadline is made to pass at the solver's poll point (testhook.h), not waited for. */
TEST(the_wall_clock_stop_is_a_timeout_not_a_work_limit) {
  double warm[50];
  IlpModel *m = Test_hardModel(warm);
  IlpOptions o;
  IlpOptions_init(&o);
  o.time_limit = 1000;
  o.warm_start = warm;
  IlpResult r;
  SpError err;
  Testhook_arm(TESTHOOK_DEADLINE, "ilp");
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  Testhook_arm(TESTHOOK_OFF, "");
  CHECK_EQ(r.status, ILP_TIMEOUT);
  CHECK(!r.work_limited);
  IlpResult_free(&r);
  IlpModel_free(m);
}

TEST(cancel_stops_the_solve) {
  IlpModel *m = market_split(5, 40, 11);
  atomic_int cancel = 0;
  Watch w = {.cancel_after = 3, .cancel = &cancel};
  IlpOptions o;
  IlpOptions_init(&o);
  o.time_limit = 20;
  o.progress = watch;
  o.progress_interval = 0.05;
  o.user = &w;
  o.cancel = &cancel;
  IlpResult r;
  SpError err;
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, ILP_CANCELLED);
  CHECK(r.seconds < 5);
  IlpResult_free(&r);
  /* cancelled before it starts */
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, ILP_CANCELLED);
  IlpResult_free(&r);
  IlpModel_free(m);
}

TEST(warm_start_is_checked_and_used) {
  IlpModel *m = knapsack();
  double good[4] = {1, 1, 0, 0}, bad[4] = {1, 1, 1, 0};
  IlpOptions o;
  IlpOptions_init(&o);
  CHECK_EQ(IlpModel_check(m, good, 1e-9), -1);
  CHECK_EQ(IlpModel_check(m, bad, 1e-9), 0);
  CHECK(fabs(IlpModel_objective(m, good) + 23) < 1e-9);
  o.warm_start = good;
  IlpResult r;
  SpError err;
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK(r.warm_start_accepted);
  CHECK_EQ(r.status, ILP_OPTIMAL);
  CHECK_EQ(llround(-r.objective), 23);
  IlpResult_free(&r);
  o.warm_start = bad;
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK(!r.warm_start_accepted);
  CHECK_HAS(r.message, "warm start rejected");
  CHECK_EQ(r.status, ILP_OPTIMAL);
  IlpResult_free(&r);
  IlpModel_free(m);
}

TEST(glpk_error_is_caught_not_aborted) {
  IlpModel *m = IlpModel_new();
  int x = IlpModel_addCol(m, ILP_BINARY, 0, 1, 1);
  IlpModel_addCol(m, ILP_BINARY, 0, 1, 1);
  int c[2] = {x, x};
  double a[2] = {1, 1};
  CHECK(IlpModel_addRow(m, 0, 1, 2, c, a) >= 0); /* a duplicate column: GLPK's error */
  int oob = 5;
  CHECK_EQ(IlpModel_addRow(m, 0, 1, 1, &oob, a), -1);
  IlpOptions o;
  IlpOptions_init(&o);
  IlpResult r;
  SpError err;
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_ERR_SOLVER);
  CHECK_HAS(err.text, "duplicate");
  CHECK_EQ(r.status, ILP_ERROR);
  CHECK(r.log == NULL && r.x == NULL); /* an error leaves nothing to free: callers return at once */
  IlpModel_free(m);
  /* GLPK still works in this thread afterwards */
  m = knapsack();
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, ILP_OPTIMAL);
  IlpResult_free(&r);
  IlpModel_free(m);
}

TEST(gap_stop_reports_feasible) {
  IlpModel *m = market_split(3, 24, 3);
  IlpOptions o;
  IlpOptions_init(&o);
  o.rel_gap = 1e9; /* any incumbent with a bound is good enough */
  o.time_limit = 10;
  IlpResult r;
  SpError err;
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  CHECK(r.status == ILP_FEASIBLE || r.status == ILP_OPTIMAL);
  CHECK(r.has_solution);
  IlpResult_free(&r);
  IlpModel_free(m);
}

/* n disjoint triangles: min sum x, x_a + x_b >= 1 on each edge. The root LP is
 * all halves (3n fractional columns, 1.5n); every integer solution costs 2n. */
static IlpModel *triangles(int n) {
  IlpModel *m = IlpModel_new();
  for (int t = 0; t < n; t++) {
    int a = IlpModel_addCol(m, ILP_BINARY, 0, 1, 1), b = IlpModel_addCol(m, ILP_BINARY, 0, 1, 1),
        c = IlpModel_addCol(m, ILP_BINARY, 0, 1, 1);
    const double one[2] = {1, 1};
    IlpModel_addRow(m, 1, ILP_INF, 2, (const int[]){a, b}, one);
    IlpModel_addRow(m, 1, ILP_INF, 2, (const int[]){b, c}, one);
    IlpModel_addRow(m, 1, ILP_INF, 2, (const int[]){a, c}, one);
  }
  return m;
}

/* Where GLPK's branching heuristic would run long without a callback (a tableau
 * row per fractional column: 2,100 at the root here, over ILP_BRANCH_SECONDS from
 * about 1,700), the wrapper picks the column itself, the same way every run; a
 * small model keeps GLPK's heuristic. */
TEST(a_wide_fractional_node_is_branched_without_glpk_heuristic) {
  IlpModel *small = triangles(2), *wide = triangles(700);
  IlpOptions o;
  IlpOptions_init(&o);
  IlpResult r[2];
  SpError err;
  CHECK_EQ(Ilp_solve(small, &o, &r[0], &err), SP_OK);
  CHECK_EQ(r[0].status, ILP_OPTIMAL);
  CHECK_EQ(r[0].objective, 4);
  CHECK_EQ(r[0].branch_picks, 0);
  IlpResult_free(&r[0]);
  o.work_limit = 3800; /* the root LP takes 3,500 */
  for (int k = 0; k < 2; k++) {
    CHECK_EQ(Ilp_solve(wide, &o, &r[k], &err), SP_OK);
    CHECK_EQ(r[k].status, ILP_TIMEOUT);
    CHECK(r[k].work_limited);
    CHECK(r[k].nodes > 1);
    /* at the root and below until under about 1,700 are left: then GLPK's own */
    CHECK(r[k].branch_picks > 0 && 2 * r[k].branch_picks < r[k].nodes);
    CHECK(r[k].has_bound && r[k].bound >= 1050);
    if (r[k].has_solution) CHECK(r[k].objective >= 1400 - 1e-9);
  }
  CHECK_EQ(r[0].nodes, r[1].nodes);
  CHECK_EQ(r[0].work, r[1].work);
  CHECK_EQ(r[0].branch_picks, r[1].branch_picks);
  IlpResult_free(&r[0]);
  IlpResult_free(&r[1]);
  IlpModel_free(small);
  IlpModel_free(wide);
}

/* The branching stage polls the clock and the cancel flag: the deadline made to
 * pass there (testhook.h) stops the solve at its first branching, before any
 * column is picked. */
TEST(branching_notices_the_deadline) {
  IlpModel *m = triangles(700);
  IlpOptions o;
  IlpOptions_init(&o);
  o.time_limit = 1000;
  o.work_limit = 3800; /* without the poll: a work-limited stop, deep in the tree */
  IlpResult r;
  SpError err;
  Testhook_arm(TESTHOOK_DEADLINE, "ilp.branch");
  CHECK_EQ(Ilp_solve(m, &o, &r, &err), SP_OK);
  Testhook_arm(TESTHOOK_OFF, "");
  CHECK_EQ(r.status, ILP_TIMEOUT);
  CHECK(!r.work_limited);
  CHECK_EQ(r.nodes, 1);
  CHECK_EQ(r.branch_picks, 0);
  CHECK(r.has_bound && r.bound == 1050);
  IlpResult_free(&r);
  IlpModel_free(m);
}

TEST_MAIN("ilp", T(knapsack_is_solved_to_optimality), T(priority_keeps_the_optimum), T(infeasible_model_is_reported),
          T(work_limit_gives_timeout_with_incumbent_and_progress), T(the_wall_clock_stop_is_a_timeout_not_a_work_limit), T(cancel_stops_the_solve),
          T(warm_start_is_checked_and_used), T(glpk_error_is_caught_not_aborted), T(gap_stop_reports_feasible),
          T(a_wide_fractional_node_is_branched_without_glpk_heuristic), T(branching_notices_the_deadline))

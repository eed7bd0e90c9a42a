/* The exact M_P search under its limits: a byte cap, a time limit and a cancel
 * flag each stop it with "not proven" and the best order found, which mpmf then
 * uses (it used to fail). */
#include <stdatomic.h>

#include "figures.h"
#include "randnet.h"
#include "solve.h"
#include "order_check.h"
#include "test.h"
#include "validate.h"


/* A stopped search: its order is valid, reaches the peak it reports, and the
 * proven bound is below it and at most the exact M_P. */
static void check_stopped(const Net *net, Status st, const int *order, const MinPeakResult *r, int64_t exact,
                          const char *what) {
  if (st != SP_ERR_LIMIT && st != SP_ERR_CANCELLED) return;
  CHECK(Test_isTopological(net, order));
  CHECK_EQ(Figures_peak(net, false, order, NULL), r->peak);
  CHECK(r->peak >= exact);
  CHECK(r->lower_bound <= exact);
  if (r->peak < exact || r->lower_bound > exact) printf("  %s on %s: wrong bounds\n", what, net->name);
}

TEST(byte_cap_time_limit_and_cancel_stop_with_the_best_order) {
  int limited_bytes = 0, limited_time = 0, cancelled = 0;
  for (uint64_t seed = 1; seed <= 12; seed++) {
    Net *net = RandNet_make(seed, 40, false);
    CHECK(net != NULL);
    if (!net) continue;
    int *order = malloc(sizeof(int) * (size_t)net->nops);
    MinPeakOptions o;
    MinPeakResult r;
    SpError err;
    MinPeakOptions_init(&o);
    CHECK_EQ(Figures_minPeak(net, false, &o, order, &r, &err), SP_OK);
    int64_t exact = r.peak;
    bool trivial = r.states == 0; /* a known schedule was proven optimal without searching */

    MinPeakOptions_init(&o);
    o.max_bytes = 1; /* nothing fits: stops at the root */
    Status st = Figures_minPeak(net, false, &o, order, &r, &err);
    CHECK(st == SP_OK || st == SP_ERR_LIMIT);
    if (st == SP_ERR_LIMIT) {
      limited_bytes++;
      CHECK_HAS(err.text, "not proven");
    } else {
      CHECK(trivial);
    }
    check_stopped(net, st, order, &r, exact, "byte cap");

    MinPeakOptions_init(&o);
    o.time_limit = 1e-9;
    st = Figures_minPeak(net, false, &o, order, &r, &err);
    CHECK(st == SP_OK || st == SP_ERR_LIMIT);
    limited_time += st == SP_ERR_LIMIT;
    check_stopped(net, st, order, &r, exact, "time limit");

    atomic_int stop = 1;
    MinPeakOptions_init(&o);
    o.cancel = &stop;
    st = Figures_minPeak(net, false, &o, order, &r, &err);
    CHECK(st == SP_OK || st == SP_ERR_CANCELLED);
    cancelled += st == SP_ERR_CANCELLED;
    check_stopped(net, st, order, &r, exact, "cancel");
    free(order);
    Net_free(net);
  }
  CHECK(limited_bytes > 0);
  CHECK(limited_time > 0);
  CHECK(cancelled > 0);
}

/* The byte cap bounds what the search holds: with 256 KiB it stops, it does not grow. */
TEST(byte_cap_bounds_the_states) {
  Net *net = RandNet_make(69, 60, false); /* about 11,500 states without a cap */
  CHECK(net != NULL);
  if (!net) return;
  int *order = malloc(sizeof(int) * (size_t)net->nops);
  MinPeakOptions o;
  MinPeakOptions_init(&o);
  o.max_bytes = (size_t)256 << 10;
  MinPeakResult r;
  SpError err;
  Status st = Figures_minPeak(net, false, &o, order, &r, &err);
  CHECK_EQ(st, SP_ERR_LIMIT);
  CHECK_HAS(err.text, "memory cap");
  CHECK(r.states > 0);
  /* a state holds at least its bitset (1 word here) and its State record (40+ bytes) */
  CHECK((double)r.states * (8 + 40) <= (double)o.max_bytes);
  CHECK(Test_isTopological(net, order));
  free(order);
  Net_free(net);
}

/* mpmf whose search is stopped uses the best order found, says so, and the plan is valid. */
TEST(mpmf_uses_the_best_order_when_not_proven) {
  int notes = 0;
  for (uint64_t seed = 1; seed <= 12; seed++) {
    Net *net = RandNet_make(seed, 40, false);
    CHECK(net != NULL);
    if (!net) continue;
    SolveSettings s;
    SolveSettings_init(&s);
    s.schedule = "mpmf";
    s.budget = Figures_minRequired(net, false);
    s.time_limit = 1e-9;
    Plan *plan = NULL;
    SpError err = {0};
    Status st = Solve_run(net, &s, &plan, &err);
    if (st) printf("  seed %d: %s\n", (int)seed, err.text);
    CHECK_EQ(st, SP_OK);
    if (plan) {
      ValidateReport rep;
      CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
      ValidateReport_free(&rep);
      if (plan->solver.note[0]) {
        notes++;
        CHECK_HAS(plan->solver.note, "not proven");
      }
      Plan_free(plan);
    }
    Net_free(net);
  }
  CHECK(notes > 0);
}

TEST_MAIN("minpeak_limits", T(byte_cap_time_limit_and_cancel_stop_with_the_best_order), T(byte_cap_bounds_the_states),
          T(mpmf_uses_the_best_order_when_not_proven))

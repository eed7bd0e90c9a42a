/* The validator rejects hand-broken plans, one case per rule of the plan
 * format: each starts from a valid engine plan, breaks one thing in a copy, and
 * expects SP_ERR_FORMAT with a report line saying what broke. Also the plan
 * JSON round trip and Plan_parse's errors, and the validator's recomputed
 * metrics agreeing with the engine's on valid plans. */
#include <stdbool.h>
#include <string.h>

#include "bundled.h"
#include "figures.h"
#include "plan.h"
#include "policy.h"
#include "solve.h"
#include "combos.h"
#include "test.h"
#include "validate.h"

/* x (input, 1024) and w (param, 512) -> op0 -> a -> op1 -> y (output). */
static const char *with_param =
    "{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"wp\",\"tensors\":["
    "{\"name\":\"x\",\"shape\":[1024],\"kind\":\"input\"},{\"name\":\"w\",\"shape\":[512],\"kind\":\"param\"},"
    "{\"name\":\"a\",\"shape\":[1024]},{\"name\":\"y\",\"shape\":[1024],\"kind\":\"output\"}],\"ops\":["
    "{\"name\":\"op0\",\"type\":\"mul\",\"inputs\":[\"x\",\"w\"],\"outputs\":[\"a\"]},"
    "{\"name\":\"op1\",\"type\":\"relu\",\"inputs\":[\"a\"],\"outputs\":[\"y\"]}]}";

static Plan *solve(const Net *net, bool params, int64_t budget) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.params = params;
  s.budget = budget;
  Plan *plan = NULL;
  SpError err = {0};
  if (Solve_run(net, &s, &plan, &err)) printf("  solve: %s\n", err.text);
  return plan;
}

static char *dup_str(const char *s) {
  char *d = malloc(strlen(s) + 1);
  if (d) strcpy(d, s);
  return d;
}

/* A deep copy, so a case breaks its own plan and never the one it came from. */
static Plan *clone(const Net *net, const Plan *src) {
  Plan *p = Plan_new(net, src->params, src->budget);
  if (!p) return NULL;
  Plan_setPolicies(p, src->schedule_policy, src->replacement_policy, src->allocator_policy);
  free(p->network);
  p->network = dup_str(src->network);
  free(p->order);
  p->order = malloc(sizeof(int) * (size_t)src->nsteps);
  if (!p->network || !p->order) {
    Plan_free(p);
    return NULL;
  }
  memcpy(p->order, src->order, sizeof(int) * (size_t)src->nsteps);
  p->nsteps = src->nsteps;
  for (int i = 0; i < src->nstays; i++) Plan_addStay(p, src->stays[i]);
  p->metrics = src->metrics;
  p->solver = src->solver;
  return p;
}

/* One case: a network, a valid engine plan for it, and the copy to break. */
typedef struct {
  Net *net;
  Plan *valid, *plan;
} Case;

static bool Case_open(Case *c, Net *net, bool params, int64_t budget) {
  memset(c, 0, sizeof *c);
  c->net = net;
  CHECK(net != NULL);
  if (!net) return false;
  c->valid = solve(net, params, budget);
  CHECK(c->valid != NULL);
  if (!c->valid) return false;
  ValidateReport r;
  CHECK_EQ(Validate_plan(net, c->valid, &r), SP_OK); /* the starting point really is valid */
  CHECK_EQ(r.count, 0);
  ValidateReport_free(&r);
  c->plan = clone(net, c->valid);
  return c->plan != NULL;
}

static void Case_close(Case *c) {
  Plan_free(c->plan);
  Plan_free(c->valid);
  Net_free(c->net);
}

/* fig1 (a0 input; a1..a5 activations; a6 output; op aN makes aN, at step N-1 in
 * the default order) with room for everything: one stay per tensor, no spills. */
static bool roomy(Case *c) { return Case_open(c, Bundled_load("fig1"), false, 64 * 1024); }
/* fig1 at M_R (12 KiB): a2 is spilled and retrieved, a0 dropped and retrieved. */
static bool tight(Case *c) { return Case_open(c, Bundled_load("fig1"), false, 12 * 1024); }

/* The k-th stay (0-based, in plan order) of a tensor, or NULL. */
static Stay *stay_of(const Case *c, const char *tensor, int k) {
  int t = Net_findTensor(c->net, tensor), seen = 0;
  for (int i = 0; i < c->plan->nstays; i++)
    if (c->plan->stays[i].tensor == t && seen++ == k) return &c->plan->stays[i];
  printf("  no stay %d of \"%s\"\n", k, tensor);
  return NULL;
}

static void remove_stay(Plan *p, const Stay *s) {
  int i = (int)(s - p->stays);
  memmove(&p->stays[i], &p->stays[i + 1], sizeof(Stay) * (size_t)(p->nstays - i - 1));
  p->nstays--;
}

/* The plan is rejected and some report line contains `words`; prints the report
 * otherwise. */
static bool rejected_with(const Net *net, const Plan *p, const char *words) {
  ValidateReport r;
  Status st = Validate_plan(net, p, &r);
  bool found = false;
  for (int i = 0; i < r.nlines; i++) found |= strstr(r.lines[i], words) != NULL;
  bool ok = st == SP_ERR_FORMAT && r.count >= 1 && r.nlines >= 1 && found;
  if (!ok) {
    printf("  wanted a line with \"%s\"; status %d, %d violations:\n", words, st, r.count);
    for (int i = 0; i < r.nlines; i++) printf("    %s\n", r.lines[i]);
  }
  ValidateReport_free(&r);
  return ok;
}
#define EXPECT_REJECTED(c, words) CHECK(rejected_with((c)->net, (c)->plan, (words)))

/* ---- the schedule ---- */

TEST(schedule_duplicate_op) {
  Case c;
  if (roomy(&c)) {
    c.plan->order[1] = c.plan->order[0];
    EXPECT_REJECTED(&c, "schedule[1]: op \"a1\" already runs at step 0");
    EXPECT_REJECTED(&c, "op \"a2\" never runs");
    /* nothing else means anything without a schedule: no metrics claimed */
    ValidateReport r;
    Validate_plan(c.net, c.plan, &r);
    CHECK(!r.metrics_known);
    ValidateReport_free(&r);
  }
  Case_close(&c);
}

TEST(schedule_missing_op) {
  Case c;
  if (roomy(&c)) {
    c.plan->nsteps = 5; /* the last op, a6, dropped from the schedule */
    EXPECT_REJECTED(&c, "schedule: op \"a6\" never runs");
    c.plan->nsteps = 6;
    c.plan->order[2] = 99;
    EXPECT_REJECTED(&c, "schedule[2]: not an op of the network");
  }
  Case_close(&c);
}

TEST(schedule_not_topological) {
  Case c;
  if (roomy(&c)) {
    int tmp = c.plan->order[0]; /* a2 (reads a1) now runs before a1 */
    c.plan->order[0] = c.plan->order[1];
    c.plan->order[1] = tmp;
    EXPECT_REJECTED(&c, "op \"a2\" reads \"a1\" before op \"a1\" makes it");
  }
  Case_close(&c);
}

/* ---- coverage ---- */

TEST(input_not_covered) {
  Case c;
  if (roomy(&c)) {
    Stay *a0 = stay_of(&c, "a0", 0); /* read at steps 0 and 5 */
    CHECK(a0 && a0->end == 5);
    if (a0) a0->end = 4;
    EXPECT_REJECTED(&c, "step 5: op \"a6\" reads \"a0\", which is not in the scratchpad then");
  }
  Case_close(&c);
}

TEST(output_not_created) {
  Case c;
  if (roomy(&c)) {
    Stay *a3 = stay_of(&c, "a3", 0);
    if (a3) remove_stay(c.plan, a3);
    EXPECT_REJECTED(&c, "step 2: op \"a3\" makes \"a3\", but no placement creates it at that step");
    Stay *a6 = stay_of(&c, "a6", 0);
    if (a6) remove_stay(c.plan, a6);
    EXPECT_REJECTED(&c, "output \"a6\" never reaches host memory (no placement)");
  }
  Case_close(&c);
}

TEST(created_at_wrong_step) {
  Case c;
  if (roomy(&c)) {
    Stay *a3 = stay_of(&c, "a3", 0); /* made at step 2; now claims step 1 (its space is free then) */
    CHECK(a3 && a3->start == 2);
    if (a3) a3->start = 1;
    EXPECT_REJECTED(&c, "\"a3\" is created at step 1, but its producer \"a3\" runs at step 2");
    EXPECT_REJECTED(&c, "op \"a3\" makes \"a3\", but no placement creates it at that step");
  }
  Case_close(&c);
}

TEST(created_twice) {
  Case c;
  if (roomy(&c)) {
    Stay *a3 = stay_of(&c, "a3", 0);
    if (a3) Plan_addStay(c.plan, (Stay){a3->tensor, 40000, 3, 3, STAY_CREATE, STAY_FREE});
    EXPECT_REJECTED(&c, "\"a3\" is created twice or after another stay");
  }
  Case_close(&c);
}

TEST(wrong_way_in) {
  Case c;
  if (roomy(&c)) {
    Stay *a1 = stay_of(&c, "a1", 0), *a0 = stay_of(&c, "a0", 0);
    if (a1) a1->in = STAY_LOAD;
    if (a0) a0->in = STAY_CREATE;
    EXPECT_REJECTED(&c, "\"a1\" is made by an op; only inputs/params are loaded");
    EXPECT_REJECTED(&c, "\"a0\" is a graph input; it is loaded, not created");
  }
  Case_close(&c);
  /* a0 is dropped and brought back: the second time is a retrieve, not a load */
  if (tight(&c)) {
    Stay *back = stay_of(&c, "a0", 1);
    CHECK(back && back->in == STAY_RETRIEVE);
    if (back) back->in = STAY_LOAD;
    EXPECT_REJECTED(&c, "\"a0\" is loaded again; later loads are retrievals");
  }
  Case_close(&c);
}

/* ---- time and space ---- */

TEST(stays_overlap_in_time) {
  Case c;
  if (roomy(&c)) {
    /* a second copy of a0 over steps 3..4 while the first is still resident
     * (placed where nothing else is, so only the time rule fires) */
    int a0 = Net_findTensor(c.net, "a0");
    Plan_addStay(c.plan, (Stay){a0, 32768, 3, 4, STAY_RETRIEVE, STAY_DROP});
    EXPECT_REJECTED(&c, "\"a0\" steps 3..4 overlap another stay of it");
  }
  Case_close(&c);
}

TEST(address_overlap) {
  Case c;
  if (roomy(&c)) {
    Stay *a1 = stay_of(&c, "a1", 0), *a2 = stay_of(&c, "a2", 0); /* both resident at steps 1 and 2 */
    CHECK(a1 && a2 && a1->offset == 4096);
    if (a1 && a2) a2->offset = a1->offset;
    EXPECT_REJECTED(&c, "step 1: \"a2\" [4096, 8192) overlaps \"a1\" [4096, 12288) in the scratchpad");
    EXPECT_REJECTED(&c, "in the scratchpad (through step 2)"); /* one line per pair, from its first step */
  }
  Case_close(&c);
}

TEST(beyond_budget) {
  Case c;
  if (roomy(&c)) {
    Stay *a3 = stay_of(&c, "a3", 0); /* 2048 bytes */
    if (a3) a3->offset = 64 * 1024 - 2048 + 1;
    EXPECT_REJECTED(&c, "\"a3\" at [63489, 65537) lies outside [0, budget 65536)");
    if (a3) a3->offset = 64 * 1024 - 2048; /* flush with the end is fine */
    ValidateReport r;
    Validate_plan(c.net, c.plan, &r);
    for (int i = 0; i < r.nlines; i++) CHECK(strstr(r.lines[i], "lies outside") == NULL);
    ValidateReport_free(&r);
  }
  Case_close(&c);
  /* the same through the budget: the plan's footprint is 18432 */
  if (roomy(&c)) {
    c.plan->budget = 18431;
    EXPECT_REJECTED(&c, "\"a3\" at [16384, 18432) lies outside [0, budget 18431)");
  }
  Case_close(&c);
}

TEST(negative_offset) {
  Case c;
  if (roomy(&c)) {
    Stay *a0 = stay_of(&c, "a0", 0);
    if (a0) a0->offset = -1;
    EXPECT_REJECTED(&c, "\"a0\" at [-1, 4095) lies outside [0, budget 65536)");
  }
  Case_close(&c);
}

TEST(negative_budget) {
  Case c;
  if (roomy(&c)) {
    c.plan->budget = -1;
    EXPECT_REJECTED(&c, "budget: -1 is negative");
  }
  Case_close(&c);
}

TEST(bad_step_range) {
  Case c;
  if (roomy(&c)) {
    Stay *a4 = stay_of(&c, "a4", 0); /* steps 3..4 */
    if (a4) a4->start = 4, a4->end = 3;
    EXPECT_REJECTED(&c, "\"a4\" steps 4..3 are not a range inside 0..5");
  }
  Case_close(&c);
  if (roomy(&c)) {
    Stay *a6 = stay_of(&c, "a6", 0); /* steps 5..5, the last step */
    if (a6) a6->end = 6;
    EXPECT_REJECTED(&c, "\"a6\" steps 5..6 are not a range inside 0..5");
    if (a6) a6->end = 5, a6->start = -1;
    EXPECT_REJECTED(&c, "\"a6\" steps -1..5 are not a range inside 0..5");
  }
  Case_close(&c);
}

/* ---- host copies: retrieve, spill, drop, store, free ---- */

TEST(retrieve_without_host_copy) {
  Case c;
  if (tight(&c)) {
    Stay *made = stay_of(&c, "a2", 0), *back = stay_of(&c, "a2", 1);
    CHECK(made && made->out == STAY_SPILL);
    CHECK(back && back->in == STAY_RETRIEVE);
    if (made && back) {
      made->out = STAY_FREE; /* never copied out, yet brought back */
      char words[128];
      snprintf(words, sizeof words, "\"a2\" is retrieved at step %d, but the host has no copy of it", back->start);
      EXPECT_REJECTED(&c, words);
    }
  }
  Case_close(&c);
}

TEST(retrieve_as_first_stay) {
  /* The host has every input, but its first trip on chip is the compulsory load. */
  Case c;
  if (roomy(&c)) {
    Stay *a0 = stay_of(&c, "a0", 0);
    CHECK(a0 && a0->in == STAY_LOAD);
    if (a0) a0->in = STAY_RETRIEVE;
    EXPECT_REJECTED(&c, "\"a0\" is retrieved before it was ever loaded");
  }
  Case_close(&c);
}

TEST(spill_with_host_copy) {
  Case c;
  if (roomy(&c)) {
    Stay *a0 = stay_of(&c, "a0", 0); /* a graph input: the host has it from the start */
    if (a0) a0->out = STAY_SPILL;
    EXPECT_REJECTED(&c, "\"a0\" is spilled after step 5, but the host already has a copy");
  }
  Case_close(&c);
  /* a second spill of one tensor: the first made the host copy */
  if (tight(&c)) {
    Stay *back = stay_of(&c, "a2", 1);
    if (back) {
      back->out = STAY_SPILL;
      char words[128];
      snprintf(words, sizeof words, "\"a2\" is spilled after step %d, but the host already has a copy", back->end);
      EXPECT_REJECTED(&c, words);
    }
  }
  Case_close(&c);
}

TEST(drop_without_host_copy) {
  Case c;
  if (roomy(&c)) {
    Stay *a1 = stay_of(&c, "a1", 0);
    if (a1) a1->out = STAY_DROP;
    EXPECT_REJECTED(&c, "\"a1\" is dropped after step 2 without a host copy");
  }
  Case_close(&c);
}

TEST(store_of_non_output) {
  Case c;
  if (roomy(&c)) {
    Stay *a5 = stay_of(&c, "a5", 0);
    if (a5) a5->out = STAY_STORE;
    EXPECT_REJECTED(&c, "\"a5\" is stored, but only outputs are stored");
  }
  Case_close(&c);
}

TEST(output_never_reaches_host) {
  Case c;
  if (roomy(&c)) {
    Stay *a6 = stay_of(&c, "a6", 0);
    CHECK(a6 && a6->out == STAY_STORE);
    if (a6) a6->out = STAY_FREE;
    EXPECT_REJECTED(&c, "output \"a6\" never reaches host memory (no store or spill)");
  }
  Case_close(&c);
}

TEST(free_while_used_later) {
  Case c;
  if (roomy(&c)) {
    Stay *a1 = stay_of(&c, "a1", 0); /* read at steps 1 and 2 */
    if (a1) a1->end = 1;
    EXPECT_REJECTED(&c, "\"a1\" is freed after step 1 but used again at step 2");
  }
  Case_close(&c);
}

TEST(param_with_params_off) {
  Case c;
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(with_param, strlen(with_param), "wp.json", &net, &err), SP_OK);
  if (Case_open(&c, net, false, 8192)) {
    int w = Net_findTensor(c.net, "w");
    for (int i = 0; i < c.plan->nstays; i++) CHECK(c.plan->stays[i].tensor != w); /* params ignored */
    Plan_addStay(c.plan, (Stay){w, 6144, 0, 0, STAY_LOAD, STAY_DROP});
    EXPECT_REJECTED(&c, "\"w\" is a param, but the plan has params off");
    /* the same stay is fine once the plan holds params: only the metrics (which
     * now count w) disagree */
    c.plan->params = true;
    ValidateReport r;
    Validate_plan(c.net, c.plan, &r);
    CHECK(r.nlines >= 1);
    for (int i = 0; i < r.nlines; i++) CHECK_HAS(r.lines[i], "metrics.");
    ValidateReport_free(&r);
  }
  Case_close(&c);
}

TEST(param_missing_with_params_on) {
  Case c;
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(with_param, strlen(with_param), "wp.json", &net, &err), SP_OK);
  if (Case_open(&c, net, true, 8192)) {
    Stay *w = stay_of(&c, "w", 0);
    CHECK(w != NULL); /* with params on, the engine places it */
    if (w) remove_stay(c.plan, w);
    EXPECT_REJECTED(&c, "step 0: op \"op0\" reads \"w\", which is not in the scratchpad then");
  }
  Case_close(&c);
}

/* ---- metrics and header ---- */

TEST(each_metric_wrong) {
  static const char *const what[6] = {
    "metrics.noncompulsory_bytes is", "metrics.compulsory_bytes is", "metrics.peak_bytes is",
    "metrics.footprint_bytes is",     "metrics.spills is",           "metrics.retrievals is",
  };
  for (int k = 0; k < 6; k++) {
    Case c;
    if (tight(&c)) { /* spills and retrievals are non-zero here, so -1 stays sensible */
      Metrics *m = &c.plan->metrics;
      switch (k) {
      case 0: m->noncompulsory_bytes += 1; break;
      case 1: m->compulsory_bytes -= 1; break;
      case 2: m->peak_bytes += 1; break;
      case 3: m->footprint_bytes -= 1; break;
      case 4: m->spills += 1; break;
      case 5: m->retrievals -= 1; break;
      }
      EXPECT_REJECTED(&c, what[k]);
      ValidateReport r; /* exactly that one complaint */
      Validate_plan(c.net, c.plan, &r);
      CHECK_EQ(r.count, 1);
      ValidateReport_free(&r);
    }
    Case_close(&c);
  }
}

TEST(network_name_mismatch) {
  Case c;
  if (roomy(&c)) {
    free(c.plan->network);
    c.plan->network = dup_str("fig2");
    EXPECT_REJECTED(&c, "network: plan is for \"fig2\", the network is \"fig1\"");
  }
  Case_close(&c);
}

TEST(every_violation_counted) {
  Case c;
  if (roomy(&c)) {
    Stay *a1 = stay_of(&c, "a1", 0), *a5 = stay_of(&c, "a5", 0);
    if (a1) a1->out = STAY_DROP;
    if (a5) a5->out = STAY_STORE;
    c.plan->metrics.spills = 7;
    ValidateReport r;
    CHECK_EQ(Validate_plan(c.net, c.plan, &r), SP_ERR_FORMAT);
    CHECK_EQ(r.count, 3);
    CHECK_EQ(r.nlines, 3);
    ValidateReport_free(&r);
    /* the copy was broken, the original was not */
    CHECK_EQ(Validate_plan(c.net, c.valid, &r), SP_OK);
    ValidateReport_free(&r);
  }
  Case_close(&c);
}

/* ---- plan JSON ---- */

static void check_same_plan(const Plan *a, const Plan *b) {
  CHECK_HAS(a->network, b->network);
  CHECK_EQ(strlen(a->network), strlen(b->network));
  CHECK_EQ(a->params, b->params);
  CHECK_EQ(a->budget, b->budget);
  CHECK(strcmp(a->schedule_policy, b->schedule_policy) == 0);
  CHECK(strcmp(a->replacement_policy, b->replacement_policy) == 0);
  CHECK(strcmp(a->allocator_policy, b->allocator_policy) == 0);
  CHECK_EQ(a->nsteps, b->nsteps);
  if (a->nsteps == b->nsteps) CHECK(memcmp(a->order, b->order, sizeof(int) * (size_t)a->nsteps) == 0);
  CHECK_EQ(a->nstays, b->nstays);
  for (int i = 0; i < a->nstays && i < b->nstays; i++) {
    const Stay *x = &a->stays[i], *y = &b->stays[i];
    CHECK(x->tensor == y->tensor && x->offset == y->offset && x->start == y->start && x->end == y->end &&
          x->in == y->in && x->out == y->out);
  }
  CHECK(memcmp(&a->metrics, &b->metrics, sizeof(Metrics)) == 0);
  CHECK_EQ(a->solver.status, b->solver.status);
  CHECK_EQ(a->solver.has_objective, b->solver.has_objective);
  CHECK(a->solver.objective == b->solver.objective);
  /* cJSON writes 15 significant digits when it judges them enough: seconds comes
   * back within rounding, not bit for bit */
  double ds = a->solver.seconds - b->solver.seconds;
  CHECK(ds <= 1e-12 * a->solver.seconds && -ds <= 1e-12 * a->solver.seconds);
}

static void round_trip(Net *net, bool params, int64_t budget) {
  Case c;
  if (Case_open(&c, net, params, budget)) {
    char *text = Plan_toJSON(c.valid, c.net);
    CHECK(text != NULL);
    Plan *back = NULL;
    SpError err = {0};
    Status st = text ? Plan_parse(text, strlen(text), "plan.json", c.net, &back, &err) : SP_ERR_NOMEM;
    if (st) printf("  %s\n", err.text);
    CHECK_EQ(st, SP_OK);
    if (back) {
      check_same_plan(c.valid, back);
      ValidateReport r;
      CHECK_EQ(Validate_plan(c.net, back, &r), SP_OK);
      ValidateReport_free(&r);
      char *again = Plan_toJSON(back, c.net); /* and it writes the same text again */
      CHECK(again && strcmp(text, again) == 0);
      free(again);
    }
    Plan_free(back);
    free(text);
  }
  Case_close(&c);
}

TEST(json_round_trip) {
  round_trip(Bundled_load("fig1"), false, 12 * 1024); /* spill, retrieve, drop, store */
  round_trip(Bundled_load("fig1"), false, 64 * 1024);
  round_trip(Bundled_load("diamond"), false, 16 * 1024);
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(with_param, strlen(with_param), "wp.json", &net, &err), SP_OK);
  round_trip(net, true, 3584); /* params on, at M_R */
}

/* A valid hand-written plan for fig1 (the roomy layout), one key per line group. */
static const char *const FIG1_PLAN =
    "{\"format\": \"spadmap-plan\", \"version\": 1,\n"
    " \"network\": \"fig1\", \"params\": false, \"budget\": 65536,\n"
    " \"schedule\": [\"a1\", \"a2\", \"a3\", \"a4\", \"a5\", \"a6\"],\n"
    " \"placements\": [\n"
    "  {\"tensor\": \"a0\", \"offset\": 0, \"start\": 0, \"end\": 5, \"in\": \"load\", \"out\": \"free\"},\n"
    "  {\"tensor\": \"a1\", \"offset\": 4096, \"start\": 0, \"end\": 2, \"in\": \"create\", \"out\": \"free\"},\n"
    "  {\"tensor\": \"a2\", \"offset\": 12288, \"start\": 1, \"end\": 3, \"in\": \"create\", \"out\": \"free\"},\n"
    "  {\"tensor\": \"a3\", \"offset\": 16384, \"start\": 2, \"end\": 4, \"in\": \"create\", \"out\": \"free\"},\n"
    "  {\"tensor\": \"a4\", \"offset\": 4096, \"start\": 3, \"end\": 4, \"in\": \"create\", \"out\": \"free\"},\n"
    "  {\"tensor\": \"a5\", \"offset\": 8192, \"start\": 4, \"end\": 5, \"in\": \"create\", \"out\": \"free\"},\n"
    "  {\"tensor\": \"a6\", \"offset\": 4096, \"start\": 5, \"end\": 5, \"in\": \"create\", \"out\": \"store\"}],\n"
    " \"metrics\": {\"noncompulsory_bytes\": 0, \"compulsory_bytes\": 6144, \"peak_bytes\": 18432,\n"
    "             \"footprint_bytes\": 18432, \"spills\": 0, \"retrievals\": 0}}\n";

/* FIG1_PLAN with the first `from` replaced by `to`, parsed as "plan.json". */
static Status parse_edited(const Net *net, const char *from, const char *to, SpError *err) {
  char buf[4096];
  const char *at = strstr(FIG1_PLAN, from);
  CHECK(at != NULL);
  if (!at) return SP_OK;
  snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - FIG1_PLAN), FIG1_PLAN, to, at + strlen(from));
  Plan *p = (Plan *)1;
  memset(err, 0, sizeof *err);
  Status st = Plan_parse(buf, strlen(buf), "plan.json", net, &p, err);
  CHECK(st == SP_OK ? p != NULL : p == NULL);
  Plan_free(p);
  return st;
}

#define EXPECT_PARSE_ERR(net, from, to, code, where, what)                                \
  do {                                                                                    \
    SpError e_;                                                                           \
    CHECK_EQ(parse_edited((net), (from), (to), &e_), (code));                             \
    CHECK_HAS(e_.text, "plan.json");                                                      \
    CHECK_HAS(e_.text, (where));                                                          \
    CHECK_HAS(e_.text, (what));                                                           \
  } while (0)

TEST(hand_written_plan_validates) {
  Net *net = Bundled_load("fig1");
  if (!net) return;
  Plan *p = NULL;
  SpError err = {0};
  CHECK_EQ(Plan_parse(FIG1_PLAN, strlen(FIG1_PLAN), "plan.json", net, &p, &err), SP_OK);
  if (p) {
    ValidateReport r;
    CHECK_EQ(Validate_plan(net, p, &r), SP_OK);
    for (int i = 0; i < r.nlines; i++) printf("  %s\n", r.lines[i]);
    CHECK(r.metrics_known);
    CHECK_EQ(r.metrics.peak_bytes, 18432);
    CHECK_EQ(r.metrics.compulsory_bytes, 6144);
    CHECK_EQ(p->solver.status, SOLVER_NONE); /* no "solver" key */
    ValidateReport_free(&r);
  }
  Plan_free(p);
  Net_free(net);
}

TEST(plan_parse_errors) {
  Net *net = Bundled_load("fig1");
  if (!net) return;
  /* line 3 lacks a comma: ` "schedule": ["a1", "a2" "a3"` puts the `"` of "a3" at column 26 */
  EXPECT_PARSE_ERR(net, "\"a2\", \"a3\"", "\"a2\" \"a3\"", SP_ERR_SYNTAX, "plan.json:3:26:", "malformed JSON");
  /* cut inside "a4" on line 9: `  {"tensor": "a4` is 16 characters */
  Plan *p = (Plan *)1;
  SpError err;
  size_t cut = (size_t)(strstr(FIG1_PLAN, "\"tensor\": \"a4\"") - FIG1_PLAN) + strlen("\"tensor\": \"a4");
  CHECK_EQ(Plan_parse(FIG1_PLAN, cut, "plan.json", net, &p, &err), SP_ERR_SYNTAX);
  CHECK(p == NULL);
  CHECK_HAS(err.text, "plan.json:9:17:");
  CHECK_HAS(err.text, "end of file");
  EXPECT_PARSE_ERR(net, "\"tensor\": \"a1\"", "\"tensor\": \"zz\"", SP_ERR_FORMAT, "placements[1]",
                   "unknown tensor \"zz\"");
  EXPECT_PARSE_ERR(net, "\"in\": \"load\"", "\"in\": \"teleport\"", SP_ERR_FORMAT, "placements[0]",
                   "\"in\": unknown value \"teleport\"");
  EXPECT_PARSE_ERR(net, "\"out\": \"store\"", "\"out\": \"evaporate\"", SP_ERR_FORMAT, "placements[6]",
                   "\"out\": unknown value \"evaporate\"");
  EXPECT_PARSE_ERR(net, "\"a3\", \"a4\"", "\"a3\", \"b4\"", SP_ERR_FORMAT, "schedule[3]", "unknown op \"b4\"");
  EXPECT_PARSE_ERR(net, "\"offset\": 16384", "\"offset\": 1.5", SP_ERR_FORMAT, "placements[3]",
                   "\"offset\": expected an integer");
  EXPECT_PARSE_ERR(net, "\"start\": 4, \"end\": 5", "\"end\": 5", SP_ERR_FORMAT, "placements[5]",
                   "missing key \"start\"");
  EXPECT_PARSE_ERR(net, "spadmap-plan", "spadmap-network", SP_ERR_FORMAT, "format", "expected \"spadmap-plan\"");
  EXPECT_PARSE_ERR(net, "\"version\": 1", "\"version\": 2", SP_ERR_FORMAT, "version", "expected the integer 1");
  EXPECT_PARSE_ERR(net, "\"budget\": 65536", "\"budget\": -5", SP_ERR_FORMAT, "budget", "expected an integer >= 0");
  EXPECT_PARSE_ERR(net, "\"spills\": 0", "\"spills\": \"none\"", SP_ERR_FORMAT, "metrics", "\"spills\"");
  EXPECT_PARSE_ERR(net, "\"params\": false", "\"params\": 0", SP_ERR_FORMAT, "params", "expected true or false");
  Net_free(net);
}

/* ---- the validator's metrics agree with the engine's ---- */

enum { ALL = -1 }; /* a budget holding every tensor at once */

/* Every policy combination on one network at M_R + extra (or ALL): valid, and the
 * validator's metrics equal the plan's, field by field. */
static void check_metrics_agree(const char *name, bool params, int64_t extra, int *plans) {
  Net *net = Bundled_load(name);
  CHECK(net != NULL);
  if (!net) return;
  int64_t budget = Figures_minRequired(net, params) + extra;
  if (extra == ALL) {
    budget = 0;
    for (int t = 0; t < net->ntensors; t++) budget += net->tensors[t].bytes;
  }
  for (int si = 0; si < Policy_count(POLICY_SCHEDULE); si++)
    for (int ri = 0; ri < Policy_count(POLICY_REPLACEMENT); ri++)
      for (int ai = 0; ai < Policy_count(POLICY_ALLOCATOR); ai++) {
        SolveSettings s;
        Combo_settings(&s, params, budget, si, ri, ai);
        Plan *plan = NULL;
        SpError err = {0};
        Status st = Solve_run(net, &s, &plan, &err);
        CHECK_EQ(st, SP_OK);
        if (st) {
          printf("  %s: %s\n", name, err.text);
          continue;
        }
        ValidateReport r;
        Status vst = Validate_plan(net, plan, &r);
        CHECK_EQ(vst, SP_OK);
        CHECK(r.metrics_known);
        const Metrics *a = &r.metrics, *b = &plan->metrics;
        bool same = a->noncompulsory_bytes == b->noncompulsory_bytes && a->compulsory_bytes == b->compulsory_bytes &&
                    a->peak_bytes == b->peak_bytes && a->footprint_bytes == b->footprint_bytes &&
                    a->spills == b->spills && a->retrievals == b->retrievals;
        CHECK(same);
        if (vst || !same)
          printf("  %s params=%d budget=%lld %s/%s/%s: %s\n", name, params, (long long)s.budget, s.schedule,
                 s.replacement, s.allocator, r.nlines ? r.lines[0] : "metrics differ");
        if (extra == ALL) CHECK_EQ(b->noncompulsory_bytes, 0);
        ValidateReport_free(&r);
        Plan_free(plan);
        (*plans)++;
      }
  Net_free(net);
}

TEST(validator_metrics_match_engine) {
  /* M_R exactly, M_R plus an odd amount (no multiple of a tensor size), and room
   * for everything */
  static const struct {
    const char *name;
    int64_t extra;
  } cases[] = {
    {"fig1", 1000}, {"diamond", 3000}, {"skip", 1000}, {"chain", 777},
    {"alexnet", 100001}, {"squeezenet1_1", 300001}, {"mobilenet_v2", 500001},
  };
  int plans = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int params = 0; params < 2; params++) {
      check_metrics_agree(cases[i].name, params, 0, &plans);
      check_metrics_agree(cases[i].name, params, cases[i].extra, &plans);
      check_metrics_agree(cases[i].name, params, ALL, &plans);
    }
  int combos = Policy_count(POLICY_SCHEDULE) * Policy_count(POLICY_REPLACEMENT) * Policy_count(POLICY_ALLOCATOR);
  CHECK(combos >= 18);
  CHECK_EQ(plans, combos * 7 * 2 * 3);
}

TEST_MAIN("validator", T(schedule_duplicate_op), T(schedule_missing_op), T(schedule_not_topological),
          T(input_not_covered), T(output_not_created), T(created_at_wrong_step), T(created_twice), T(wrong_way_in),
          T(stays_overlap_in_time), T(address_overlap), T(beyond_budget), T(negative_offset), T(negative_budget),
          T(bad_step_range), T(retrieve_without_host_copy), T(retrieve_as_first_stay), T(spill_with_host_copy), T(drop_without_host_copy),
          T(store_of_non_output), T(output_never_reaches_host), T(free_while_used_later), T(param_with_params_off),
          T(param_missing_with_params_on), T(each_metric_wrong), T(network_name_mismatch),
          T(every_violation_counted), T(json_round_trip), T(hand_written_plan_validates), T(plan_parse_errors),
          T(validator_metrics_match_engine))

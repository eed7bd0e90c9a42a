/* COSMA's divide and conquer ("dnc"): the automatic break nodes form a chain and
 * keep segments within the cap where the graph allows it, --break-nodes errors,
 * and dnc plans on random DAGs and bundled networks pass the validator. */
#include <stdatomic.h>

#include "bundled.h"
#include "cosma/cosma.h"
#include "figures.h"
#include "policy.h"
#include "randnet.h"
#include "solve.h"
#include "test.h"
#include "validate.h"

static const char *const teaching[] = {"fig1", "diamond", "skip", "chain"};

/* anc[u * n + v]: u is v or one of its ancestors (computed here, independently of the engine). */
static unsigned char *ancestors(const Net *net) {
  int n = net->nops;
  unsigned char *anc = calloc((size_t)n * (size_t)n, 1);
  for (int v = 0; v < n; v++) {
    anc[(size_t)v * n + v] = 1;
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p < 0) continue;
      for (int u = 0; u < n; u++)
        if (anc[(size_t)u * n + p]) anc[(size_t)u * n + v] = 1;
    }
  }
  return anc;
}

static int count_anc(const unsigned char *anc, int n, int v) {
  int c = 0;
  for (int u = 0; u < n; u++) c += anc[(size_t)u * n + v];
  return c;
}

/* Every op reads only tensors made earlier in the order, and the order is a permutation. */
static bool is_schedule(const Net *net, const int *order) {
  int n = net->nops, *pos = malloc(sizeof(int) * (size_t)n);
  bool ok = true;
  for (int v = 0; v < n; v++) pos[v] = -1;
  for (int i = 0; i < n && ok; i++) {
    ok = order[i] >= 0 && order[i] < n && pos[order[i]] < 0;
    if (ok) pos[order[i]] = i;
  }
  for (int v = 0; v < n && ok; v++)
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p >= 0 && pos[p] > pos[v]) ok = false;
    }
  free(pos);
  return ok;
}

/* seg[v] for break nodes b (the first i with v an ancestor-or-self of b_i, else k). */
static void segments(const unsigned char *anc, int n, const int *b, int k, int *seg) {
  for (int v = 0; v < n; v++) {
    seg[v] = k;
    for (int i = k - 1; i >= 0; i--)
      if (anc[(size_t)v * n + b[i]]) seg[v] = i;
  }
}

/* Is there a strict descendant v of prev (any op if prev < 0) that leaves ops after
 * it and whose segment would have at most cap ops (cap < 0: any size)? */
static bool cut_exists(const unsigned char *anc, int n, int prev, int cap) {
  int covered = prev >= 0 ? count_anc(anc, n, prev) : 0;
  for (int v = 0; v < n; v++) {
    if (prev >= 0 && (v == prev || !anc[(size_t)prev * n + v])) continue;
    int a = count_anc(anc, n, v);
    if (a < n && (cap < 0 || a - covered <= cap)) return true;
  }
  return false;
}

/* Checks the automatic break nodes of net; returns their count (-1 on failure). */
static int check_breaks(const Net *net, int cap, bool verbose) {
  int n = net->nops, k = -1;
  int *b = malloc(sizeof(int) * (size_t)n), *seg = malloc(sizeof(int) * (size_t)n);
  int *order = calloc((size_t)n, sizeof(int)), *size = calloc((size_t)n + 1, sizeof(int));
  unsigned char *anc = ancestors(net);
  SpError err;
  CHECK_EQ(Cosma_breakNodes(net, false, cap, b, &k, &err), SP_OK);
  CHECK(k >= 0 && k < n);
  for (int i = 1; i < k; i++) CHECK(b[i] != b[i - 1] && anc[(size_t)b[i - 1] * n + b[i]]); /* a chain */
  segments(anc, n, b, k, seg);
  int at = 0;
  for (int i = 0; i <= k; i++)
    for (int v = 0; v < n; v++)
      if (seg[v] == i) order[at++] = v, size[i]++;
  CHECK(is_schedule(net, order)); /* the segments, concatenated, are a schedule */
  for (int i = 0; i < k; i++) {
    CHECK(size[i] > 0);
    if (size[i] > cap) CHECK(!cut_exists(anc, n, i ? b[i - 1] : -1, cap)); /* over the cap only if forced */
  }
  if (size[k] > cap) CHECK(!cut_exists(anc, n, k ? b[k - 1] : -1, -1)); /* stopped early only if no cut is left */
  if (verbose) {
    printf("  %s: %d break nodes, segments", net->name, k);
    for (int i = 0; i <= k; i++) printf(" %d", size[i]);
    printf("\n");
  }
  free(b), free(seg), free(order), free(size), free(anc);
  return k;
}

TEST(break_nodes_form_a_chain_on_teaching_graphs) {
  for (int i = 0; i < 4; i++) {
    Net *net = Bundled_load(teaching[i]);
    CHECK(net != NULL);
    if (!net) continue;
    for (int cap = 1; cap <= 7; cap++) check_breaks(net, cap, false);
    Net_free(net);
  }
  Net *chain = Bundled_load("chain"); /* 5 ops in a line: cap 2 cuts after c2 and c4 */
  if (chain) CHECK_EQ(check_breaks(chain, 2, false), 2);
  Net_free(chain);
}

TEST(break_nodes_form_a_chain_on_random_dags) {
  for (uint64_t seed = 1; seed <= 80; seed++) {
    Net *net = RandNet_make(seed, 8 + (int)(seed % 50), seed % 4 == 0);
    CHECK(net != NULL);
    if (!net) continue;
    check_breaks(net, 3 + (int)(seed % 12), false);
    Net_free(net);
  }
}

TEST(break_nodes_on_nas_networks) {
  static const char *const nets[] = {"nasnet_a", "darts", "pnasnet5", "amoebanet_d"};
  for (int i = 0; i < 4; i++) {
    Net *net = Bundled_load(nets[i]);
    if (!net) continue;
    CHECK(check_breaks(net, 60, true) >= net->nops / 60 - 1); /* 60: dnc's default */
    Net_free(net);
  }
  SpError err;
  int b[8], k;
  Net *net = Bundled_load("chain");
  if (net) CHECK_EQ(Cosma_breakNodes(net, false, 0, b, &k, &err), SP_ERR_ARG);
  Net_free(net);
}

static Status dnc_with(const Net *net, const char *breaks, double time_limit, bool paper, Plan **plan, SpError *err) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.schedule = "dnc";
  s.budget = Figures_minRequired(net, false);
  s.time_limit = time_limit;
  s.break_nodes = breaks;
  s.paper_model = paper;
  return Solve_run(net, &s, plan, err);
}

static Status dnc(const Net *net, const char *breaks, double time_limit, Plan **plan, SpError *err) {
  return dnc_with(net, breaks, time_limit, false, plan, err);
}

TEST(break_nodes_option_errors) {
  Net *net = Bundled_load("diamond");
  if (!net) return;
  static const struct {
    const char *breaks, *message;
  } cases[] = {
    {"t0,nope", "break node \"nope\": no such op"},
    {"l1,r1", "break node \"r1\" is not a descendant of \"l1\""},
    {"l2,l1", "break node \"l1\" is not a descendant of \"l2\""},
    {"t0,l1,t0", "break node \"t0\" is listed twice"},
    {"t0,,l1", "empty op name"},
    {"t0,", "empty op name"},
    {"t0,join", "break node \"join\" separates nothing: every other op runs before it in every order"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    Plan *plan = NULL;
    SpError err = {0};
    CHECK_EQ(dnc(net, cases[i].breaks, 5, &plan, &err), SP_ERR_ARG);
    CHECK_HAS(err.text, cases[i].message);
    CHECK(plan == NULL);
  }
  Plan *plan = NULL;
  SpError err;
  CHECK_EQ(dnc(net, " t0 , l1", 5, &plan, &err), SP_OK); /* spaces around names */
  Plan_free(plan);
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = Figures_minRequired(net, false) - 1;
  CHECK_EQ(Cosma_dncPlan(net, &s, &plan, &err), SP_ERR_INFEASIBLE);
  CHECK_HAS(err.text, "infeasible: budget 10239 < M_R = 10240 bytes");
  Net_free(net);
}

/* The plan is valid, the validator's metrics are the plan's, and (with break
 * nodes b) each segment's ops run before the next segment's. */
static void check_plan(const Net *net, const Plan *plan, const int *b, int k) {
  ValidateReport rep;
  CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
  for (int i = 0; i < rep.nlines && i < 3; i++) printf("  %s: %s\n", net->name, rep.lines[i]);
  CHECK(rep.metrics_known);
  CHECK(memcmp(&rep.metrics, &plan->metrics, sizeof(Metrics)) == 0);
  ValidateReport_free(&rep);
  CHECK(is_schedule(net, plan->order));
  CHECK_EQ(plan->solver.objective, plan->metrics.noncompulsory_bytes);
  CHECK(plan->solver.status == SOLVER_FEASIBLE || (plan->solver.status == SOLVER_OPTIMAL &&
                                                   plan->metrics.noncompulsory_bytes == 0));
  CHECK(strcmp(plan->schedule_policy, "dnc") == 0);
  if (k == 0) return;
  int n = net->nops, *seg = malloc(sizeof(int) * (size_t)n);
  unsigned char *anc = ancestors(net);
  segments(anc, n, b, k, seg);
  for (int i = 1; i < n; i++) CHECK(seg[plan->order[i - 1]] <= seg[plan->order[i]]);
  free(seg), free(anc);
}

TEST(dnc_plans_on_random_dags_are_valid) {
  for (uint64_t seed = 1; seed <= 8; seed++) {
    Net *net = RandNet_make(seed + 100, 16 + (int)(seed * 3), seed % 3 == 0);
    CHECK(net != NULL);
    if (!net) continue;
    int b[64], k;
    SpError err;
    CHECK_EQ(Cosma_breakNodes(net, false, 6, b, &k, &err), SP_OK); /* small segments: quick joint models */
    char list[2048] = "";
    for (int i = 0; i < k; i++) {
      strncat(list, i ? "," : "", sizeof list - strlen(list) - 1);
      strncat(list, net->ops[b[i]].name, sizeof list - strlen(list) - 1);
    }
    Plan *plan = NULL;
    Status st = dnc_with(net, list, 0.3, seed % 4 == 0, &plan, &err); /* paper_model: the paper's sub-graphs */
    if (st) printf("  seed %d: %s\n", (int)seed, err.text);
    CHECK_EQ(st, SP_OK);
    if (plan) check_plan(net, plan, b, k);
    Plan_free(plan);
    Net_free(net);
  }
}

static void on_progress(const SolveProgress *p, void *user) {
  int *seen = user;
  if (strncmp(p->stage, "dnc segment 1/", 14) == 0) seen[0] = 1;
  if (strncmp(p->stage, "dnc final: ", 11) == 0) seen[1] = 1;
  if (strcmp(p->stage, "done") == 0) seen[2] = 1;
}

TEST(dnc_reports_progress_and_stops_on_cancel) {
  Net *net = RandNet_make(7, 20, false);
  if (!net) return;
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = Figures_minRequired(net, false);
  s.time_limit = 0.5;
  int b[64], k, seen[3] = {0};
  SpError err;
  CHECK_EQ(Cosma_breakNodes(net, false, 6, b, &k, &err), SP_OK);
  CHECK(k > 0);
  char list[256];
  snprintf(list, sizeof list, "%s", net->ops[b[0]].name);
  s.break_nodes = list;
  s.progress = on_progress;
  s.progress_user = seen;
  Plan *plan = NULL;
  CHECK_EQ(Cosma_dncPlan(net, &s, &plan, &err), SP_OK);
  CHECK(seen[0] && seen[1] && seen[2]);
  if (plan) check_plan(net, plan, b, 1);
  Plan_free(plan);
  atomic_int cancel = 1; /* cancelled before it starts: still a valid plan, marked cancelled */
  s.cancel = &cancel;
  s.progress = NULL;
  CHECK_EQ(Cosma_dncPlan(net, &s, &plan, &err), SP_OK);
  if (plan) {
    ValidateReport rep;
    CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
    ValidateReport_free(&rep);
    CHECK(plan->solver.status == SOLVER_CANCELLED || plan->metrics.noncompulsory_bytes == 0);
    CHECK(plan->solver.seconds < 1);
  }
  Plan_free(plan);
  Net_free(net);
}

/* The enter/leave ops of a segment network take names the network does not use. */
TEST(dnc_segment_ops_do_not_clash_with_the_networks_names) {
  static const char text[] =
      "{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"clash\",\"tensors\":["
      "{\"name\":\"x\",\"shape\":[256],\"kind\":\"input\"},{\"name\":\"dnc.left\",\"shape\":[512]},"
      "{\"name\":\"dnc.enter\",\"shape\":[256]},{\"name\":\"c\",\"shape\":[512]},"
      "{\"name\":\"y\",\"shape\":[256],\"kind\":\"output\"}],\"ops\":["
      "{\"name\":\"dnc.enter\",\"type\":\"t\",\"inputs\":[\"x\"],\"outputs\":[\"dnc.left\"]},"
      "{\"name\":\"dnc.leave\",\"type\":\"t\",\"inputs\":[\"dnc.left\"],\"outputs\":[\"dnc.enter\"]},"
      "{\"name\":\"b\",\"type\":\"t\",\"inputs\":[\"dnc.enter\",\"dnc.left\"],\"outputs\":[\"c\"]},"
      "{\"name\":\"d\",\"type\":\"t\",\"inputs\":[\"c\",\"dnc.left\"],\"outputs\":[\"y\"]}]}";
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(text, strlen(text), "clash", &net, &err), SP_OK);
  if (!net) return;
  int b[3] = {0, 1, 2};
  Plan *plan = NULL;
  CHECK_EQ(dnc(net, "dnc.enter,dnc.leave,b", 2, &plan, &err), SP_OK);
  if (plan) check_plan(net, plan, b, 3);
  Plan_free(plan);
  Net_free(net);
}

TEST(dnc_plans_on_nas_networks_are_valid) {
  static const char *const nets[] = {"darts", "nasnet_a"};
  for (int i = 0; i < 2; i++) {
    Net *net = Bundled_load(nets[i]);
    if (!net) continue;
    Plan *plan = NULL;
    SpError err;
    CHECK_EQ(dnc(net, NULL, 2, &plan, &err), SP_OK);
    if (plan) {
      check_plan(net, plan, NULL, 0);
      printf("  %s at M_R: dnc %lld non-compulsory bytes (%s, %.2f s)\n", net->name,
             (long long)plan->metrics.noncompulsory_bytes, SolverStatus_name(plan->solver.status),
             plan->solver.seconds);
    } else {
      printf("  %s: %s\n", net->name, err.text);
    }
    Plan_free(plan);
    Net_free(net);
  }
}

/* Break nodes by hand at the NAS cell boundaries (as the paper picks them by hand):
 * every cell's concat but the last, on darts and nasnet_a at M_R; the plan is
 * valid and keeps every segment's ops before the next one's (the given breaks are
 * the ones used); with mp_orders 2 (each segment also tries the whole search's M_P
 * order) as well. */
TEST(dnc_hand_breaks_at_nas_cell_boundaries) {
  static const char *const nets[] = {"darts", "nasnet_a"};
  for (int i = 0; i < 2; i++) {
    Net *net = Bundled_load(nets[i]);
    if (!net) continue;
    char list[2048] = "", name[32];
    int b[64], k = 0;
    for (int c = 0; k < 64; c++) {
      snprintf(name, sizeof name, "cells.%d.concat", c);
      int op = Net_findOp(net, name);
      snprintf(name, sizeof name, "cells.%d.concat", c + 1);
      if (op < 0 || Net_findOp(net, name) < 0) break; /* not the last cell's */
      b[k++] = op;
      strncat(list, k > 1 ? "," : "", sizeof list - strlen(list) - 1);
      strncat(list, net->ops[op].name, sizeof list - strlen(list) - 1);
    }
    CHECK(k >= 10);
    for (int mp = 1; mp <= 2; mp++) {
      SolveSettings s;
      SolveSettings_init(&s);
      s.schedule = "dnc";
      s.budget = Figures_minRequired(net, false);
      s.time_limit = 3;
      s.break_nodes = list;
      s.mp_orders = mp;
      Plan *plan = NULL;
      SpError err;
      CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
      if (plan) {
        check_plan(net, plan, b, k);
        printf("  %s at M_R, %d cell breaks, mp_orders %d: %lld bytes\n", net->name, k, mp,
               (long long)plan->metrics.noncompulsory_bytes);
      } else {
        printf("  %s: %s\n", net->name, err.text);
      }
      Plan_free(plan);
    }
    Net_free(net);
  }
}

/* An op without inputs that makes two tensors at once, read at different times
 * (DnC's "enter" op of a segment): the exact M_P search took it out as a weight-only
 * op, as if each tensor were live from its own first reader, found a lower M_P than
 * any order has and failed its own check ("internal error"), so every joint solve of
 * such a segment lost its M_P candidate order. Now: proven, equal to the whole search. */
TEST(m_p_of_a_segment_with_a_multi_output_enter_op) {
  static const char text[] =
      "{\"format\":\"spadmap-network\",\"version\":1,\"name\":\"enter\",\"tensors\":["
      "{\"name\":\"a\",\"shape\":[4096]},{\"name\":\"b\",\"shape\":[256]},"
      "{\"name\":\"c\",\"shape\":[1024]},{\"name\":\"d\",\"shape\":[1024]},"
      "{\"name\":\"y\",\"shape\":[256],\"kind\":\"output\"}],\"ops\":["
      "{\"name\":\"enter\",\"type\":\"t\",\"inputs\":[],\"outputs\":[\"a\",\"b\"]},"
      "{\"name\":\"x\",\"type\":\"t\",\"inputs\":[\"b\"],\"outputs\":[\"c\"]},"
      "{\"name\":\"w\",\"type\":\"t\",\"inputs\":[\"c\"],\"outputs\":[\"d\"]},"
      "{\"name\":\"z\",\"type\":\"t\",\"inputs\":[\"a\",\"d\"],\"outputs\":[\"y\"]}]}";
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(text, strlen(text), "enter", &net, &err), SP_OK);
  if (!net) return;
  int order[4], whole_order[4];
  MinPeakOptions o;
  MinPeakOptions_init(&o);
  MinPeakResult r, rw;
  Status st = Figures_minPeak(net, false, &o, order, &r, &err);
  if (st) printf("  %s\n", err.text);
  CHECK_EQ(st, SP_OK);
  o.whole = true;
  CHECK_EQ(Figures_minPeak(net, false, &o, whole_order, &rw, &err), SP_OK);
  CHECK_EQ(r.peak, rw.peak);
  CHECK_EQ(r.peak, 4096 + 1024 + 1024); /* a stays live from the first step: at w, a + c + d */
  CHECK_EQ(Figures_peak(net, false, order, NULL), r.peak);
  Net_free(net);
}

TEST_MAIN("dnc", T(break_nodes_form_a_chain_on_teaching_graphs), T(break_nodes_form_a_chain_on_random_dags),
          T(break_nodes_on_nas_networks), T(break_nodes_option_errors), T(dnc_plans_on_random_dags_are_valid),
          T(dnc_reports_progress_and_stops_on_cancel), T(dnc_segment_ops_do_not_clash_with_the_networks_names),
          T(dnc_plans_on_nas_networks_are_valid), T(dnc_hand_breaks_at_nas_cell_boundaries),
          T(m_p_of_a_segment_with_a_multi_output_enter_op))

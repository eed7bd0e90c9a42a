/* The unfolded networks (data/networks/unfolded, gen_networks.py --unfold): the
 * COSMA paper's ten human-designed networks with BatchNorm and activations kept
 * as ops, as its PyTorch graphs have them (issue 35). They load, hold those ops
 * where the folded files hold none, their budgets M_R < M_H < M_P differ where
 * the graph allows it, and cosma's plans on them validate and beat the baseline. */
#include "bundled.h"
#include "clock.h"
#include "figures.h"
#include "solve.h"
#include "test.h"
#include "validate.h"

static const char *const Unfolded_nets[] = {"resnet50",     "densenet121",  "resnext50_32x4d",
                                            "r2plus1d_18",  "s3d",          "fcn_resnet50",
                                            "lraspp_mobilenet_v3_large",    "deeplabv3_resnet50",
                                            "transformer",  "vit_b_16"};
enum { NNETS = sizeof Unfolded_nets / sizeof Unfolded_nets[0] };

static Net *Unfolded_load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/networks/unfolded/%s.json", SPADMAP_DATA_DIR, name);
  Net *net = NULL;
  SpError err = {0};
  if (Net_load(path, &net, &err)) printf("  cannot load %s: %s\n", path, err.text);
  return net;
}

static bool Unfolded_isActivation(const char *type) {
  static const char *const acts[] = {"relu", "relu6", "hardswish", "hardsigmoid", "gelu", "silu", "sigmoid", "tanh"};
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
    if (strcmp(type, acts[i]) == 0) return true;
  return false;
}

typedef struct {
  int bn, act, fused; /* batch_norm ops, activation ops, ops whose attrs name a folded BN or activation */
} OpCounts;

static OpCounts Unfolded_count(const Net *net) {
  OpCounts c = {0};
  for (int i = 0; i < net->nops; i++) {
    const Op *op = &net->ops[i];
    c.bn += strcmp(op->type, "batch_norm") == 0;
    c.act += Unfolded_isActivation(op->type);
    const char *a = op->attrs_json;
    c.fused += a && strstr(a, "fused") && (strstr(a, "batch_norm") || strstr(a, "relu") || strstr(a, "gelu") ||
                                           strstr(a, "hardswish") || strstr(a, "hardsigmoid"));
  }
  return c;
}

TEST(unfolded_networks_keep_batchnorm_and_activations_as_ops) {
  for (int n = 0; n < NNETS; n++) {
    Net *unf = Unfolded_load(Unfolded_nets[n]), *fold = Bundled_load(Unfolded_nets[n]);
    CHECK(unf != NULL);
    CHECK(fold != NULL);
    if (unf && fold) {
      OpCounts u = Unfolded_count(unf), f = Unfolded_count(fold);
      bool transformer = strcmp(Unfolded_nets[n], "transformer") == 0 || strcmp(Unfolded_nets[n], "vit_b_16") == 0;
      if (!transformer) CHECK(u.bn > 0); /* the transformers have LayerNorm, an op in both */
      CHECK(u.act > 0);
      CHECK_EQ(u.fused, 0);
      CHECK_EQ(f.bn, 0); /* the folded file has them inside its producers */
      CHECK(f.fused > 0);
      CHECK(unf->nops >= fold->nops + u.bn + u.act - f.bn - f.act);
      if (strcmp(unf->name, Unfolded_nets[n]) != 0) printf("  %s: named %s\n", Unfolded_nets[n], unf->name);
      CHECK(strcmp(unf->name, Unfolded_nets[n]) == 0);
    }
    Net_free(unf);
    Net_free(fold);
  }
  /* ResNet-50 as torchvision builds it: 53 BatchNorms (the stem's, three in each of
   * the 16 bottlenecks, four downsample paths) and 49 ReLU calls (the stem's, three
   * per bottleneck) */
  Net *r = Unfolded_load("resnet50");
  if (!r) return;
  OpCounts c = Unfolded_count(r);
  CHECK_EQ(c.bn, 53);
  CHECK_EQ(c.act, 49);
  Net_free(r);
}

/* The budgets: distinct on densenet121, equal on resnet50 (activations only) even
 * unfolded, because there the largest op, a residual add of two 256x56x56 int8
 * tensors into a third, is also the peak of every order. */
TEST(unfolded_budgets) {
  Net *d = Unfolded_load("densenet121"), *r = Unfolded_load("resnet50");
  NetFigures f;
  SpError err;
  if (d) {
    CHECK_EQ(Figures_compute(d, false, &f, NULL, &err), SP_OK);
    CHECK(f.m_p_exact);
    CHECK_EQ(f.m_r, 2 * 64 * 112 * 112); /* the stem's BatchNorm: its input and output */
    CHECK(f.m_r < f.m_h);
    CHECK(f.m_h < f.m_p);
    CHECK_EQ(f.m_h, (f.m_r + f.m_p) / 2);
    Net *folded = Bundled_load("densenet121");
    NetFigures g;
    if (folded && Figures_compute(folded, false, &g, NULL, &err) == SP_OK)
      CHECK(f.m_p > g.m_p); /* a BN's or ReLU's output beside its input raises the peak */
    Net_free(folded);
  }
  if (r) {
    CHECK_EQ(Figures_compute(r, false, &f, NULL, &err), SP_OK);
    CHECK_EQ(f.m_r, 3 * 256 * 56 * 56);
    CHECK_EQ(f.m_p, f.m_r);
    CHECK_EQ(Figures_compute(r, true, &f, NULL, &err), SP_OK); /* with params they differ */
    CHECK(f.m_r < f.m_h);
    CHECK(f.m_h < f.m_p);
  }
  Net_free(d);
  Net_free(r);
}

/* Solve_run with a work budget deciding (the wall-clock stop far away), validated. */
static int64_t Unfolded_solve(const Net *net, int64_t budget, const char *schedule, const char *replacement,
                              SolverStatus *status) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = budget;
  s.schedule = schedule;
  s.replacement = replacement;
  s.time_limit = 60;
  s.deadline = Clock_now() + 86400;
  Plan *plan = NULL;
  SpError err;
  Status st = Solve_run(net, &s, &plan, &err);
  if (st) printf("  %s/%s at %lld: %s\n", schedule, replacement, (long long)budget, err.text);
  CHECK_EQ(st, SP_OK);
  if (!plan) return -1;
  ValidateReport rep;
  Status vst = Validate_plan(net, plan, &rep);
  if (vst && rep.nlines) printf("  %s/%s at %lld: %s\n", schedule, replacement, (long long)budget, rep.lines[0]);
  CHECK_EQ(vst, SP_OK);
  ValidateReport_free(&rep);
  int64_t bytes = plan->metrics.noncompulsory_bytes;
  if (status) *status = plan->solver.status;
  Plan_free(plan);
  return bytes;
}

TEST(cosma_plans_on_unfolded_densenet_validate_at_the_three_budgets) {
  Net *d = Unfolded_load("densenet121");
  if (!d) return;
  NetFigures f;
  SpError err;
  CHECK_EQ(Figures_compute(d, false, &f, NULL, &err), SP_OK);
  const int64_t budgets[3] = {f.m_r, f.m_h, f.m_p};
  int64_t cosma[3];
  for (int b = 0; b < 3; b++) {
    SolverStatus st = SOLVER_HEURISTIC;
    cosma[b] = Unfolded_solve(d, budgets[b], "cosma", "belady", &st);
    int64_t base = Unfolded_solve(d, budgets[b], "default", "greedy", NULL);
    CHECK(cosma[b] >= 0);
    CHECK(cosma[b] <= base);
    CHECK(base > 0); /* the baseline spills at every budget: there is something to reduce */
    if (st == SOLVER_OPTIMAL && b > 0) CHECK(cosma[b] <= cosma[b - 1]); /* more room, no more traffic */
  }
  CHECK(cosma[0] > 0); /* M_R forces traffic on this graph */
  CHECK_EQ(cosma[2], 0); /* at M_P an order and a packing without any spill exist */
  Net_free(d);
}

TEST_MAIN("unfolded", T(unfolded_networks_keep_batchnorm_and_activations_as_ops), T(unfolded_budgets),
          T(cosma_plans_on_unfolded_densenet_validate_at_the_three_budgets))

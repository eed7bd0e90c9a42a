/* Figures: M_R, peaks, and the exact M_P search checked against brute force over
 * every topological order of small random graphs. */
#include <stdatomic.h>
#include "bundled.h"
#include "figures.h"
#include "randnet.h"
#include "solve.h"
#include "test.h"

/* Minimum peak over all topological orders, by depth-first enumeration. */
typedef struct {
  const Net *net;
  bool params;
  int order[16];
  bool done[16];
  int64_t best;
  long orders;
} Brute;

static bool Brute_ready(const Brute *b, int v) {
  const Op *op = &b->net->ops[v];
  for (int k = 0; k < op->ninputs; k++) {
    int p = b->net->tensors[op->inputs[k]].producer;
    if (p >= 0 && !b->done[p]) return false;
  }
  return true;
}

static void Brute_walk(Brute *b, int depth) {
  if (depth == b->net->nops) {
    int64_t peak = Figures_peak(b->net, b->params, b->order, NULL);
    if (b->best < 0 || peak < b->best) b->best = peak;
    b->orders++;
    return;
  }
  for (int v = 0; v < b->net->nops; v++)
    if (!b->done[v] && Brute_ready(b, v)) {
      b->done[v] = true;
      b->order[depth] = v;
      Brute_walk(b, depth + 1);
      b->done[v] = false;
    }
}

TEST(minpeak_equals_brute_force_on_random_dags) {
  int checked = 0, below_default = 0;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    int nops = 3 + (int)(seed % 7); /* 3..9 ops */
    for (int params = 0; params < 2; params++) {
      Net *net = RandNet_make(seed, nops, params);
      CHECK(net != NULL);
      if (!net) continue;
      Brute b = {.net = net, .params = params, .best = -1};
      Brute_walk(&b, 0);
      int order[16];
      MinPeakResult res;
      SpError err;
      CHECK_EQ(Figures_minPeak(net, params, NULL, order, &res, &err), SP_OK);
      if (res.peak != b.best) printf("  seed %llu params %d: search %lld, brute force %lld\n",
                                     (unsigned long long)seed, params, (long long)res.peak, (long long)b.best);
      CHECK_EQ(res.peak, b.best);
      CHECK_EQ(Figures_peak(net, params, order, NULL), res.peak);
      CHECK(Figures_peakLowerBound(net, params) <= res.peak);
      CHECK(Figures_minRequired(net, params) <= res.peak);
      int def[16];
      for (int i = 0; i < nops; i++) def[i] = i;
      if (Figures_peak(net, params, def, NULL) > res.peak) below_default++;
      checked++;
      Net_free(net);
    }
  }
  CHECK_EQ(checked, 300);
  /* The graphs must be interesting: the default order is not always optimal. */
  CHECK(below_default > 10);
}

/* An independent exact M_P for up to ~16 ops: plain dynamic programming over
 * every subset of executed ops (no pruning, no bounds), from the contract's
 * definitions: resident bytes of a set, and the step cost of running v after it. */
static int64_t Subset_resident(const Net *net, bool params, unsigned set) {
  int64_t sum = 0;
  for (int t = 0; t < net->ntensors; t++) {
    const Tensor *x = &net->tensors[t];
    if (!Net_onChip(net, t, params) || x->nconsumers == 0) continue;
    bool made = x->producer >= 0 ? (set >> x->producer) & 1u : false, pending = false;
    for (int c = 0; c < x->nconsumers; c++) {
      if ((set >> x->consumers[c]) & 1u) made |= x->producer < 0;
      else pending = true;
    }
    if (made && pending) sum += x->bytes;
  }
  return sum;
}

static int64_t Subset_minPeak(const Net *net, bool params) {
  int n = net->nops;
  unsigned full = (1u << n) - 1;
  int64_t *best = malloc(sizeof(int64_t) * ((size_t)full + 1));
  for (unsigned set = 0; set <= full; set++) best[set] = -1;
  best[0] = 0;
  for (unsigned set = 0; set < full; set++) {
    if (best[set] < 0) continue;
    int64_t resident = Subset_resident(net, params, set);
    for (int v = 0; v < n; v++) {
      if ((set >> v) & 1u) continue;
      const Op *op = &net->ops[v];
      bool ready = true;
      int64_t step = resident;
      for (int k = 0; k < op->ninputs; k++) {
        const Tensor *x = &net->tensors[op->inputs[k]];
        if (x->producer >= 0 && !((set >> x->producer) & 1u)) ready = false;
        bool dup = false;
        for (int j = 0; j < k; j++) dup |= op->inputs[j] == op->inputs[k];
        if (dup || !Net_onChip(net, op->inputs[k], params) || x->producer >= 0) continue;
        bool loaded = false; /* a graph input comes on chip at its first use */
        for (int c = 0; c < x->nconsumers; c++) loaded |= (set >> x->consumers[c]) & 1u;
        if (!loaded) step += x->bytes;
      }
      if (!ready) continue;
      for (int k = 0; k < op->noutputs; k++) step += net->tensors[op->outputs[k]].bytes;
      int64_t cost = step > best[set] ? step : best[set];
      unsigned next = set | (1u << v);
      if (best[next] < 0 || cost < best[next]) best[next] = cost;
    }
  }
  int64_t answer = best[full];
  free(best);
  return answer;
}

TEST(minpeak_equals_subset_dp_on_larger_random_dags) {
  int checked = 0;
  for (uint64_t seed = 1000; seed < 1160; seed++) {
    int nops = 10 + (int)(seed % 7); /* 10..16 ops */
    bool params = seed & 1;
    Net *net = RandNet_make(seed, nops, params);
    CHECK(net != NULL);
    if (!net) continue;
    int order[32];
    MinPeakResult res;
    SpError err;
    CHECK_EQ(Figures_minPeak(net, params, NULL, order, &res, &err), SP_OK);
    int64_t dp = Subset_minPeak(net, params);
    if (res.peak != dp) printf("  seed %llu: search %lld, subset DP %lld\n", (unsigned long long)seed,
                               (long long)res.peak, (long long)dp);
    CHECK_EQ(res.peak, dp);
    CHECK_EQ(Figures_peak(net, params, order, NULL), dp);
    checked++;
    Net_free(net);
  }
  CHECK_EQ(checked, 160);
}

/* The cuts and the weight-only ops (minpeak_split.c) change nothing: on layered
 * random graphs with both, the search equals brute force over every order (up to
 * 10 ops) and the plain subset DP (11 to 16 ops), in both settings. */
TEST(minpeak_with_cuts_and_weight_only_ops_equals_brute_force) {
  int checked = 0, with_cuts = 0, with_removed = 0;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    int nops = 4 + (int)(seed % 13); /* 4..16 ops */
    Net *net = RandNet_makeLayered(seed, nops);
    CHECK(net != NULL);
    if (!net) continue;
    for (int params = 0; params < 2; params++) {
      int64_t exact;
      if (nops <= 10) {
        Brute b = {.net = net, .params = params, .best = -1};
        Brute_walk(&b, 0);
        exact = b.best;
      } else {
        exact = Subset_minPeak(net, params);
      }
      int order[32];
      MinPeakResult res;
      SpError err;
      CHECK_EQ(Figures_minPeak(net, params, NULL, order, &res, &err), SP_OK);
      if (res.peak != exact)
        printf("  seed %llu params %d: search %lld, exact %lld (%d segments, %d removed)\n", (unsigned long long)seed,
               params, (long long)res.peak, (long long)exact, res.segments, res.removed);
      CHECK_EQ(res.peak, exact);
      CHECK_EQ(Figures_peak(net, params, order, NULL), exact);
      with_cuts += res.segments > 1;
      with_removed += res.removed > 0;
      checked++;
    }
    Net_free(net);
  }
  CHECK_EQ(checked, 400);
  /* the graphs exercise both: many are cut, many lose weight-only ops */
  CHECK(with_cuts > 100);
  CHECK(with_removed > 100);
}

TEST(teaching_graphs_have_known_figures) {
  Net *net = Bundled_load("diamond");
  CHECK(net != NULL);
  if (!net) return;
  NetFigures f;
  int order[16];
  SpError err;
  CHECK_EQ(Figures_compute(net, false, &f, order, &err), SP_OK);
  /* From the graph's sizes (see data/networks/diamond.json): breadth-first file
   * order holds both branches at once, depth-first does not. */
  CHECK_EQ(f.m_r, 10240);
  CHECK_EQ(f.default_peak, 18432);
  CHECK_EQ(f.m_p, 11264);
  CHECK_EQ(f.m_h, (10240 + 11264) / 2);
  CHECK(f.m_p_exact);
  CHECK_EQ(Figures_peak(net, false, order, NULL), 11264);
  Net_free(net);
}

TEST(resnet50_matches_the_contract_example) {
  Net *net = Bundled_load("resnet50");
  CHECK(net != NULL);
  if (!net) return;
  /* The contract's example plan uses resnet50's M_R: a residual add over three
   * 1x256x56x56 int8 tensors. */
  CHECK_EQ(Figures_minRequired(net, false), 2408448);
  CHECK(Figures_minRequired(net, true) > 2408448);
  Net_free(net);
}

TEST(every_shipped_network_gets_an_exact_mp) {
  const char *names[] = {"alexnet", "darts", "densenet121", "inception_v3", "nasnet_a", "transformer", "vit_b_16",
                         "r2plus1d_18", "s3d", "deeplabv3_resnet50"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    Net *net = Bundled_load(names[i]);
    CHECK(net != NULL);
    if (!net) continue;
    for (int params = 0; params < 2; params++) {
      NetFigures f;
      SpError err;
      int *order = malloc(sizeof(int) * (size_t)net->nops);
      CHECK_EQ(Figures_compute(net, params, &f, order, &err), SP_OK);
      CHECK(f.m_p_exact);
      CHECK(f.m_r <= f.m_h && f.m_h <= f.m_p && f.m_p <= f.default_peak);
      CHECK_EQ(Figures_peak(net, params, order, NULL), f.m_p);
      free(order);
    }
    Net_free(net);
  }
}

TEST(search_limit_is_reported_not_hidden) {
  Net *net = Bundled_load("transformer");
  CHECK(net != NULL);
  if (!net) return;
  MinPeakOptions opt;
  MinPeakOptions_init(&opt);
  opt.max_states = 10;
  int *order = malloc(sizeof(int) * (size_t)net->nops);
  MinPeakResult res;
  SpError err;
  CHECK_EQ(Figures_minPeak(net, false, &opt, order, &res, &err), SP_ERR_LIMIT);
  CHECK_HAS(err.text, "stopped");
  CHECK(res.lower_bound <= res.peak);
  atomic_int cancel = 1;
  MinPeakOptions_init(&opt);
  opt.cancel = &cancel;
  CHECK_EQ(Figures_minPeak(net, false, &opt, order, &res, &err), SP_ERR_CANCELLED);
  free(order);
  Net_free(net);
}

TEST(budget_text_parses) {
  NetFigures f = {.m_r = 100, .m_h = 150, .m_p = 200};
  int64_t b;
  const char *preset;
  SpError err;
  CHECK_EQ(Budget_parse("M_P", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 200);
  CHECK_HAS(preset, "M_P");
  CHECK_EQ(Budget_parse("m_h", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 150);
  CHECK_EQ(Budget_parse("512K", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 512 * 1024);
  CHECK_EQ(Budget_parse("2MiB", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 2 * 1024 * 1024);
  CHECK_EQ(Budget_parse("123456", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 123456);
  CHECK_EQ(Budget_parse("12Q", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "unit");
  CHECK_EQ(Budget_parse("lots", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "expected M_R");
  CHECK_EQ(Budget_parse("99999999999999999999G", &f, &b, &preset, &err), SP_ERR_ARG);
  /* the forms the tool prints, decimals, and presets with a factor */
  CHECK_EQ(Budget_parse("2.5M", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 5 * 512 * 1024);
  CHECK_EQ(Budget_parse("1,026,880", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 1026880);
  CHECK_EQ(Budget_parse("10.0K", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 10240);
  CHECK_EQ(Budget_parse("1.5 MiB", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 3 * 512 * 1024);
  CHECK_EQ(Budget_parse("512B", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 512);
  CHECK_EQ(Budget_parse("M_P*1.1", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 220);
  CHECK(preset[0] == '\0'); /* a size, not the preset */
  CHECK_EQ(Budget_parse("m_r * 2", &f, &b, &preset, &err), SP_OK);
  CHECK_EQ(b, 200);
  CHECK_EQ(Budget_parse("M_P*", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "factor");
  CHECK_EQ(Budget_parse("M_P*-1", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_EQ(Budget_parse("M_Px", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_EQ(Budget_parse("100.5", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "whole");
  CHECK_EQ(Budget_parse("1,,2", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_EQ(Budget_parse(",12", &f, &b, &preset, &err), SP_ERR_ARG);
  CHECK_EQ(Budget_parse("M_R", NULL, &b, &preset, &err), SP_ERR_ARG);
}

TEST_MAIN("figures", T(minpeak_equals_brute_force_on_random_dags), T(minpeak_equals_subset_dp_on_larger_random_dags),
          T(minpeak_with_cuts_and_weight_only_ops_equals_brute_force), T(teaching_graphs_have_known_figures),
          T(resnet50_matches_the_contract_example), T(every_shipped_network_gets_an_exact_mp),
          T(search_limit_is_reported_not_hidden), T(budget_text_parses))

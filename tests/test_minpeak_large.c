/* Exact M_P at 584-1,260 ops (issue 37): unfolded ONNX exports of convnext_tiny and
 * _small, efficientnet_v2_s, GPT decoders of 12 and 24 blocks, and DARTS (tests/data/minpeak/, made
 * by data/gen/gen_minpeak_nets.py) are proven within a small state limit, in both
 * settings; and on every bundled network the cut search equals the whole-network
 * search it replaced (MinPeakOptions.whole) wherever that one finishes. */
#include "bundled.h"
#include "figures.h"
#include "order_check.h"
#include "test.h"

static Net *load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/data/minpeak/%s.json", SPADMAP_TEST_DIR, name);
  Net *net = NULL;
  SpError err = {0};
  if (Net_load(path, &net, &err)) printf("  cannot load %s: %s\n", path, err.text);
  return net;
}


TEST(unfolded_exports_are_proven_within_ten_thousand_states) {
  /* M_P as first proven by this search (bytes, fp32 tensors as exported);
   * the with-params figure rests on the folded-copies bound (minpeak_split.h) */
  static const struct {
    const char *name;
    int ops;
    int64_t m_p[2];
  } nets[] = {
      {"convnext_tiny", 584, {15654912, 15657604}},
      {"efficientnet_v2_s", 656, {7827456, 7828416}},
      {"gpt12", 636, {5111808, 11868160}},
      {"darts_onnx", 663, {2408448, 3083072}},
      {"convnext_small", 1106, {15654912, 15657604}},
      {"gpt24", 1260, {6815744, 10173440}},
  };
  for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
    Net *net = load(nets[i].name);
    CHECK(net != NULL);
    if (!net) continue;
    CHECK_EQ(net->nops, nets[i].ops);
    for (int params = 0; params < 2; params++) {
      MinPeakOptions o;
      MinPeakOptions_init(&o);
      o.max_states = 10000; /* a work limit, never a time: the search must prove within it */
      int *order = malloc(sizeof(int) * (size_t)net->nops);
      MinPeakResult r;
      SpError err = {0};
      Status st = Figures_minPeak(net, params, &o, order, &r, &err);
      if (st) printf("  %s params %d: %s\n", nets[i].name, params, err.text);
      CHECK_EQ(st, SP_OK);
      CHECK_EQ(r.peak, nets[i].m_p[params]);
      CHECK_EQ(r.lower_bound, r.peak);
      CHECK(Test_isTopological(net, order));
      CHECK_EQ(Figures_peak(net, params, order, NULL), r.peak);
      CHECK(Figures_peakLowerBound(net, params) <= r.peak);
      CHECK(r.segments > 1); /* the cuts did the work */
      free(order);
    }
    Net_free(net);
  }
}

TEST(cut_search_equals_the_whole_network_search_on_every_bundled_network) {
  BundledStem stems[BUNDLED_MAX];
  int n = Bundled_stems(stems, BUNDLED_MAX), compared = 0, cut = 0;
  CHECK(n > 20);
  for (int i = 0; i < n; i++) {
    Net *net = Bundled_load(stems[i]);
    CHECK(net != NULL);
    if (!net) continue;
    int *a = malloc(sizeof(int) * (size_t)net->nops), *b = malloc(sizeof(int) * (size_t)net->nops);
    for (int params = 0; params < 2; params++) {
      MinPeakOptions o;
      MinPeakOptions_init(&o);
      MinPeakResult ra, rb;
      SpError err;
      CHECK_EQ(Figures_minPeak(net, params, &o, a, &ra, &err), SP_OK);
      CHECK_EQ(Figures_peak(net, params, a, NULL), ra.peak);
      o.whole = true;
      if (Figures_minPeak(net, params, &o, b, &rb, &err) != SP_OK) continue; /* the old search gave up */
      if (ra.peak != rb.peak)
        printf("  %s params %d: cuts %lld, whole %lld\n", stems[i], params, (long long)ra.peak, (long long)rb.peak);
      CHECK_EQ(ra.peak, rb.peak);
      CHECK_EQ(rb.segments, 1);
      compared++;
      cut += ra.segments > 1;
    }
    free(a), free(b);
    Net_free(net);
  }
  CHECK(compared >= 2 * n - 2);
  CHECK(cut > n); /* most networks are cut, in both settings */
}

TEST_MAIN("minpeak_large", T(unfolded_exports_are_proven_within_ten_thousand_states),
          T(cut_search_equals_the_whole_network_search_on_every_bundled_network))

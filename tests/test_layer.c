/* test_layer: layers from network ops and from text, CoSA's names. */
#include <stdio.h>
#include <string.h>

#include "bundled.h"
#include "layer/layer.h"
#include "test.h"

TEST(resnet50_layers) {
  Net *net = Bundled_load("resnet50");
  CHECK(net != NULL);
  if (!net) return;
  Layer l;
  SpError err = {0};
  char name[64];
  CHECK_EQ(Layer_fromOp(net, Net_findOp(net, "conv1"), &l, &err), SP_OK);
  CHECK(strcmp(Layer_cosaName(&l, name, sizeof name), "7_112_3_64_2") == 0);
  CHECK_EQ(l.pad_h, 3);
  CHECK_EQ(Layer_macs(&l), 7LL * 7 * 112 * 112 * 3 * 64);
  CHECK_EQ(Layer_fromOp(net, Net_findOp(net, "fc"), &l, &err), SP_OK);
  CHECK(strcmp(Layer_cosaName(&l, name, sizeof name), "1_1_2048_1000_1") == 0);
  CHECK_EQ(Layer_fromOp(net, Net_findOp(net, "maxpool"), &l, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "op \"maxpool\" is a max_pool2d, not a convolution or matmul");
  Layer *u;
  int *count, n;
  CHECK_EQ(Layer_unique(net, &u, &count, &n, &err), SP_OK);
  int total = 0;
  for (int i = 0; i < n; i++) total += count[i];
  CHECK_EQ(total, 54); /* 53 conv2d + fc */
  CHECK(n >= 20 && n < 30);
  /* CoSA's example layer 3_7_512_512_1 is among them */
  int found = 0;
  for (int i = 0; i < n; i++) found += strcmp(Layer_cosaName(&u[i], name, sizeof name), "3_7_512_512_1") == 0;
  CHECK_EQ(found, 1);
  free(u);
  free(count);
  Net_free(net);
}

TEST(grouped_and_matmul) {
  Net *net = Bundled_load("mobilenet_v2");
  CHECK(net != NULL);
  if (!net) return;
  Layer l;
  SpError err = {0};
  int dw = Net_findOp(net, "features.1.conv.0.0");
  CHECK(dw >= 0);
  CHECK_EQ(Layer_fromOp(net, dw, &l, &err), SP_OK);
  CHECK_EQ(l.groups, 32);
  CHECK_EQ(l.C, 1);
  CHECK_EQ(l.K, 1);
  Net_free(net);
  net = Bundled_load("transformer");
  CHECK(net != NULL);
  if (!net) return;
  CHECK_EQ(Layer_fromOp(net, Net_findOp(net, "encoder.layers.0.self_attn.scores"), &l, &err), SP_OK);
  CHECK_EQ(l.groups, 256); /* 32 sequences x 8 heads */
  CHECK_EQ(l.N, 10);
  CHECK_EQ(l.C, 64);
  CHECK_EQ(l.K, 10);
  CHECK_EQ(Layer_fromOp(net, Net_findOp(net, "encoder.layers.0.linear1"), &l, &err), SP_OK);
  CHECK_EQ(l.N, 320);
  CHECK_EQ(l.C, 512);
  CHECK_EQ(l.K, 2048);
  Net_free(net);
}

TEST(parse_forms) {
  Layer l;
  SpError err = {0};
  CHECK_EQ(Layer_parse("3_56_64_64_1", &l, &err), SP_OK);
  CHECK(l.R == 3 && l.S == 3 && l.P == 56 && l.Q == 56 && l.C == 64 && l.K == 64 && l.N == 1 && l.stride_h == 1);
  CHECK_EQ(Layer_parse("R=1,S=1,P=4,Q=2,C=8,K=4,N=2,stride=2", &l, &err), SP_OK);
  CHECK(l.R == 1 && l.Q == 2 && l.N == 2 && l.stride_w == 2 && l.K == 4);
  CHECK_EQ(Layer_parse("3_56_64", &l, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "expected R_P_C_K_stride");
  CHECK_EQ(Layer_parse("R=3,X=4", &l, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "unknown key");
  CHECK_EQ(Layer_parse("3_0_64_64_1", &l, &err), SP_ERR_ARG);
}

TEST_MAIN("layer", T(resnet50_layers), T(grouped_and_matmul), T(parse_forms))

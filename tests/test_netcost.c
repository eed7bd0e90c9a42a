/* netcost (spadmap cost): a network's cycles, DRAM bytes and energy on an arch
 * at a budget. Hand-computed costs on a tiny network and a one-MAC arch; the
 * totals as the sums of the ops and of the plan's metrics; each mapped op's
 * compute equal to its own layer's mapping (one mapping per shape); more budget
 * never more DRAM bytes under an exact plan; below M_R the tiled network's plan,
 * which validates. Every plan here goes through the validator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "netcost/netcost.h"
#include "solve.h"
#include "test.h"
#include "validate.h"

__attribute__((constructor)) static void Test_unbuffered(void) { setvbuf(stdout, NULL, _IONBF, 0); }

/* One MAC, one on-chip buffer of 1 KiB holding everything (free and fast: 1000
 * bytes/cycle, never the bound), DRAM
 * at 2 bytes/cycle, 10 pJ per byte read, 20 written; a MAC 1 pJ. Any mapping of a
 * layer then takes MACs cycles. */
static const char *Tiny_arch =
    "{\"format\": \"spadmap-arch\", \"version\": 1, \"name\": \"tiny\", \"source\": \"test\", \"macs\": 1, \"mac_pj\": 1,"
    " \"precision\": {\"weights\": 1, \"inputs\": 1, \"outputs\": 1},"
    " \"levels\": [{\"name\": \"Buf\", \"instances\": 1, \"capacity\": 1024, \"holds\": [\"weights\", \"inputs\", \"outputs\"],"
    "  \"bandwidth\": 1000, \"read_pj\": 0, \"write_pj\": 0},"
    " {\"name\": \"DRAM\", \"instances\": 1, \"holds\": [\"weights\", \"inputs\", \"outputs\"], \"bandwidth\": 2,"
    "  \"read_pj\": 10, \"write_pj\": 20}]}";

/* y = conv1x1(x, w) (C = K = 2 on 2x2: 16 MACs), z = y + x. */
static const char *Tiny_net =
    "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"tiny\", \"tensors\": ["
    " {\"name\": \"x\", \"shape\": [1,2,2,2], \"dtype\": \"int8\", \"kind\": \"input\"},"
    " {\"name\": \"w\", \"shape\": [2,2,1,1], \"dtype\": \"int8\", \"kind\": \"param\"},"
    " {\"name\": \"y\", \"shape\": [1,2,2,2], \"dtype\": \"int8\"},"
    " {\"name\": \"z\", \"shape\": [1,2,2,2], \"dtype\": \"int8\", \"kind\": \"output\"}],"
    " \"ops\": [{\"name\": \"conv\", \"type\": \"conv2d\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"y\"]},"
    " {\"name\": \"add\", \"type\": \"add\", \"inputs\": [\"y\", \"x\"], \"outputs\": [\"z\"]}]}";

static NetCostMapper *Test_mapper(const char *arch_text, const char *arch_path, const char *method) {
  Arch a;
  SpError err;
  Status st = arch_text ? Arch_parse(arch_text, strlen(arch_text), "tiny.json", &a, &err) : Arch_load(arch_path, &a, &err);
  CHECK_EQ(st, SP_OK);
  if (st) {
    printf("  arch: %s\n", err.text);
    return NULL;
  }
  LayerMapOptions o;
  LayerMapOptions_init(&o);
  NetCostMapper *m = NULL;
  CHECK_EQ(NetCostMapper_new(&a, LayerMap_find(method), &o, &m, &err), SP_OK);
  return m;
}

/* Runs the cost and checks what holds for every cost: the plan validates against
 * the planned network, the totals are the ops' sums, the plan's part of the DRAM
 * bytes is its compulsory + non-compulsory traffic, cycles = max(compute, dram). */
static Status Test_cost(const Net *net, const SolveSettings *s, NetCostMapper *m, NetCost *nc, Plan **plan_out) {
  NetCostStage stage;
  Plan *plan = NULL;
  SpError err;
  Status st = NetCost_run(net, s, m, nc, &stage, &plan, &err);
  if (st) {
    printf("  cost: %s\n", err.text);
    return st;
  }
  ValidateReport rep;
  CHECK_EQ(Validate_plan(stage.net, plan, &rep), SP_OK);
  ValidateReport_free(&rep);
  CHECK_EQ(nc->tiled, s->budget < Figures_minRequired(net, s->params));
  CHECK_EQ(nc->plan_bytes, plan->metrics.compulsory_bytes + plan->metrics.noncompulsory_bytes);
  CHECK_EQ(nc->nops, net->nops);
  int64_t cyc = 0, comp = 0, dram = 0, bytes = 0;
  double pj = 0;
  for (int i = 0; i < nc->nops; i++) {
    const NetCostOp *c = &nc->ops[i];
    cyc += c->cycles, comp += c->compute_cycles, dram += c->dram_cycles, bytes += c->dram_bytes, pj += c->energy_pj;
    CHECK_EQ(c->cycles, c->onchip_cycles > c->dram_cycles ? c->onchip_cycles : c->dram_cycles);
    CHECK(c->onchip_cycles >= c->compute_cycles);
    if (!c->mapped) CHECK_EQ(c->onchip_cycles, c->compute_cycles);
    CHECK_EQ(c->dram_bytes, c->plan_bytes + c->weight_bytes);
    CHECK_EQ(c->dram_bytes, c->read_bytes + c->write_bytes);
  }
  CHECK_EQ(nc->cycles, cyc);
  CHECK_EQ(nc->compute_cycles, comp);
  CHECK_EQ(nc->dram_cycles, dram);
  CHECK_EQ(nc->dram_bytes, bytes);
  CHECK(fabs(nc->energy_pj - pj) <= 1e-6 * fabs(pj));
  if (plan_out) *plan_out = plan;
  else Plan_free(plan);
  NetCostStage_free(&stage);
  return SP_OK;
}

static const NetCostOp *Test_op(const NetCost *nc, const char *name) {
  for (int i = 0; i < nc->nops; i++)
    if (strcmp(nc->ops[i].name, name) == 0) return &nc->ops[i];
  printf("  no op %s\n", name);
  return NULL;
}

/* With params on chip (w is loaded by the plan) and a roomy budget, by hand:
 *   conv: 16 MACs on 1 MAC = 16 cycles; the plan loads x (8) and w (4) before it:
 *         12 bytes = 6 DRAM cycles; energy 16 MACs x 1 pJ + 12 x 10 pJ = 136;
 *   add:  reads y and x (16 elements), writes z (8): 16 cycles on 1 MAC (roofline);
 *         the plan stores z after it: 8 bytes = 4 cycles; 16 x 1 + 8 x 20 = 176 pJ. */
TEST(test_netcost_by_hand) {
  Net *net;
  SpError err;
  CHECK_EQ(Net_parse(Tiny_net, strlen(Tiny_net), "tiny", &net, &err), SP_OK);
  NetCostMapper *m = Test_mapper(Tiny_arch, NULL, "exhaustive");
  SolveSettings s;
  SolveSettings_init(&s);
  s.params = true;
  s.budget = 1024;
  NetCost nc;
  CHECK_EQ(Test_cost(net, &s, m, &nc, NULL), SP_OK);
  const NetCostOp *conv = Test_op(&nc, "conv"), *add = Test_op(&nc, "add");
  if (conv && add) {
    CHECK(conv->mapped && !add->mapped);
    CHECK_EQ(conv->compute_cycles, 16);
    CHECK_EQ(conv->onchip_cycles, 16);
    CHECK_EQ(conv->dram_bytes, 12);
    CHECK_EQ(conv->dram_cycles, 6);
    CHECK_EQ(conv->cycles, 16);
    CHECK_EQ(conv->weight_bytes, 0);
    CHECK(fabs(conv->energy_pj - 136) < 1e-9);
    CHECK_EQ(add->compute_cycles, 16);
    CHECK_EQ(add->dram_bytes, 8);
    CHECK_EQ(add->dram_cycles, 4);
    CHECK(fabs(add->energy_pj - 176) < 1e-9);
  }
  CHECK_EQ(nc.cycles, 32);
  CHECK_EQ(nc.dram_bytes, 20);
  CHECK_EQ(NetCostMapper_count(m), 1);
  NetCost_free(&nc);

  /* Weights from DRAM (params off chip): the plan moves x in and z out (16
   * bytes); the conv reads w as its mapping reads it from DRAM, at least once. */
  s.params = false;
  CHECK_EQ(Test_cost(net, &s, m, &nc, NULL), SP_OK);
  conv = Test_op(&nc, "conv"), add = Test_op(&nc, "add");
  if (conv && add) {
    CHECK_EQ(conv->plan_bytes, 8);
    CHECK_EQ(add->plan_bytes, 8);
    Layer l;
    const LayerMapResult *r;
    CHECK_EQ(Layer_fromOp(net, Net_findOp(net, "conv"), &l, &err), SP_OK);
    CHECK_EQ(NetCostMapper_map(m, &l, &r, &err), SP_OK);
    CHECK_EQ(conv->weight_bytes, (int64_t)llround(r->cost.reads[1][OPND_W]));
    CHECK(conv->weight_bytes >= 4);
    CHECK_EQ(conv->dram_cycles, (8 + conv->weight_bytes + 1) / 2);
  }
  CHECK_EQ(NetCostMapper_count(m), 1); /* the same shape: mapped once */
  NetCost_free(&nc);
  NetCostMapper_free(m);
  Net_free(net);
}

/* fsrcnn on cosa_baseline (random: deterministic, fast): 7 convolutions of 4
 * shapes mapped 4 times; each op's compute equals a fresh mapping of its own
 * layer; the deconvolution (not in the layer model) by the roofline. */
TEST(test_netcost_layers_match) {
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(SPADMAP_DATA_DIR "/networks/fsrcnn.json", &net, &err), SP_OK);
  NetCostMapper *m = Test_mapper(NULL, SPADMAP_DATA_DIR "/arch/cosa_baseline.json", "random");
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = Figures_minRequired(net, false);
  NetCost nc;
  CHECK_EQ(Test_cost(net, &s, m, &nc, NULL), SP_OK);
  CHECK_EQ(nc.mapped, 7);
  CHECK_EQ(nc.roofline, 1);
  CHECK_EQ(NetCostMapper_count(m), 4);
  const Arch *a = NetCostMapper_arch(m);
  for (int i = 0; i < nc.nops; i++) {
    const NetCostOp *c = &nc.ops[i];
    Layer l;
    if (Layer_fromOp(net, c->op, &l, &err)) {
      CHECK(!c->mapped);
      continue;
    }
    LayerMapOptions o;
    LayerMapOptions_init(&o);
    LayerMapResult r;
    CHECK_EQ(LayerMap_random(a, &l, &o, &r, &err), SP_OK);
    CHECK_EQ(c->compute_cycles, (int64_t)llround(r.cost.compute_cycles));
    double onchip = r.cost.compute_cycles; /* the layer's latency without its DRAM level */
    for (int lv = 0; lv < a->nlevels - 1; lv++) onchip = fmax(onchip, r.cost.transfer_cycles[lv]);
    CHECK_EQ(c->onchip_cycles, (int64_t)ceil(onchip - 1e-9));
    CHECK(c->onchip_cycles <= (int64_t)ceil(r.cost.latency));    CHECK(c->weight_bytes >= net->tensors[net->ops[c->op].inputs[1]].bytes); /* every weight read at least once */
  }
  NetCost_free(&nc);
  NetCostMapper_free(m);
  Net_free(net);
}

/* An exact plan (the replacement ILP, proven optimal) for a fixed schedule: a
 * larger budget admits every plan of a smaller one, so DRAM bytes never grow. */
TEST(test_netcost_monotone) {
  const char *nets[] = {"diamond", "fig1", "skip", "chain"};
  NetCostMapper *m = Test_mapper(Tiny_arch, NULL, "exhaustive");
  for (int k = 0; k < 4; k++) {
    char path[512];
    snprintf(path, sizeof path, SPADMAP_DATA_DIR "/networks/%s.json", nets[k]);
    Net *net;
    SpError err;
    CHECK_EQ(Net_load(path, &net, &err), SP_OK);
    NetFigures f;
    CHECK_EQ(Figures_compute(net, false, &f, NULL, &err), SP_OK);
    int64_t last = -1;
    int nb = 0;
    for (int64_t b = f.m_r; b <= f.m_p + 1024; b += 1024, nb++) {
      SolveSettings s;
      SolveSettings_init(&s);
      s.budget = b;
      s.replacement = "ilp";
      NetCost nc;
      Plan *plan = NULL;
      CHECK_EQ(Test_cost(net, &s, m, &nc, &plan), SP_OK);
      if (!plan) break;
      CHECK_EQ(plan->solver.status, SOLVER_OPTIMAL);
      if (last >= 0 && nc.dram_bytes > last) printf("  %s: %lld bytes at %lld > %lld below\n", nets[k], (long long)nc.dram_bytes, (long long)b, (long long)last);
      CHECK(last < 0 || nc.dram_bytes <= last);
      last = nc.dram_bytes;
      Plan_free(plan);
      NetCost_free(&nc);
    }
    CHECK(nb >= 2);
    Net_free(net);
  }
  NetCostMapper_free(m);
}

/* Below M_R the tiled network is planned: its plan validates (Test_cost), each
 * original op is there once with its compute unchanged, and the tiles move more
 * bytes than the whole network at M_R. */
TEST(test_netcost_below_mr) {
  Net *net;
  SpError err;
  CHECK_EQ(Net_load(SPADMAP_DATA_DIR "/networks/fsrcnn.json", &net, &err), SP_OK);
  NetCostMapper *m = Test_mapper(NULL, SPADMAP_DATA_DIR "/arch/cosa_baseline.json", "random");
  SolveSettings s;
  SolveSettings_init(&s);
  int64_t mr = Figures_minRequired(net, false);
  s.budget = mr;
  NetCost at, below;
  CHECK_EQ(Test_cost(net, &s, m, &at, NULL), SP_OK);
  s.budget = mr / 4;
  CHECK_EQ(Test_cost(net, &s, m, &below, NULL), SP_OK);
  CHECK(below.tiled && !at.tiled);
  CHECK_EQ(below.compute_cycles, at.compute_cycles);
  CHECK_EQ(below.weight_bytes, at.weight_bytes);
  CHECK(below.plan_bytes > at.plan_bytes);
  CHECK_EQ(NetCostMapper_count(m), 4);
  NetCost_free(&at);
  NetCost_free(&below);
  /* a budget of 0 is refused with a message */
  NetCostStage st;
  CHECK_EQ(NetCostStage_build(net, false, 0, &st, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "budget");
  NetCostMapper_free(m);
  Net_free(net);
}

/* A layer the mapper cannot fit fails the cost with the layer and op named. */
TEST(test_netcost_mapper_error) {
  static const char *small =
      "{\"format\": \"spadmap-arch\", \"version\": 1, \"name\": \"small\", \"source\": \"test\", \"macs\": 1, \"mac_pj\": 1,"
      " \"precision\": {\"weights\": 1, \"inputs\": 1, \"outputs\": 1},"
      " \"levels\": [{\"name\": \"Buf\", \"instances\": 1, \"capacity\": 1, \"holds\": [\"weights\", \"inputs\", \"outputs\"],"
      "  \"bandwidth\": 4, \"read_pj\": 0, \"write_pj\": 0},"
      " {\"name\": \"DRAM\", \"instances\": 1, \"holds\": [\"weights\", \"inputs\", \"outputs\"], \"bandwidth\": 2,"
      "  \"read_pj\": 10, \"write_pj\": 20}]}";
  Net *net;
  SpError err;
  CHECK_EQ(Net_parse(Tiny_net, strlen(Tiny_net), "tiny", &net, &err), SP_OK);
  NetCostMapper *m = Test_mapper(small, NULL, "exhaustive");
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = 1024;
  NetCost nc;
  Status st = NetCost_run(net, &s, m, &nc, NULL, NULL, &err);
  CHECK(st != SP_OK);
  if (st) CHECK_HAS(err.text, "op \"conv\"");
  NetCostMapper_free(m);
  Net_free(net);
}

TEST_MAIN("netcost", T(test_netcost_by_hand), T(test_netcost_layers_match), T(test_netcost_monotone),
          T(test_netcost_below_mr), T(test_netcost_mapper_error))

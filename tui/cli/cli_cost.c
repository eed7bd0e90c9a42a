/* spadmap cost NET --arch A --budget B: the network's latency and energy on an
 * architecture with a scratchpad of B bytes (engine/netcost: the plan at the
 * budget, the tiled network below M_R, one layer mapping per distinct shape).
 * The model: docs/design/cost.md. */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"
#include "cli.h"
#include "cli_layer.h"
#include "cli_sweep.h"
#include "json.h"
#include "netcost/netcost.h"
#include "policy.h"
#include "solve.h"
#include "validate.h"

static const CliOption Cost_options[] = {
  {"--arch", "ARCH", "architecture file, or a bundled name (default cosa_baseline; see data/arch)"},
  {"--budget", "SIZE", "scratchpad bytes: M_R, M_R/16, M_P*2 or a size like 512K (required); below M_R the tiled network"},
  {"--method", "M", "layer mapper for convolutions and matmuls (default cosa-plus; cosa is the paper's; see spadmap layer --list)"},
  {"--schedule", "NAME", "schedule policy (default: default)"},
  {"--replacement", "NAME", "replacement policy (default: belady)"},
  {"--allocator", "NAME", "allocator (default: linear)"},
  {"--params", NULL, "hold parameter tensors in the scratchpad too (default: weights stream from DRAM)"},
  {"--time-limit", "SECONDS", "time limit of the searching policies and of each layer mapping (default: 60 and 10)"},
  {"--json", NULL, "print a JSON object: network, arch, budget, total, ops"},
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

static atomic_int Cost_interrupted;
static void Cost_onSigint(int sig) {
  (void)sig;
  atomic_store(&Cost_interrupted, 1);
}

/* Fills s from the policy options; an exit code after a message, else -1. */
static int CliCost_policies(const CliCommand *c, const CliArgs *a, SolveSettings *s) {
  if (Cli_value(c, a, "--schedule")) s->schedule = Cli_value(c, a, "--schedule");
  if (Cli_value(c, a, "--replacement")) s->replacement = Cli_value(c, a, "--replacement");
  if (Cli_value(c, a, "--allocator")) s->allocator = Cli_value(c, a, "--allocator");
  const PolicyKind kinds[3] = {POLICY_SCHEDULE, POLICY_REPLACEMENT, POLICY_ALLOCATOR};
  const char *names[3] = {s->schedule, s->replacement, s->allocator};
  for (int k = 0; k < 3; k++)
    if (!Policy_find(kinds[k], names[k])) {
      fprintf(stderr, "spadmap %s: unknown %s policy \"%s\" (see spadmap solve --list)\n", c->name,
              PolicyKind_name(kinds[k]), Cli_safe(names[k]));
      return EXIT_USAGE;
    }
  return -1;
}

/* --arch and --method into a mapper; an exit code after a message, else -1. */
int CliCost_mapper(const CliCommand *c, const CliArgs *a, double time_limit, atomic_int *cancel, NetCostMapper **out) {
  const char *mname = Cli_value(c, a, "--method") ? Cli_value(c, a, "--method") : "cosa-plus";
  const LayerMethod *method = LayerMap_find(mname);
  if (!method) {
    fprintf(stderr, "spadmap %s: --method \"%s\": expected a layer mapper, one of:", c->name, Cli_safe(mname));
    for (int i = 0; i < LayerMap_nmethods; i++) fprintf(stderr, " %s", LayerMap_methods[i].name);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
  }
  Arch arch;
  SpError err = {0};
  if (CliLayer_loadArch(Cli_value(c, a, "--arch"), &arch, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", c->name, Cli_safe(err.text));
    return err.code == SP_ERR_ARG ? EXIT_USAGE : EXIT_INVALID;
  }
  LayerMapOptions o;
  LayerMapOptions_init(&o);
  if (time_limit > 0) o.time_limit = time_limit;
  o.cancel = cancel;
  if (NetCostMapper_new(&arch, method, &o, out, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", c->name, err.text);
    return EXIT_INVALID;
  }
  return -1;
}

static cJSON *CliCost_json(const Net *net, const NetCostMapper *m, int64_t budget, const NetCost *nc) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "network", net->name);
  cJSON_AddStringToObject(o, "arch", NetCostMapper_arch(m)->name);
  cJSON_AddItemToObject(o, "budget", Json_createInt(budget));
  cJSON *t = cJSON_AddObjectToObject(o, "total");
  cJSON_AddItemToObject(t, "cycles", Json_createInt(nc->cycles));
  cJSON_AddItemToObject(t, "compute_cycles", Json_createInt(nc->compute_cycles));
  cJSON_AddItemToObject(t, "onchip_cycles", Json_createInt(nc->onchip_cycles));
  cJSON_AddItemToObject(t, "dram_cycles", Json_createInt(nc->dram_cycles));
  cJSON_AddNumberToObject(t, "energy_pj", nc->energy_pj);
  cJSON_AddItemToObject(t, "dram_bytes", Json_createInt(nc->dram_bytes));
  cJSON *ops = cJSON_AddArrayToObject(o, "ops");
  for (int i = 0; i < nc->nops; i++) {
    const NetCostOp *c = &nc->ops[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "name", c->name);
    cJSON_AddItemToObject(x, "cycles", Json_createInt(c->cycles));
    cJSON_AddItemToObject(x, "compute_cycles", Json_createInt(c->compute_cycles));
    cJSON_AddItemToObject(x, "onchip_cycles", Json_createInt(c->onchip_cycles));
    cJSON_AddItemToObject(x, "dram_cycles", Json_createInt(c->dram_cycles));
    cJSON_AddNumberToObject(x, "energy_pj", c->energy_pj);
    cJSON_AddItemToObject(x, "dram_bytes", Json_createInt(c->dram_bytes));
    cJSON_AddItemToArray(ops, x);
  }
  return o;
}

static void Cost_print(const Net *net, const NetCostMapper *m, const SolveSettings *s, const NetCostStage *stage,
                       const Plan *plan, const NetCost *nc) {
  const Arch *arch = NetCostMapper_arch(m);
  const ArchLevel *dram = &arch->level[arch->nlevels - 1];
  char b1[32], b2[32], b3[32], b4[32];
  printf("network   %s (%d ops: %d by the layer mapper %s, %d by the roofline)\n", Cli_safe(net->name), net->nops,
         nc->mapped, NetCostMapper_method(m), nc->roofline);
  printf("arch      %s (%s MACs; %s: %s/cycle, %s/%s pJ per byte read/written)\n", Cli_safe(arch->name),
         Words_count((double)arch->macs, b4, sizeof b4), Cli_safe(dram->name), Words_bytes(dram->bandwidth * (double)dram->instances, b1, sizeof b1),
         Words_figure(dram->read_pj, b2, sizeof b2), Words_figure(dram->write_pj, b3, sizeof b3));
  printf("budget    %s bytes (%s), M_R %s", Cli_count(s->budget, b1, sizeof b1), Cli_bytes(s->budget, b2, sizeof b2),
         Cli_bytes(stage->m_r, b3, sizeof b3));
  if (stage->tiled) printf(": below it, the tiled network (%d sub-steps)\n", stage->tiled->nops);
  else printf("\n");
  printf("policies  schedule %s, replacement %s, allocator %s, %s\n", Cli_safe(plan->schedule_policy),
         Cli_safe(plan->replacement_policy), Cli_safe(plan->allocator_policy),
         s->params ? "params in the scratchpad" : "weights from DRAM");
  printf("mappings  %d distinct layer shape%s, each mapped once\n\n", NetCostMapper_count(m),
         NetCostMapper_count(m) == 1 ? "" : "s");
  /* the one vocabulary (words.c): cycles and bytes grouped, energy in its unit */
  printf("%-28s %13s %13s %13s %13s %-8s %14s %10s\n", "op", "cycles", "compute", "on chip", "dram", "bound",
         "dram bytes", "energy");
  char f[6][48];
  for (int i = 0; i < nc->nops; i++) {
    const NetCostOp *c = &nc->ops[i];
    char col[256];
    printf("%s %13s %13s %13s %13s %-8s %14s %10s%s\n", Cli_nameColumn(c->name, 28, col, sizeof col), Words_count((double)c->cycles, f[0], sizeof f[0]),
           Words_count((double)c->compute_cycles, f[1], sizeof f[1]), Words_count((double)c->onchip_cycles, f[2], sizeof f[2]),
           Words_count((double)c->dram_cycles, f[3], sizeof f[3]),
           c->dram_cycles > c->onchip_cycles ? "DRAM" : c->onchip_cycles > c->compute_cycles ? "on chip" : "compute",
           Words_count((double)c->dram_bytes, f[4], sizeof f[4]), Words_energy(c->energy_pj, f[5], sizeof f[5]),
           c->mapped ? "" : "  (roofline)");
  }
  printf("%-28s %13s %13s %13s %13s %-8s %14s %10s\n", "total", Words_count((double)nc->cycles, f[0], sizeof f[0]),
         Words_count((double)nc->compute_cycles, f[1], sizeof f[1]), Words_count((double)nc->onchip_cycles, f[2], sizeof f[2]),
         Words_count((double)nc->dram_cycles, f[3], sizeof f[3]), "", Words_count((double)nc->dram_bytes, f[4], sizeof f[4]),
         Words_energy(nc->energy_pj, f[5], sizeof f[5]));
  printf("\nDRAM bytes: %s of the plan (loads, retrievals, spills, stores), %s of weights read from DRAM\n",
         Cli_count(nc->plan_bytes, b1, sizeof b1), Cli_count(nc->weight_bytes, b2, sizeof b2));
}

static int Cost_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_cost;
  int rc = Cli_parse(c, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  const char *btext = Cli_value(c, &a, "--budget");
  if (!btext) {
    fprintf(stderr, "spadmap cost: needs --budget (usage: spadmap cost %s)\n", c->args);
    return EXIT_USAGE;
  }
  SolveSettings s;
  SolveSettings_init(&s);
  s.params = Cli_value(c, &a, "--params") != NULL;
  if ((rc = CliCost_policies(c, &a, &s)) >= 0) return rc;
  double limit = 0;
  const char *tl = Cli_value(c, &a, "--time-limit");
  if (tl && !Cli_real(tl, 0.001, 1e7, &limit)) {
    fprintf(stderr, "spadmap cost: --time-limit \"%s\": expected seconds from 0.001 to 10000000\n", Cli_safe(tl));
    return EXIT_USAGE;
  }
  if (limit > 0) s.time_limit = limit;
  atomic_store(&Cost_interrupted, 0);
  s.cancel = &Cost_interrupted;
  NetCostMapper *mapper = NULL;
  if ((rc = CliCost_mapper(c, &a, limit, &Cost_interrupted, &mapper)) >= 0) return rc;
  Net *net = Cli_loadModel(c, &a, a.pos[0], &rc); /* a model with --dtype, --fold, --dim, --value as solve opens it */
  if (!net) {
    NetCostMapper_free(mapper);
    return rc;
  }
  SpError err;
  int exit_code = EXIT_OK;
  if (Cli_budget(net, s.params, btext, &s.budget, NULL, &err)) {
    fprintf(stderr, "spadmap cost: %s\n", err.text);
    NetCostMapper_free(mapper);
    Net_free(net);
    return EXIT_USAGE;
  }
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = Cost_onSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  NetCost nc;
  NetCostStage stage;
  Plan *plan = NULL;
  Status st = NetCost_run(net, &s, mapper, &nc, &stage, &plan, &err);
  sigaction(SIGINT, &old, NULL);
  if (st) {
    fprintf(stderr, "spadmap cost: %s: %s\n", Cli_safe(net->name), err.text);
    exit_code = Cli_exitFor(st, atomic_load(&Cost_interrupted));
    if (st == SP_ERR_INFEASIBLE) exit_code = EXIT_INVALID;
    goto out;
  }
  ValidateReport rep; /* the plan behind the figures is checked, as solve's is */
  if (Validate_plan(stage.net, plan, &rep)) {
    fprintf(stderr, "spadmap cost: the plan fails the validator (%d violations; the first: %s)\n", rep.count,
            rep.nlines ? rep.lines[0] : "?");
    exit_code = EXIT_INVALID;
  }
  ValidateReport_free(&rep);
  if (exit_code == EXIT_OK) {
    if (Cli_value(c, &a, "--json")) {
      cJSON *o = CliCost_json(net, mapper, s.budget, &nc);
      char *text = cJSON_Print(o);
      printf("%s\n", text);
      cJSON_free(text);
      cJSON_Delete(o);
    } else Cost_print(net, mapper, &s, &stage, plan, &nc);
  }
  NetCost_free(&nc);
  NetCostStage_free(&stage);
  Plan_free(plan);
out:
  NetCostMapper_free(mapper);
  Net_free(net);
  return exit_code;
}

const CliCommand Cli_cost = {"cost", "NET --budget SIZE [--arch ARCH] [--method M] [policies] [--json]",
                             "The network's latency and energy on an architecture with a scratchpad of SIZE bytes.",
                             Cost_options, Cost_run, CLI_IN_NET | CLI_IN(FILE_ARCH)};

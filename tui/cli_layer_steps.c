/* spadmap layer-steps NET OP --method ...: SmartShuttle and the offloading steps
 * on one layer. A stand-in until the layer command (cosa branch) takes these
 * methods in its table; the work is in shuttle_methods.c, which both use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "layer/layer.h"
#include "shuttle_methods.h"

static const CliOption LayerSteps_options[] = {
  {"--method", "NAME", "smartshuttle, steps-s1, steps-row, steps-zigzag or steps-ilp (default smartshuttle)"},
  {"--layer", "TEXT", "a layer from text instead of NET OP (R_P_C_K_stride or R=3,S=3,...)"},
  {"--batch", "N", "batch size (smartshuttle; default: the network's)"},
  {"--arch", "FILE", "platform (smartshuttle; default data/arch/smartshuttle.json)"},
  {"--capacity", "RULE", "smartshuttle buffer occupancy: paper (default), halo, raw"},
  {"--size-mem", "N", "steps: on-chip memory in elements (default: unbounded)"},
  {"--nbop-pe", "N", "steps: MACs per step (sets the group size)"},
  {"--group-size", "N", "steps: patches per step (default 4 unless --nbop-pe)"},
  {"--max-loads", "N", "steps-ilp: loads per pixel at most (default 2, 0: none)"},
  {"--time-limit", "SECONDS", "steps-ilp: time limit (default 10)"},
  {"--all", NULL, "steps: print every step"},
  {NULL, NULL, NULL},
};

static int LayerSteps_num(const char *s, const char *what, long long lo, long long hi, long long *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
    fprintf(stderr, "spadmap layer-steps: %s must be an integer in %lld..%lld, not '%s'\n", what, lo, hi, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* The op by name or index. */
static int LayerSteps_findOp(const Net *net, const char *text) {
  for (int i = 0; i < net->nops; i++)
    if (net->ops[i].name && strcmp(net->ops[i].name, text) == 0) return i;
  char *end;
  long v = strtol(text, &end, 10);
  return *text && !*end && v >= 0 && v < net->nops ? (int)v : -1;
}

static int LayerSteps_run(int argc, char **argv) {
  const CliCommand *c = &Cli_layerSteps;
  CliArgs a;
  int rc = Cli_parse(c, argc, argv, 0, 2, &a);
  if (rc >= 0) return rc;
  const char *method = Cli_value(c, &a, "--method") ? Cli_value(c, &a, "--method") : "smartshuttle";
  if (!ShuttleMethod_known(method)) {
    fprintf(stderr, "spadmap layer-steps: unknown method '%s' (", method);
    for (int i = 0; ShuttleMethod_names[i]; i++) fprintf(stderr, "%s%s", i ? ", " : "", ShuttleMethod_names[i]);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
  }
  ShuttleMethodOptions o;
  ShuttleMethodOptions_init(&o);
  long long v;
  if (Cli_value(c, &a, "--size-mem")) {
    if (LayerSteps_num(Cli_value(c, &a, "--size-mem"), "--size-mem", 1, 1LL << 50, &v)) return EXIT_USAGE;
    o.size_mem = v;
  }
  if (Cli_value(c, &a, "--nbop-pe")) {
    if (LayerSteps_num(Cli_value(c, &a, "--nbop-pe"), "--nbop-pe", 1, 1LL << 50, &v)) return EXIT_USAGE;
    o.nbop_pe = v;
    o.group_size = 0;
  }
  if (Cli_value(c, &a, "--group-size")) {
    if (LayerSteps_num(Cli_value(c, &a, "--group-size"), "--group-size", 1, 1 << 20, &v)) return EXIT_USAGE;
    o.group_size = (int)v;
  }
  if (Cli_value(c, &a, "--max-loads")) {
    if (LayerSteps_num(Cli_value(c, &a, "--max-loads"), "--max-loads", 0, 1000, &v)) return EXIT_USAGE;
    o.max_loads = (int)v;
  }
  if (Cli_value(c, &a, "--time-limit")) {
    if (LayerSteps_num(Cli_value(c, &a, "--time-limit"), "--time-limit", 1, 86400, &v)) return EXIT_USAGE;
    o.time_limit = (double)v;
  }
  long long batch = 0;
  if (Cli_value(c, &a, "--batch") && LayerSteps_num(Cli_value(c, &a, "--batch"), "--batch", 1, 1 << 20, &batch))
    return EXIT_USAGE;
  o.arch_path = Cli_value(c, &a, "--arch");
  o.capacity = Cli_value(c, &a, "--capacity");
  o.all_steps = Cli_value(c, &a, "--all") != NULL;
  Layer l;
  SpError err;
  const char *text = Cli_value(c, &a, "--layer");
  if (text) {
    if (a.npos) {
      fprintf(stderr, "spadmap layer-steps: give NET OP or --layer, not both\n");
      return EXIT_USAGE;
    }
    if (Layer_parse(text, &l, &err) != SP_OK) {
      fprintf(stderr, "spadmap layer-steps: %s\n", err.text);
      return EXIT_USAGE;
    }
  } else {
    if (a.npos != 2) {
      fprintf(stderr, "spadmap layer-steps: give NET OP (an op name or index) or --layer TEXT\n");
      return EXIT_USAGE;
    }
    Net *net = Cli_loadNet(a.pos[0]);
    if (!net) return EXIT_INVALID;
    int op = LayerSteps_findOp(net, a.pos[1]);
    Status st = op < 0 ? SpError_set(&err, SP_ERR_ARG, "%s: no op named '%s'", a.pos[0], a.pos[1])
                       : Layer_fromOp(net, op, &l, &err);
    Net_free(net);
    if (st != SP_OK) {
      fprintf(stderr, "spadmap layer-steps: %s\n", err.text);
      return EXIT_INVALID;
    }
  }
  if (batch) l.N = batch;
  return ShuttleMethod_run(method, &l, &o, stdout);
}

const CliCommand Cli_layerSteps = {
    "layer-steps", "NET OP | --layer TEXT",
    "SmartShuttle (smartshuttle) or the offloading steps (steps-*) on one layer.", LayerSteps_options,
    LayerSteps_run};

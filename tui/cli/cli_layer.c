/* spadmap layers NET: a network's unique layers in CoSA's naming.
 * spadmap layer (NET OP | LAYER) --arch ARCH --method M: one layer mapped onto an
 * architecture by a method from the engine's table (engine/layer/layer_map.c:
 * adding a row there adds a --method value here, nothing else). */
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"
#include "cli.h"
#include "words.h"
#include "cli_layer.h"
#include "cli_layer_shuttle.h"
#include "shuttle_methods.h"
#include "layer/layer_map.h"
#include "layer/timeloop.h"

static const CliOption Layers_options[] = {
  {"--json", NULL, "print a JSON array instead of a table"},
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

static int Layers_run(int argc, char **argv) {
  CliArgs a;
  int rc = Cli_parse(&Cli_layers, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  Net *net = Cli_loadModel(&Cli_layers, &a, a.pos[0], &rc); /* a model with --dtype, --fold, --dim, --value */
  if (!net) return rc;
  Layer *u;
  int *count, n;
  SpError err;
  if (Layer_unique(net, &u, &count, &n, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", Cli_name(), Cli_safe(err.text));
    Net_free(net);
    return EXIT_INVALID;
  }
  bool json = Cli_value(&Cli_layers, &a, "--json") != NULL;
  cJSON *arr = json ? cJSON_CreateArray() : NULL;
  if (!json) printf("%-18s %5s %4s %4s %4s %5s %5s %3s %6s %5s %14s  %s\n", "layer", "R", "S", "P", "Q", "C", "K", "N",
                    "groups", "count", "MACs", "first op");
  for (int i = 0; i < n; i++) {
    char name[64], macs[32];
    Layer_cosaName(&u[i], name, sizeof name);
    if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", name);
      const char *keys[] = {"R", "S", "P", "Q", "C", "K", "N"};
      int64_t v[] = {u[i].R, u[i].S, u[i].P, u[i].Q, u[i].C, u[i].K, u[i].N};
      for (int k = 0; k < 7; k++) cJSON_AddNumberToObject(o, keys[k], (double)v[k]);
      cJSON_AddNumberToObject(o, "stride", u[i].stride_h);
      cJSON_AddNumberToObject(o, "groups", u[i].groups);
      cJSON_AddNumberToObject(o, "count", count[i]);
      cJSON_AddStringToObject(o, "op", u[i].name);
      cJSON_AddItemToArray(arr, o);
    } else {
      printf("%-18s %5lld %4lld %4lld %4lld %5lld %5lld %3lld %6d %5d %14s  %s\n", name, (long long)u[i].R,
             (long long)u[i].S, (long long)u[i].P, (long long)u[i].Q, (long long)u[i].C, (long long)u[i].K,
             (long long)u[i].N, u[i].groups, count[i], Cli_count(Layer_macs(&u[i]), macs, sizeof macs), Cli_safe(u[i].name));
    }
  }
  if (json) {
    char *s = cJSON_Print(arr);
    printf("%s\n", s);
    cJSON_free(s);
    cJSON_Delete(arr);
  } else {
    int ops = 0;
    for (int i = 0; i < n; i++) ops += count[i];
    printf("\n%d unique layers (CoSA naming R_P_C_K_stride) among %d convolution/matmul ops of %s\n", n, ops,
           Cli_safe(net->name));
    SpError first;
    int skipped = Layer_skipped(net, &first);
    if (skipped) /* not silently: the model cannot express them (dilated, malformed attributes) */
      printf("%d convolution/matmul op%s skipped, the layer model cannot express %s; the first: %s\n", skipped,
             skipped > 1 ? "s" : "", skipped > 1 ? "them" : "it", Cli_safe(first.text));
  }
  free(u);
  free(count);
  Net_free(net);
  return EXIT_OK;
}

const CliCommand Cli_layers = {"layers", "NET", "A network's unique convolution/matmul layers in CoSA's naming.",
                               Layers_options, Layers_run, CLI_IN_NET};

static const CliOption Layer_options[] = {
  {"--arch", "ARCH", "architecture file, or a bundled name (default cosa_baseline; see data/arch)"},
  {"--method", "M", "mapper (see --list; default cosa, the paper's; cosa-plus is ours)"},
  {"--objective", "O", "latency, energy or edp: what random/exhaustive call best (default latency)"},
  {"--samples", "N", "random: valid mappings to draw (default 5, the paper's Random)"},
  {"--seed", "N", "random: generator seed (default 1)"},
  {"--time-limit", "S", "seconds for the MIP / search, or SmartShuttle's oracle (a third per scheme) (default 10)"},
  {"--weights", "U,C,T[,L]", "CoSA Eq. 12 weights: utilisation, compute, traffic (default 1,1,1), and for cosa-plus/cosa-single L for the latency term (ours; default 5)"},
  {"--wall-limit", "S", "cosa, cosa-plus, cosa-single, random: the wall-clock stop instead of --time-limit (which stays the MIPs' work budget)"},
  {"--mip-limit", "N", "cosa-plus: work per MIP round at most, in simplex iterations + nodes (default 10000; 0: only --time-limit)"},
  {"--no-refine", NULL, "cosa-plus: skip the cost model's local search after each MIP"},
  {"--export-timeloop", "DIR", "write arch.yaml, prob.yaml and map.yaml for timeloop-model (v1.0) into DIR"},
  {"--list", NULL, "list the methods"},
  {"--json", NULL, "print a JSON object"},
  CLI_LAYER_SHUTTLE_OPTIONS
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

Status CliLayer_archPath(const char *name, const char *dflt, char *buf, size_t n, SpError *err) {
  if (!name) name = dflt;
  if (!*name) return SpError_set(err, SP_ERR_ARG, "--arch: empty (a file, or a bundled name: ls %s/arch)", Data_dir());
  if (strchr(name, '/') || strstr(name, ".json") || access(name, F_OK) == 0) snprintf(buf, n, "%s", name);
  else snprintf(buf, n, "%s/arch/%s.json", Data_dir(), name);
  return SP_OK;
}

Status CliLayer_loadArch(const char *name, Arch *arch, SpError *err) {
  char path[1024];
  Status st = CliLayer_archPath(name, "cosa_baseline", path, sizeof path, err);
  return st != SP_OK ? st : Arch_load(path, arch, err);
}

static bool Layer_parseLong(const char *s, long lo, long hi, long *out) {
  char *e;
  long v = strtol(s, &e, 10);
  if (e == s || *e || v < lo || v > hi) return false;
  *out = v;
  return true;
}

int CliLayer_options(const CliCommand *cmd, const CliArgs *a, LayerMapOptions *o) {
  LayerMapOptions_init(o);
  const char *v;
  long x;
  if ((v = Cli_value(cmd, a, "--objective")) && !LayerObjective_parse(v, &o->objective)) {
    fprintf(stderr, "spadmap %s: --objective \"%s\": expected latency, energy or edp\n", cmd->name, Cli_safe(v));
    return EXIT_USAGE;
  }
  if ((v = Cli_value(cmd, a, "--samples"))) {
    if (!Layer_parseLong(v, 1, 100000000, &x)) {
      fprintf(stderr, "spadmap %s: --samples \"%s\": expected an integer in 1..100000000\n", cmd->name, Cli_safe(v));
      return EXIT_USAGE;
    }
    o->samples = x;
  }
  if ((v = Cli_value(cmd, a, "--seed"))) {
    if (!Layer_parseLong(v, 0, 2000000000, &x)) {
      fprintf(stderr, "spadmap %s: --seed \"%s\": expected a non-negative integer\n", cmd->name, Cli_safe(v));
      return EXIT_USAGE;
    }
    o->seed = (uint64_t)x;
  }
  if ((v = Cli_value(cmd, a, "--time-limit"))) {
    char *e;
    o->time_limit = strtod(v, &e);
    if (e == v || *e || !(o->time_limit > 0) || o->time_limit > 1e6) {
      fprintf(stderr, "spadmap %s: --time-limit \"%s\": expected seconds > 0\n", cmd->name, Cli_safe(v));
      return EXIT_USAGE;
    }
  }
  if ((v = Cli_value(cmd, a, "--wall-limit"))) {
    char *e;
    o->wall_limit = strtod(v, &e);
    if (e == v || *e || !(o->wall_limit > 0) || o->wall_limit > 1e6) {
      fprintf(stderr, "spadmap %s: --wall-limit \"%s\": expected seconds > 0\n", cmd->name, Cli_safe(v));
      return EXIT_USAGE;
    }
  }
  if ((v = Cli_value(cmd, a, "--mip-limit"))) {
    if (!Layer_parseLong(v, 0, 1000000000, &x)) {
      fprintf(stderr, "spadmap %s: --mip-limit \"%s\": expected a work count (simplex iterations + nodes) >= 0\n",
              cmd->name, Cli_safe(v));
      return EXIT_USAGE;
    }
    o->mip_limit = x;
  }
  if (Cli_value(cmd, a, "--no-refine")) o->refine = false;
  if ((v = Cli_value(cmd, a, "--weights"))) {
    double w[4] = {0, 0, 0, 0};
    int k = 0;
    bool ok = true;
    for (const char *s = v; ok; k++) { /* strtod whole fields: no junk, no NaN (NaN passes < and >) */
      char *end;
      double f = strtod(s, &end);
      ok = k < 4 && end != s && isfinite(f) && f >= 0 && f <= 1e6 && (*end == ',' || !*end);
      if (ok) w[k] = f;
      if (!ok || !*end) break;
      s = end + 1;
    }
    if (!ok || (k != 2 && k != 3)) { /* k: the index of the last field */
      fprintf(stderr, "spadmap %s: --weights \"%s\": expected non-negative numbers U,C,T or U,C,T,L\n", cmd->name,
              Cli_safe(v));
      return EXIT_USAGE;
    }
    o->w_util = w[0];
    o->w_comp = w[1];
    o->w_traf = w[2];
    o->w_lat = w[3];
  }
  return -1;
}

/* Ctrl-C cancels the mapper (it stops and says so) instead of killing the process. */
static atomic_int Layer_interrupted;
static void Layer_onSigint(int sig) {
  (void)sig;
  atomic_store(&Layer_interrupted, 1);
}

void CliLayer_progress(const char *stage, double inc, double bound, double gap, double el, void *user) {
  (void)user;
  char bi[32], bb[32];
  if (gap >= 0 && inc == inc && bound == bound)
    fprintf(stderr, "\r%-40.40s incumbent %-10s bound %-10s gap %5.1f%% %6.1f s", stage, Words_figure(inc, bi, sizeof bi),
            Words_figure(bound, bb, sizeof bb), 100 * gap, el);
  else fprintf(stderr, "\r%-40.40s %6.1f s%40s", stage, el, "");
  fflush(stderr);
}

static void Layer_printCosts(const Arch *arch, const Layer *l, const LayerMapResult *r) {
  const Cost *c = &r->cost;
  char b1[32], b2[32], b3[32], b4[32];
  printf("\n%-10s %12s %12s %12s %12s %10s %14s %12s\n", "level", "W tile", "I tile", "O tile", "used", "capacity",
         "bytes moved", "cycles");
  for (int i = arch->nlevels - 1; i >= 0; i--) {
    char tiles[3][24];
    for (int v = 0; v < OPND_COUNT; v++) {
      if (Arch_holds(arch, i, (Operand)v)) Words_bytes((double)c->tile[i][v], tiles[v], sizeof tiles[v]); /* with its unit */
      else snprintf(tiles[v], sizeof tiles[v], "-");
    }
    printf("%-10s %12s %12s %12s %12s %10s %14s %12s%s\n", arch->level[i].name, tiles[0], tiles[1], tiles[2],
           Cli_bytes(c->used[i], b1, sizeof b1),
           arch->level[i].capacity ? Cli_bytes(arch->level[i].capacity, b2, sizeof b2) : "unbounded",
           Words_bytes(c->level_bytes[i], b3, sizeof b3), Words_count(c->transfer_cycles[i], b4, sizeof b4), c->bound_by == i ? "  <- bound" : "");
  }
  (void)l;
  printf("\nlatency      %s cycles (%s-bound)\n", Words_count(c->latency, b1, sizeof b1),
         c->bound_by < 0 ? "compute" : arch->level[c->bound_by].name);
  printf("compute      %s cycles, utilisation %.1f%% of %s MACs\n", Words_count(c->compute_cycles, b1, sizeof b1),
         100 * c->utilization, Words_count((double)arch->macs, b2, sizeof b2));
  printf("energy       %s (%.3f pJ/MAC)\n", Words_energy(c->energy_pj, b1, sizeof b1), c->energy_pj / c->macs);
  printf("DRAM traffic %s\n", Words_bytes(c->dram_bytes, b1, sizeof b1));
}

cJSON *CliLayer_resultJSON(const Arch *arch, const Layer *l, const char *method, const LayerMapResult *r) {
  cJSON *o = cJSON_CreateObject();
  char name[64];
  cJSON_AddStringToObject(o, "layer", Layer_cosaName(l, name, sizeof name));
  cJSON_AddStringToObject(o, "op", l->name);
  cJSON_AddStringToObject(o, "arch", arch->name);
  cJSON_AddStringToObject(o, "method", method);
  cJSON_AddStringToObject(o, "note", r->note);
  cJSON_AddNumberToObject(o, "seconds", r->seconds);
  cJSON_AddNumberToObject(o, "latency_cycles", r->cost.latency);
  cJSON_AddNumberToObject(o, "compute_cycles", r->cost.compute_cycles);
  cJSON_AddNumberToObject(o, "energy_pj", r->cost.energy_pj);
  cJSON_AddNumberToObject(o, "dram_bytes", r->cost.dram_bytes);
  cJSON_AddNumberToObject(o, "utilization", r->cost.utilization);
  cJSON_AddStringToObject(o, "bound_by", r->cost.bound_by < 0 ? "compute" : arch->level[r->cost.bound_by].name);
  cJSON *levels = cJSON_AddArrayToObject(o, "levels");
  for (int i = 0; i < arch->nlevels; i++) {
    cJSON *lv = cJSON_CreateObject();
    cJSON_AddStringToObject(lv, "name", arch->level[i].name);
    cJSON *t = cJSON_AddObjectToObject(lv, "temporal"), *s = cJSON_AddObjectToObject(lv, "spatial");
    for (int d = 0; d < DIM_COUNT; d++) {
      if (r->map.t[i][d] > 1) cJSON_AddNumberToObject(t, Dim_name((Dim)d), (double)r->map.t[i][d]);
      if (r->map.s[i][d] > 1) cJSON_AddNumberToObject(s, Dim_name((Dim)d), (double)r->map.s[i][d]);
    }
    char order[DIM_COUNT + 1];
    for (int k = 0; k < DIM_COUNT; k++) order[k] = Dim_name((Dim)r->map.order[i][k])[0];
    order[DIM_COUNT] = 0;
    cJSON_AddStringToObject(lv, "order_inner_first", order);
    cJSON_AddNumberToObject(lv, "used_bytes", (double)r->cost.used[i]);
    cJSON_AddNumberToObject(lv, "capacity_bytes", (double)arch->level[i].capacity);
    cJSON_AddNumberToObject(lv, "bytes_moved", r->cost.level_bytes[i]);
    cJSON_AddNumberToObject(lv, "transfer_cycles", r->cost.transfer_cycles[i]);
    cJSON_AddItemToArray(levels, lv);
  }
  return o;
}

/* Whether word is one of the space-separated words of list. */
static bool Layer_wordIn(const char *word, const char *list) {
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    size_t m = strcspn(p, " ");
    if (m == n && strncmp(p, word, n) == 0) return true;
    p += m;
    p += strspn(p, " ");
  }
  return false;
}

static int Layer_run(int argc, char **argv) {
  CliArgs a;
  int rc = Cli_parse(&Cli_layer, argc, argv, 0, 2, &a);
  if (rc >= 0) return rc;
  if (Cli_value(&Cli_layer, &a, "--list")) {
    for (int i = 0; i < LayerMap_nmethods; i++)
      printf("%-14s %s\n", LayerMap_methods[i].name, LayerMap_methods[i].help);
    for (int i = 0; ShuttleMethod_names[i]; i++) printf("%-14s %s\n", ShuttleMethod_names[i], ShuttleMethod_help[i]);
    return EXIT_OK;
  }
  if (a.npos < 1) {
    fprintf(stderr, "spadmap layer: missing arguments (usage: spadmap layer %s)\n", Cli_layer.args);
    return EXIT_USAGE;
  }
  LayerMapOptions opt;
  if ((rc = CliLayer_options(&Cli_layer, &a, &opt)) >= 0) return rc;
  const char *mname = Cli_value(&Cli_layer, &a, "--method") ? Cli_value(&Cli_layer, &a, "--method") : "cosa";
  const LayerMethod *method = LayerMap_find(mname);
  bool shuttle = ShuttleMethod_known(mname); /* SmartShuttle, steps: cli_layer_shuttle.c */
  if (!method && !shuttle) {
    fprintf(stderr, "spadmap layer: unknown method \"%s\" (one of:", Cli_safe(mname));
    for (int i = 0; i < LayerMap_nmethods; i++) fprintf(stderr, " %s", LayerMap_methods[i].name);
    for (int i = 0; ShuttleMethod_names[i]; i++) fprintf(stderr, " %s", ShuttleMethod_names[i]);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
  }
  /* an option of another family of methods is refused, not ignored (a bad value
   * of it, say --capacity foo with cosa, went unnoticed); family 3 is steps-ilp
   * alone, which also takes family 2's. Within the mappers, `only` names the
   * mappers that read the option (--samples with cosa did nothing). */
  static const struct { const char *opt; int family; const char *only; } family_of[] = {
      {"--objective", 0, NULL},
      {"--samples", 0, "random"},
      {"--seed", 0, "random"},
      {"--weights", 0, "cosa cosa-plus cosa-single"},
      {"--mip-limit", 0, "cosa-plus cosa-single"},
      {"--wall-limit", 0, "cosa cosa-plus cosa-single random"},
      {"--no-refine", 0, "cosa-plus cosa-single"},
      {"--export-timeloop", 0, NULL},
      {"--batch", 1, NULL},
      {"--capacity", 1, NULL},
      {"--size-mem", 2, NULL},
      {"--nbop-pe", 2, NULL},
      {"--group-size", 2, NULL},
      {"--cycles", 2, NULL},
      {"--all", 2, NULL},
      {"--max-loads", 3, NULL},
      {"--model", 3, NULL},
      {"--threads", 3, NULL},
      {"--steps", 3, NULL}};
  static const char *const family_name[] = {"the mappers (cosa, cosa-plus, random, exhaustive, cosa-single)", "smartshuttle",
                                            "the steps-* methods", "steps-ilp"};
  int family = method ? 0 : strcmp(mname, "smartshuttle") == 0 ? 1 : strcmp(mname, "steps-ilp") == 0 ? 3 : 2;
  for (size_t i = 0; i < sizeof family_of / sizeof family_of[0]; i++) {
    if (!Cli_value(&Cli_layer, &a, family_of[i].opt)) continue;
    if (family_of[i].family != family && !(family == 3 && family_of[i].family == 2)) {
      fprintf(stderr, "spadmap layer: %s is for %s, not %s\n", family_of[i].opt, family_name[family_of[i].family],
              Cli_safe(mname));
      return EXIT_USAGE;
    }
    if (family_of[i].only && !Layer_wordIn(mname, family_of[i].only)) {
      char who[64];
      snprintf(who, sizeof who, "%s", family_of[i].only);
      for (char *c = strchr(who, ' '); c; c = strchr(c + 1, ' ')) *c = '/';
      fprintf(stderr, "spadmap layer: %s is for %s only, not %s\n", family_of[i].opt, who, Cli_safe(mname));
      return EXIT_USAGE;
    }
  }
  if (strcmp(mname, "cosa") == 0 && Cli_value(&Cli_layer, &a, "--weights") && opt.w_lat > 0) {
    fprintf(stderr, "spadmap layer: --weights: the latency term L is cosa-plus's; the paper's cosa takes U,C,T\n");
    return EXIT_USAGE;
  }
  Arch arch;
  SpError err = {0};
  if (!shuttle && CliLayer_loadArch(Cli_value(&Cli_layer, &a, "--arch"), &arch, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", Cli_name(), Cli_safe(err.text));
    return err.code == SP_ERR_ARG ? EXIT_USAGE : EXIT_INVALID;
  }
  Layer layer;
  const char *model_opt = Cli_value(&Cli_layer, &a, "--dtype") ? "--dtype" : Cli_value(&Cli_layer, &a, "--fold") ? "--fold"
                          : Cli_value(&Cli_layer, &a, "--dim") ? "--dim" : Cli_value(&Cli_layer, &a, "--value") ? "--value" : NULL;
  if (a.npos != 2 && model_opt) {
    fprintf(stderr, "spadmap layer: %s opens a model: give NET OP (a layer typed as a shape has no model)\n", model_opt);
    return EXIT_USAGE;
  }
  if (a.npos == 2) {
    int load_rc;
    Net *net = Cli_loadModel(&Cli_layer, &a, a.pos[0], &load_rc); /* a model with --dtype, --fold, --dim, --value */
    if (!net) return load_rc;
    int op = Net_findOp(net, a.pos[1]);
    if (op < 0) {
      fprintf(stderr, "spadmap layer: %s: no op named \"%s\"\n", Cli_safe(a.pos[0]), Cli_safe(a.pos[1]));
      Net_free(net);
      return EXIT_INVALID;
    }
    Status st = Layer_fromOp(net, op, &layer, &err);
    Net_free(net);
    if (st) {
      fprintf(stderr, "spadmap layer: %s\n", Cli_safe(err.text));
      return EXIT_INVALID;
    }
  } else if (!strchr(a.pos[0], '=') && access(a.pos[0], F_OK) == 0) { /* a file, not a layer: the OP is missing */
    fprintf(stderr, "spadmap layer: %s is a file: give the op too (spadmap layer NET OP; spadmap layers NET lists them)\n",
            Cli_safe(a.pos[0]));
    return EXIT_USAGE;
  } else if (Layer_parse(a.pos[0], &layer, &err)) {
    fprintf(stderr, "spadmap layer: %s\n", Cli_safe(err.text));
    return EXIT_USAGE;
  }
  bool tty = isatty(2);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = Layer_onSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  if (shuttle) {
    rc = CliLayerShuttle_run(&Cli_layer, &a, mname, &layer, &Layer_interrupted, tty);
    sigaction(SIGINT, &old, NULL);
    return rc;
  }
  LayerMapResult r;
  if (tty) opt.progress = CliLayer_progress;
  opt.cancel = &Layer_interrupted;
  Status st = method->fn(&arch, &layer, &opt, &r, &err);
  sigaction(SIGINT, &old, NULL);
  if (tty) fprintf(stderr, "\r%90s\r", "");
  if (st) {
    fprintf(stderr, "spadmap layer: %s\n", Cli_safe(err.text));
    return Cli_exitFor(st, atomic_load(&Layer_interrupted));
  }
  const char *tl_dir = Cli_value(&Cli_layer, &a, "--export-timeloop");
  if (tl_dir && Timeloop_write(&arch, &layer, &r.map, tl_dir, &err)) {
    fprintf(stderr, "spadmap layer: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  if (Cli_value(&Cli_layer, &a, "--json")) {
    cJSON *o = CliLayer_resultJSON(&arch, &layer, method->name, &r);
    char *s = cJSON_Print(o);
    printf("%s\n", s);
    cJSON_free(s);
    cJSON_Delete(o);
    return EXIT_OK;
  }
  char name[64];
  printf("layer   %s  (%s; R=%lld S=%lld P=%lld Q=%lld C=%lld K=%lld N=%lld stride %d, groups %d)\n",
         Layer_cosaName(&layer, name, sizeof name), Cli_safe(layer.name), (long long)layer.R, (long long)layer.S,
         (long long)layer.P, (long long)layer.Q, (long long)layer.C, (long long)layer.K, (long long)layer.N,
         layer.stride_h, layer.groups);
  printf("arch    %s\nmethod  %s: %s (%.3f s)\n\n", arch.name, method->name, r.note, r.seconds);
  char nest[8192];
  LayerMap_nestText(&arch, &r.map, nest, sizeof nest);
  fputs(nest, stdout);
  Layer_printCosts(&arch, &layer, &r);
  return EXIT_OK;
}

const CliCommand Cli_layer = {"layer", "(NET OP | R_P_C_K_stride | R=..,S=..,...) [--arch ARCH] [--method M]",
                              "Map one layer onto an architecture: loop nest, tiles, latency, energy, traffic.",
                              Layer_options, Layer_run, CLI_IN_NET | CLI_IN(FILE_ARCH)};

/* spadmap bench layer: every unique layer of the given networks (default
 * ResNet-50) on one architecture. By default the paper's CoSA (`cosa`: Eq. 12
 * as published, one solve) side by side with ours (`cosa-plus`: latency term,
 * three weight vectors, local search), the ablations of ours (L=0, no local
 * search, one weight vector), the paper's Random (best of 5 valid mappings)
 * and best of --random N (default 10,000) valid random mappings. With
 * --method M: that one mapper against the two random baselines. Every mapping
 * is re-checked by the cost model (a mapper never returns an invalid one; an
 * invalid one here counts as a failure). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "words.h"
#include "datadir.h"
#include "cli.h"
#include "cli_layer.h"
#include "cli_bench_timeloop.h"
#include "ilp.h"
#include "layer/layer_map.h"

static const CliOption BenchLayer_options[] = {
  {"--arch", "ARCH", "architecture file or bundled name (default cosa_baseline)"},
  {"--time-limit", "S", "per layer: the MIPs' work budget (S x 10,000) and a wall-clock stop (default 10)"},
  {"--random", "N", "the large random baseline: best of N valid mappings (default 10000)"},
  {"--weights", "U,C,T[,L]", "CoSA Eq. 12 weights U,C,T (default 1,1,1) and cosa-plus's L (default 5)"},
  {"--wall-limit", "S", "per layer and method: the wall-clock stop instead of --time-limit (which stays the MIPs' work budget)"},
  {"--mip-limit", "N", "cosa-plus: work per MIP round at most, in simplex iterations + nodes (default 10000; 0: only --time-limit)"},
  {"--no-refine", NULL, "with --method: skip cosa-plus's local search after each MIP"},
  {"--objective", "O", "latency, energy or edp for the random baselines (default latency)"},
  {"--method", "M", "one mapper against the random baselines (default: cosa and cosa-plus side by side, with ablations)"},
  {"--csv", NULL, "print CSV rows instead of a table"},
  {"--timeloop", "DIR", "judge cosa and cosa-plus against Timeloop v1.0's Hybrid mapper with timeloop-model (binaries in DIR)"},
  {"--timeloop-path", NULL, "the same with timeloop-mapper and timeloop-model from PATH"},
  {"--timeloop-cap", "S", "with --timeloop: Hybrid's wall-clock cap per layer (default 600)"},
  {"--ops", "OP,...", "with --timeloop: only these layers (op names or CoSA names)"},
  {NULL, NULL, NULL},
};

typedef struct {
  int layers, cosa_ok, not_worse, invalid, proven, under2;
  double log_speedup5, log_speedup_big, max_seconds, sum_seconds, max_cpu, sum_cpu;
  long sum_nodes, max_nodes; /* the MIP's branch-and-bound nodes over its rounds */
} BenchLayerSum;

/* CPU seconds of the calling thread: on a loaded machine the wall clock says
 * more about the other processes than about the mapper. */
static double BenchLayer_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void BenchLayer_net(const Arch *arch, const char *path, const LayerMapOptions *base, long big, bool csv,
                           const LayerMethod *method, BenchLayerSum *sum) {
  Net *net = Cli_loadNet(path);
  if (!net) {
    sum->invalid++;
    return;
  }
  Layer *u;
  int *count, n;
  SpError err = {0};
  if (Layer_unique(net, &u, &count, &n, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", Cli_name(), err.text);
    Net_free(net);
    sum->invalid++;
    return;
  }
  if (!csv) {
    printf("\n%s on %s: %d unique layers\n\n", net->name, arch->name, n);
    printf("%-18s %3s %7s %7s %12s %12s %12s %7s %7s %5s %11s %11s %11s\n", "layer", "ops", "cosa s", "cpu s", "cosa cyc",
           "rand5 cyc", "randN cyc", "vs r5", "vs rN", "util", "cosa pJ/MAC", "cosa DRAM B", "randN DRAM");
  }
  for (int i = 0; i < n; i++) {
    char name[64];
    Layer_cosaName(&u[i], name, sizeof name);
    LayerMapResult rc, r5, rn;
    LayerMapOptions o = *base;
    double cpu0 = BenchLayer_cpu();
    Status sc = method->fn(arch, &u[i], &o, &rc, &err);
    double cpu = BenchLayer_cpu() - cpu0;
    char cosa_err[SP_ERROR_TEXT];
    snprintf(cosa_err, sizeof cosa_err, "%s", sc ? err.text : "");
    o.samples = 5;
    Status s5 = LayerMap_random(arch, &u[i], &o, &r5, &err);
    o.samples = big;
    o.time_limit = 0, o.wall_limit = 0;
    Status sn = LayerMap_random(arch, &u[i], &o, &rn, &err);
    sum->layers++;
    if (s5 || sn) {
      printf("%-18s random failed: %s\n", name, err.text);
      sum->invalid++;
      continue;
    }
    if (sc) {
      printf("%-18s cosa failed: %s\n", name, cosa_err);
      continue;
    }
    /* the mapper's promise, checked again here */
    Cost check;
    Cost_evaluate(arch, &u[i], &rc.map, &check);
    if (!check.valid) {
      printf("%-18s cosa returned an INVALID mapping: %s\n", name, check.why);
      sum->invalid++;
      continue;
    }
    sum->cosa_ok++;
    double v = Cost_objective(&rc.cost, base->objective), v5 = Cost_objective(&r5.cost, base->objective),
           vn = Cost_objective(&rn.cost, base->objective);
    sum->not_worse += v <= vn * (1 + 1e-9);
    sum->log_speedup5 += log(v5 / v);
    sum->log_speedup_big += log(vn / v);
    sum->sum_seconds += rc.seconds;
    sum->proven += strstr(rc.note, "MIP optimal") != NULL;
    sum->under2 += cpu < 2;
    sum->sum_cpu += cpu;
    sum->sum_nodes += rc.nodes;
    if (rc.nodes > sum->max_nodes) sum->max_nodes = rc.nodes;
    if (rc.seconds > sum->max_seconds) sum->max_seconds = rc.seconds;
    if (cpu > sum->max_cpu) sum->max_cpu = cpu;
    if (csv)
      printf("%s,%s,%s,%d,%.3f,%.3f,%.6g,%.6g,%.6g,%.4f,%.6g,%.6g,%.6g\n", net->name, arch->name, name, count[i], rc.seconds,
             cpu, rc.cost.latency, r5.cost.latency, rn.cost.latency, rc.cost.utilization, rc.cost.energy_pj,
             rc.cost.dram_bytes, rn.cost.dram_bytes);
    else {
      char f[5][32];
      printf("%-18s %3d %7.2f %7.2f %12s %12s %12s %6.2fx %6.2fx %4.0f%% %11.3f %11s %11s\n", name, count[i],
             rc.seconds, cpu, Words_count(rc.cost.latency, f[0], sizeof f[0]), Words_count(r5.cost.latency, f[1], sizeof f[1]),
             Words_count(rn.cost.latency, f[2], sizeof f[2]), v5 / v, vn / v, 100 * rc.cost.utilization,
             rc.cost.energy_pj / rc.cost.macs, Words_bytes(rc.cost.dram_bytes, f[3], sizeof f[3]),
             Words_bytes(rn.cost.dram_bytes, f[4], sizeof f[4]));
    }
    fflush(stdout);
  }
  free(u);
  free(count);
  Net_free(net);
}

/* The side-by-side comparison's rows: the paper's method, ours, and ours with
 * one addition taken away at a time. */
enum { BL_COSA, BL_PLUS, BL_PLUS_L0, BL_PLUS_NOREF, BL_SINGLE, BL_STAT, BL_VARIANTS };
static const char *const BenchLayer_variant[BL_VARIANTS] = {
    "cosa (paper: Eqs. 2-12, one solve)", "cosa-plus (ours)", "cosa-plus, L=0 (no latency term)",
    "cosa-plus, no local search", "cosa-single (ours, one weight vector)",
    "cosa-stationary (cosa, Eqs. 9-10 -> 1 stationary operand)"};
static const char *const BenchLayer_short[BL_VARIANTS] = {"cosa", "cosa-plus", "cosa-plus-L0", "cosa-plus-norefine",
                                                          "cosa-single", "cosa-stationary"};

typedef struct {
  int ok, worse5, not_worse_big, invalid, proven, under2;
  double log5, logbig, sum_cpu, max_cpu;
  long sum_nodes, max_nodes; /* branch-and-bound nodes over the MIP rounds */
} BenchLayerVar;

static Status BenchLayer_variantRun(int k, const Arch *arch, const Layer *l, const LayerMapOptions *base,
                                    LayerMapResult *r, SpError *err) {
  LayerMapOptions o = *base;
  switch (k) {
  case BL_COSA: return LayerMap_cosa(arch, l, &o, r, err);
  case BL_PLUS: return LayerMap_cosaPlus(arch, l, &o, r, err);
  case BL_PLUS_L0: o.w_lat = 0; return LayerMap_cosaPlus(arch, l, &o, r, err);
  case BL_PLUS_NOREF: o.refine = false; return LayerMap_cosaPlus(arch, l, &o, r, err);
  case BL_STAT: return LayerMap_cosaStationary(arch, l, &o, r, err);
  default: return LayerMap_cosaSingle(arch, l, &o, r, err);
  }
}

static void BenchLayer_compare(const Arch *arch, const char *path, const LayerMapOptions *base, long big, bool csv,
                               BenchLayerVar *var, int *layers, int *failures) {
  Net *net = Cli_loadNet(path);
  if (!net) {
    (*failures)++;
    return;
  }
  Layer *u;
  int *count, n;
  SpError err = {0};
  if (Layer_unique(net, &u, &count, &n, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", Cli_name(), err.text);
    Net_free(net);
    (*failures)++;
    return;
  }
  if (!csv) {
    printf("\n%s on %s: %d unique layers; cycles under spadmap's cost model, \"x r5\" = Random-5's cycles / the "
           "method's (> 1: the method is faster)\n\n", net->name, arch->name, n);
    printf("%-18s %3s %11s %11s %11s %11s %7s %7s %7s %7s %7s %7s %7s %7s\n", "layer", "ops", "cosa cyc", "plus cyc",
           "rand5 cyc", "randN cyc", "cosa r5", "plus r5", "L0 r5", "noref r5", "single", "stat r5", "cosa s", "plus s");
  }
  for (int i = 0; i < n; i++) {
    char name[64];
    Layer_cosaName(&u[i], name, sizeof name);
    LayerMapResult rv[BL_VARIANTS], r5, rn;
    Status sv[BL_VARIANTS];
    double cpu[BL_VARIANTS];
    char why[BL_VARIANTS][SP_ERROR_TEXT];
    for (int k = 0; k < BL_VARIANTS; k++) {
      double c0 = BenchLayer_cpu();
      SpError e = {0};
      sv[k] = BenchLayer_variantRun(k, arch, &u[i], base, &rv[k], &e);
      cpu[k] = BenchLayer_cpu() - c0;
      snprintf(why[k], sizeof why[k], "%s", sv[k] ? e.text : "");
      if (!sv[k]) { /* the mapper's promise, checked again here */
        Cost check;
        Cost_evaluate(arch, &u[i], &rv[k].map, &check);
        if (!check.valid) {
          sv[k] = SP_ERR_SOLVER;
          snprintf(why[k], sizeof why[k], "returned an INVALID mapping: %s", check.why);
          var[k].invalid++;
        }
      }
    }
    LayerMapOptions o = *base;
    o.samples = 5;
    Status s5 = LayerMap_random(arch, &u[i], &o, &r5, &err);
    o.samples = big;
    o.time_limit = 0, o.wall_limit = 0;
    Status sn = s5 ? s5 : LayerMap_random(arch, &u[i], &o, &rn, &err);
    (*layers)++;
    if (s5 || sn) {
      printf("%-18s random failed: %s\n", name, err.text);
      (*failures)++;
      continue;
    }
    double v5 = Cost_objective(&r5.cost, base->objective), vn = Cost_objective(&rn.cost, base->objective);
    double ratio[BL_VARIANTS];
    for (int k = 0; k < BL_VARIANTS; k++) {
      if (sv[k]) {
        ratio[k] = NAN;
        if (!csv) printf("%-18s %s failed: %s\n", name, BenchLayer_short[k], why[k]);
        continue;
      }
      double v = Cost_objective(&rv[k].cost, base->objective);
      ratio[k] = v5 / v;
      var[k].ok++;
      var[k].proven += strstr(rv[k].note, "MIP optimal") != NULL && strstr(rv[k].note, "weight vectors") == NULL;
      var[k].worse5 += v > v5 * (1 + 1e-9);
      var[k].not_worse_big += v <= vn * (1 + 1e-9);
      var[k].log5 += log(v5 / v);
      var[k].logbig += log(vn / v);
      var[k].sum_cpu += cpu[k];
      var[k].under2 += cpu[k] < 2;
      var[k].sum_nodes += rv[k].nodes;
      if (rv[k].nodes > var[k].max_nodes) var[k].max_nodes = rv[k].nodes;
      if (cpu[k] > var[k].max_cpu) var[k].max_cpu = cpu[k];
      if (csv)
        printf("%s,%s,%s,%d,%s,%.3f,%.3f,%.6g,%.6g,%.6g,%.6g,%.6g\n", net->name, arch->name, name, count[i],
               BenchLayer_short[k], rv[k].seconds, cpu[k], rv[k].cost.latency, r5.cost.latency, rn.cost.latency,
               rv[k].cost.energy_pj, rv[k].cost.dram_bytes);
    }
    if (!csv) {
      char c[2][40], l5[32], ln[32], cc[32];
      for (int k = 0; k < 2; k++)
        if (sv[k]) snprintf(c[k], sizeof c[k], "failed");
        else /* * : the paper's MIP stopped at its work or time limit, not proven optimal */
          snprintf(c[k], sizeof c[k], "%s%s", Words_count(rv[k].cost.latency, cc, sizeof cc), k == BL_COSA && !strstr(rv[k].note, "MIP optimal") ? "*" : "");
      printf("%-18s %3d %11s %11s %11s %11s", name, count[i], c[0], c[1], Words_count(r5.cost.latency, l5, sizeof l5),
             Words_count(rn.cost.latency, ln, sizeof ln));
      for (int k = 0; k < BL_VARIANTS; k++) {
        if (sv[k]) printf(" %7s", "-");
        else printf(" %6.2fx", ratio[k]);
      }
      printf(" %7.2f %7.2f\n", cpu[BL_COSA], cpu[BL_PLUS]);
    }
    fflush(stdout);
  }
  free(u);
  free(count);
  Net_free(net);
}

static int BenchLayer_run(int argc, char **argv) {
  const CliCommand *c = &Cli_benchLayer;
  CliArgs a;
  int rc = Cli_parse(c, argc, argv, 0, 8, &a);
  if (rc >= 0) return rc;
  LayerMapOptions o;
  if ((rc = CliLayer_options(c, &a, &o)) >= 0) return rc;
  long big = 10000;
  const char *v = Cli_value(c, &a, "--random");
  if (v) {
    char *e;
    big = strtol(v, &e, 10);
    if (e == v || *e || big < 1 || big > 10000000) {
      fprintf(stderr, "spadmap bench layer: --random \"%s\": expected an integer in 1..10000000\n", v);
      return EXIT_USAGE;
    }
  }
  Arch arch;
  SpError err = {0};
  if (CliLayer_loadArch(Cli_value(c, &a, "--arch"), &arch, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", Cli_name(), err.text);
    return EXIT_INVALID;
  }
  bool csv = Cli_value(c, &a, "--csv") != NULL;
  const char *tl = Cli_value(c, &a, "--timeloop");
  if (tl || Cli_value(c, &a, "--timeloop-path")) {
    double cap = 600;
    const char *cv = Cli_value(c, &a, "--timeloop-cap");
    long long ci;
    if (cv && !Cli_int(cv, 1, 86400, &ci)) {
      fprintf(stderr, "spadmap bench layer: --timeloop-cap \"%s\": expected whole seconds in 1..86400\n", Cli_safe(cv));
      return EXIT_USAGE;
    }
    if (cv) cap = (double)ci;
    struct stat sb; /* a DIR that is not there is a mistake; one without Timeloop in it, a skip */
    if (tl && (stat(tl, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
      fprintf(stderr, "spadmap bench layer: --timeloop %s: not a directory\n", Cli_safe(tl));
      return EXIT_USAGE;
    }
    int worst = EXIT_OK;
    if (a.npos == 0) worst = BenchLayer_timeloop(&arch, Data_file("networks/resnet50.json"), Cli_value(c, &a, "--ops"), tl, cap, &o);
    for (int i = 0; i < a.npos && worst != 77; i++) {
      int r = BenchLayer_timeloop(&arch, a.pos[i], Cli_value(c, &a, "--ops"), tl, cap, &o);
      if (r != EXIT_OK) worst = r;
    }
    return worst;
  }
  if (Cli_value(c, &a, "--ops") || Cli_value(c, &a, "--timeloop-cap")) {
    fprintf(stderr, "spadmap bench layer: --ops and --timeloop-cap are for --timeloop\n");
    return EXIT_USAGE;
  }
  if (!Cli_value(c, &a, "--method")) {
    if (Cli_value(c, &a, "--no-refine")) {
      fprintf(stderr, "spadmap bench layer: --no-refine is for --method (the comparison has its own no-refine row)\n");
      return EXIT_USAGE;
    }
    BenchLayerVar var[BL_VARIANTS];
    memset(var, 0, sizeof var);
    int layers = 0, failures = 0;
    if (csv)
      printf("network,arch,layer,ops,method,seconds,cpu_s,cycles,rand5_cycles,randN_cycles,energy_pj,dram_bytes\n");
    if (a.npos == 0) BenchLayer_compare(&arch, Data_file("networks/resnet50.json"), &o, big, csv, var, &layers, &failures);
    for (int i = 0; i < a.npos; i++) BenchLayer_compare(&arch, a.pos[i], &o, big, csv, var, &layers, &failures);
    if (!csv && layers) {
      printf("\n%-58s %7s %15s %12s %14s %11s %11s\n", "method (cycles, spadmap's cost model)", "mapped",
             "CPU s mean/max", "worse than r5", "<= best of N", "geomean r5", "geomean rN");
      for (int k = 0; k < BL_VARIANTS; k++) {
        const BenchLayerVar *vr = &var[k];
        if (!vr->ok) {
          printf("%-58s %3d/%-3d\n", BenchLayer_variant[k], 0, layers);
          continue;
        }
        printf("%-58s %3d/%-3d %7.2f / %5.2f %5d of %-3d %6d of %-3d %10.2fx %10.2fx\n", BenchLayer_variant[k], vr->ok,
               layers, vr->sum_cpu / vr->ok, vr->max_cpu, vr->worse5, vr->ok, vr->not_worse_big, vr->ok, exp(vr->log5 / vr->ok),
               exp(vr->logbig / vr->ok));
      }
      if (var[BL_COSA].ok) {
        const BenchLayerVar *vc = &var[BL_COSA];
        printf("the paper's MIP (cosa) proven optimal on %d of %d layers (* in the table: stopped at its work or time limit)\n",
               vc->proven, vc->ok);
        /* issue 35's target: every layer proven in under 2 s; CPU time of the mapper's thread, nodes over its rounds */
        printf("cosa MIP: CPU s mean %.2f, max %.2f, under 2 s on %d of %d; B&B nodes mean %ld, max %ld; proven %d of %d\n",
               vc->sum_cpu / vc->ok, vc->max_cpu, vc->under2, vc->ok, vc->sum_nodes / vc->ok, vc->max_nodes, vc->proven,
               vc->ok);
      }
      if (var[BL_COSA].ok && var[BL_STAT].ok)
        printf("cosa-stationary (the stationary-operand variant) proven optimal on %d of %d layers\n", var[BL_STAT].proven,
               var[BL_STAT].ok);
      char w[5][24];
      printf("(N = %ld; cosa's Eq. 12 weights %s,%s,%s; cosa-plus adds L = %s and the vectors 0,1,1,L and 0,0,0,1; "
             "--time-limit %s s, --mip-limit %ld, GLPK %s)\n", big, Words_figure(o.w_util, w[0], sizeof w[0]),
             Words_figure(o.w_comp, w[1], sizeof w[1]), Words_figure(o.w_traf, w[2], sizeof w[2]),
             Words_figure(o.w_lat, w[3], sizeof w[3]), Words_figure(o.time_limit, w[4], sizeof w[4]), o.mip_limit, Ilp_version());
    }
    int invalid = 0;
    for (int k = 0; k < BL_VARIANTS; k++) invalid += var[k].invalid;
    return failures || invalid ? EXIT_INVALID : EXIT_OK;
  }
  if (csv) printf("network,arch,layer,ops,cosa_s,cosa_cpu_s,cosa_cycles,rand5_cycles,randN_cycles,cosa_util,cosa_pj,cosa_dram,randN_dram\n");
  BenchLayerSum sum = {0};
  const char *mname = Cli_value(c, &a, "--method") ? Cli_value(c, &a, "--method") : "cosa";
  const LayerMethod *method = LayerMap_find(mname);
  if (!method) {
    fprintf(stderr, "spadmap bench layer: unknown method \"%s\" (see spadmap layer --list)\n", mname);
    return EXIT_USAGE;
  }
  if (!csv) printf("method %s: %s\n", method->name, method->help);
  if (a.npos == 0) BenchLayer_net(&arch, Data_file("networks/resnet50.json"), &o, big, csv, method, &sum);
  for (int i = 0; i < a.npos; i++) BenchLayer_net(&arch, a.pos[i], &o, big, csv, method, &sum);
  if (!csv && sum.cosa_ok) {
    printf("\nCoSA: %d of %d layers mapped, CPU time mean %.2f s, max %.2f s; wall clock mean %.2f s, max %.2f s "
           "(limit %.0f s, GLPK %s)\n", sum.cosa_ok, sum.layers, sum.sum_cpu / sum.cosa_ok, sum.max_cpu,
           sum.sum_seconds / sum.cosa_ok, sum.max_seconds, o.time_limit, Ilp_version());
    if (strncmp(method->name, "cosa", 4) == 0)
      printf("CoSA MIP proven optimal on %d of %d layers; under 2 s (CPU) on %d of %d; B&B nodes mean %ld, max %ld\n",
             sum.proven, sum.cosa_ok, sum.under2, sum.cosa_ok, sum.sum_nodes / sum.cosa_ok, sum.max_nodes);
    printf("CoSA %s no worse than best of %ld random on %d of %d layers (%.0f%%)\n",
           LayerObjective_name(o.objective), big, sum.not_worse, sum.cosa_ok, 100.0 * sum.not_worse / sum.cosa_ok);
    printf("geomean speedup of CoSA over Random (best of 5): %.2fx; over best of %ld: %.2fx\n",
           exp(sum.log_speedup5 / sum.cosa_ok), big, exp(sum.log_speedup_big / sum.cosa_ok));
  }
  return sum.invalid ? EXIT_INVALID : EXIT_OK;
}

const CliCommand Cli_benchLayer = {"bench layer", "[NET...] [--arch ARCH]",
                                   "CoSA (the paper's and ours, with ablations) vs Random (best of 5) vs best of 10,000 random on every unique layer.",
                                   BenchLayer_options, BenchLayer_run, CLI_IN_NET | CLI_IN(FILE_ARCH)};

/* spadmap bench layer: every unique layer of the given networks (default
 * ResNet-50) on one architecture, with CoSA's MIP, the paper's Random (best of 5
 * valid mappings) and best of --random N (default 10,000) valid random
 * mappings. Every mapping is re-checked by the cost model (a mapper never
 * returns an invalid one; an invalid one here counts as a failure). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datadir.h"
#include "cli.h"
#include "cli_layer.h"
#include "ilp.h"
#include "layer/layer_map.h"

static const CliOption BenchLayer_options[] = {
  {"--arch", "ARCH", "architecture file or bundled name (default cosa_baseline)"},
  {"--time-limit", "S", "CoSA MIP time limit per layer (default 10)"},
  {"--random", "N", "the large random baseline: best of N valid mappings (default 10000)"},
  {"--weights", "U,C,T[,L]", "CoSA Eq. 12 weights (default 1,1,1,5)"},
  {"--mip-limit", "S", "cosa: seconds per MIP round at most (default 0.5; 0: only --time-limit)"},
  {"--no-refine", NULL, "cosa: skip the cost model's local search after each MIP"},
  {"--objective", "O", "latency, energy or edp for the random baselines (default latency)"},
  {"--method", "M", "the mapper compared with the random baselines (default cosa)"},
  {"--csv", NULL, "print CSV rows instead of a table"},
  {NULL, NULL, NULL},
};

typedef struct {
  int layers, cosa_ok, not_worse, invalid, proven, under2;
  double log_speedup5, log_speedup_big, max_seconds, sum_seconds, max_cpu, sum_cpu;
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
    o.time_limit = 0;
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
    if (rc.seconds > sum->max_seconds) sum->max_seconds = rc.seconds;
    if (cpu > sum->max_cpu) sum->max_cpu = cpu;
    if (csv)
      printf("%s,%s,%s,%d,%.3f,%.3f,%.6g,%.6g,%.6g,%.4f,%.6g,%.6g,%.6g\n", net->name, arch->name, name, count[i], rc.seconds,
             cpu, rc.cost.latency, r5.cost.latency, rn.cost.latency, rc.cost.utilization, rc.cost.energy_pj,
             rc.cost.dram_bytes, rn.cost.dram_bytes);
    else
      printf("%-18s %3d %7.2f %7.2f %12.4g %12.4g %12.4g %6.2fx %6.2fx %4.0f%% %11.3f %11.4g %11.4g\n", name, count[i],
             rc.seconds, cpu, rc.cost.latency, r5.cost.latency, rn.cost.latency, v5 / v, vn / v,
             100 * rc.cost.utilization, rc.cost.energy_pj / rc.cost.macs, rc.cost.dram_bytes, rn.cost.dram_bytes);
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
      printf("CoSA MIP proven optimal on %d of %d layers; under 2 s (CPU) on %d of %d\n", sum.proven, sum.cosa_ok,
           sum.under2, sum.cosa_ok);
    printf("CoSA %s no worse than best of %ld random on %d of %d layers (%.0f%%)\n",
           LayerObjective_name(o.objective), big, sum.not_worse, sum.cosa_ok, 100.0 * sum.not_worse / sum.cosa_ok);
    printf("geomean speedup of CoSA over Random (best of 5): %.2fx; over best of %ld: %.2fx\n",
           exp(sum.log_speedup5 / sum.cosa_ok), big, exp(sum.log_speedup_big / sum.cosa_ok));
  }
  return sum.invalid ? EXIT_INVALID : EXIT_OK;
}

const CliCommand Cli_benchLayer = {"bench layer", "[NET...] [--arch ARCH]",
                                   "CoSA vs Random (best of 5) vs best of 10,000 random on every unique layer.",
                                   BenchLayer_options, BenchLayer_run};

/* spadmap bench pack: the exact packer and the heuristics (engine/pack) on
 *  - tight generated instances: a full time x address rectangle cut into n
 *    buffers (optimal height = the rectangle's height, the load is full at every
 *    time), n = 100..500, several seeds; guillotine cuts, and with
 *    --pinwheel P a second family where P % of the cuts are pinwheels (no
 *    guillotine packing was cut);
 *  - every bundled network's tensor lifetimes under each fast schedule policy,
 *    height minimised (the lower bound is the schedule's peak).
 * Solved count, time, and each heuristic's height above the optimum. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"
#include "cli.h"
#include "pack/pack.h"
#include "policy.h"
#include "solve.h"

static const CliOption BenchPack_options[] = {
  {"--time-limit", "SECONDS", "per instance (default 10)"},
  {"--seeds", "N", "tight instances per size (default 5)"},
  {"--max-buffers", "N", "largest tight instance (default 500)"},
  {"--network", "NAME", "only this network (default: every bundled one)"},
  {"--dir", "DIR", "networks directory (default: the bundled data/networks)"},
  {"--pinwheel", "PERCENT", "also tight instances with this share of pinwheel cuts (not guillotine)"},
  {"--tight-only", NULL, "only the generated instances"},
  {"--nets-only", NULL, "only the networks"},
  {NULL, NULL, NULL},
};

enum { NHEUR = PACK_BEST_HEURISTIC - PACK_SO_SIZE };

/* Each heuristic's height on b, into h[NHEUR]. */
static void BenchPack_heuristics(const PackBuffer *b, int n, int64_t *h) {
  for (int m = PACK_SO_SIZE; m < PACK_BEST_HEURISTIC; m++) {
    PackOptions o;
    PackOptions_init(&o);
    o.method = (PackMethod)m;
    PackResult r;
    SpError err;
    h[m - PACK_SO_SIZE] = -1;
    if (Pack_solve(b, n, 0, &o, &r, &err) == SP_OK && r.offsets && Pack_check(b, n, r.offsets, 0, &err) == SP_OK)
      h[m - PACK_SO_SIZE] = r.height;
    PackResult_free(&r);
  }
}

static int BenchPack_tight(double tl, int seeds, int max_n, int pinwheel) {
  if (pinwheel)
    printf("\n### Tight instances with %d %% pinwheel cuts (optimum = 1,000,000)\n\n", pinwheel);
  else
    printf("\n### Tight instances (a %s rectangle cut into n buffers; optimum = 1,000,000)\n\n", "time x address");
  printf("| n | solved | mean time (s) | max time (s) |");
  for (int m = PACK_SO_SIZE; m < PACK_BEST_HEURISTIC; m++) printf(" %s |", PackMethod_name((PackMethod)m));
  printf("\n|---|---|---|---|");
  for (int m = PACK_SO_SIZE; m < PACK_BEST_HEURISTIC; m++) printf("---|");
  printf("\n");
  int invalid = 0;
  for (int n = 100; n <= max_n; n += 100) {
    PackBuffer *b = malloc(sizeof *b * (size_t)n);
    if (!b) return 1;
    int solved = 0;
    double sum = 0, worst = 0, over[NHEUR] = {0};
    for (int sd = 0; sd < seeds; sd++) {
      Pack_generateTightPinwheel((uint64_t)(1000 * n + sd), n, 2 * (int64_t)n, 1000000, pinwheel, b);
      PackOptions o;
      PackOptions_init(&o);
      o.time_limit = tl;
      PackResult r;
      SpError err;
      if (Pack_solve(b, n, 0, &o, &r, &err)) {
        fprintf(stderr, "bench pack: %s\n", err.text);
        invalid++;
        continue;
      }
      if (r.offsets && Pack_check(b, n, r.offsets, 0, &err)) invalid++;
      solved += r.status == PACK_OPTIMAL && r.height == 1000000;
      sum += r.seconds;
      if (r.seconds > worst) worst = r.seconds;
      fprintf(stderr, "tight%s n=%d seed %d: %s, height %lld, %.3f s, %ld nodes\n", pinwheel ? " pinwheel" : "", n, sd,
              PackResultStatus_name(r.status), (long long)r.height, r.seconds, r.nodes);
      PackResult_free(&r);
      int64_t h[NHEUR];
      BenchPack_heuristics(b, n, h);
      for (int k = 0; k < NHEUR; k++) over[k] += h[k] < 0 ? 0 : (double)(h[k] - 1000000) / 1e6 * 100;
    }
    printf("| %d | %d/%d | %.3f | %.3f |", n, solved, seeds, sum / seeds, worst);
    for (int k = 0; k < NHEUR; k++) printf(" +%.1f%% |", over[k] / seeds);
    printf("\n");
    free(b);
  }
  return invalid;
}

static int BenchPack_cmpStr(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int BenchPack_nets(double tl, const char *dir, const char *only) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "spadmap bench pack: cannot open %s\n", dir);
    return -1;
  }
  char *names[256];
  int nn = 0;
  struct dirent *e;
  while ((e = readdir(d)) && nn < 256) {
    size_t len = strlen(e->d_name);
    if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
      if (only && (strncmp(e->d_name, only, len - 5) != 0 || strlen(only) != len - 5)) continue;
      names[nn++] = strdup(e->d_name);
    }
  }
  closedir(d);
  qsort(names, (size_t)nn, sizeof *names, BenchPack_cmpStr);
  printf("\n### Networks at their peak (activations only; height minimised, lower bound = the schedule's peak)\n\n");
  printf("| network | schedule | tensors | peak | exact | status | time (s) |");
  for (int m = PACK_SO_SIZE; m < PACK_BEST_HEURISTIC; m++) printf(" %s |", PackMethod_name((PackMethod)m));
  printf("\n|---|---|---|---|---|---|---|");
  for (int m = PACK_SO_SIZE; m < PACK_BEST_HEURISTIC; m++) printf("---|");
  printf("\n");
  int invalid = 0, runs = 0, optimal = 0;
  for (int i = 0; i < nn; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    Net *net = Cli_loadNet(path);
    if (!net) {
      invalid++;
      continue;
    }
    for (int sp = 0; sp < Policy_count(POLICY_SCHEDULE); sp++) {
      const PolicyInfo *pi = Policy_at(POLICY_SCHEDULE, sp);
      if (!pi->schedule) continue;
      SolveSettings s;
      SolveSettings_init(&s);
      s.schedule = pi->name;
      int *order = malloc(sizeof(int) * (size_t)(net->nops + 1)), *tensor = NULL, n = 0;
      PackBuffer *b = NULL;
      SpError err;
      if (!order || Solve_schedule(net, &s, order, NULL, &err) ||
          Pack_netBuffers(net, false, order, &b, &tensor, &n, &err)) {
        free(order);
        invalid++;
        continue;
      }
      PackOptions o;
      PackOptions_init(&o);
      o.time_limit = tl;
      PackResult r;
      if (Pack_solve(b, n, 0, &o, &r, &err) == SP_OK) {
        if (!r.offsets || Pack_check(b, n, r.offsets, 0, &err)) invalid++;
        int64_t h[NHEUR];
        BenchPack_heuristics(b, n, h);
        char pk[32], ex[32];
        printf("| %s | %s | %d | %s | %s | %s | %.3f |", net->name, pi->name, n,
               Cli_count(Pack_maxLoad(b, n), pk, sizeof pk), Cli_count(r.height, ex, sizeof ex),
               PackResultStatus_name(r.status), r.seconds);
        for (int k = 0; k < NHEUR; k++)
          printf(" +%.1f%% |", r.height > 0 ? (double)(h[k] - r.height) / (double)r.height * 100 : 0.0);
        printf("\n");
        runs++;
        optimal += r.status == PACK_OPTIMAL;
        PackResult_free(&r);
      } else {
        invalid++;
      }
      free(order), free(tensor), free(b);
    }
    Net_free(net);
  }
  for (int i = 0; i < nn; i++) free(names[i]);
  printf("\nnetworks: %d of %d runs proven optimal\n", optimal, runs);
  return invalid;
}

static int BenchPack_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_benchPack;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  double tl = 10;
  long long seeds = 5, max_n = 500, pinwheel = 0;
  const char *v;
  if (((v = Cli_value(c, &a, "--time-limit")) && !Cli_real(v, 0.001, 1e7, &tl)) ||
      ((v = Cli_value(c, &a, "--seeds")) && !Cli_int(v, 1, 100000, &seeds)) ||
      ((v = Cli_value(c, &a, "--max-buffers")) && !Cli_int(v, 100, 1000000, &max_n)) ||
      ((v = Cli_value(c, &a, "--pinwheel")) && !Cli_int(v, 0, 100, &pinwheel))) {
    fprintf(stderr, "spadmap bench pack: \"%s\": --time-limit takes 0.001..1e7 seconds, --seeds 1..100000, "
                    "--max-buffers 100..1000000, --pinwheel a whole percentage 0..100\n", Cli_safe(v));
    return EXIT_USAGE;
  }
  if ((rc = Cli_inputDir(c, &a)) >= 0) return rc; /* bench taa --dir /nonexistent printed its tables empty */
  const char *only = Cli_value(c, &a, "--network");
  if (only && !Cli_value(c, &a, "--tight-only")) { /* before any table: it ran them all, then "0 of 0 runs", exit 0 */
    const char *dir = Cli_value(c, &a, "--dir") ? Cli_value(c, &a, "--dir") : Data_file("networks");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, only);
    if (strchr(only, '/') || access(path, R_OK) != 0) {
      fprintf(stderr, "spadmap bench pack: --network \"%s\": no %s\n", Cli_safe(only), Cli_safe(path));
      return EXIT_USAGE;
    }
  }
  int invalid = 0;
  if (!Cli_value(c, &a, "--nets-only")) {
    invalid += BenchPack_tight(tl, seeds, max_n, 0);
    if (pinwheel) invalid += BenchPack_tight(tl, seeds, max_n, pinwheel);
  }
  if (!Cli_value(c, &a, "--tight-only")) {
    const char *dir = Cli_value(c, &a, "--dir") ? Cli_value(c, &a, "--dir") : Data_file("networks");
    int r = BenchPack_nets(tl, dir, Cli_value(c, &a, "--network"));
    if (r < 0) return EXIT_INVALID;
    invalid += r;
  }
  printf("invalid solutions or errors: %d\n", invalid);
  return invalid ? EXIT_INVALID : EXIT_OK;
}

const CliCommand Cli_benchPack = {"bench pack", "[options]",
                                  "The exact packer and the heuristics on tight generated instances and on every "
                                  "bundled network's lifetimes at its peak.",
                                  BenchPack_options, BenchPack_run};

/* spadmap bench: every shipped network, every policy combination, at M_R, M_H
 * and M_P. Times are wall-clock minima over --repeat runs; speed targets live
 * here, never in unit tests. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "clock.h"
#include "cli.h"
#include "policy.h"
#include "sim.h"
#include "solve.h"
#include "validate.h"
#include "fileio.h"

static const CliOption Bench_options[] = {
  {"--dir", "DIR", "networks to run (default: the bundled data/networks)"},
  {"--network", "NAME", "only this network (file stem)"},
  {"--params", NULL, "hold parameter tensors on chip too"},
  {"--repeat", "N", "time each solve as the best of N runs (default 5)"},
  {"--csv", NULL, "print CSV instead of tables"},
  {NULL, NULL, NULL},
};

/* "bench WORD" commands, run instead of the sweep. */
static const CliCommand *const Bench_subs[] = {
    &Cli_benchCosma,
    &Cli_benchScale,
    &Cli_benchLayer,
    &Cli_benchShuttle,
    &Cli_benchSteps,
    &Cli_benchTaa,
    &Cli_benchPack,
    NULL,
};
const CliCommand *const *const Cli_benchSubs = Bench_subs;

static int Bench_cmpStr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted *.json paths in dir; count in *n. */
static char **Bench_listDir(const char *dir, int *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **list = NULL;
  int cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 32;
      char **grown = realloc(list, sizeof(char *) * (size_t)cap);
      if (!grown) break;
      list = grown;
    }
    size_t sz = strlen(dir) + len + 2;
    list[*n] = malloc(sz);
    if (!list[*n]) break;
    snprintf(list[*n], sz, "%s/%s", dir, e->d_name);
    (*n)++;
  }
  closedir(d);
  if (*n > 1) qsort(list, (size_t)*n, sizeof(char *), Bench_cmpStr); /* list is NULL when empty */
  return list;
}

/* One network's line in the closing summary. */
typedef struct {
  char name[40];
  int ops;
  int64_t m_r, m_p;
  double mp_ms;
  long states;
  int64_t base[3], best[3]; /* non-compulsory bytes: default/belady/linear, and the best combination */
  double sim_ms;
} BenchRow;

typedef struct {
  bool csv;
  BenchRow *rows;
  int nrows;
  int repeat;
  bool params;
  int invalid;
  double worst_sim_ms;
  char worst_sim_net[64];
  double worst_mp_s;
  char worst_mp_net[64];
} Bench;

static void m_noncomp_track(BenchRow *row, int bi, int si, int ri, int ai, int64_t bytes) {
  if (si == 0 && ri == 0 && ai == 0) row->base[bi] = bytes; /* the table's first entries: default, belady, linear */
  if (bytes < row->best[bi]) row->best[bi] = bytes;
}

static const char *Bench_kib(int64_t bytes, char *buf, int n) {
  if (bytes < 0) snprintf(buf, (size_t)n, "-");
  else snprintf(buf, (size_t)n, "%.0f", (double)bytes / 1024);
  return buf;
}

static void Bench_summary(const Bench *b) {
  printf("\nSummary (%s). Non-compulsory traffic in KiB: \"base\" = default schedule + belady + linear\n"
         "(the paper's baseline), \"best\" = the best of all %d combinations.\n\n",
         b->params ? "with params" : "activations only",
         Policy_count(POLICY_SCHEDULE) * Policy_count(POLICY_REPLACEMENT) * Policy_count(POLICY_ALLOCATOR));
  printf("| network | ops | M_R KiB | M_P KiB | M_P ms | states | M_R base | M_R best | M_H base | M_H best | M_P base | "
         "M_P best | sim ms |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < b->nrows; i++) {
    const BenchRow *r = &b->rows[i];
    char k[6][24];
    printf("| %s | %d | %.0f | %.0f | %.1f | %ld | %s | %s | %s | %s | %s | %s | %.3f |\n", r->name, r->ops,
           (double)r->m_r / 1024, (double)r->m_p / 1024, r->mp_ms, r->states, Bench_kib(r->base[0], k[0], 24),
           Bench_kib(r->best[0], k[1], 24), Bench_kib(r->base[1], k[2], 24), Bench_kib(r->best[1], k[3], 24),
           Bench_kib(r->base[2], k[4], 24), Bench_kib(r->best[2], k[5], 24), r->sim_ms);
  }
}

static void Bench_network(Bench *b, const char *path) {
  Net *net = Cli_loadNet(path);
  if (!net) {
    b->invalid++;
    return;
  }
  NetFigures f;
  SpError err;
  int *orders[2] = {malloc(sizeof(int) * (size_t)net->nops), malloc(sizeof(int) * (size_t)net->nops)};
  if (!orders[0] || !orders[1] || Figures_compute(net, b->params, &f, NULL, &err)) {
    fprintf(stderr, "spadmap bench: %s: %s\n", Cli_safe(path), orders[0] && orders[1] ? err.text : "out of memory");
    b->invalid++;
    goto out;
  }
  BenchRow *row = &b->rows[b->nrows++];
  snprintf(row->name, sizeof row->name, "%s", Cli_safe(net->name));
  row->ops = net->nops;
  row->m_r = f.m_r, row->m_p = f.m_p;
  row->mp_ms = f.search.seconds * 1e3;
  row->states = f.search.states;
  for (int i = 0; i < 3; i++) row->base[i] = -1, row->best[i] = INT64_MAX;
  if (f.search.seconds > b->worst_mp_s) b->worst_mp_s = f.search.seconds, snprintf(b->worst_mp_net, sizeof b->worst_mp_net, "%s", Cli_safe(net->name));
  if (!b->csv) {
    char x[32], y[32], z[32], w[32]; /* one buffer per figure: arguments are evaluated in any order */
    printf("\n%s: %d ops; M_R %s, M_H %s, M_P %s (%s in %.3f s, %ld states); default peak %s\n", Cli_safe(net->name),
           net->nops, Cli_bytes(f.m_r, x, sizeof x), Cli_bytes(f.m_h, y, sizeof y), Cli_bytes(f.m_p, z, sizeof z),
           f.m_p_exact ? "exact" : "NOT proven", f.search.seconds, f.search.states,
           Cli_bytes(f.default_peak, w, sizeof w));
    printf("  %-4s %-8s %-11s %-12s %15s %7s %7s %9s %9s\n", "bud", "schedule", "replacement", "allocator",
           "non-compulsory", "spills", "retriev", "sched ms", "sim ms");
  }
  const char *budgets[3] = {"M_R", "M_H", "M_P"};
  int64_t bytes[3] = {f.m_r, f.m_h, f.m_p};
  for (int si = 0; si < Policy_count(POLICY_SCHEDULE); si++) {
    const PolicyInfo *sp = Policy_at(POLICY_SCHEDULE, si);
    SolveSettings s;
    SolveSettings_init(&s);
    s.params = b->params;
    s.schedule = sp->name;
    double t0 = Clock_now();
    SolverInfo info = {0};
    if (sp->schedule(net, &s, orders[si & 1], &info, &err)) {
      fprintf(stderr, "spadmap bench: %s: schedule %s: %s\n", Cli_safe(net->name), sp->name, err.text);
      b->invalid++;
      continue;
    }
    double sched_ms = (Clock_now() - t0) * 1e3;
    for (int bi = 0; bi < 3; bi++)
      for (int ri = 0; ri < Policy_count(POLICY_REPLACEMENT); ri++)
        for (int ai = 0; ai < Policy_count(POLICY_ALLOCATOR); ai++) {
          const PolicyInfo *rp = Policy_at(POLICY_REPLACEMENT, ri), *ap = Policy_at(POLICY_ALLOCATOR, ai);
          Plan *plan = NULL;
          double best = 1e30;
          Status st = SP_OK;
          for (int r = 0; r < b->repeat && !st; r++) {
            Plan_free(plan);
            plan = NULL;
            double t1 = Clock_now();
            st = Solve_simulate(net, b->params, bytes[bi], orders[si & 1], rp, ap, &plan, &err);
            double ms = (Clock_now() - t1) * 1e3;
            if (ms < best) best = ms;
          }
          if (st) {
            fprintf(stderr, "spadmap bench: %s %s: %s\n", Cli_safe(net->name), budgets[bi], err.text);
            b->invalid++;
            continue;
          }
          Plan_setPolicies(plan, sp->name, rp->name, ap->name);
          ValidateReport rep;
          bool valid = Validate_plan(net, plan, &rep) == SP_OK;
          ValidateReport_free(&rep);
          if (!valid) b->invalid++;
          if (m_noncomp_track(row, bi, si, ri, ai, plan->metrics.noncompulsory_bytes), best > row->sim_ms)
            row->sim_ms = best;
          if (best > b->worst_sim_ms) b->worst_sim_ms = best, snprintf(b->worst_sim_net, sizeof b->worst_sim_net, "%s", Cli_safe(net->name));
          const Metrics *m = &plan->metrics;
          if (b->csv)
            printf("%s,%d,%s,%lld,%s,%s,%s,%lld,%d,%d,%lld,%lld,%.4f,%.4f,%s\n", Cli_safe(net->name), b->params, budgets[bi],
                   (long long)bytes[bi], sp->name, rp->name, ap->name, (long long)m->noncompulsory_bytes, m->spills,
                   m->retrievals, (long long)m->peak_bytes, (long long)m->footprint_bytes, sched_ms, best,
                   valid ? "valid" : "INVALID");
          else {
            char nb[32];
            printf("  %-4s %-8s %-11s %-12s %15s %7d %7d %9.2f %9.3f%s\n", budgets[bi], sp->name, rp->name, ap->name,
                   Cli_count(m->noncompulsory_bytes, nb, sizeof nb), m->spills, m->retrievals, sched_ms, best,
                   valid ? "" : "  INVALID");
          }
          Plan_free(plan);
        }
  }
out:
  free(orders[0]);
  free(orders[1]);
  Net_free(net);
}

static int Bench_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_bench;
  int rc = Cli_runSub(c, Bench_subs, argc, argv);
  if (rc >= 0) return rc;
  rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc == EXIT_OK) Cli_helpSubs(Bench_subs); /* --help was shown */
  if (rc >= 0) return rc;
  Bench b = {.csv = Cli_value(c, &a, "--csv") != NULL, .repeat = 5, .params = Cli_value(c, &a, "--params") != NULL};
  const char *rep = Cli_value(c, &a, "--repeat");
  long long reps = b.repeat;
  if (rep && !Cli_int(rep, 1, 1000000, &reps)) { /* atoi read 2.5 as 2 and 1e999 as 1 */
    fprintf(stderr, "spadmap bench: --repeat \"%s\": expected a count from 1 to 1000000\n", Cli_safe(rep));
    return EXIT_USAGE;
  }
  b.repeat = (int)reps;
  if ((rc = Cli_inputDir(c, &a)) >= 0) return rc; /* bench taa --dir /nonexistent printed its tables empty */
  const char *dir = Cli_value(c, &a, "--dir") ? Cli_value(c, &a, "--dir") : Data_file("networks");
  const char *only = Cli_value(c, &a, "--network");
  int n;
  char **files = Bench_listDir(dir, &n);
  if (!files || n == 0) {
    fprintf(stderr, "spadmap bench: no *.json networks in %s\n", dir);
    free(files);
    return EXIT_INVALID;
  }
  bool found = !only;
  for (int i = 0; i < n && !found; i++) {
    char stem[256];
    found = strcmp(FileIO_stem(files[i], stem, sizeof stem), only) == 0;
  }
  if (!found) { /* it printed "0 network(s)" and exited 0 */
    fprintf(stderr, "spadmap bench: --network \"%s\": no %s/%s.json\n", Cli_safe(only), dir, Cli_safe(only));
    for (int i = 0; i < n; i++) free(files[i]);
    free(files);
    return EXIT_USAGE;
  }
  if (b.csv)
    printf("network,params,budget,budget_bytes,schedule,replacement,allocator,noncompulsory_bytes,spills,retrievals,"
           "peak_bytes,footprint_bytes,schedule_ms,sim_ms,validator\n");
  int ran = 0;
  b.rows = calloc((size_t)n, sizeof(BenchRow));
  if (!b.rows) {
    fprintf(stderr, "spadmap bench: out of memory\n");
    return EXIT_INVALID;
  }
  for (int i = 0; i < n; i++) {
    char stem[256];
    if (!only || strcmp(FileIO_stem(files[i], stem, sizeof stem), only) == 0) Bench_network(&b, files[i]), ran++;
    free(files[i]);
  }
  free(files);
  if (!b.csv) Bench_summary(&b);
  free(b.rows);
  if (!b.csv) {
    printf("\n%d network(s); slowest simulation %.3f ms (%s); slowest exact M_P %.3f s (%s); invalid plans or errors: %d\n",
           ran, b.worst_sim_ms, b.worst_sim_net[0] ? b.worst_sim_net : "-", b.worst_mp_s,
           b.worst_mp_net[0] ? b.worst_mp_net : "-", b.invalid);
  }
  return b.invalid ? EXIT_INVALID : EXIT_OK;
}

const CliCommand Cli_bench = {"bench", "[options]",
                              "Runs every policy combination on every shipped network at M_R, M_H and M_P.",
                              Bench_options, Bench_run, CLI_IN_NET};

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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "words.h"
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
  {"--dir", "DIR", "a folder of networks (default: the bundled data/networks), or of minimalloc CSVs (NAME.CAPACITY.csv): "
                   "then one row per CSV, solved at its capacity"},
  {"--capacity", "BYTES", "with a CSV folder: the capacity of files whose name gives none"},
  {"--scale", "N", "instead of the tables: N buffers of each generator, every heuristic's time and the exact "
                   "search's return under --time-limit"},
  {"--minimalloc", "BIN", "with a CSV folder: also run this google/minimalloc binary on each file, same limit, and "
                          "check its packing"},
  {"--min-height", NULL, "with a CSV folder: minimise each file's height (the capacity in its name is minimalloc's "
                         "ceiling: it bisects below it with --minimize_capacity)"},
  {"--node-limit", "N", "with a CSV folder: spadmap's nodes per file (deterministic; the time limit only stops early)"},
  {"--pinwheel", "PERCENT", "also tight instances with this share of pinwheel cuts (not guillotine)"},
  {"--tight-only", NULL, "only the generated instances (tight rectangles and allocator-like)"},
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

/* Instances like an allocator's (Pack_generateLive): solved at the capacity
 * they were generated under (a packing exists), as minimalloc's benchmark is. */
static int BenchPack_live(double tl, int seeds, int max_n, int slack) {
  printf("\n### Allocator-like instances (capacity 1,048,576, %d %% of gaps left empty off the peaks; "
         "a packing exists)\n\n", slack);
  printf("| n | solved | mean time (s) | max time (s) | mean nodes | peak load / capacity | best heuristic fits |\n");
  printf("|---|---|---|---|---|---|---|\n");
  int invalid = 0;
  const int64_t cap = 1048576;
  for (int n = 100; n <= max_n; n += 100) {
    PackBuffer *b = malloc(sizeof *b * (size_t)n);
    if (!b) return 1;
    int solved = 0, fits = 0;
    double sum = 0, worst = 0, nodes = 0, load = 0;
    for (int sd = 0; sd < seeds; sd++) {
      if (!Pack_generateLive((uint64_t)(7000 * n + sd), n, cap, slack, b, NULL)) {
        invalid++;
        continue;
      }
      load += (double)Pack_maxLoad(b, n) / (double)cap;
      PackOptions o;
      PackOptions_init(&o);
      o.time_limit = tl;
      PackResult r;
      SpError err;
      if (Pack_solve(b, n, cap, &o, &r, &err)) {
        fprintf(stderr, "bench pack: %s\n", err.text);
        invalid++;
        continue;
      }
      if (r.offsets && Pack_check(b, n, r.offsets, cap, &err)) invalid++;
      else solved += r.offsets != NULL;
      sum += r.seconds;
      nodes += (double)r.nodes;
      if (r.seconds > worst) worst = r.seconds;
      fprintf(stderr, "live n=%d seed %d: %s, %.3f s, %ld nodes\n", n, sd, PackResultStatus_name(r.status), r.seconds,
              r.nodes);
      PackResult_free(&r);
      o.method = PACK_BEST_HEURISTIC;
      if (Pack_solve(b, n, cap, &o, &r, &err) == SP_OK && r.offsets) fits++;
      PackResult_free(&r);
    }
    printf("| %d | %d/%d | %.3f | %.3f | %.0f | %.3f | %d/%d |\n", n, solved, seeds, sum / seeds, worst, nodes / seeds,
           load / seeds, fits, seeds);
    fflush(stdout);
    free(b);
  }
  return invalid;
}

static int BenchPack_cmpStr(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void BenchPack_freeNames(char **names, int n) {
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* The names in dir ending in suffix (and, with only, naming NAME.suffix),
 * sorted: as many as there are (a fixed 4,096 read the first ones in readdir's
 * order and reported "4096 of 4096 solved" of 5,000). Anything but a regular
 * file (a FIFO would block the read forever, a device never end) is skipped
 * with a note. -1 when the folder cannot be read or memory runs out. */
static int BenchPack_listDir(const char *dir, const char *suffix, const char *only, char ***out) {
  *out = NULL;
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "spadmap bench pack: %s: cannot open the folder: %s\n", Cli_safe(dir), strerror(errno));
    return -1;
  }
  char **names = NULL;
  int n = 0, cap = 0;
  size_t sl = strlen(suffix);
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len <= sl || strcmp(e->d_name + len - sl, suffix) != 0) continue;
    if (only && (strlen(only) != len - sl || strncmp(e->d_name, only, len - sl) != 0)) continue;
    struct stat sb;
    if (fstatat(dirfd(d), e->d_name, &sb, 0) != 0 || !S_ISREG(sb.st_mode)) {
      fprintf(stderr, "spadmap bench pack: %s/%s: skipped: not a regular file\n", Cli_safe(dir), Cli_safe(e->d_name));
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      char **more = realloc(names, sizeof *names * (size_t)cap);
      if (!more) break;
      names = more;
    }
    if (!(names[n] = strdup(e->d_name))) break;
    n++;
  }
  bool nomem = e != NULL;
  closedir(d);
  if (nomem) {
    fprintf(stderr, "spadmap bench pack: %s: out of memory listing the folder\n", Cli_safe(dir));
    BenchPack_freeNames(names, n);
    return -1;
  }
  if (n) qsort(names, (size_t)n, sizeof *names, BenchPack_cmpStr);
  *out = names;
  return n;
}

static int BenchPack_nets(double tl, const char *dir, const char *only) {
  char **names;
  int nn = BenchPack_listDir(dir, ".json", only, &names);
  if (nn < 0) return -1;
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
  BenchPack_freeNames(names, nn);
  printf("\nnetworks: %d of %d runs proven optimal\n", optimal, runs);
  return invalid;
}

/* ---- a folder of minimalloc CSVs ------------------------------------------ */

static double BenchPack_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The capacity minimalloc's benchmarks put in the name: NAME.CAPACITY.csv,
 * up to 2^62 as pack --capacity takes. 0 when the name gives none (no
 * NAME.DIGITS.csv), -1 for digits over 2^62 (they read as "none" from 2^50 on). */
static int64_t BenchPack_capacityOf(const char *name) {
  const char *end = strrchr(name, '.'), *dot = end;
  if (!end) return 0;
  while (dot > name && dot[-1] != '.') dot--;
  if (dot == name || dot == end) return 0;
  int64_t v = 0;
  bool over = false;
  for (const char *p = dot; p < end; p++) {
    if (*p < '0' || *p > '9') return 0;
    int64_t d = *p - '0';
    if (over || v > ((((int64_t)1 << 62) - d) / 10)) over = true; /* 10 v + d would pass 2^62 */
    else v = v * 10 + d;
  }
  return over ? -1 : v;
}

/* Runs the referee on one file under the same limit (minimize: its own
 * bisection on the capacity below cap, --minimize_capacity); its packing is
 * checked against our reading of the file. 1 solved and valid (*height its
 * height), 0 not solved in time, -1 invalid output or a failure; *seconds its
 * wall time. */
static int BenchPack_referee(const char *bin, const char *path, const PackInstance *in, int64_t cap, double tl,
                             bool minimize, int64_t *height, double *seconds) {
  *height = -1;
  char out[] = "/tmp/spadmap-referee-XXXXXX";
  int fd = mkstemp(out);
  if (fd < 0) return -1;
  close(fd);
  char a_cap[64], a_in[4200], a_out[64], a_to[64];
  snprintf(a_cap, sizeof a_cap, "--capacity=%lld", (long long)cap);
  snprintf(a_in, sizeof a_in, "--input=%s", path);
  snprintf(a_out, sizeof a_out, "--output=%s", out);
  snprintf(a_to, sizeof a_to, "--timeout=%gs", tl);
  double t0 = BenchPack_now();
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2), dup2(null, 1);
    if (minimize) execl(bin, bin, a_cap, a_in, a_out, a_to, "--minimize_capacity", (char *)NULL);
    else execl(bin, bin, a_cap, a_in, a_out, a_to, (char *)NULL);
    _exit(127);
  }
  int status = -1, rc = -1;
  if (pid > 0) {
    /* the referee's own timeout, then ours (2 s more) */
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (BenchPack_now() - t0 > tl + 2) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        status = -1;
        break;
      }
      usleep(2000);
    }
  }
  *seconds = BenchPack_now() - t0;
  if (status == 0) {
    PackInstance sol;
    SpError err;
    rc = -1;
    if (PackInstance_readCsv(out, &sol, &err) == SP_OK && sol.offsets && sol.n == in->n) {
      int64_t *off = malloc(sizeof *off * (size_t)(in->n > 0 ? in->n : 1));
      bool ok = off != NULL;
      for (int i = 0; ok && i < in->n; i++) { /* by id: the referee may reorder rows */
        int j = strcmp(sol.ids[i], in->ids[i]) == 0 ? i : -1;
        for (int k = 0; j < 0 && k < sol.n; k++)
          if (strcmp(sol.ids[k], in->ids[i]) == 0) j = k;
        if (j < 0) ok = false;
        else off[i] = sol.offsets[j];
      }
      if (ok && Pack_check(in->buffers, in->n, off, cap, &err) == SP_OK) {
        rc = 1;
        *height = 0;
        for (int i = 0; i < in->n; i++)
          if (off[i] + in->buffers[i].size > *height) *height = off[i] + in->buffers[i].size;
      }
      free(off);
      PackInstance_free(&sol);
    }
  } else if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 1) {
    rc = 0; /* minimalloc's "not found / deadline exceeded" */
  } else if (status == -1) {
    rc = 0;
  }
  unlink(out);
  return rc;
}

/* One row per CSV of dir: status, time, nodes and the proof; with a referee,
 * its time beside ours. Returns the count of invalid packings or errors. */
static int BenchPack_csvDir(const char *dir, double tl, int64_t capacity, const char *referee, bool minimize,
                            long node_limit) {
  char **names;
  int nn = BenchPack_listDir(dir, ".csv", NULL, &names);
  if (nn < 0) return -1;
  char tls[24];
  printf("\n### minimalloc CSVs in %s (time limit %s s each%s)\n\n", dir, Words_figure(tl, tls, sizeof tls), minimize ? ", height minimised" : "");
  if (minimize) {
    printf("| instance | buffers | load | lower bound | height | gap | status | time (s) | nodes | proof |%s\n",
           referee ? " minimalloc height | minimalloc (s) |" : "");
    printf("|---|---|---|---|---|---|---|---|---|---|%s\n", referee ? "---|---|" : "");
  } else {
    printf("| instance | buffers | capacity | status | time (s) | nodes | proof |%s\n",
           referee ? " minimalloc | minimalloc (s) | ratio |" : "");
    printf("|---|---|---|---|---|---|---|%s\n", referee ? "---|---|---|" : "");
  }
  int invalid = 0, solved = 0, ref_solved = 0, rows = 0;
  double total = 0, ref_total = 0;
  for (int i = 0; i < nn; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    int64_t cap = BenchPack_capacityOf(names[i]);
    PackInstance in;
    SpError err;
    if (cap < 0) {
      fprintf(stderr, "spadmap bench pack: %s: the capacity in the name (NAME.CAPACITY.csv) is over 2^62 bytes\n",
              Cli_safe(path));
      invalid++;
      continue;
    }
    if (cap == 0) cap = capacity;
    if (cap <= 0) {
      fprintf(stderr, "spadmap bench pack: %s: no capacity in the name (NAME.CAPACITY.csv) and no --capacity\n",
              Cli_safe(path));
      invalid++;
      continue;
    }
    if (PackInstance_readCsv(path, &in, &err)) {
      fprintf(stderr, "spadmap bench pack: %s\n", Cli_safe(err.text));
      invalid++;
      continue;
    }
    PackOptions o;
    PackOptions_init(&o);
    o.time_limit = tl;
    o.node_limit = node_limit;
    PackResult r;
    if (Pack_solve(in.buffers, in.n, minimize ? 0 : cap, &o, &r, &err)) {
      fprintf(stderr, "spadmap bench pack: %s: %s\n", Cli_safe(path), Cli_safe(err.text));
      invalid++;
      PackInstance_free(&in);
      continue;
    }
    const char *proof = "-";
    if (r.offsets) {
      if (Pack_check(in.buffers, in.n, r.offsets, minimize ? r.height : cap, &err)) {
        fprintf(stderr, "spadmap bench pack: %s: INVALID packing: %s\n", Cli_safe(path), Cli_safe(err.text));
        invalid++;
        proof = "INVALID";
      } else {
        proof = "packing checked";
        solved++;
      }
    } else if (r.status == PACK_INFEASIBLE) {
      proof = r.infeasible_at >= 0 ? "load over capacity" : "exhaustive search";
    }
    rows++;
    total += r.seconds;
    char c1[32], c2[32], c3[32], c4[32], c5[32];
    if (minimize) {
      solved -= r.offsets && r.status != PACK_OPTIMAL; /* solved: proven */
      printf("| %s | %d | %s | %s | %s | %.1f %% | %s | %.3f | %s | %s |", Cli_safe(names[i]), in.n,
             Cli_count(Pack_maxLoad(in.buffers, in.n), c1, sizeof c1), Cli_count(r.lower_bound, c3, sizeof c3),
             r.offsets ? Cli_count(r.height, c4, sizeof c4) : "-",
             r.offsets && r.height > 0 ? 100.0 * (double)(r.height - r.lower_bound) / (double)r.height : 0.0,
             PackResultStatus_name(r.status), r.seconds, Cli_count(r.nodes, c2, sizeof c2), proof);
    } else {
      printf("| %s | %d | %s | %s | %.3f | %s | %s |", Cli_safe(names[i]), in.n, Cli_count(cap, c1, sizeof c1),
             PackResultStatus_name(r.status), r.seconds, Cli_count(r.nodes, c2, sizeof c2), proof);
    }
    if (referee && minimize) {
      double rs = 0;
      int64_t rh;
      int rr = BenchPack_referee(referee, path, &in, cap, tl, true, &rh, &rs);
      if (rr < 0) invalid++;
      ref_solved += rr > 0;
      ref_total += rs;
      printf(" %s | %.3f |", rr > 0 ? Cli_count(rh, c5, sizeof c5) : rr == 0 ? "no answer" : "FAILED or INVALID", rs);
    } else if (referee) {
      double rs = 0;
      int64_t rh;
      int rr = BenchPack_referee(referee, path, &in, cap, tl, false, &rh, &rs);
      if (rr < 0) invalid++;
      ref_solved += rr > 0;
      ref_total += rs;
      printf(" %s | %.3f | %.1fx |", rr > 0 ? "packing checked" : rr == 0 ? "no answer" : "FAILED or INVALID", rs,
             r.seconds > 0 ? rs / r.seconds : 0.0);
    }
    printf("\n");
    fflush(stdout);
    PackResult_free(&r);
    PackInstance_free(&in);
  }
  BenchPack_freeNames(names, nn);
  printf("\nspadmap: %d of %d %s, %.2f s in all", solved, rows, minimize ? "proven optimal" : "solved", total);
  if (referee)
    printf("; minimalloc: %d of %d %s, %.2f s in all", ref_solved, rows, minimize ? "with a packing" : "solved",
           ref_total);
  printf("\n");
  return invalid;
}

/* --scale N: how the heuristics and the time limit hold on N buffers of each
 * generator (a cut rectangle: long lifetimes, many overlaps; allocator-like). */
static int BenchPack_scale(int n, double tl) {
  PackBuffer *b = malloc(sizeof *b * (size_t)n);
  if (!b) return 1;
  int invalid = 0;
  char tls[24];
  printf("\n### %d buffers (time limit %s s for exact)\n\n", n, Words_figure(tl, tls, sizeof tls));
  printf("| instance | method | height | seconds | peak RSS so far (MiB) |\n|---|---|---|---|---|\n");
  for (int family = 0; family < 2; family++) {
    const char *name = family == 0 ? "cut rectangle" : "allocator-like";
    bool ok = family == 0 ? Pack_generateTight(1, n, 2 * (int64_t)n, 1000000, b) : Pack_generateLive(1, n, 1048576, 30, b, NULL);
    if (!ok) {
      invalid++;
      continue;
    }
    PackOptions o;
    PackOptions_init(&o);
    for (int m = PACK_EXACT; m < PACK_METHOD_COUNT; m++) {
      if (m == PACK_SKYLINE && n > 20000) continue; /* quadratic: left out of best-heuristic there too */
      o.method = (PackMethod)m;
      o.time_limit = tl;
      PackResult r;
      SpError err;
      double t0 = BenchPack_now();
      Status st = Pack_solve(b, n, 0, &o, &r, &err);
      double el = BenchPack_now() - t0;
      if (st || !r.offsets || Pack_check(b, n, r.offsets, 0, &err)) invalid++;
      struct rusage ru;
      getrusage(RUSAGE_SELF, &ru);
      char h[32];
      printf("| %s | %s | %s | %.3f | %.0f |\n", name, PackMethod_name((PackMethod)m),
             Cli_count(st ? -1 : r.height, h, sizeof h), el, (double)ru.ru_maxrss / 1024.0);
      fflush(stdout);
      PackResult_free(&r);
    }
  }
  free(b);
  return invalid;
}

static bool BenchPack_hasCsv(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return false;
  struct dirent *e;
  bool found = false;
  while (!found && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    found = len > 4 && strcmp(e->d_name + len - 4, ".csv") == 0;
  }
  closedir(d);
  return found;
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
  if ((v = Cli_value(c, &a, "--scale"))) {
    long long n;
    if (!Cli_int(v, 1, 10000000, &n)) {
      fprintf(stderr, "spadmap bench pack: --scale \"%s\": expected a whole count of buffers, 1..10^7\n", Cli_safe(v));
      return EXIT_USAGE;
    }
    int r = BenchPack_scale((int)n, Cli_value(c, &a, "--time-limit") ? tl : 5);
    printf("invalid solutions or errors: %d\n", r);
    return r ? EXIT_INVALID : EXIT_OK;
  }
  const char *csv_dir = Cli_value(c, &a, "--dir");
  const char *referee = Cli_value(c, &a, "--minimalloc");
  long long capacity = 0;
  if ((v = Cli_value(c, &a, "--capacity")) && !Cli_int(v, 1, (long long)1 << 62, &capacity)) {
    fprintf(stderr, "spadmap bench pack: --capacity \"%s\": expected a whole number of bytes, 1..2^62\n", Cli_safe(v));
    return EXIT_USAGE;
  }
  if (csv_dir && BenchPack_hasCsv(csv_dir)) {
    if (referee && access(referee, X_OK) != 0) {
      fprintf(stderr, "spadmap bench pack: --minimalloc \"%s\": not an executable file\n", Cli_safe(referee));
      return EXIT_USAGE;
    }
    long long nl = 0;
    if ((v = Cli_value(c, &a, "--node-limit")) && !Cli_int(v, 1, (long long)1 << 62, &nl)) {
      fprintf(stderr, "spadmap bench pack: --node-limit \"%s\": expected a node count, 1..2^62\n", Cli_safe(v));
      return EXIT_USAGE;
    }
    int r = BenchPack_csvDir(csv_dir, tl, capacity, referee, Cli_value(c, &a, "--min-height") != NULL, (long)nl);
    printf("invalid solutions or errors: %d\n", r < 0 ? 1 : r);
    return r != 0 ? EXIT_INVALID : EXIT_OK;
  }
  if (referee || capacity || Cli_value(c, &a, "--min-height") || Cli_value(c, &a, "--node-limit")) {
    fprintf(stderr, "spadmap bench pack: --minimalloc, --capacity, --min-height and --node-limit go with --dir DIR of "
                    "minimalloc CSVs\n");
    return EXIT_USAGE;
  }
  int invalid = 0;
  if (!Cli_value(c, &a, "--nets-only")) {
    invalid += BenchPack_tight(tl, seeds, max_n, 0);
    if (pinwheel) invalid += BenchPack_tight(tl, seeds, max_n, pinwheel);
    invalid += BenchPack_live(tl, seeds, max_n, 30);
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
                                  "bundled network's lifetimes at its peak; or on a folder of minimalloc CSVs (--dir), "
                                  "beside minimalloc itself (--minimalloc BIN).",
                                  BenchPack_options, BenchPack_run, CLI_IN(FILE_CSV) | CLI_IN(FILE_NETWORK)};

/* spadmap bench scale: how the everyday commands cope with large graphs.
 * Generates layered DAGs (transformer-like blocks: a fork into three branches,
 * a join, a residual add, an MLP; a weight per matmul) of 1k, 5k, 20k and 50k
 * ops, writes each as a network file, and runs the real commands on it as child
 * processes -- `info` (and with --time-limit 0.5 on its exact M_P search), a
 * heuristic `solve --budget M_R --out plan`, `validate` of that plan -- measuring each one's wall time and peak resident memory
 * and CPU time (wait4's rusage). Targets (issue 14): each under 1 s and 500 MB at 50k ops. */
#define _GNU_SOURCE /* wait4 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "words.h"
#include "cli.h"
#include "clock.h"
#include "fileio.h"

static const CliOption BenchScale_options[] = {
  {"--sizes", "N,N,...", "op counts of the generated graphs (default 1000,5000,20000,50000)"},
  {"--dir", "DIR", "where the generated networks and plans go (default: a new directory in $TMPDIR or /tmp)"},
  {"--keep", NULL, "keep the generated files"},
  {"--csv", "FILE", "also write one row per graph x command"},
  {NULL, NULL, NULL},
};

enum { SCALE_MAX_SIZES = 16, SCALE_STEPS = 4 };
static const char *const BenchScale_steps[SCALE_STEPS] = {"info", "info-0.5s", "solve", "validate"};
static const double BenchScale_targetSeconds = 1.0, BenchScale_targetMiB = 500;

/* xorshift: the graphs are the same on every machine */
static uint64_t BenchScale_rand(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

enum { SCALE_BLOCK_OPS = 11 };

/* Ops of the graph generated for about n ops: whole blocks. */
static int BenchScale_ops(int n) { return (n + SCALE_BLOCK_OPS - 1) / SCALE_BLOCK_OPS * SCALE_BLOCK_OPS; }

/* One block (11 ops): x -> {q, k, v} -> attn(q, k) -> mix(attn, v) -> proj
 * -> add(x, proj) -> up -> act -> down -> add. nops: a multiple of 11.
 * Writes the network JSON to f. */
static void BenchScale_writeNet(FILE *f, int nops, uint64_t seed) {
  fprintf(f, "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"scale%d\",\n"
             "\"source\": \"spadmap bench scale: generated transformer-like blocks\",\n\"tensors\": [\n",
          nops);
  /* tensors first: one per op output, plus the input and one weight per matmul */
  uint64_t s = seed;
  fprintf(f, "{\"name\": \"x\", \"shape\": [%d], \"dtype\": \"int8\", \"kind\": \"input\"}", 4096);
  static const char *const kinds[] = {"q", "k", "v", "attn", "mix", "proj", "add1", "up", "act", "down", "add2"};
  enum { NK = sizeof kinds / sizeof kinds[0] };
  _Static_assert((int)NK == (int)SCALE_BLOCK_OPS, "a block is 11 ops");
  int nblocks = nops / NK;
  int total = 0;
  for (int b = 0; b < nblocks && total < nops; b++)
    for (int k = 0; k < NK && total < nops; k++, total++) {
      int bytes = 1024 * (1 + (int)(BenchScale_rand(&s) % 8));
      if (k == 3) bytes *= 4; /* attention scores are the big ones */
      if (k == 7 || k == 8) bytes *= 2;
      bool last = total == nops - 1;
      fprintf(f, ",\n{\"name\": \"%s%d\", \"shape\": [%d], \"dtype\": \"int8\"%s}", kinds[k], b, bytes,
              last ? ", \"kind\": \"output\"" : "");
      if (k == 0 || k == 1 || k == 2 || k == 5 || k == 7 || k == 9)
        fprintf(f, ",\n{\"name\": \"w_%s%d\", \"shape\": [%d], \"dtype\": \"int8\", \"kind\": \"param\"}", kinds[k], b,
                2048 * (1 + (int)(BenchScale_rand(&s) % 4)));
    }
  fprintf(f, "\n],\n\"ops\": [\n");
  total = 0;
  for (int b = 0; b < nblocks && total < nops; b++) {
    char x[32];
    if (b == 0) snprintf(x, sizeof x, "x");
    else snprintf(x, sizeof x, "add2%d", b - 1);
    for (int k = 0; k < NK && total < nops; k++, total++) {
      char in[96];
      switch (k) {
      case 0: case 1: case 2: snprintf(in, sizeof in, "\"%s\", \"w_%s%d\"", x, kinds[k], b); break;
      case 3: snprintf(in, sizeof in, "\"q%d\", \"k%d\"", b, b); break;
      case 4: snprintf(in, sizeof in, "\"attn%d\", \"v%d\"", b, b); break;
      case 5: snprintf(in, sizeof in, "\"mix%d\", \"w_proj%d\"", b, b); break;
      case 6: snprintf(in, sizeof in, "\"%s\", \"proj%d\"", x, b); break;
      case 7: snprintf(in, sizeof in, "\"add1%d\", \"w_up%d\"", b, b); break;
      case 8: snprintf(in, sizeof in, "\"up%d\"", b); break;
      case 9: snprintf(in, sizeof in, "\"act%d\", \"w_down%d\"", b, b); break;
      default: snprintf(in, sizeof in, "\"add1%d\", \"down%d\"", b, b); break;
      }
      fprintf(f, "%s{\"name\": \"%s%d\", \"type\": \"%s\", \"inputs\": [%s], \"outputs\": [\"%s%d\"]}",
              total ? ",\n" : "", kinds[k], b, kinds[k], in, kinds[k], b);
    }
  }
  fprintf(f, "\n]\n}\n");
}

typedef struct {
  double seconds, cpu, mib; /* wall, user + system CPU */
  int status; /* exit code, or 128 + signal */
} ScaleRun;

/* Runs this binary with args (stdout and stderr to /dev/null) and measures it. */
static ScaleRun BenchScale_child(char *const *args) {
  ScaleRun r = {.status = -1};
  double t0 = Clock_now();
  pid_t pid = fork();
  if (pid == 0) {
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
      dup2(fileno(devnull), 1);
      dup2(fileno(devnull), 2);
    }
    execv("/proc/self/exe", args);
    _exit(127);
  }
  if (pid < 0) return r;
  int st;
  struct rusage ru;
  while (wait4(pid, &st, 0, &ru) < 0)
    if (errno != EINTR) return r;
  r.seconds = Clock_now() - t0;
  r.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
          (double)ru.ru_stime.tv_usec * 1e-6;
  r.mib = (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

static int BenchScale_sizes(const char *text, int *sizes) {
  int n = 0;
  const char *p = text ? text : "1000,5000,20000,50000";
  while (*p && n < SCALE_MAX_SIZES) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 11 || v > 1000000 || (*end && *end != ',')) return -1;
    sizes[n++] = BenchScale_ops((int)v);
    p = *end ? end + 1 : end;
  }
  return *p ? -1 : n;
}

static int BenchScale_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_benchScale;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  int sizes[SCALE_MAX_SIZES];
  int nsizes = BenchScale_sizes(Cli_value(c, &a, "--sizes"), sizes);
  if (nsizes <= 0) {
    fprintf(stderr, "spadmap bench scale: --sizes \"%s\": expected op counts like 1000,5000 (11 to 1000000)\n",
            Cli_value(c, &a, "--sizes"));
    return EXIT_USAGE;
  }
  char dir[4096];
  bool made_dir = false;
  if (Cli_value(c, &a, "--dir")) {
    snprintf(dir, sizeof dir, "%s", Cli_value(c, &a, "--dir"));
    struct stat sb; /* before the header: a missing folder failed at the first write, the header printed */
    if (stat(dir, &sb) != 0 && mkdir(dir, 0777) != 0) {
      fprintf(stderr, "spadmap bench scale: --dir \"%s\": cannot create the directory: %s\n", Cli_safe(dir),
              strerror(errno));
      return EXIT_INVALID;
    }
  } else {
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/spadmap-scale-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir)) {
      fprintf(stderr, "spadmap bench scale: cannot make a directory in %s: %s\n", t && *t ? t : "/tmp",
              strerror(errno));
      return EXIT_INVALID;
    }
    made_dir = true;
  }
  FileOut csv = {0};
  SpError err;
  const char *csv_path = Cli_value(c, &a, "--csv");
  if (csv_path && FileIO_open(csv_path, &csv, &err)) {
    fprintf(stderr, "spadmap bench scale: %s\n", err.text);
    return EXIT_INVALID;
  }
  if (csv.f) fprintf(csv.f, "ops,command,seconds,peak_mib,exit,cpu_seconds\n");
  if (csv.f && FileIO_flush(&csv, &err)) { /* /dev/full: before the header and the long run */
    fprintf(stderr, "spadmap bench scale: %s\n", err.text);
    if (made_dir) rmdir(dir);
    return EXIT_INVALID;
  }
  printf("# spadmap bench scale: generated transformer-like DAGs; each command a child process\n");
  printf("# (wall time, user + system CPU time, peak resident memory); targets at 50k ops: under %.0f s\n"
         "# (wall) and %.0f MiB each; on a loaded machine the CPU time says more than the wall time\n\n",
         BenchScale_targetSeconds, BenchScale_targetMiB);
  printf("| ops | file | info | info --time-limit 0.5 | solve (M_R, default/belady/linear) | validate |\n"
         "|---:|---:|---|---|---|---|\n");
  int failures = 0;
  for (int i = 0; i < nsizes; i++) {
    char net[4200], plan[4200], sz[32];
    snprintf(net, sizeof net, "%s/scale%d.json", dir, sizes[i]);
    snprintf(plan, sizeof plan, "%s/scale%d.plan.json", dir, sizes[i]);
    snprintf(sz, sizeof sz, "%d", sizes[i]);
    FileOut o;
    if (FileIO_open(net, &o, &err)) {
      fprintf(stderr, "spadmap bench scale: %s\n", err.text);
      failures++;
      break;
    }
    BenchScale_writeNet(o.f, sizes[i], 0x9E3779B97F4A7C15ull + (uint64_t)sizes[i]);
    long bytes = ftell(o.f);
    if (FileIO_commit(&o, &err)) {
      fprintf(stderr, "spadmap bench scale: %s\n", err.text);
      failures++;
      break;
    }
    char *info[] = {"spadmap", "info", net, NULL};
    char *info_tl[] = {"spadmap", "info", net, "--time-limit", "0.5", NULL};
    char *solve[] = {"spadmap", "solve", net, "--budget", "M_R", "--out", plan, NULL};
    char *valid[] = {"spadmap", "validate", net, plan, NULL};
    char *const *args[SCALE_STEPS] = {info, info_tl, solve, valid};
    char cells[SCALE_STEPS][96];
    for (int k = 0; k < SCALE_STEPS; k++) {
      ScaleRun r = BenchScale_child(args[k]);
      bool ok = r.status == 0;
      bool fast = r.seconds < BenchScale_targetSeconds && r.mib < BenchScale_targetMiB;
      if (!ok) failures++;
      snprintf(cells[k], sizeof cells[k], "%.3f s, %.3f s CPU, %.0f MiB%s%s", r.seconds, r.cpu, r.mib,
               ok ? "" : r.status >= 128 ? ", killed" : ", FAILED", ok && !fast ? " (over target)" : "");
      if (!ok) snprintf(cells[k] + strlen(cells[k]), sizeof cells[k] - strlen(cells[k]), " (exit %d)", r.status);
      if (csv.f) fprintf(csv.f, "%d,%s,%.4f,%.1f,%d,%.4f\n", sizes[i], BenchScale_steps[k], r.seconds, r.mib, r.status, r.cpu);
      fprintf(stderr, "scale %d: %s %s\n", sizes[i], BenchScale_steps[k], cells[k]);
    }
    char fb[32];
    printf("| %d | %s | %s | %s | %s | %s |\n", sizes[i], Words_bytes((double)bytes, fb, sizeof fb), cells[0], cells[1], cells[2],
           cells[3]);
    fflush(stdout);
    if (!Cli_value(c, &a, "--keep")) {
      unlink(net);
      unlink(plan);
    }
  }
  if (made_dir && !Cli_value(c, &a, "--keep")) rmdir(dir);
  else printf("\nfiles in %s\n", dir);
  if (csv.f && FileIO_commit(&csv, &err)) {
    fprintf(stderr, "spadmap bench scale: %s\n", err.text);
    failures++;
  }
  return failures ? EXIT_INVALID : EXIT_OK;
}

const CliCommand Cli_benchScale = {"bench scale", "[--sizes N,N,...] [--csv FILE]",
                                   "info, a heuristic solve and validate on generated DAGs of 1k to 50k ops: time "
                                   "and peak memory of each command.",
                                   BenchScale_options, BenchScale_run, 0};

/* spadmap bench layer NET --timeloop DIR: Timeloop v1.0 as the referee the CoSA
 * paper used. Per unique layer: the paper's `cosa` and our `cosa-plus` map it,
 * each mapping is exported (Timeloop_write) and judged by `timeloop-model`;
 * Timeloop's own Hybrid mapper searches the same layer on the same exported
 * arch with the paper's settings (Timeloop_mapperText: 500 consecutive
 * sub-optimal mappings per thread, one thread per core, the CoSA authors'
 * mapspace constraints) under a wall-clock cap, and its best mapping is judged
 * by the same model. Ratios are Timeloop's cycles (and energy) of Hybrid's
 * mapping over ours: > 1, ours is faster. Hybrid's figures are a referee's: a
 * random search stopped by the clock, not deterministic; ours are.
 *
 * DIR holds timeloop-mapper and timeloop-model (its shared library is found
 * through LD_LIBRARY_PATH=DIR); without --timeloop they are looked up on PATH.
 * Missing: "SKIP" and exit 77 (ctest's skip code). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "words.h"
#include "cli.h"
#include "cli_bench_timeloop.h"
#include "clock.h"
#include "fileio.h"
#include "ilp.h"
#include "layer/timeloop.h"
#include "layer/timeloop_run.h"

enum { TL_COSA, TL_PLUS, TL_METHODS };
static const char *const BenchTl_name[TL_METHODS] = {"cosa", "cosa-plus"};

/* prog found in dir (or on PATH when dir is NULL): its path into out. */
static bool BenchTl_find(const char *dir, const char *prog, char *out, size_t n) {
  if (dir) {
    snprintf(out, n, "%s/%s", dir, prog);
    return access(out, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    const char *e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    snprintf(out, n, "%.*s/%s", (int)len, p, prog);
    if (len && access(out, X_OK) == 0) return true;
    p = e ? e + 1 : NULL;
  }
  return false;
}

/* Runs prog with args in dir (stdout and stderr to dir/NAME.out, .err). At cap
 * seconds (wall clock; <= 0: none) it gets SIGINT (Timeloop's mapper then stops
 * its threads and writes its best mapping), 60 s later SIGKILL. Returns the exit
 * status (-1: could not run or was killed); *capped says whether the cap hit. */
static int BenchTl_exec(const char *dir, const char *libdir, const char *prog, const char *const *args, double cap,
                        double *seconds, bool *capped) {
  double t0 = Clock_now();
  *capped = false;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (chdir(dir) != 0) _exit(126);
    char path[4096];
    const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
    snprintf(path, sizeof path, "%s.out", base);
    int fo = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    snprintf(path, sizeof path, "%s.err", base);
    int fe = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fi = open("/dev/null", O_RDONLY);
    if (fo < 0 || fe < 0 || fi < 0) _exit(126);
    dup2(fi, 0);
    dup2(fo, 1);
    dup2(fe, 2);
    if (libdir) {
      const char *old = getenv("LD_LIBRARY_PATH");
      char lib[8192];
      snprintf(lib, sizeof lib, "%s%s%s", libdir, old && *old ? ":" : "", old ? old : "");
      setenv("LD_LIBRARY_PATH", lib, 1);
    }
    execv(prog, (char *const *)args);
    _exit(127);
  }
  int status = 0;
  bool killed = false;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    double el = Clock_now() - t0;
    if (cap > 0 && el > cap && !*capped) {
      kill(pid, SIGINT);
      *capped = true;
    }
    if (cap > 0 && el > cap + 60 && !killed) {
      kill(pid, SIGKILL);
      killed = true;
    }
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  *seconds = Clock_now() - t0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Reads dir/file and parses its Summary Stats. */
static Status BenchTl_stats(const char *dir, const char *file, TimeloopStats *s, SpError *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f) return SpError_set(err, SP_ERR_IO, "%s: %s", path, strerror(errno));
  enum { CAP = 16 << 20 }; /* a stats file is tens of KiB */
  char *text = malloc(CAP + 1);
  if (!text) {
    fclose(f);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", path);
  }
  size_t len = fread(text, 1, CAP, f);
  fclose(f);
  text[len] = 0;
  Status st = Timeloop_parseStats(text, s, err);
  free(text);
  if (st) {
    char why[SP_ERROR_TEXT];
    snprintf(why, sizeof why, "%s", err->text);
    SpError_set(err, st, "%s: %s", path, why);
  }
  return st;
}

/* Did the program write `what` into dir/file? */
static bool BenchTl_said(const char *dir, const char *file, const char *what) {
  char path[4096], line[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "r");
  bool found = false;
  while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, what) != NULL;
  if (f) fclose(f);
  return found;
}

static Status BenchTl_writeText(const char *dir, const char *name, const char *text, SpError *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return FileIO_write(path, text, strlen(text), err);
}

/* Does op list "a,b,c" name this layer (by op name or CoSA name)? NULL: all. */
static bool BenchTl_selected(const char *ops, const Layer *l) {
  if (!ops) return true;
  char cosa[64];
  Layer_cosaName(l, cosa, sizeof cosa);
  for (const char *p = ops; *p;) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if ((strlen(l->name) == n && !strncmp(l->name, p, n)) || (strlen(cosa) == n && !strncmp(cosa, p, n))) return true;
    if (!e) break;
    p = e + 1;
  }
  return false;
}

typedef struct {
  int n;                      /* layers with Hybrid and both methods judged */
  double log_cyc[TL_METHODS], log_en[TL_METHODS];
  double hybrid_s, hybrid_max_s, cpu[TL_METHODS], max_cpu[TL_METHODS];
  int capped, hybrid_failed, model_failed, fixed;
} BenchTlSum;

static double BenchTl_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int BenchLayer_timeloop(const Arch *arch, const char *net_path, const char *ops, const char *tl_dir, double cap,
                        const LayerMapOptions *base) {
  char mapper[4096], model[4096];
  if (!BenchTl_find(tl_dir, "timeloop-mapper", mapper, sizeof mapper) ||
      !BenchTl_find(tl_dir, "timeloop-model", model, sizeof model)) {
    printf("SKIP: timeloop-mapper and timeloop-model not found %s%s\n", tl_dir ? "in " : "on PATH",
           tl_dir ? Cli_safe(tl_dir) : "");
    return 77;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cores > 0 ? (int)cores : 1;
  Net *net = Cli_loadNet(net_path);
  if (!net) return EXIT_INVALID;
  Layer *u;
  int *count, n;
  SpError err = {0};
  if (Layer_unique(net, &u, &count, &n, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", Cli_name(), Cli_safe(err.text));
    Net_free(net);
    return EXIT_INVALID;
  }
  char work[] = "/tmp/spadmap-timeloop-XXXXXX";
  if (!mkdtemp(work)) {
    fprintf(stderr, "spadmap %s: cannot create a work directory in /tmp: %s\n", Cli_name(), strerror(errno));
    free(u);
    free(count);
    Net_free(net);
    return EXIT_INVALID;
  }
  char *mtext = NULL, *mfixed = NULL;
  if (Timeloop_mapperText(arch, threads, false, &mtext, &err) || Timeloop_mapperText(arch, threads, true, &mfixed, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", Cli_name(), err.text);
    free(u);
    free(count);
    Net_free(net);
    return EXIT_INVALID;
  }
  printf("\n%s on %s, judged by Timeloop v1.0's timeloop-model; Hybrid: %d threads, victory-condition %d, "
         "cap %.0f s wall clock per layer\n(ratio = Hybrid's / the method's, > 1: the method is better; work files in %s)\n\n",
         net->name, arch->name, threads, TIMELOOP_VICTORY, cap, work);
  printf("%-18s %3s %11s %11s %11s %8s %8s %8s %8s %8s %7s %7s\n", "layer", "ops", "hybrid cyc", "cosa cyc",
         "plus cyc", "cosa x", "plus x", "cosa xE", "plus xE", "hybrid s", "cosa s", "plus s");
  BenchTlSum sum = {0};
  int failures = 0, selected = 0;
  for (int i = 0; i < n; i++) {
    if (!BenchTl_selected(ops, &u[i])) continue;
    selected++;
    char name[64], dir[4096];
    Layer_cosaName(&u[i], name, sizeof name);
    TimeloopStats ts[TL_METHODS], th;
    double cpu[TL_METHODS];
    Mapping any; /* the export of arch and problem needs a valid mapping; Hybrid ignores it */
    bool ok = true;
    for (int k = 0; k < TL_METHODS && ok; k++) {
      LayerMapResult r;
      LayerMapOptions o = *base;
      double c0 = BenchTl_cpu();
      Status st = k == TL_COSA ? LayerMap_cosa(arch, &u[i], &o, &r, &err) : LayerMap_cosaPlus(arch, &u[i], &o, &r, &err);
      cpu[k] = BenchTl_cpu() - c0;
      snprintf(dir, sizeof dir, "%s/%s.%s", work, name, BenchTl_name[k]);
      if (!st) st = Timeloop_write(arch, &u[i], &r.map, dir, &err);
      if (!st) any = r.map;
      if (st) {
        printf("%-18s %s failed: %s\n", name, BenchTl_name[k], err.text);
        ok = false;
        break;
      }
      const char *args[] = {model, "arch.yaml", "prob.yaml", "map.yaml", NULL};
      double secs;
      bool capped;
      int rc = BenchTl_exec(dir, tl_dir, model, args, 600, &secs, &capped);
      if (rc != 0 || BenchTl_stats(dir, "timeloop-model.stats.txt", &ts[k], &err)) {
        printf("%-18s timeloop-model on %s's mapping failed (exit %d): %s (see %s)\n", name, BenchTl_name[k], rc,
               rc ? "" : err.text, dir);
        sum.model_failed++;
        ok = false;
      }
    }
    if (!ok) {
      failures++;
      continue;
    }
    snprintf(dir, sizeof dir, "%s/%s.hybrid", work, name);
    Status st = mkdir(dir, 0777) == 0 ? SP_OK : SpError_set(&err, SP_ERR_IO, "%s: %s", dir, strerror(errno));
    for (int f = TIMELOOP_ARCH; f <= TIMELOOP_PROB && !st; f++) {
      char *text = NULL;
      st = Timeloop_text(arch, &u[i], &any, (TimeloopFile)f, &text, &err);
      if (!st) st = BenchTl_writeText(dir, Timeloop_fileName((TimeloopFile)f), text, &err);
      free(text);
    }
    if (!st) st = BenchTl_writeText(dir, "mapper.yaml", mtext, &err);
    if (st) {
      printf("%-18s Hybrid's input: %s\n", name, err.text);
      failures++;
      continue;
    }
    const char *args[] = {mapper, "arch.yaml", "prob.yaml", "mapper.yaml", NULL};
    double secs = 0;
    bool capped;
    int rc = BenchTl_exec(dir, tl_dir, mapper, args, cap, &secs, &capped);
    bool fixed = false;
    if (rc != 0 && BenchTl_said(dir, "timeloop-mapper.err", "overflow detected")) { /* retry with DRAM's order fixed */
      fixed = true;
      st = BenchTl_writeText(dir, "mapper.yaml", mfixed, &err);
      double more = 0;
      rc = st ? -1 : BenchTl_exec(dir, tl_dir, mapper, args, cap, &more, &capped);
      secs += more;
      sum.fixed++;
    }
    if (rc != 0 || BenchTl_stats(dir, "timeloop-mapper.stats.txt", &th, &err)) {
      printf("%-18s Hybrid found no mapping (exit %d, %.1f s%s)%s%s (see %s)\n", name, rc, secs,
             capped ? ", stopped at the cap" : "", rc ? "" : ": ", rc ? "" : err.text, dir);
      sum.hybrid_failed++;
      continue;
    }
    sum.n++;
    sum.capped += capped;
    sum.hybrid_s += secs;
    if (secs > sum.hybrid_max_s) sum.hybrid_max_s = secs;
    double x[TL_METHODS], xe[TL_METHODS];
    for (int k = 0; k < TL_METHODS; k++) {
      x[k] = th.cycles / ts[k].cycles;
      xe[k] = th.energy_uj / ts[k].energy_uj;
      sum.log_cyc[k] += log(x[k]);
      sum.log_en[k] += log(xe[k]);
      sum.cpu[k] += cpu[k];
      if (cpu[k] > sum.max_cpu[k]) sum.max_cpu[k] = cpu[k];
    }
    char cy[3][32];
    printf("%-18s %3d %11s %11s %11s %7.2fx %7.2fx %7.2fx %7.2fx %7.1f%s %7.2f %7.2f\n", name, count[i],
           Words_count(th.cycles, cy[0], sizeof cy[0]), Words_count(ts[TL_COSA].cycles, cy[1], sizeof cy[1]),
           Words_count(ts[TL_PLUS].cycles, cy[2], sizeof cy[2]), x[TL_COSA], x[TL_PLUS], xe[TL_COSA], xe[TL_PLUS], secs,
           capped ? "*" : fixed ? "o" : " ", cpu[TL_COSA], cpu[TL_PLUS]);
    fflush(stdout);
  }
  if (ops && !selected) {
    fprintf(stderr, "spadmap %s: --ops %s: no unique layer of %s has that name (op or CoSA name)\n", Cli_name(),
            Cli_safe(ops), net->name);
    failures++;
  }
  if (sum.n) {
    printf("\ngeomean vs Timeloop Hybrid (Timeloop cycles): cosa %.2fx, cosa-plus %.2fx (%d layers)\n",
           exp(sum.log_cyc[TL_COSA] / sum.n), exp(sum.log_cyc[TL_PLUS] / sum.n), sum.n);
    printf("geomean vs Timeloop Hybrid (Timeloop energy): cosa %.2fx, cosa-plus %.2fx\n",
           exp(sum.log_en[TL_COSA] / sum.n), exp(sum.log_en[TL_PLUS] / sum.n));
    printf("time per layer: Hybrid %.1f s wall clock mean, %.1f s max (%d of %d stopped at the %.0f s cap: *); "
           "cosa %.2f s CPU mean (max %.2f), cosa-plus %.2f s (max %.2f)\n",
           sum.hybrid_s / sum.n, sum.hybrid_max_s, sum.capped, sum.n, cap, sum.cpu[TL_COSA] / sum.n, sum.max_cpu[TL_COSA],
           sum.cpu[TL_PLUS] / sum.n, sum.max_cpu[TL_PLUS]);
    printf("(Hybrid's figures are a referee's: a random search stopped by the clock and its threads' races, not "
           "deterministic; cosa and cosa-plus are. GLPK %s)\n", Ilp_version());
  }
  if (sum.fixed)
    printf("o: Timeloop refused the mapspace as larger than 2^128 on %d layer%s; run again with DRAM's loop order "
           "fixed to R S P Q C K N (a * there too when the cap hit)\n", sum.fixed, sum.fixed == 1 ? "" : "s");
  if (sum.hybrid_failed) printf("Hybrid found no valid mapping on %d layer%s\n", sum.hybrid_failed, sum.hybrid_failed == 1 ? "" : "s");
  free(mtext);
  free(mfixed);
  free(u);
  free(count);
  Net_free(net);
  return failures || sum.model_failed ? EXIT_INVALID : EXIT_OK;
}

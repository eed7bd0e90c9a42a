/* spadmap bench steps: the offloading-steps paper's ILP experiment (Section 7.3):
 * a 3x3 kernel, stride 1, one channel, one kernel, inputs 4x4 .. 12x12, groups of
 * 2 .. 10 patches; the duration delta = sum |I_slice| + n (tl = tacc = 1) of
 * Row-by-Row, ZigZag, S1-baseline and the ILP (GLPK, time limit per solve). Every
 * plan also runs through the functional check. --fig11: its Fig. 11 (Section 7.2),
 * Row-by-Row against ZigZag on LeNet-5's first layer for groups of 1 .. 32. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"
#include "cli.h"
#include "layer/steps.h"

static const CliOption BenchSteps_options[] = {
  {"--time-limit", "SECONDS", "each ILP solve: the work budget (search nodes, MIP iterations) and a wall-clock stop (default 10)"},
  {"--wall-limit", "SECONDS", "each ILP solve's wall-clock stop instead (default: --time-limit; a solve it stops may differ on a slower machine)"},
  {"--inputs", "LO-HI", "input sizes (default 4-12: 4x4 .. 12x12)"},
  {"--groups", "LO-HI", "patches per step (default 2-10)"},
  {"--max-loads", "N", "Eq. 9's nb_data_reload, loads per pixel at most (default 2, from the paper's Section 2.3 \"at most twice\"; 0: none)"},
  {"--fig11", NULL, "Fig. 11 instead: Row-by-Row and ZigZag on LeNet-5's first layer (32x32, 5x5, stride 1), groups 1-32 (--groups), no ILP"},
  {"--threads", "N", "threads of the exact search (default: one per processor, at most 2: its two lanes; the answer does not depend on it)"},
  {"--model", "exact|paper", "exact (default): trivial bound, exact search, then the paper's MIP; paper: the MIP alone"},
  {"--csv", NULL, "print CSV instead of a table"},
  {NULL, NULL, NULL},
};

static int BenchSteps_int(const char *s, const char *what, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
    fprintf(stderr, "spadmap bench steps: %s must be an integer in %d..%d, not '%s'\n", what, lo, hi, s);
    return -1;
  }
  *out = (int)v;
  return 0;
}

/* "LO-HI" within [min, max]. */
static int BenchSteps_range(const char *s, const char *what, int min, int max, int *lo, int *hi) {
  char *end;
  long a = strtol(s, &end, 10), b = a;
  if (*end == '-') b = strtol(end + 1, &end, 10);
  if (*s == '\0' || *end != '\0' || a < min || b > max || a > b) {
    fprintf(stderr, "spadmap bench steps: %s must be LO-HI within %d-%d, not '%s'\n", what, min, max, s);
    return -1;
  }
  *lo = (int)a, *hi = (int)b;
  return 0;
}


/* Prints the values of sg[0..n) where pick(i) holds as ranges "1-16, 28". */
static void BenchSteps_ranges(const int *sg, const bool *pick, int n) {
  bool first = true;
  for (int i = 0; i < n; i++) {
    if (!pick[i] || (i > 0 && pick[i - 1] && sg[i - 1] + 1 == sg[i])) continue;
    int j = i;
    while (j + 1 < n && pick[j + 1] && sg[j + 1] == sg[j] + 1) j++;
    printf("%s%d", first ? "" : ", ", sg[i]);
    if (j > i) printf("-%d", sg[j]);
    first = false;
  }
  if (first) printf("none");
}

/* Fig. 11 (Section 7.2): Row-by-Row and ZigZag on LeNet-5's first layer (input
 * 32x32, one channel, six 5x5 kernels, stride 1, no padding: 28x28 patches) for
 * groups of g_lo..g_hi patches, in Section 7.1's metric delta = sum |I_slice| + n
 * (tl = tacc = 1; Cin = 1, so elements are pixels; the kernels do not enter it).
 * The paper prints the two curves without values: the table gives ours, every plan
 * through the functional check. */
static int BenchSteps_fig11(int g_lo, int g_hi, int max_loads, bool csv) {
  Layer l = {0};
  snprintf(l.name, sizeof l.name, "lenet5.conv1");
  l.C = 1, l.K = 6, l.R = l.S = 5, l.P = l.Q = 28, l.N = 1;
  l.stride_h = l.stride_w = 1, l.groups = 1, l.op = -1;
  StepsOptions o;
  StepsOptions_init(&o);
  o.max_loads = max_loads;
  const int npix = 32 * 32, npatch = 28 * 28, n = g_hi - g_lo + 1;
  int sg[100];
  bool zz_wins[100], row_wins[100], tie[100];
  int failed = 0, checked = 0;
  if (csv) printf("sg,steps,row,zigzag,floor,row_max_loads,zigzag_max_loads,functional\n");
  else {
    printf("# Fig. 11 of the offloading-steps paper (Section 7.2): LeNet-5's first layer, input 32x32 (Cin 1),\n"
           "# 6 kernels of 5x5, stride 1, no padding: 28x28 = %d patches, Row-by-Row and ZigZag in groups of SG\n"
           "# delta = sum |I_slice| + n (Section 7.1: tl = tacc = 1, in pixels); floor = every pixel loaded once + Kmin;\n"
           "# loads: the most loads of one pixel (* past Eq. 9's %d)\n\n", npatch, max_loads);
    printf("| SG | n | Row-by-Row | ZigZag | shorter | floor | Row loads | ZigZag loads |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
  }
  for (int i = 0; i < n; i++) {
    int g = g_lo + i;
    o.group_size = g;
    StepsPlan p[2];
    SpError err;
    bool ok = true;
    for (int s = 0; s < 2; s++) {
      StepsStrategy strat = s ? STEPS_ZIGZAG : STEPS_ROW;
      if (Steps_plan(&l, &o, strat, &p[s], &err) != SP_OK) {
        fprintf(stderr, "spadmap bench steps --fig11: SG %d %s: %s\n", g, Steps_strategyName(strat), err.text);
        if (s) StepsPlan_free(&p[0]);
        return EXIT_INVALID;
      }
      Status cs = Steps_execute(&l, &o, &p[s], 1234 + (uint64_t)s, &err);
      checked++;
      if (cs != SP_OK) {
        fprintf(stderr, "spadmap bench steps --fig11: SG %d %s: functional check: %s\n", g,
                Steps_strategyName(strat), err.text);
        failed++, ok = false;
      }
    }
    long long row = p[0].objective, zz = p[1].objective, floor = npix + (npatch + g - 1) / g;
    sg[i] = g, zz_wins[i] = zz < row, row_wins[i] = row < zz, tie[i] = row == zz;
    bool rs = max_loads && p[0].max_loads > max_loads, zs = max_loads && p[1].max_loads > max_loads;
    if (csv)
      printf("%d,%d,%lld,%lld,%lld,%d,%d,%s\n", g, p[0].nsteps, row, zz, floor, p[0].max_loads, p[1].max_loads,
             ok ? "ok" : "FAIL");
    else
      printf("| %d | %d | %lld | %lld | %s | %lld | %d%s | %d%s |\n", g, p[0].nsteps, row, zz,
             zz < row ? "ZigZag" : row < zz ? "Row-by-Row" : "same", floor, p[0].max_loads, rs ? "*" : "",
             p[1].max_loads, zs ? "*" : "");
    StepsPlan_free(&p[0]);
    StepsPlan_free(&p[1]);
  }
  if (!csv) {
    printf("\nZigZag shorter at SG ");
    BenchSteps_ranges(sg, zz_wins, n);
    printf("; Row-by-Row shorter at SG ");
    BenchSteps_ranges(sg, row_wins, n);
    printf("; the same at SG ");
    BenchSteps_ranges(sg, tie, n);
    printf(" (Wout = 28)\nfunctional check failed on %d of %d plans\n", failed, checked);
  }
  return failed ? EXIT_INVALID : EXIT_OK;
}

static int BenchSteps_run(int argc, char **argv) {
  const CliCommand *c = &Cli_benchSteps;
  CliArgs a;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  int max_loads = 2, threads = 0;
  double limit = 10;
  const char *v = Cli_value(c, &a, "--time-limit"); /* seconds, fractions too (as layer's) */
  if (v && !Cli_real(v, 0.01, 86400, &limit)) {
    fprintf(stderr, "spadmap bench steps: --time-limit must be seconds in 0.01..86400, not '%s'\n", Cli_safe(v));
    return EXIT_USAGE;
  }
  double wall = 0;
  if ((v = Cli_value(c, &a, "--wall-limit")) && !Cli_real(v, 0.01, 86400, &wall)) {
    fprintf(stderr, "spadmap bench steps: --wall-limit must be seconds in 0.01..86400, not '%s'\n", Cli_safe(v));
    return EXIT_USAGE;
  }
  if (Cli_value(c, &a, "--max-loads") && BenchSteps_int(Cli_value(c, &a, "--max-loads"), "--max-loads", 0, 1000, &max_loads))
    return EXIT_USAGE;
  if (Cli_value(c, &a, "--threads") && BenchSteps_int(Cli_value(c, &a, "--threads"), "--threads", 1, 8, &threads))
    return EXIT_USAGE;
  bool csv = Cli_value(c, &a, "--csv");
  StepsModel model = STEPS_MODEL_EXACT;
  const char *mv = Cli_value(c, &a, "--model");
  if (mv && !strcmp(mv, "paper")) model = STEPS_MODEL_PAPER;
  else if (mv && strcmp(mv, "exact")) {
    fprintf(stderr, "spadmap bench steps: --model must be exact or paper, not '%s'\n", mv);
    return EXIT_USAGE;
  }
  int hin_min = 4, hin_max = 12, g_min = 2, g_max = 10;
  if (Cli_value(c, &a, "--inputs") && BenchSteps_range(Cli_value(c, &a, "--inputs"), "--inputs", 3, 40, &hin_min, &hin_max))
    return EXIT_USAGE;
  if (Cli_value(c, &a, "--fig11")) {
    static const char *const ilp_only[] = {"--time-limit", "--wall-limit", "--threads", "--model", "--inputs"};
    for (size_t i = 0; i < sizeof ilp_only / sizeof *ilp_only; i++)
      if (Cli_value(c, &a, ilp_only[i])) {
        fprintf(stderr, "spadmap bench steps: %s is for the ILP experiment, not --fig11 (no ILP, one layer)\n",
                ilp_only[i]);
        return EXIT_USAGE;
      }
    g_min = 1, g_max = 32; /* the figure's x axis */
    if (Cli_value(c, &a, "--groups") && BenchSteps_range(Cli_value(c, &a, "--groups"), "--groups", 1, 100, &g_min, &g_max))
      return EXIT_USAGE;
    return BenchSteps_fig11(g_min, g_max, max_loads, csv);
  }
  if (Cli_value(c, &a, "--groups") && BenchSteps_range(Cli_value(c, &a, "--groups"), "--groups", 1, 100, &g_min, &g_max))
    return EXIT_USAGE;
  if (csv) printf("input,group,steps,s1,row,zigzag,ilp,status,proven_by,seconds,bound,gain_pct,max_loads_row,max_loads_zigzag,functional\n");
  else {
    printf("# Offloading steps: duration delta = sum |I_slice| + n (tl = tacc = 1), 3x3 kernel, stride 1\n");
    char tls[24];
    printf("# ILP (%s): GLPK %s, %s s per solve, n = Kmin groups, at most %d loads per pixel%s\n\n",
           model == STEPS_MODEL_PAPER ? "the paper's MIP alone" : "trivial bound, exact search, then the paper's MIP",
           Ilp_version(), Words_figure(limit, tls, sizeof tls), max_loads, max_loads ? "" : " (no bound)");
    printf("| input | G | n | S1 | Row | ZigZag | MIP start | ILP | status | proven by | bound | s | gain vs Row/ZigZag keeping Eq. 9 |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  int total = 0, optimal = 0, infeasibles = 0, no_plans = 0, failed = 0, unchecked = 0, refused = 0, errors = 0, better = 0, search_threads = 0;
  double worst = 0, best_gain = 0;
  for (int hin = hin_min; hin <= hin_max; hin++)
    for (int g = g_min; g <= g_max; g++) {
      Layer l = {0};
      snprintf(l.name, sizeof l.name, "%dx%d", hin, hin);
      l.C = l.K = 1;
      l.R = l.S = 3;
      l.P = l.Q = hin - 2;
      l.N = 1;
      l.stride_h = l.stride_w = 1;
      l.groups = 1;
      l.op = -1;
      StepsOptions o;
      StepsOptions_init(&o);
      o.group_size = g;
      o.max_loads = max_loads;
      o.time_limit = limit;
      o.wall_limit = wall;
      o.model = model;
      o.threads = threads;
      StepsPlan p[STEPS_STRATEGIES];
      Status st[STEPS_STRATEGIES];
      SpError err;
      bool ok = true, skipped = false, too_large = false, error = false, infeasible = false, no_plan = false; /* ok: no plan made failed its check */
      for (int s = 0; s < STEPS_STRATEGIES; s++) {
        st[s] = Steps_plan(&l, &o, (StepsStrategy)s, &p[s], &err);
        if (s == STEPS_ILP && st[s] == SP_ERR_INFEASIBLE) { /* proven: no grouping keeps Eq. 9 (e.g. --max-loads 1) */
          infeasible = true;
          continue;
        }
        if (s == STEPS_ILP && st[s] == SP_ERR_LIMIT) { /* the budget ran out before any plan: a limit, not an error */
          fprintf(stderr, "spadmap bench steps: %dx%d G=%d ilp: %s\n", hin, hin, g, err.text);
          no_plan = true;
          continue;
        }
        if (st[s] != SP_OK) {
          fprintf(stderr, "spadmap bench steps: %dx%d G=%d %s: %s\n", hin, hin, g,
                  Steps_strategyName((StepsStrategy)s), err.text);
          /* the heuristics take the same layer and options: SP_ERR_ARG from the ILP alone is
           * its refusal of a model past the columns it allows, a limit like a timeout */
          if (s == STEPS_ILP && st[s] == SP_ERR_ARG) too_large = true;
          else error = true;
          continue;
        }
        Status cs = Steps_execute(&l, &o, &p[s], 1234 + (uint64_t)s, &err);
        if (cs != SP_OK) {
          fprintf(stderr, "spadmap bench steps: %dx%d G=%d %s: functional check: %s\n", hin, hin, g,
                  Steps_strategyName((StepsStrategy)s), err.text);
          /* a check skipped (the time limit, or too large to simulate) gives no verdict: it
           * was counted as failed, exit 1 (found by the test hook's deadline, issue 32) */
          if (cs == SP_ERR_LIMIT) skipped = true;
          else ok = false;
        }
      }
      total++;
      if (!ok) failed++;
      if (skipped) unchecked++;
      if (too_large) refused++;
      if (error) errors++;
      if (infeasible) infeasibles++;
      if (no_plan) no_plans++;
      int64_t heur = -1;
      for (int s = STEPS_ROW; s <= STEPS_ZIGZAG; s++) /* the best that keeps Eq. 9, as the ILP must */
        if (st[s] == SP_OK && (!max_loads || p[s].max_loads <= max_loads) && (heur < 0 || p[s].objective < heur))
          heur = p[s].objective;
      const StepsPlan *ip = st[STEPS_ILP] == SP_OK ? &p[STEPS_ILP] : NULL;
      double gain = ip && heur > 0 ? 100.0 * (double)(heur - ip->objective) / (double)heur : 0;
      if (ip && ip->ilp_status == ILP_OPTIMAL) optimal++;
      if (ip && heur > 0 && ip->objective < heur) better++;
      if (ip && ip->ilp_seconds > worst) worst = ip->ilp_seconds;
      if (ip && ip->search_threads > search_threads) search_threads = ip->search_threads;
      if (gain > best_gain) best_gain = gain;
      const char *status = ip ? (ip->wall_stopped && ip->ilp_status == ILP_TIMEOUT ? "timeout (wall clock)"
                                                                                   : IlpStatus_name(ip->ilp_status))
                              : too_large ? "refused (too large)" : infeasible ? "infeasible" : no_plan ? "timeout (no plan)" : "error";
      const char *by = ip && ip->proven_by ? ip->proven_by : "-";
#define OBJ(s) (st[s] == SP_OK ? (long long)p[s].objective : -1LL)
      if (csv)
        printf("%d,%d,%d,%lld,%lld,%lld,%lld,%s,%s,%.2f,%.0f,%.1f,%d,%d,%s\n", hin, g, ip ? ip->nsteps : 0, OBJ(0),
               OBJ(1), OBJ(2), OBJ(3), status, by, ip ? ip->ilp_seconds : 0, ip ? ip->ilp_bound : -1, gain,
               st[1] == SP_OK ? p[1].max_loads : 0, st[2] == SP_OK ? p[2].max_loads : 0,
               !ok ? "FAIL" : error ? "error" : "ok");
      else
        printf("| %dx%d | %d | %d | %lld | %lld%s | %lld%s | %lld | %lld | %s | %s | %.0f | %.2f | %.1f %% |\n", hin, hin, g,
               ip ? ip->nsteps : 0, OBJ(0), OBJ(1), st[1] == SP_OK && max_loads && p[1].max_loads > max_loads ? "*" : "",
               OBJ(2), st[2] == SP_OK && max_loads && p[2].max_loads > max_loads ? "*" : "",
               ip ? (long long)ip->warm_objective : -1LL, OBJ(3), status, by, ip ? ip->ilp_bound : -1,
               ip ? ip->ilp_seconds : 0, gain);
#undef OBJ
      fflush(stdout);
      for (int s = 0; s < STEPS_STRATEGIES; s++)
        if (st[s] == SP_OK) StepsPlan_free(&p[s]);
    }
  if (!csv) {
    printf("\n* the heuristic loads some pixel more than %d times (breaks Eq. 9; the ILP may not)\n", max_loads);
    printf("MIP start: the best of Row-by-Row, ZigZag and the strip snakes that keeps Eq. 9 (-1: none does)\n");
    char tls[24];
    printf("\nproven optimal: %d of %d within %s s (slowest solve %.2f s); ILP better than both heuristics on %d; "
           "largest gain %.1f %%; functional check failed on %d",
           optimal, total, Words_figure(limit, tls, sizeof tls), worst, better, best_gain, failed);
    if (unchecked) printf("; functional check skipped (time limit or too large) on %d", unchecked);
    if (refused) printf("; ILP refused (too large) on %d", refused);
    if (infeasibles) printf("; proven infeasible (no grouping keeps Eq. 9 or fits) on %d", infeasibles);
    if (no_plans) printf("; no plan within the limit on %d", no_plans);
    if (errors) printf("; no plan (error) on %d", errors);
    printf("\n");
    if (search_threads) printf("the exact search ran on %d thread%s\n", search_threads, search_threads > 1 ? "s" : "");
  }
  return failed || errors ? EXIT_INVALID : EXIT_OK; /* a refusal, like a timeout, is not a failure */
}

const CliCommand Cli_benchSteps = {
    "bench steps", "[options]",
    "The offloading-steps ILP experiment: Row-by-Row, ZigZag, S1 and the ILP on inputs 4x4..12x12, groups 2..10; "
    "--fig11: Fig. 11, Row-by-Row against ZigZag on LeNet-5's first layer.",
    BenchSteps_options, BenchSteps_run, 0};

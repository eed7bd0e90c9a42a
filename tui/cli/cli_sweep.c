/* spadmap sweep NET: traffic, spills and peak against the budget, from M_R to
 * past M_P, for every fast policy combination (engine/sweep.c). A table with
 * the best combination per budget, or every point as CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "solve.h"
#include "sweep.h"

static const CliOption Sweep_options[] = {
  {"--csv", NULL, "every point as CSV: budget,schedule,replacement,allocator,traffic,spills,peak"},
  {"--points", "N", "budgets from M_R to past M_P (default 24)"},
  {"--to", "FACTOR", "the last budget is M_P x FACTOR (default 1.25)"},
  {"--params", NULL, "hold parameter tensors on chip too"},
  {NULL, NULL, NULL},
};

static int Sweep_runCli(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_sweep;
  int rc = Cli_parse(c, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  SweepOptions o;
  SweepOptions_init(&o);
  o.params = Cli_value(c, &a, "--params") != NULL;
  const char *pts = Cli_value(c, &a, "--points"), *to = Cli_value(c, &a, "--to");
  long long npts = 0;
  if (pts && !Cli_int(pts, 2, 10000, &npts)) {
    fprintf(stderr, "spadmap sweep: --points wants a count from 2 to 10000 (got \"%s\")\n", Cli_safe(pts));
    return EXIT_USAGE;
  }
  if (pts) o.budgets = (int)npts;
  if (to && !Cli_real(to, 1, 100, &o.past_mp)) {
    fprintf(stderr, "spadmap sweep: --to wants a factor from 1 to 100 (got \"%s\")\n", Cli_safe(to));
    return EXIT_USAGE;
  }
  Net *net = Cli_loadNet(a.pos[0]);
  if (!net) return EXIT_INVALID;
  NetFigures f;
  SpError err;
  Sweep *sw = NULL;
  Status st = Figures_compute(net, o.params, &f, NULL, &err);
  if (!st) st = Sweep_new(net, &f, &o, &sw, &err);
  if (!st) st = Sweep_fill(net, &o, sw, &err);
  if (st) {
    fprintf(stderr, "spadmap sweep: %s\n", err.text);
    Sweep_free(sw);
    Net_free(net);
    return EXIT_INVALID;
  }
  if (Cli_value(c, &a, "--csv")) {
    printf("budget,schedule,replacement,allocator,traffic,spills,peak\n");
    for (int b = 0; b < sw->nbudgets; b++)
      for (int k = 0; k < sw->ncombos; k++) {
        const SweepPoint *p = Sweep_at(sw, k, b);
        const SweepCombo *cb = &sw->combos[k];
        if (p->status) printf("%lld,%s,%s,%s,,,\n", (long long)sw->budgets[b], cb->schedule, cb->replacement, cb->allocator);
        else
          printf("%lld,%s,%s,%s,%lld,%d,%lld\n", (long long)sw->budgets[b], cb->schedule, cb->replacement,
                 cb->allocator, (long long)p->traffic, p->spills, (long long)p->peak);
      }
  } else {
    char x[32], y[32], z[32];
    printf("%s: %d fast combinations x %d budgets from M_R (%s) to M_P x %g (M_P %s)%s\n", net->name, sw->ncombos,
           sw->nbudgets, Cli_bytes(f.m_r, x, sizeof x), o.past_mp, Cli_bytes(f.m_p, y, sizeof y),
           o.params ? ", params on chip" : "");
    printf("%-13s %-13s %-13s %6s  %-32s %s\n", "budget", "best traffic", "worst traffic", "spills", "best combination",
           "combinations at the best");
    for (int b = 0; b < sw->nbudgets; b++) {
      int best = -1, worst = -1, ties = 0;
      for (int k = 0; k < sw->ncombos; k++) {
        const SweepPoint *p = Sweep_at(sw, k, b);
        if (p->status) continue;
        if (best < 0 || p->traffic < Sweep_at(sw, best, b)->traffic) best = k;
        if (worst < 0 || p->traffic > Sweep_at(sw, worst, b)->traffic) worst = k;
      }
      if (best < 0) {
        printf("%-13s (no plan)\n", Cli_bytes(sw->budgets[b], x, sizeof x));
        continue;
      }
      for (int k = 0; k < sw->ncombos; k++)
        ties += !Sweep_at(sw, k, b)->status && Sweep_at(sw, k, b)->traffic == Sweep_at(sw, best, b)->traffic;
      char combo[96];
      snprintf(combo, sizeof combo, "%s/%s/%s", sw->combos[best].schedule, sw->combos[best].replacement,
               sw->combos[best].allocator);
      printf("%-13s %-13s %-13s %6d  %-32s %d/%d\n", Cli_bytes(sw->budgets[b], x, sizeof x),
             Cli_bytes(Sweep_at(sw, best, b)->traffic, y, sizeof y), Cli_bytes(Sweep_at(sw, worst, b)->traffic, z, sizeof z),
             Sweep_at(sw, best, b)->spills, combo, ties, sw->ncombos);
    }
  }
  Sweep_free(sw);
  Net_free(net);
  return EXIT_OK;
}

const CliCommand Cli_sweep = {"sweep", "NET [--csv] [--points N] [--to FACTOR] [--params]",
                              "Traffic, spills and peak against the budget (M_R to past M_P) for every fast policy combination.",
                              Sweep_options, Sweep_runCli, CLI_IN_NET};

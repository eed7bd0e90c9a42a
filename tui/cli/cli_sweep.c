/* spadmap sweep NET: traffic, spills and peak against the budget, from M_R (or
 * below it, through the tiled network) to past M_P, for every fast policy
 * combination (engine/sweep.c); with --arch each point's network cycles, energy
 * and DRAM bytes too (engine/netcost). A table with the best combination per
 * budget, every point as CSV, an SVG plot (cli_sweep_plot.c), or the points as
 * independent jobs for GNU parallel or a Slurm array and their merge
 * (cli_sweep_jobs.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"
#include "cli.h"
#include "cli_sweep.h"
#include "netcost/netcost.h"
#include "solve.h"
#include "sweep.h"
#include "fileio.h"
#include "strbuf.h"

static const CliOption Sweep_options[] = {
  {"--csv", NULL, "every point as CSV: budget,schedule,replacement,allocator,traffic,spills,peak (+ latency_cycles,energy_pj,dram_bytes with --arch)"},
  {"--points", "N", "budgets from max(M_R, --from) to --to, evenly spaced (default 24)"},
  {"--from", "SIZE", "the first budget (default M_R); below M_R (M_R/16) halving steps up to M_R, each on the tiled network"},
  {"--to", "SIZE", "the last budget: a factor of M_P (1.25, the default) or a size (M_P*2, 4M)"},
  {"--params", NULL, "hold parameter tensors on chip too"},
  {"--arch", "ARCH", "also each point's network latency, energy and DRAM bytes on this architecture (spadmap cost)"},
  {"--method", "M", "with --arch: the layer mapper (default cosa-plus; see spadmap layer --list)"},
  {"--plot", "F.svg", "write an SVG plot: latency (with --arch) or traffic against the budget, one line per replacement policy"},
  {"--jobs", "DIR", "write DIR/jobs.txt, one command per budget (each writes DIR/point-NNNNN.csv), for GNU parallel or Slurm"},
  {"--merge", "DIR", "print the CSV of a --jobs run (byte-identical to --csv); NET is not needed"},
  {"--budget", "SIZE", "one budget alone (what a job of --jobs runs)"},
  {"--out", "FILE", "write the CSV to FILE instead of standard output"},
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

void SweepCsv_header(StrBuf *b, bool arch) {
  StrBuf_printf(b, "budget,schedule,replacement,allocator,traffic,spills,peak%s\n",
                arch ? ",latency_cycles,energy_pj,dram_bytes" : "");
}

void SweepCsv_rows(StrBuf *b, Sweep *sw, bool arch) {
  for (int k = 0; k < sw->nbudgets; k++)
    for (int c = 0; c < sw->ncombos; c++) {
      const SweepPoint *p = Sweep_at(sw, c, k);
      const SweepCombo *cb = &sw->combos[c];
      StrBuf_printf(b, "%lld,%s,%s,%s,", (long long)sw->budgets[k], cb->schedule, cb->replacement, cb->allocator);
      if (p->status) StrBuf_printf(b, ",,%s\n", arch ? ",,," : "");
      else if (arch)
        StrBuf_printf(b, "%lld,%d,%lld,%lld,%.3f,%lld\n", (long long)p->traffic, p->spills, (long long)p->peak,
                      (long long)p->latency_cycles, p->energy_pj, (long long)p->dram_bytes);
      else StrBuf_printf(b, "%lld,%d,%lld\n", (long long)p->traffic, p->spills, (long long)p->peak);
    }
}

/* The table: per budget the best and worst traffic, and the best cycles with an arch. */
static void Sweep_table(const Net *net, const NetFigures *f, Sweep *sw, const SweepOptions *o, const char *to) {
  char x[32], y[32], z[32];
  printf("%s: %d fast combinations x %d budget%s from %s to %s (M_R %s, M_P %s)%s\n", Cli_safe(net->name), sw->ncombos,
         sw->nbudgets, sw->nbudgets == 1 ? "" : "s", Cli_bytes(sw->budgets[0], x, sizeof x), to, Cli_bytes(f->m_r, y, sizeof y),
         Cli_bytes(f->m_p, z, sizeof z), o->params ? ", params on chip" : "");
  bool arch = o->mapper != NULL;
  printf("%-19s %-13s %-13s %6s  %-32s %-10s%s\n", "budget", "best traffic", "worst traffic", "spills", "best combination",
         "at best", arch ? "  best cycles" : "");
  for (int b = 0; b < sw->nbudgets; b++) {
    int best = -1, worst = -1, ties = 0, fastest = -1;
    for (int k = 0; k < sw->ncombos; k++) {
      const SweepPoint *p = Sweep_at(sw, k, b);
      if (p->status) continue;
      if (best < 0 || p->traffic < Sweep_at(sw, best, b)->traffic) best = k;
      if (worst < 0 || p->traffic > Sweep_at(sw, worst, b)->traffic) worst = k;
      if (fastest < 0 || p->latency_cycles < Sweep_at(sw, fastest, b)->latency_cycles) fastest = k;
    }
    const char *tiled = sw->budgets[b] < f->m_r ? " (tiled)" : "";
    if (best < 0) {
      printf("%-19s (no plan%s)\n", Cli_bytes(sw->budgets[b], x, sizeof x), tiled);
      continue;
    }
    for (int k = 0; k < sw->ncombos; k++)
      ties += !Sweep_at(sw, k, b)->status && Sweep_at(sw, k, b)->traffic == Sweep_at(sw, best, b)->traffic;
    char combo[96], at[16], bx[48];
    snprintf(combo, sizeof combo, "%s/%s/%s", sw->combos[best].schedule, sw->combos[best].replacement,
             sw->combos[best].allocator);
    snprintf(at, sizeof at, "%d/%d", ties, sw->ncombos);
    snprintf(bx, sizeof bx, "%s%s", Cli_bytes(sw->budgets[b], x, sizeof x), tiled);
    printf("%-19s %-13s %-13s %6d  %-32s %-10s", bx, Cli_bytes(Sweep_at(sw, best, b)->traffic, y, sizeof y),
           Cli_bytes(Sweep_at(sw, worst, b)->traffic, z, sizeof z), Sweep_at(sw, best, b)->spills, combo, at);
    if (arch) printf("  %lld", (long long)Sweep_at(sw, fastest, b)->latency_cycles);
    printf("\n");
  }
}

static int Sweep_runCli(int argc, char **argv) {
  char b1[32], b2[32];
  CliArgs a;
  const CliCommand *c = &Cli_sweep;
  int rc = Cli_parse(c, argc, argv, 0, 1, &a);
  if (rc >= 0) return rc;
  const char *merge = Cli_value(c, &a, "--merge");
  if (merge) {
    if (a.npos || Cli_value(c, &a, "--jobs")) {
      fprintf(stderr, "spadmap sweep: --merge DIR takes no network and no --jobs\n");
      return EXIT_USAGE;
    }
    return SweepJobs_merge(merge, Cli_value(c, &a, "--out"));
  }
  if (a.npos != 1) {
    fprintf(stderr, "spadmap sweep: missing arguments (usage: spadmap sweep %s)\n", c->args);
    return EXIT_USAGE;
  }
  SweepOptions o;
  SweepOptions_init(&o);
  o.params = Cli_value(c, &a, "--params") != NULL;
  const char *pts = Cli_value(c, &a, "--points"), *to = Cli_value(c, &a, "--to"), *from = Cli_value(c, &a, "--from");
  const char *one = Cli_value(c, &a, "--budget"), *jobs = Cli_value(c, &a, "--jobs"), *plot = Cli_value(c, &a, "--plot");
  long long npts = 0;
  if (pts && !Cli_int(pts, 2, 10000, &npts)) {
    fprintf(stderr, "spadmap sweep: --points wants a count from 2 to 10000 (got \"%s\")\n", Cli_safe(pts));
    return EXIT_USAGE;
  }
  if (pts) o.budgets = (int)npts;
  bool factor = to && Cli_real(to, 1, 100, &o.past_mp);
  if (one && (from || to || pts || jobs || plot)) {
    fprintf(stderr, "spadmap sweep: --budget (one budget) goes without --from, --to, --points, --jobs and --plot\n");
    return EXIT_USAGE;
  }
  if (Cli_value(c, &a, "--method") && !Cli_value(c, &a, "--arch")) {
    fprintf(stderr, "spadmap sweep: --method maps layers onto an --arch: give one\n");
    return EXIT_USAGE;
  }
  if (jobs && (Cli_value(c, &a, "--csv") || plot || Cli_value(c, &a, "--out"))) {
    fprintf(stderr, "spadmap sweep: --jobs writes the jobs only: --csv, --plot and --out belong to the merge\n");
    return EXIT_USAGE;
  }
  NetCostMapper *mapper = NULL;
  if (Cli_value(c, &a, "--arch") && (rc = CliCost_mapper(c, &a, 0, NULL, &mapper)) >= 0) return rc;
  o.mapper = mapper;
  Net *net = Cli_loadModel(c, &a, a.pos[0], &rc); /* a model with --dtype, --fold, --dim, --value as solve opens it */
  if (!net) {
    NetCostMapper_free(mapper);
    return rc;
  }
  NetFigures f;
  SpError err;
  Sweep *sw = NULL;
  int exit_code = EXIT_INVALID;
  Status st = Figures_compute(net, o.params, &f, NULL, &err);
  const char *preset;
  if (!st && from && (st = Budget_parse(from, &f, &o.from, &preset, &err))) exit_code = EXIT_USAGE;
  if (!st && to && !factor && (st = Budget_parse(to, &f, &o.to, &preset, &err))) {
    SpError_set(&err, SP_ERR_ARG, "--to wants a size (M_P*2, 4M) or a factor from 1 to 100 (got \"%s\")", Cli_safe(to));
    exit_code = EXIT_USAGE;
  }
  if (!st && one && (st = Budget_parse(one, &f, &o.only, &preset, &err))) exit_code = EXIT_USAGE;
  if (!st && o.to > 0 && o.from > 0 && o.to <= o.from) {
    st = SpError_set(&err, SP_ERR_ARG, "--to (%s) must be above --from (%s)%s", Words_bytes((double)o.to, b1, sizeof b1),
                     Words_bytes((double)o.from, b2, sizeof b2), o.to == o.from ? "; one budget alone is --budget SIZE" : "");
    exit_code = EXIT_USAGE;
  }
  if (!st) st = Sweep_new(net, &f, &o, &sw, &err);
  if (!st && jobs) {
    exit_code = SweepJobs_write(jobs, a.pos[0], c, &a, sw);
    goto out;
  }
  if (!st) st = Sweep_fill(net, &o, sw, &err);
  if (st) {
    fprintf(stderr, "spadmap sweep: %s\n", err.text);
    if (st == SP_ERR_LIMIT || st == SP_ERR_SOLVER) exit_code = EXIT_LIMIT;
    goto out;
  }
  exit_code = EXIT_OK;
  if (plot && SweepPlot_write(plot, net, &f, sw, mapper, &err)) {
    fprintf(stderr, "spadmap sweep: %s\n", Cli_safe(err.text));
    exit_code = EXIT_INVALID;
    goto out;
  }
  if (plot && !Cli_value(c, &a, "--csv"))
    printf("wrote %s: %s against the budget, %d budgets from %s to %s\n", Cli_safe(plot),
           mapper ? "latency and energy" : "traffic", sw->nbudgets, Words_bytes((double)sw->budgets[0], b1, sizeof b1),
           Words_bytes((double)sw->budgets[sw->nbudgets - 1], b2, sizeof b2));
  const char *outp = Cli_value(c, &a, "--out");
  if (Cli_value(c, &a, "--csv") || outp) {
    StrBuf b = {0};
    SweepCsv_header(&b, mapper != NULL);
    SweepCsv_rows(&b, sw, mapper != NULL);
    if (b.nomem) {
      fprintf(stderr, "spadmap sweep: out of memory\n");
      exit_code = EXIT_INVALID;
    } else if (outp && FileIO_write(outp, b.s, b.len, &err)) {
      fprintf(stderr, "spadmap sweep: %s\n", Cli_safe(err.text));
      exit_code = EXIT_INVALID;
    } else if (!outp) fputs(b.s, stdout);
    free(b.s);
  } else if (!plot) {
    char tb[64], x[32];
    if (o.only > 0) snprintf(tb, sizeof tb, "%s", Cli_bytes(o.only, x, sizeof x));
    else if (o.to > 0) snprintf(tb, sizeof tb, "%s", Cli_bytes(o.to, x, sizeof x));
    else snprintf(tb, sizeof tb, "M_P x %s", Words_figure(o.past_mp, x, sizeof x));
    Sweep_table(net, &f, sw, &o, tb);
  }
out:
  Sweep_free(sw);
  NetCostMapper_free(mapper);
  Net_free(net);
  return exit_code;
}

const CliCommand Cli_sweep = {"sweep", "NET [--from SIZE] [--to SIZE] [--arch ARCH] [--csv] [--plot F.svg] [--jobs DIR] | --merge DIR",
                              "Traffic, spills and peak (and with --arch the network's latency and energy) against the budget, for every fast policy combination.",
                              Sweep_options, Sweep_runCli, CLI_IN_NET | CLI_IN(FILE_ARCH)};

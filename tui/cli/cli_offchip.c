/* spadmap offchip NET --budget B: tile the network for an on-chip budget and
 * allocate its DRAM tile-aware (TAA) or with a baseline; the plan is validated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "words.h"
#include "cli.h"
#include "clock.h"
#include "fileio.h"
#include "figures.h"
#include "solve.h"
#include "tiles/tiles.h"

static const CliOption Offchip_options[] = {
  {"--budget", "SIZE", "on-chip bytes (K/M/G suffix), M_R, M_P, or a preset times or over a number, M_R/4 (required): ops above it are tiled"},
  {"--layout", "nchw|nhwc", "DRAM layout of tensors without file strides (default nchw: row-major)"},
  {"--tile-shape", "rows|outer", "dimension tiles cut: rows (default; in nchw a tile is one chunk per channel) or outer "
                                 "(the layout's outermost: one chunk per tile, as in the TAA paper)"},
  {"--order", "size|lifetime|peers", "TAA's sort order (default size)"},
  {"--method", "NAME", "taa (default), so-size, so-breadth, so-improved, offset-size"},
  {"--no-fallback", NULL, "taa: keep TAA's own placement even when a Shared Objects strategy is lower"},
  {"--time-limit", "SECONDS", "stop TAA after this long, counted from the start (default: none); with the fallback "
                              "the best Shared Objects plan stands, with a note, else exit 3"},
  {"--out", "FILE", "write the off-chip plan (spadmap-offchip JSON)"},
  {"--json", NULL, "print the off-chip plan as JSON instead of the summary"},
  {"--tiled-net", "FILE", "write the tiled network (one op per tile, one tensor per row piece): solve it at the budget"},
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

/* The one budget grammar (Budget_parse): bytes, or a preset with a factor or a
 * divisor ("M_R/4", "M_P*1.1"); the presets need the network's figures. */
static bool Offchip_budget(const Net *net, const char *text, int64_t *bytes, SpError *err) {
  NetFigures f;
  const char *p = text;
  while (*p == ' ') p++;
  bool preset_given = strncasecmp(p, "M_", 2) == 0;
  if (preset_given && Figures_compute(net, false, &f, NULL, err)) return false;
  const char *preset;
  if (Budget_parse(text, preset_given ? &f : NULL, bytes, &preset, err)) return false;
  if (*bytes < 1) { /* the tiler reads 0 as "no budget": it tiled nothing and said "on-chip 0 bytes" */
    SpError_set(err, SP_ERR_ARG, "--budget \"%s\": expected at least 1 byte on chip (0 leaves no room for any tile)",
                Cli_safe(text));
    return false;
  }
  return true;
}

static int Offchip_run(int argc, char **argv) {
  double start = Clock_now();
  CliArgs a;
  const CliCommand *c = &Cli_offchip;
  int rc = Cli_parse(c, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  const char *budget = Cli_value(c, &a, "--budget");
  if (!budget) {
    fprintf(stderr, "spadmap offchip: needs --budget (usage: spadmap offchip %s)\n", c->args);
    return EXIT_USAGE;
  }
  OffchipOptions oo;
  OffchipOptions_init(&oo);
  const char *order = Cli_value(c, &a, "--order"), *method = Cli_value(c, &a, "--method");
  if (order && !TaaOrder_parse(order, &oo.order)) {
    fprintf(stderr, "spadmap offchip: --order \"%s\": expected size, lifetime or peers\n", Cli_safe(order));
    return EXIT_USAGE;
  }
  if (method && !OffchipMethod_parse(method, &oo.method)) {
    fprintf(stderr, "spadmap offchip: --method \"%s\": expected taa, so-size, so-breadth, so-improved or offset-size\n",
            Cli_safe(method));
    return EXIT_USAGE;
  }
  oo.fallback = !Cli_value(c, &a, "--no-fallback");
  const char *tl = Cli_value(c, &a, "--time-limit");
  double limit = 0;
  if (tl && !(Cli_real(tl, 0, 1e7, &limit) && limit > 0)) {
    fprintf(stderr, "spadmap offchip: --time-limit \"%s\": expected seconds, more than 0 and at most 1e7\n", Cli_safe(tl));
    return EXIT_USAGE;
  }
  if (tl) oo.deadline = start + limit;
  /* options that only TAA reads are refused with another method (they were ignored) */
  if (oo.method != OFFCHIP_TAA && (order || !oo.fallback)) {
    fprintf(stderr, "spadmap offchip: %s applies to --method taa only (the method is %s)\n",
            order ? "--order" : "--no-fallback", OffchipMethod_name(oo.method));
    return EXIT_USAGE;
  }

  int load_rc;
  Net *net = Cli_loadModel(c, &a, a.pos[0], &load_rc); /* a model with --dtype, --fold, --dim, --value as solve opens it */
  if (!net) return load_rc;
  int exit_code = EXIT_INVALID;
  SpError err;
  TilesModel *m = NULL;
  OffchipResult r = {0};
  OffchipPlan *plan = NULL;
  char *json = NULL;
  TilesOptions to;
  TilesOptions_init(&to);
  const char *layout = Cli_value(c, &a, "--layout");
  if (layout && !TilesLayout_parse(layout, &to.layout)) {
    fprintf(stderr, "spadmap offchip: --layout \"%s\": expected nchw or nhwc\n", Cli_safe(layout));
    exit_code = EXIT_USAGE;
    goto out;
  }
  const char *tshape = Cli_value(c, &a, "--tile-shape");
  if (tshape && !TilesShape_parse(tshape, &to.shape)) {
    fprintf(stderr, "spadmap offchip: --tile-shape \"%s\": expected rows or outer\n", Cli_safe(tshape));
    exit_code = EXIT_USAGE;
    goto out;
  }
  if (!Offchip_budget(net, budget, &to.capacity, &err)) {
    fprintf(stderr, "spadmap offchip: %s\n", err.text);
    exit_code = EXIT_USAGE;
    goto out;
  }
  Status st;
  if ((st = Tiles_build(net, &to, &m, &err)) || (st = Offchip_allocate(m, &oo, &r, &err)) ||
      (st = OffchipPlan_fromModel(m, &r, &oo, &plan, &err)) ||
      ((Cli_value(c, &a, "--json") || Cli_value(c, &a, "--out")) && (st = OffchipPlan_toJson(plan, &json, &err)))) {
    if (st == SP_ERR_LIMIT) /* TAA stopped and --no-fallback: no plan */
      fprintf(stderr, "spadmap offchip: %s: %s (--no-fallback: no Shared Objects plan to give)\n", Cli_safe(net->name), Cli_safe(err.text));
    else
      fprintf(stderr, "spadmap offchip: %s: %s\n", Cli_safe(net->name), Cli_safe(err.text));
    exit_code = Cli_exitFor(st, false);
    goto out;
  }
  char tls[24];
  if (r.stopped)
    fprintf(stderr, "spadmap offchip: the time limit (%s s) stopped TAA after %d of %d tensors: the plan is %s's\n", Words_figure(limit, tls, sizeof tls),
            r.taa_placed, m->ntensors, OffchipMethod_name(r.method));
  const char *tiled_path = Cli_value(c, &a, "--tiled-net");
  if (tiled_path) { /* the on-chip side of a budget below M_R: the tiles staged by the usual solver */
    Net *tn = NULL;
    char *text = NULL;
    if (Tiles_tiledNet(net, &to, &tn, &text, &err) || FileIO_write(tiled_path, text, strlen(text), &err)) {
      fprintf(stderr, "spadmap offchip: %s\n", err.text);
      free(text); /* a failed write left them (LeakSanitizer, tiled-net on /dev/full) */
      Net_free(tn);
      goto out;
    }
    fprintf(stderr, "wrote %s: %d ops, %d tensors, M_R %lld <= %lld (spadmap solve %s --budget %lld)\n", tiled_path,
            tn->nops, tn->ntensors, (long long)Figures_minRequired(tn, false), (long long)to.capacity, tiled_path,
            (long long)to.capacity);
    free(text);
    Net_free(tn);
  }
  SpError verr;
  Status vst = OffchipPlan_validate(plan, net, &verr);
  const char *out = Cli_value(c, &a, "--out");
  if (out && FileIO_write(out, json, strlen(json), &err)) {
    fprintf(stderr, "spadmap offchip: %s\n", err.text);
    goto out;
  }
  if (Cli_value(c, &a, "--json")) {
    fputs(json, stdout);
  } else {
    int tiled = 0;
    for (int i = 0; i < net->nops; i++) tiled += m->ops[i].ntiles > 1;
    char b1[32], b2[32];
    printf("network        %s (%d ops, %d DRAM tensors, %d tiles, %lld chunks)\n", Cli_safe(net->name), net->nops, m->ntensors,
           m->ntiles, (long long)m->nchunks);
    printf("on-chip        %s bytes: %d op%s tiled, %d sub-steps, layout %s, tiles cut %s\n",
           Cli_count(to.capacity, b1, sizeof b1), tiled, tiled == 1 ? "" : "s", m->nsubsteps,
           TilesLayout_name(to.layout), TilesShape_name(to.shape));
    printf("method         %s", OffchipMethod_name(oo.method));
    if (oo.method == OFFCHIP_TAA) printf(", order %s", TaaOrder_name(oo.order));
    if (r.fell_back)
      printf(" (fell back to %s: TAA alone reached %lld)", OffchipMethod_name(r.method), (long long)r.taa_peak);
    if (r.stopped)
      printf(" (stopped at the time limit after %d of %d tensors: %s's plan)", r.taa_placed, m->ntensors,
             OffchipMethod_name(r.method));
    printf("\npeak DRAM      %s bytes (%s)\n", Cli_count(r.peak_bytes, b1, sizeof b1), Cli_bytes(r.peak_bytes, b2, sizeof b2));
    printf("lower bound    %s bytes (most bytes live at one tick)\n", Cli_count(r.lower_bound, b1, sizeof b1));
    printf("time           %.3f ms", r.seconds * 1e3);
    if (oo.method == OFFCHIP_TAA) printf(" (%ld collision shift%s)", r.shifts, r.shifts == 1 ? "" : "s");
    printf("\n");
    printf("plan           %s\n", vst == SP_OK ? "valid" : verr.text);
    /* every column with its unit; ticks are defined under the table, where the word is met */
    printf("\n%-32s %14s %14s %16s %6s\n", "tensor", "base (bytes)", "size (bytes)", "lifetime (ticks)", "tiles");
    for (int i = 0; i < m->ntensors; i++) {
      const TilesTensor *tt = &m->tensors[i];
      char ticks[40];
      snprintf(ticks, sizeof ticks, "%lld..%lld", (long long)tt->first, (long long)tt->last);
      char col[256];
      printf("%s %14s %14s %16s %6d\n", Cli_nameColumn(net->tensors[tt->net_tensor].name, 32, col, sizeof col),
             Cli_count(r.base[i], b1, sizeof b1), Cli_count(tt->bytes, b2, sizeof b2), ticks, tt->ntiles);
    }
    printf("ticks: sub-step u reads its input tiles at tick 2u+1 and writes its output tiles at 2u+2;\n"
           "tick 0 is before the first op, the last tick after the last (docs/tiles.md)\n");
  }
  if (vst != SP_OK) {
    fprintf(stderr, "spadmap offchip: the plan is invalid: %s\n", verr.text);
    goto out;
  }
  exit_code = EXIT_OK;
out:
  free(json);
  OffchipPlan_free(plan);
  OffchipResult_free(&r);
  Tiles_free(m);
  Net_free(net);
  return exit_code;
}

const CliCommand Cli_offchip = {"offchip", "NET --budget BYTES|M_R|M_R/N|M_P*F [options]",
                                "Tiles NET for an on-chip budget and allocates its off-chip memory (TAA).",
                                Offchip_options, Offchip_run, CLI_IN_NET};

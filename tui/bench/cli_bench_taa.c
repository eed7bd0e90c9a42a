/* spadmap bench taa: the TAA paper's Table 1 (peak off-chip bytes, TAA vs the
 * best Shared Objects strategy) and Table 2 (allocation time) on the bundled
 * networks that match its models, with the gain split into offsets instead of
 * objects (offset-size vs SO) and tile-awareness (TAA vs offset-size, and vs
 * TAA with nothing tiled), and a sweep of the on-chip budget. Every plan goes through the off-chip
 * validator; a row with an invalid plan makes the exit code 1. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "cli.h"
#include "figures.h"
#include "tiles/tiles.h"

static const CliOption BenchTaa_options[] = {
  {"--dir", "DIR", "networks directory (default: the bundled data/networks)"},
  {"--divisor", "N", "on-chip budget = M_R / N of each network (default 4)"},
  {"--layout", "nchw|nhwc", "DRAM layout (default nchw: a row tile spans one chunk per channel)"},
  {"--tile-shape", "rows|outer", "dimension tiles cut: rows (default, ours) or outer (the paper's: one chunk per tile)"},
  {"--budget-sweep", NULL, "the gain split at M_R/16, /8, /4, /2 and M_R, one run each (replaces the tables)"},
  {"--repeat", "N", "time each allocation as the best of N runs (default 5)"},
  {"--all", NULL, "every network in the directory, not only the paper's eight"},
  {NULL, NULL, NULL},
};

/* The paper's models, our files, and its Tables 1 and 2 (bytes, microseconds). */
static const struct {
  const char *model, *file;
  long long taa, so, taa_us, so_us;
} BenchTaa_paper[] = {
  {"Inception v3", "inception_v3", 901600, 901600, 79852, 50566},
  {"Inception v4", "inception_v4", 1894560, 2235616, 632723, 267550},
  {"MobileNet v1", "mobilenet_v1", 278272, 301056, 24974, 23724},
  {"MobileNet v2", "mobilenet_v2", 100352, 100352, 12936, 12511},
  {"ResNetV2 101", "resnet_v2_101", 2791232, 3240000, 914560, 320050},
  {"SqueezeNet", "squeezenet1_0", 410528, 484182, 32015, 6274},
  {"MNASNet 1.3", "mnasnet1_3", 200704, 200704, 50980, 48221},
  {"FSRCNN", "fsrcnn", 1677216, 25165824, 399186, 173413},
};
enum { BENCH_TAA_PAPER = sizeof BenchTaa_paper / sizeof BenchTaa_paper[0] };

/* One tiling of one network and every allocator on it. */
typedef struct {
  int64_t capacity, lower;
  int tiled, tiles;
  int64_t chunks, max_chunks;       /* all tiles' chunks; the most in one tile */
  int64_t taa_alone[TAA_ORDER_COUNT]; /* Algorithm 1 per order, no fallback */
  int64_t taa_paper;                /* the paper's TAA: the best order, no fallback */
  TaaOrder paper_order;
  int64_t taa;                      /* ours: the best order with the fallback to Shared Objects */
  bool fell_back;
  int64_t so[OFFCHIP_METHOD_COUNT]; /* -1: not available (so[OFFCHIP_TAA] unused) */
  OffchipMethod best_so;            /* OFFCHIP_TAA when no Shared Objects strategy ran */
  double taa_s, so_s;               /* the paper TAA's best order's time; the best SO strategy's time */
  bool valid;
  char error[SP_ERROR_TEXT];
} BenchTaaFig;

typedef struct {
  char name[128];
  const char *model;      /* the paper's name, or NULL */
  long long paper_taa, paper_so;
  int ops;
  BenchTaaFig at;         /* at M_R / divisor */
  BenchTaaFig whole;      /* at M_R: nothing tiled (divisor 1) */
  bool valid;
  char error[SP_ERROR_TEXT];
} BenchTaaRow;

/* Allocates, validates, returns the result (caller frees); the best time over repeat. */
static Status BenchTaa_one(const TilesModel *m, const OffchipOptions *o, int repeat, OffchipResult *best,
                           bool *valid, SpError *err) {
  *best = (OffchipResult){0};
  for (int k = 0; k < repeat; k++) {
    OffchipResult r;
    Status st = Offchip_allocate(m, o, &r, err);
    if (st) {
      OffchipResult_free(best);
      return st;
    }
    if (k == 0 || r.seconds < best->seconds) {
      OffchipResult_free(best);
      *best = r;
    } else {
      OffchipResult_free(&r);
    }
  }
  OffchipPlan *p;
  Status st = OffchipPlan_fromModel(m, best, o, &p, err);
  if (st) {
    OffchipResult_free(best);
    return st;
  }
  SpError verr;
  if (OffchipPlan_validate(p, m->net, &verr)) {
    *valid = false;
    *err = verr;
  }
  OffchipPlan_free(p);
  return SP_OK;
}

/* Tiles net at capacity and runs every allocator; every plan validated. */
static void BenchTaa_measure(const Net *net, int64_t capacity, TilesLayout layout, TilesShape shape, int repeat,
                             BenchTaaFig *f) {
  memset(f, 0, sizeof *f);
  f->valid = true;
  f->capacity = capacity;
  f->taa = f->taa_paper = -1;
  for (int k = 0; k < OFFCHIP_METHOD_COUNT; k++) f->so[k] = -1;
  f->best_so = OFFCHIP_TAA;
  TilesOptions to;
  TilesOptions_init(&to);
  to.capacity = capacity;
  to.layout = layout;
  to.shape = shape;
  TilesModel *m;
  SpError err = {0};
  if (Tiles_build(net, &to, &m, &err)) {
    snprintf(f->error, sizeof f->error, "%s", err.text);
    f->valid = false;
    return;
  }
  for (int i = 0; i < net->nops; i++) f->tiled += m->ops[i].ntiles > 1;
  f->tiles = m->ntiles;
  f->chunks = m->nchunks;
  for (int k = 0; k < m->ntiles; k++)
    if (m->tiles[k].nchunks > f->max_chunks) f->max_chunks = m->tiles[k].nchunks;
  for (int k = OFFCHIP_SO_SIZE; k < OFFCHIP_METHOD_COUNT; k++) {
    OffchipOptions o;
    OffchipOptions_init(&o);
    o.method = (OffchipMethod)k;
    OffchipResult r;
    if (BenchTaa_one(m, &o, repeat, &r, &f->valid, &err)) continue; /* not built: shown as n/a */
    f->so[k] = r.peak_bytes;
    if (k <= OFFCHIP_SO_IMPROVED && (f->best_so == OFFCHIP_TAA || r.peak_bytes < f->so[f->best_so])) {
      f->best_so = (OffchipMethod)k;
      f->so_s = r.seconds;
    }
    OffchipResult_free(&r);
  }
  for (int fb = 0; fb < 2; fb++)
    for (int ord = 0; ord < TAA_ORDER_COUNT; ord++) {
      OffchipOptions o;
      OffchipOptions_init(&o);
      o.order = (TaaOrder)ord;
      o.fallback = fb;
      OffchipResult r;
      if (BenchTaa_one(m, &o, fb ? 1 : repeat, &r, &f->valid, &err)) {
        snprintf(f->error, sizeof f->error, "%s", err.text);
        f->valid = false;
        fb = 2;
        break;
      }
      f->lower = r.lower_bound;
      if (!fb) {
        f->taa_alone[ord] = r.peak_bytes;
        if (f->taa_paper < 0 || r.peak_bytes < f->taa_paper) {
          f->taa_paper = r.peak_bytes;
          f->paper_order = (TaaOrder)ord;
          f->taa_s = r.seconds;
        }
      } else if (f->taa < 0 || r.peak_bytes < f->taa) {
        f->taa = r.peak_bytes;
        f->fell_back = r.fell_back;
      }
      OffchipResult_free(&r);
    }
  if (!f->valid && !f->error[0]) snprintf(f->error, sizeof f->error, "%s", err.text);
  Tiles_free(m);
}

static void BenchTaa_network(const char *path, const char *stem, int divisor, TilesLayout layout, TilesShape shape,
                             int repeat, BenchTaaRow *row) {
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", stem);
  row->valid = true;
  for (int i = 0; i < BENCH_TAA_PAPER; i++)
    if (strcmp(BenchTaa_paper[i].file, stem) == 0) {
      row->model = BenchTaa_paper[i].model;
      row->paper_taa = BenchTaa_paper[i].taa;
      row->paper_so = BenchTaa_paper[i].so;
    }
  Net *net;
  SpError err = {0};
  if (Net_load(path, &net, &err)) {
    snprintf(row->error, sizeof row->error, "%s", err.text);
    row->valid = false;
    return;
  }
  row->ops = net->nops;
  int64_t mr = Figures_minRequired(net, false);
  BenchTaa_measure(net, mr / divisor > 0 ? mr / divisor : 1, layout, shape, repeat, &row->at);
  BenchTaa_measure(net, mr, layout, shape, 1, &row->whole);
  row->valid = row->at.valid && row->whole.valid;
  snprintf(row->error, sizeof row->error, "%s", row->at.error[0] ? row->at.error : row->whole.error);
  Net_free(net);
}

static const char *BenchTaa_pct(int64_t a, int64_t b, char *buf, size_t n) {
  if (a < 0 || b <= 0)
    snprintf(buf, n, "n/a");
  else
    snprintf(buf, n, "%+.2f%%", 100.0 * (double)(a - b) / (double)b);
  return buf;
}

static int BenchTaa_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const char *BenchTaa_so(const BenchTaaFig *f, char *buf, size_t n) {
  if (f->best_so == OFFCHIP_TAA)
    snprintf(buf, n, "n/a");
  else
    snprintf(buf, n, "%lld (%s)", (long long)f->so[f->best_so], OffchipMethod_name(f->best_so));
  return buf;
}

static int64_t BenchTaa_soPeak(const BenchTaaFig *f) { return f->best_so == OFFCHIP_TAA ? -1 : f->so[f->best_so]; }

/* The peaks, with TAA as the paper has it (no fallback) next to ours. */
static void BenchTaa_peaks(const BenchTaaRow *rows, int n) {
  printf("| network | on-chip | ops tiled | tiles | chunks (most in a tile) | SO best | offset-size | TAA (paper) | "
         "TAA alone size/lifetime/peers | TAA + fallback | lower bound | paper TAA | paper SO | paper change | valid |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
  for (int i = 0; i < n; i++) {
    const BenchTaaRow *r = &rows[i];
    const BenchTaaFig *f = &r->at;
    if (f->taa_paper < 0) {
      printf("| %s | error: %s |\n", r->name, r->error);
      continue;
    }
    char b1[64], p2[32];
    printf("| %s | %lld | %d/%d | %d | %lld (%lld) | %s | ", r->name, (long long)f->capacity, f->tiled, r->ops, f->tiles,
           (long long)f->chunks, (long long)f->max_chunks, BenchTaa_so(f, b1, sizeof b1));
    if (f->so[OFFCHIP_OFFSET_SIZE] >= 0)
      printf("%lld | ", (long long)f->so[OFFCHIP_OFFSET_SIZE]);
    else
      printf("n/a | ");
    printf("%lld (%s) | %lld/%lld/%lld | %lld%s | %lld | ", (long long)f->taa_paper, TaaOrder_name(f->paper_order),
           (long long)f->taa_alone[0], (long long)f->taa_alone[1], (long long)f->taa_alone[2], (long long)f->taa,
           f->fell_back ? " (fallback)" : "", (long long)f->lower);
    if (r->model)
      printf("%lld | %lld | %s | ", r->paper_taa, r->paper_so, BenchTaa_pct(r->paper_taa, r->paper_so, p2, sizeof p2));
    else
      printf("- | - | - | ");
    printf("%s |\n", r->valid ? "yes" : r->error);
  }
}

/* Where TAA's gain over Shared Objects comes from. At M_R nothing is tiled: a
 * tensor is read whole onto the chip before its op writes, so that problem's
 * peaks are lower and not comparable with the tiled one's; what it shows is
 * the offsets' gain alone (TAA vs SO) and that TAA adds nothing there (TAA vs
 * offset-size). */
static void BenchTaa_split(const BenchTaaRow *rows, int n) {
  printf("| network | offsets instead of objects (offset-size vs SO) | tile-awareness (TAA vs offset-size) | "
         "total (TAA vs SO) | at M_R, nothing tiled: SO | offset-size | TAA | TAA vs SO | TAA vs offset-size |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  int lose_so = 0, lose_off = 0, counted = 0;
  for (int i = 0; i < n; i++) {
    const BenchTaaRow *r = &rows[i];
    const BenchTaaFig *f = &r->at, *w = &r->whole;
    if (f->taa_paper < 0 || w->taa_paper < 0) continue;
    int64_t so = BenchTaa_soPeak(f), off = f->so[OFFCHIP_OFFSET_SIZE], wso = BenchTaa_soPeak(w),
            woff = w->so[OFFCHIP_OFFSET_SIZE];
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
    printf("| %s | %s | %s | %s | %s | %s | %lld | %s | %s |\n", r->name, BenchTaa_pct(off, so, a, sizeof a),
           BenchTaa_pct(f->taa_paper, off, b, sizeof b), BenchTaa_pct(f->taa_paper, so, c, sizeof c),
           wso < 0 ? "n/a" : (snprintf(d, sizeof d, "%lld", (long long)wso), d),
           woff < 0 ? "n/a" : (snprintf(h, sizeof h, "%lld", (long long)woff), h), (long long)w->taa_paper,
           BenchTaa_pct(w->taa_paper, wso, e, sizeof e), BenchTaa_pct(w->taa_paper, woff, g, sizeof g));
    counted++;
    lose_so += so >= 0 && f->taa_paper > so;
    lose_off += off >= 0 && f->taa_paper > off;
  }
  printf("\nTAA as the paper has it (no fallback) is above the best Shared Objects strategy on %d of %d networks and "
         "above offset-size on %d.\n",
         lose_so, counted, lose_off);
}

static void BenchTaa_times(const BenchTaaRow *rows, int n, int repeat) {
  printf("| network | tiles | chunks | TAA (paper, best order) | SO (best strategy) | paper TAA | paper SO |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < n; i++) {
    const BenchTaaRow *r = &rows[i];
    const BenchTaaFig *f = &r->at;
    if (f->taa_paper < 0) continue;
    printf("| %s | %d | %lld | %.0f | ", r->name, f->tiles, (long long)f->chunks, f->taa_s * 1e6);
    if (f->best_so != OFFCHIP_TAA)
      printf("%.0f | ", f->so_s * 1e6);
    else
      printf("n/a | ");
    bool paper = false;
    for (int k = 0; k < BENCH_TAA_PAPER; k++)
      if (strcmp(BenchTaa_paper[k].file, r->name) == 0) {
        printf("%lld | %lld |\n", BenchTaa_paper[k].taa_us, BenchTaa_paper[k].so_us);
        paper = true;
      }
    if (!paper) printf("- | - |\n");
  }
  (void)repeat;
}

static const int BenchTaa_sweepDivisors[] = {16, 8, 4, 2, 1};
enum { BENCH_TAA_SWEEP = sizeof BenchTaa_sweepDivisors / sizeof BenchTaa_sweepDivisors[0] };

static void BenchTaa_sweepRow(const char *name, int divisor, const BenchTaaFig *f) {
  if (f->taa_paper < 0) {
    printf("| %s | M_R/%d | error: %s |\n", name, divisor, f->error);
    return;
  }
  int64_t so = BenchTaa_soPeak(f), off = f->so[OFFCHIP_OFFSET_SIZE];
  char a[32], b[32], c[32], d[64];
  printf("| %s | M_R/%d = %lld | %d | %lld (%lld) | %s | %lld | %lld | %s | %s | %s | %lld | %s |\n", name, divisor,
         (long long)f->capacity, f->tiled, (long long)f->chunks, (long long)f->max_chunks, BenchTaa_so(f, d, sizeof d),
         (long long)off, (long long)f->taa_paper, BenchTaa_pct(off, so, a, sizeof a),
         BenchTaa_pct(f->taa_paper, off, b, sizeof b), BenchTaa_pct(f->taa_paper, so, c, sizeof c), (long long)f->lower,
         f->valid ? "yes" : f->error);
}

static int BenchTaa_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_benchTaa;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  if ((rc = Cli_inputDir(c, &a)) >= 0) return rc; /* bench taa --dir /nonexistent printed its tables empty */
  const char *dir = Cli_value(c, &a, "--dir") ? Cli_value(c, &a, "--dir") : Data_file("networks");
  int divisor = 4, repeat = 5;
  TilesLayout layout = TILES_LAYOUT_ROW_MAJOR;
  TilesShape shape = TILES_SHAPE_ROWS;
  const char *v;
  long long x;
  if ((v = Cli_value(c, &a, "--divisor")) && !(Cli_int(v, 1, 1 << 20, &x) && (divisor = (int)x))) {
    fprintf(stderr, "spadmap bench taa: --divisor \"%s\": expected a positive integer\n", v);
    return EXIT_USAGE;
  }
  if ((v = Cli_value(c, &a, "--repeat")) && !(Cli_int(v, 1, 1000, &x) && (repeat = (int)x))) {
    fprintf(stderr, "spadmap bench taa: --repeat \"%s\": expected 1 to 1000\n", v);
    return EXIT_USAGE;
  }
  if ((v = Cli_value(c, &a, "--layout")) && !TilesLayout_parse(v, &layout)) {
    fprintf(stderr, "spadmap bench taa: --layout \"%s\": expected nchw or nhwc\n", v);
    return EXIT_USAGE;
  }
  if ((v = Cli_value(c, &a, "--tile-shape")) && !TilesShape_parse(v, &shape)) {
    fprintf(stderr, "spadmap bench taa: --tile-shape \"%s\": expected rows or outer\n", Cli_safe(v));
    return EXIT_USAGE;
  }
  bool sweep = Cli_value(c, &a, "--budget-sweep") != NULL;
  if (sweep && Cli_value(c, &a, "--divisor")) {
    fprintf(stderr, "spadmap bench taa: --budget-sweep runs its own divisors (16, 8, 4, 2, 1): drop --divisor\n");
    return EXIT_USAGE;
  }
  bool all = Cli_value(c, &a, "--all") != NULL;
  /* the files to run */
  char **stems = NULL;
  int n = 0;
  if (all) {
    DIR *d = opendir(dir);
    if (!d) {
      fprintf(stderr, "spadmap bench taa: cannot open %s\n", dir);
      return EXIT_INVALID;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
      size_t len = strlen(e->d_name);
      if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
      char **g = realloc(stems, sizeof(char *) * (size_t)(n + 1));
      if (!g) break;
      stems = g;
      stems[n] = malloc(len - 4);
      if (!stems[n]) break;
      memcpy(stems[n], e->d_name, len - 5);
      stems[n++][len - 5] = 0;
    }
    closedir(d);
    if (n) qsort(stems, (size_t)n, sizeof(char *), BenchTaa_cmp);
  } else {
    stems = malloc(sizeof(char *) * BENCH_TAA_PAPER);
    for (int i = 0; stems && i < BENCH_TAA_PAPER; i++) {
      size_t len = strlen(BenchTaa_paper[i].file) + 1;
      if (!(stems[i] = malloc(len))) break;
      memcpy(stems[i], BenchTaa_paper[i].file, len);
      n++;
    }
  }
  bool ok = true;
  if (sweep) {
    printf("## The gain split over the on-chip budget (layout %s, tiles cut %s)\n\n", TilesLayout_name(layout),
           TilesShape_name(shape));
    printf("TAA as the paper has it: Algorithm 1, the best of its three orders, no fallback. Changes are peak against\n"
           "peak; negative is a saving. Every plan validated.\n\n");
    printf("| network | on-chip | ops tiled | chunks (most in a tile) | SO best | offset-size | TAA (paper) | "
           "offsets instead of objects | tile-awareness | total | lower bound | valid |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < n; i++) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s.json", dir, stems[i]);
      Net *net;
      SpError err;
      if (Net_load(path, &net, &err)) {
        printf("| %s | error: %s |\n", stems[i], err.text);
        ok = false;
        continue;
      }
      int64_t mr = Figures_minRequired(net, false);
      for (int k = 0; k < BENCH_TAA_SWEEP; k++) {
        BenchTaaFig f;
        int64_t cap = mr / BenchTaa_sweepDivisors[k];
        BenchTaa_measure(net, cap > 0 ? cap : 1, layout, shape, 1, &f);
        BenchTaa_sweepRow(stems[i], BenchTaa_sweepDivisors[k], &f);
        ok &= f.valid;
      }
      Net_free(net);
    }
  } else {
    BenchTaaRow *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    if (!rows) return EXIT_INVALID;
    for (int i = 0; i < n; i++) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s.json", dir, stems[i]);
      BenchTaa_network(path, stems[i], divisor, layout, shape, repeat, &rows[i]);
      ok &= rows[i].valid;
    }
    printf("## TAA vs Shared Objects: peak off-chip bytes (the paper's Table 1)\n\n");
    printf("Tiles: on-chip budget M_R/%d per network, layout %s, tiles cut %s; each op whose inputs + outputs\n"
           "exceed the budget runs in ceil(bytes / budget) tiles. TAA (paper): Algorithm 1 as published, the best\n"
           "of its three orders, no fallback. TAA + fallback (ours): the best Shared Objects strategy where it is\n"
           "lower. offset-size: Shared Objects' offset calculation, greedy by size, on whole-tensor lifetimes.\n"
           "Every plan validated.\n\n",
           divisor, TilesLayout_name(layout), TilesShape_name(shape));
    BenchTaa_peaks(rows, n);
    printf("\n## Where the gain comes from (TAA as the paper has it)\n\n");
    printf("offsets instead of objects: offset-size against the best Shared Objects strategy, same whole-tensor\n"
           "lifetimes. tile-awareness: TAA against offset-size, same tiling. At M_R (divisor 1) nothing is tiled:\n"
           "every op reads its inputs whole onto the chip before it writes, so those peaks are lower and are not a\n"
           "baseline for the tiled ones; they show the offsets' gain with no tile at all (TAA vs SO) and that\n"
           "tile-awareness has nothing to act on there (TAA vs offset-size).\n\n");
    BenchTaa_split(rows, n);
    printf("\n## Allocation time, microseconds (the paper's Table 2; best of %d runs)\n\n", repeat);
    BenchTaa_times(rows, n, repeat);
    free(rows);
  }
  for (int i = 0; i < n; i++) free(stems[i]);
  free(stems);
  if (!ok) fprintf(stderr, "spadmap bench taa: some plans are invalid (see the valid column)\n");
  return ok ? EXIT_OK : EXIT_INVALID;
}

const CliCommand Cli_benchTaa = {
    "bench taa", "[options]",
    "The TAA paper's Tables 1 and 2 (peak off-chip bytes, allocation time), TAA vs Shared Objects with the gain split.",
    BenchTaa_options, BenchTaa_run, CLI_IN(FILE_NETWORK)};

/* spadmap bench taa: the TAA paper's Table 1 (peak off-chip bytes, TAA vs the
 * best Shared Objects strategy) and Table 2 (allocation time) on the bundled
 * networks that match its models. Every plan goes through the off-chip
 * validator; a row with an invalid plan makes the exit code 1. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figures.h"
#include "tiles/tiles.h"

static const CliOption BenchTaa_options[] = {
  {"--dir", "DIR", "networks directory (default: the bundled data/networks)"},
  {"--divisor", "N", "on-chip budget = M_R / N of each network (default 4)"},
  {"--layout", "nchw|nhwc", "DRAM layout (default nhwc, the paper's TFLite models)"},
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

typedef struct {
  char name[128];
  const char *model;      /* the paper's name, or NULL */
  long long paper_taa, paper_so;
  int64_t capacity, lower;
  int ops, tiled, tiles;
  int64_t chunks;
  int64_t taa_alone[TAA_ORDER_COUNT]; /* per order, no fallback */
  int64_t taa;            /* best order, with the fallback */
  TaaOrder best_order;
  bool fell_back;
  int64_t so[OFFCHIP_METHOD_COUNT]; /* -1: not available */
  OffchipMethod best_so;
  double taa_s, so_s;     /* best order's time; best SO strategy's time */
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
  if (st) return st;
  SpError verr;
  if (OffchipPlan_validate(p, m->net, &verr)) {
    *valid = false;
    *err = verr;
  }
  OffchipPlan_free(p);
  return SP_OK;
}

static void BenchTaa_network(const char *path, const char *stem, int divisor, TilesLayout layout, int repeat,
                             BenchTaaRow *row) {
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
  TilesOptions to;
  TilesOptions_init(&to);
  to.capacity = Figures_minRequired(net, false) / divisor;
  to.layout = layout;
  row->capacity = to.capacity;
  TilesModel *m;
  if (Tiles_build(net, &to, &m, &err)) {
    snprintf(row->error, sizeof row->error, "%s", err.text);
    row->valid = false;
    Net_free(net);
    return;
  }
  row->ops = net->nops;
  for (int i = 0; i < net->nops; i++) row->tiled += m->ops[i].ntiles > 1;
  row->tiles = m->ntiles;
  row->chunks = m->nchunks;
  int64_t best_so = -1;
  for (int k = 0; k < OFFCHIP_METHOD_COUNT; k++) row->so[k] = -1;
  row->best_so = OFFCHIP_TAA; /* none yet: so[OFFCHIP_TAA] stays -1 */
  for (int k = OFFCHIP_SO_SIZE; k < OFFCHIP_METHOD_COUNT; k++) {
    OffchipOptions o;
    OffchipOptions_init(&o);
    o.method = (OffchipMethod)k;
    OffchipResult r;
    if (BenchTaa_one(m, &o, repeat, &r, &row->valid, &err)) continue; /* not built: shown as n/a */
    row->so[k] = r.peak_bytes;
    if (k <= OFFCHIP_SO_IMPROVED && (best_so < 0 || r.peak_bytes < best_so)) {
      best_so = r.peak_bytes;
      row->best_so = (OffchipMethod)k;
      row->so_s = r.seconds;
    }
    OffchipResult_free(&r);
  }
  row->taa = -1;
  for (int ord = 0; ord < TAA_ORDER_COUNT; ord++) {
    OffchipOptions o;
    OffchipOptions_init(&o);
    o.order = (TaaOrder)ord;
    OffchipResult r;
    if (BenchTaa_one(m, &o, repeat, &r, &row->valid, &err)) {
      snprintf(row->error, sizeof row->error, "%s", err.text);
      row->valid = false;
      break;
    }
    row->taa_alone[ord] = r.taa_peak;
    row->lower = r.lower_bound;
    if (row->taa < 0 || r.peak_bytes < row->taa) {
      row->taa = r.peak_bytes;
      row->best_order = (TaaOrder)ord;
      row->fell_back = r.fell_back;
      row->taa_s = r.seconds;
    }
    OffchipResult_free(&r);
  }
  if (!row->valid && !row->error[0]) snprintf(row->error, sizeof row->error, "%s", err.text);
  Tiles_free(m);
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

static int BenchTaa_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_benchTaa;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  const char *dir = Cli_value(c, &a, "--dir") ? Cli_value(c, &a, "--dir") : SPADMAP_DATA_DIR "/networks";
  int divisor = 4, repeat = 5;
  TilesLayout layout = TILES_LAYOUT_NHWC;
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
    qsort(stems, (size_t)n, sizeof(char *), BenchTaa_cmp);
  } else {
    stems = malloc(sizeof(char *) * BENCH_TAA_PAPER);
    for (int i = 0; stems && i < BENCH_TAA_PAPER; i++) {
      size_t len = strlen(BenchTaa_paper[i].file) + 1;
      if (!(stems[i] = malloc(len))) break;
      memcpy(stems[i], BenchTaa_paper[i].file, len);
      n++;
    }
  }
  BenchTaaRow *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
  if (!rows) return EXIT_INVALID;
  bool ok = true;
  for (int i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, stems[i]);
    BenchTaa_network(path, stems[i], divisor, layout, repeat, &rows[i]);
    ok &= rows[i].valid;
  }

  printf("## TAA vs Shared Objects: peak off-chip bytes (the paper's Table 1)\n\n");
  printf("Tiles: on-chip budget M_R/%d per network, layout %s, default order; each op whose inputs + outputs\n"
         "exceed the budget runs in ceil(bytes / budget) row tiles. TAA: the best of its three orders, with\n"
         "the fallback to the best Shared Objects strategy. Every plan validated.\n\n",
         divisor, TilesLayout_name(layout));
  printf("| network | on-chip | ops tiled | tiles | chunks | TAA | order | SO best | strategy | change | "
         "TAA alone (size/lifetime/peers) | offset-size | lower bound | paper TAA | paper SO | paper change | valid |\n");
  printf("|---|---:|---:|---:|---:|---:|---|---:|---|---:|---|---:|---:|---:|---:|---:|---|\n");
  for (int i = 0; i < n; i++) {
    const BenchTaaRow *r = &rows[i];
    if (r->error[0] && r->taa < 0) {
      printf("| %s | error: %s |\n", r->name, r->error);
      continue;
    }
    int64_t so = r->so[r->best_so];
    char p1[32], p2[32];
    printf("| %s | %lld | %d/%d | %d | %lld | %lld%s | %s | ", r->name, (long long)r->capacity, r->tiled, r->ops,
           r->tiles, (long long)r->chunks, (long long)r->taa, r->fell_back ? " (fallback)" : "",
           TaaOrder_name(r->best_order));
    if (so >= 0)
      printf("%lld | %s | %s | ", (long long)so, OffchipMethod_name(r->best_so), BenchTaa_pct(r->taa, so, p1, sizeof p1));
    else
      printf("n/a | n/a | n/a | ");
    printf("%lld/%lld/%lld | ", (long long)r->taa_alone[0], (long long)r->taa_alone[1], (long long)r->taa_alone[2]);
    if (r->so[OFFCHIP_OFFSET_SIZE] >= 0)
      printf("%lld | ", (long long)r->so[OFFCHIP_OFFSET_SIZE]);
    else
      printf("n/a | ");
    printf("%lld | ", (long long)r->lower);
    if (r->model)
      printf("%lld | %lld | %s | ", r->paper_taa, r->paper_so, BenchTaa_pct(r->paper_taa, r->paper_so, p2, sizeof p2));
    else
      printf("- | - | - | ");
    printf("%s |\n", r->valid ? "yes" : r->error);
  }
  printf("\n## Allocation time, microseconds (the paper's Table 2; best of %d runs)\n\n", repeat);
  printf("| network | tiles | chunks | TAA (best order) | SO (best strategy) | paper TAA | paper SO |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < n; i++) {
    const BenchTaaRow *r = &rows[i];
    if (r->taa < 0) continue;
    printf("| %s | %d | %lld | %.0f | ", r->name, r->tiles, (long long)r->chunks, r->taa_s * 1e6);
    if (r->so[r->best_so] >= 0)
      printf("%.0f | ", r->so_s * 1e6);
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
  for (int i = 0; i < n; i++) free(stems[i]);
  free(stems);
  free(rows);
  if (!ok) fprintf(stderr, "spadmap bench taa: some plans are invalid (see the valid column)\n");
  return ok ? EXIT_OK : EXIT_INVALID;
}

const CliCommand Cli_benchTaa = {
    "bench taa", "[options]",
    "The TAA paper's Tables 1 and 2: peak off-chip bytes and allocation time, TAA vs Shared Objects.",
    BenchTaa_options, BenchTaa_run};

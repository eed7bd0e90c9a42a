/* spadmap bench cosma: the COSMA paper's evaluation (Li et al., section V).
 *  - ten human-designed networks, activations only and with params: COSMA's whole
 *    plan (schedule "cosma") against the four baseline schemes (default or mpmf
 *    schedule x belady or greedy replacement, linear allocator);
 *  - four NAS networks, activations only: COSMA FS (the default or the mpmf order
 *    fixed, replacement "ilp") and COSMA DnC (schedule "dnc").
 * All at M_R, M_H and M_P. Every plan goes through the validator. Policies are
 * looked up by name when the command runs: one this build lacks shows "n/a", so
 * the table fills in as the policies land. Tables go to stdout when all is done,
 * one progress line per solve to stderr while it runs (and the CSV row at once). */
#define _GNU_SOURCE /* sched_getaffinity: the CPU count that nproc reports */

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "words.h"
#include "datadir.h"
#include "cli.h"
#include "fileio.h"
#include "clock.h"
#include "ilp.h"
#include "policy.h"
#include "solve.h"
#include "validate.h"

static const CliOption BenchCosma_options[] = {
  {"--time-limit", "SECONDS", "each solve: the work budget (search nodes, MIP iterations) and a wall-clock stop (default 60)"},
  {"--wall-limit", "SECONDS", "each solve's wall-clock stop instead (default: --time-limit; a solve it stops may differ on a slower machine)"},
  {"--network", "NAME", "only these (repeatable or a comma list; other stems in DIR run as human)"},
  {"--dir", "DIR", "networks directory (default: the bundled data/networks)"},
  {"--unfolded", NULL, "the ten human-designed networks from the bundled networks/unfolded: BatchNorm and activations kept as ops, as the paper's graphs"},
  {"--acts", NULL, "activations only (default: both settings)"},
  {"--params", NULL, "with params only (the NAS networks run with activations only)"},
  {"--human-only", NULL, "only the ten human-designed networks"},
  {"--nas-only", NULL, "only the four NAS networks"},
  {"--csv", "FILE", "also write one row per network x setting x budget x scheme"},
  {"--break-nodes", "NET=A,B,...", "dnc on NET: these break nodes, by hand (repeatable, one per network; default: automatic)"},
  {"--mp-orders", "1|2", "cosma and dnc: 2 also tries the whole-network search's M_P order in every joint solve"},
  {"--model", "ours|paper", "cosma on the human networks: our pipeline (default) or the paper's model, solved directly"},
  {NULL, NULL, NULL},
};

/* The paper's networks, in its order (Fig. 3, Table II). */
static const char *const BenchCosma_humanNets[] = {"resnet50",       "densenet121",  "resnext50_32x4d",
                                                   "r2plus1d_18",    "s3d",          "fcn_resnet50",
                                                   "lraspp_mobilenet_v3_large",      "deeplabv3_resnet50",
                                                   "transformer",    "vit_b_16"};
static const char *const BenchCosma_nasNets[] = {"pnasnet5", "amoebanet_d", "nasnet_a", "darts"};
enum {
  NHUMAN = sizeof BenchCosma_humanNets / sizeof BenchCosma_humanNets[0],
  NNAS = sizeof BenchCosma_nasNets / sizeof BenchCosma_nasNets[0],
  MAX_NETS = 64,
  BASELINES = 4,
  NAS_SCHEMES = 3,
  TEXT = 200,
  PATH_BYTES = 4200,
};

static const char *const BenchCosma_budgetNames[3] = {"M_R", "M_H", "M_P"};

typedef struct {
  const char *key;   /* CSV and progress name */
  const char *label; /* table heading */
  const char *schedule, *replacement, *allocator; /* NULL: not used (a whole-plan policy decides) */
} BenchScheme;

static const BenchScheme BenchCosma_baselines[BASELINES] = {
  {"default/belady", "default/belady", "default", "belady", "linear"},
  {"default/greedy", "default/greedy", "default", "greedy", "linear"},
  {"mpmf/belady", "mpmf/belady", "mpmf", "belady", "linear"},
  {"mpmf/greedy", "mpmf/greedy", "mpmf", "greedy", "linear"},
};
static const BenchScheme BenchCosma_joint = {"cosma", "cosma", "cosma", NULL, NULL};
static const BenchScheme BenchCosma_nas[NAS_SCHEMES] = {
  {"fs-default", "COSMA FS (default)", "default", "ilp", NULL},
  {"fs-mpmf", "COSMA FS (mpmf)", "mpmf", "ilp", NULL},
  {"dnc", "COSMA DnC", "dnc", NULL, NULL},
};

typedef enum { RUN_NA, RUN_ERROR, RUN_INVALID, RUN_VALID } RunKind;

typedef struct {
  RunKind kind;
  int64_t bytes;     /* non-compulsory traffic of the plan (RUN_VALID, RUN_INVALID) */
  SolverInfo solver;
  double seconds;    /* wall clock of the solve */
  char text[TEXT];   /* RUN_NA: what is missing; RUN_ERROR: the message; RUN_INVALID: first violation */
} BenchRun;

/* One network x setting x budget: its baselines and its COSMA runs. */
typedef struct {
  const char *net;
  bool nas, params, mp_exact;
  int budget;          /* index into BenchCosma_budgetNames; -1: error row */
  int64_t budget_bytes;
  BenchRun base[BASELINES];
  BenchRun cosma[NAS_SCHEMES]; /* human: [0] = cosma; NAS: BenchCosma_nas order */
  char error[TEXT];    /* budget -1: why the network or its figures failed */
} BenchCosmaRow;

typedef struct {
  char name[64];
  bool nas;
} BenchCosmaNet;

typedef struct {
  const char *dir;
  char dir_buf[PATH_BYTES]; /* a bundled folder: Data_file's buffers rotate */
  double time_limit;
  double wall_limit;   /* 0: the wall-clock stop is time_limit */
  bool paper_model;    /* --model paper: the human networks' cosma runs solve the paper's model */
  int mp_orders;       /* --mp-orders (SolveSettings.mp_orders) */
  const char *breaks[MAX_NETS]; /* --break-nodes: per network (nets[i]), NULL: automatic */
  bool settings[2];    /* [0] activations only, [1] with params */
  FILE *csv;
  BenchCosmaNet nets[MAX_NETS];
  int nnets;
  BenchCosmaRow *rows;
  int nrows, caprows;
  int done, total;     /* solves, for the progress lines */
  int valid, invalid, errors, na;
  char missing[128];   /* policies not in this build, comma-separated */
  double slowest;
  char slowest_what[160];
} BenchCosma;

static const char *BenchCosma_setting(bool params) { return params ? "params" : "acts"; }
static const char *BenchCosma_settingLong(bool params) { return params ? "with params" : "activations only"; }
static int BenchCosma_schemes(bool nas) { return nas ? NAS_SCHEMES : 1; }
static const BenchScheme *BenchCosma_scheme(bool nas, int k) { return nas ? &BenchCosma_nas[k] : &BenchCosma_joint; }

/* Copies text for a markdown cell: '|' and line breaks would break the table. */
static void BenchCosma_copyText(char *dst, const char *src) {
  snprintf(dst, TEXT, "%s", src);
  for (char *p = dst; *p; p++)
    if (*p == '|' || *p == '\n' || *p == '\r') *p = *p == '|' ? '/' : ' ';
}

static void BenchCosma_noteMissing(BenchCosma *b, const char *name) {
  char key[64];
  snprintf(key, sizeof key, ", %s,", name);
  char list[160];
  snprintf(list, sizeof list, ", %s,", b->missing);
  if (strstr(list, key)) return;
  size_t len = strlen(b->missing);
  snprintf(b->missing + len, sizeof b->missing - len, "%s%s", len ? ", " : "", name);
}

/* The first policy of the scheme this build does not have, with its kind; NULL if all exist. */
static const char *BenchCosma_missing(const BenchScheme *sc, PolicyKind *kind) {
  const PolicyKind kinds[3] = {POLICY_SCHEDULE, POLICY_REPLACEMENT, POLICY_ALLOCATOR};
  const char *names[3] = {sc->schedule, sc->replacement, sc->allocator};
  for (int k = 0; k < 3; k++)
    if (names[k] && !Policy_find(kinds[k], names[k])) {
      *kind = kinds[k];
      return names[k];
    }
  return NULL;
}

/* (objective - bound) / objective, or -1 when the solver proved no bound. */
static double BenchCosma_gap(const BenchRun *r) {
  if (r->kind < RUN_INVALID || !r->solver.has_bound || !r->solver.has_objective) return -1;
  double g = r->solver.objective > 0 ? (r->solver.objective - r->solver.bound) / r->solver.objective : 0;
  return g < 0 ? 0 : g;
}

/* The progress line's start goes out before the solve (stderr is unbuffered), so a
 * long ILP shows what it is working on; BenchCosma_progressEnd completes the line. */
static void BenchCosma_progressStart(BenchCosma *b, const BenchCosmaRow *row, const BenchScheme *sc) {
  fprintf(stderr, "[%d/%d] %s %s %s %s: ", ++b->done, b->total, row->net, BenchCosma_setting(row->params),
          BenchCosma_budgetNames[row->budget], sc->key);
}

static void BenchCosma_progressEnd(const BenchRun *r) {
  char kb[32];
  double gap = BenchCosma_gap(r);
  switch (r->kind) {
  case RUN_NA: fprintf(stderr, "n/a (%s)\n", r->text); break;
  case RUN_ERROR: fprintf(stderr, "error: %s (%.2f s)\n", r->text, r->seconds); break;
  case RUN_INVALID: fprintf(stderr, "INVALID plan: %s (%.2f s)\n", r->text, r->seconds); break;
  case RUN_VALID:
    fprintf(stderr, "%s, %s", Words_bytes((double)r->bytes, kb, sizeof kb), SolverStatus_name(r->solver.status));
    if (gap >= 0) fprintf(stderr, ", gap %.2f%%", gap * 100);
    fprintf(stderr, ", %.2f s", r->seconds);
    if (r->solver.note[0]) fprintf(stderr, " (%s)", r->solver.note);
    fputc('\n', stderr);
    break;
  }
}

/* A CSV field, quoted when it has a comma or a quote. */
static void BenchCosma_csvField(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void BenchCosma_csvRow(BenchCosma *b, const BenchCosmaRow *row, const BenchScheme *sc, const BenchRun *r) {
  if (!b->csv) return;
  bool plan = r->kind >= RUN_INVALID;
  fprintf(b->csv, "%s,%s,%s,", row->net, BenchCosma_setting(row->params), BenchCosma_budgetNames[row->budget]);
  if (row->budget_bytes > 0) fprintf(b->csv, "%lld", (long long)row->budget_bytes); /* 0: the figures failed */
  fprintf(b->csv, ",%s,", sc->key);
  if (plan) fprintf(b->csv, "%lld", (long long)r->bytes);
  fputc(',', b->csv);
  char status[TEXT + 16];
  snprintf(status, sizeof status, "%s%s",
           r->kind == RUN_NA ? "n/a" : r->kind == RUN_ERROR ? "error: " : SolverStatus_name(r->solver.status),
           r->kind == RUN_ERROR ? r->text : "");
  BenchCosma_csvField(b->csv, status);
  fputc(',', b->csv);
  if (plan && r->solver.has_objective) fprintf(b->csv, "%.0f", r->solver.objective);
  fputc(',', b->csv);
  if (plan && r->solver.has_bound) fprintf(b->csv, "%.0f", r->solver.bound);
  fputc(',', b->csv);
  if (BenchCosma_gap(r) >= 0) fprintf(b->csv, "%.6f", BenchCosma_gap(r));
  fputc(',', b->csv);
  if (r->kind != RUN_NA && row->budget_bytes > 0) fprintf(b->csv, "%.3f", r->seconds); /* else nothing ran */
  fprintf(b->csv, ",%s\n", plan ? (r->kind == RUN_VALID ? "1" : "0") : "");
}

/* Solve_run with the scheme's policies, timed, then the validator: fills r. */
static void BenchCosma_solvePlan(BenchCosma *b, const Net *net, const BenchCosmaRow *row, const BenchScheme *sc,
                                 const int *mp_order, BenchRun *r) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.params = row->params;
  s.budget = row->budget_bytes;
  s.time_limit = b->time_limit;
  /* the wall-clock stop, so that a busy machine does not decide a run the work budget
   * would (Solve_run sets deadline from time_limit when it is 0) */
  if (b->wall_limit > 0) s.deadline = Clock_now() + b->wall_limit;
  s.schedule = sc->schedule;
  if (sc->replacement) s.replacement = sc->replacement;
  if (sc->allocator) s.allocator = sc->allocator;
  s.paper_model = b->paper_model && sc == &BenchCosma_joint;
  s.mp_orders = b->mp_orders;
  if (strcmp(sc->schedule, "dnc") == 0)
    for (int i = 0; i < b->nnets; i++)
      if (strcmp(b->nets[i].name, row->net) == 0) s.break_nodes = b->breaks[i];
  /* mpmf is the exact search Figures_compute has just run: reuse its order */
  if (mp_order && strcmp(sc->schedule, "mpmf") == 0) s.order = mp_order;
  Plan *plan = NULL;
  SpError err;
  double t0 = Clock_now();
  Status st = Solve_run(net, &s, &plan, &err);
  r->seconds = Clock_now() - t0;
  if (st) {
    r->kind = RUN_ERROR;
    BenchCosma_copyText(r->text, err.text);
    b->errors++;
    return;
  }
  ValidateReport rep;
  r->kind = Validate_plan(net, plan, &rep) == SP_OK ? RUN_VALID : RUN_INVALID;
  if (r->kind == RUN_INVALID) BenchCosma_copyText(r->text, rep.nlines ? rep.lines[0] : "validator failed");
  ValidateReport_free(&rep);
  r->bytes = plan->metrics.noncompulsory_bytes;
  r->solver = plan->solver;
  Plan_free(plan);
  if (r->kind == RUN_VALID) b->valid++;
  else b->invalid++;
}

/* One scheme for the row's network, setting and budget: n/a, or a validated plan. */
static void BenchCosma_solve(BenchCosma *b, const Net *net, const BenchCosmaRow *row, const BenchScheme *sc,
                             const int *mp_order, BenchRun *r) {
  memset(r, 0, sizeof *r);
  BenchCosma_progressStart(b, row, sc);
  PolicyKind kind;
  const char *missing = BenchCosma_missing(sc, &kind);
  if (missing) {
    r->kind = RUN_NA;
    snprintf(r->text, sizeof r->text, "no %s policy \"%s\" in this build", PolicyKind_name(kind), missing);
    BenchCosma_noteMissing(b, missing);
    b->na++;
  } else {
    BenchCosma_solvePlan(b, net, row, sc, mp_order, r);
    if (r->seconds > b->slowest) {
      b->slowest = r->seconds;
      snprintf(b->slowest_what, sizeof b->slowest_what, "%s, %s, %s, %s", row->net,
               BenchCosma_settingLong(row->params), BenchCosma_budgetNames[row->budget], sc->label);
    }
  }
  BenchCosma_progressEnd(r);
  BenchCosma_csvRow(b, row, sc, r);
}

static BenchCosmaRow *BenchCosma_newRow(BenchCosma *b, const BenchCosmaNet *job, bool params) {
  if (b->nrows == b->caprows) {
    int cap = b->caprows ? b->caprows * 2 : 32;
    BenchCosmaRow *grown = realloc(b->rows, sizeof *grown * (size_t)cap);
    if (!grown) return NULL;
    b->rows = grown;
    b->caprows = cap;
  }
  BenchCosmaRow *row = &b->rows[b->nrows++];
  memset(row, 0, sizeof *row);
  row->net = job->name;
  row->nas = job->nas;
  row->params = params;
  row->budget = -1;
  return row;
}

static int BenchCosma_solvesPerBudget(bool nas) { return BASELINES + BenchCosma_schemes(nas); }

/* A network (or its figures) failed at budgets first.. first + count - 1: an error
 * row in the tables, its CSV rows (no budget bytes) and the skipped solves marked done. */
static void BenchCosma_fail(BenchCosma *b, const BenchCosmaNet *job, bool params, const char *text, int first,
                            int count) {
  fprintf(stderr, "spadmap bench cosma: %s (%s): %s\n", job->name, BenchCosma_settingLong(params), text);
  b->errors++;
  b->done += count * BenchCosma_solvesPerBudget(job->nas);
  BenchCosmaRow *row = BenchCosma_newRow(b, job, params);
  if (row) BenchCosma_copyText(row->error, text);
  BenchCosmaRow csv = {.net = job->name, .nas = job->nas, .params = params};
  BenchRun r = {.kind = RUN_ERROR};
  BenchCosma_copyText(r.text, text);
  for (csv.budget = first; csv.budget < first + count; csv.budget++) {
    for (int k = 0; k < BASELINES; k++) BenchCosma_csvRow(b, &csv, &BenchCosma_baselines[k], &r);
    for (int k = 0; k < BenchCosma_schemes(job->nas); k++)
      BenchCosma_csvRow(b, &csv, BenchCosma_scheme(job->nas, k), &r);
  }
}

static void BenchCosma_runSetting(BenchCosma *b, const Net *net, const BenchCosmaNet *job, bool params) {
  NetFigures f;
  SpError err;
  int *mp_order = malloc(sizeof(int) * (size_t)net->nops);
  if (!mp_order || Figures_compute(net, params, &f, mp_order, &err)) {
    BenchCosma_fail(b, job, params, mp_order ? err.text : "out of memory", 0, 3);
    free(mp_order);
    return;
  }
  const int64_t bytes[3] = {f.m_r, f.m_h, f.m_p};
  for (int bi = 0; bi < 3; bi++) {
    BenchCosmaRow *row = BenchCosma_newRow(b, job, params);
    if (!row) {
      BenchCosma_fail(b, job, params, "out of memory", bi, 1);
      continue;
    }
    row->budget = bi;
    row->budget_bytes = bytes[bi];
    row->mp_exact = f.m_p_exact;
    /* an mpmf order that is not proven minimal is no mpmf order: let the policy report it */
    const int *order = f.m_p_exact ? mp_order : NULL;
    for (int k = 0; k < BASELINES; k++) BenchCosma_solve(b, net, row, &BenchCosma_baselines[k], order, &row->base[k]);
    for (int k = 0; k < BenchCosma_schemes(job->nas); k++)
      BenchCosma_solve(b, net, row, BenchCosma_scheme(job->nas, k), order, &row->cosma[k]);
  }
  free(mp_order);
}

/* DIR/NAME.json into path (PATH_BYTES). */
static const char *BenchCosma_path(const BenchCosma *b, const char *name, char *path) {
  int n = snprintf(path, PATH_BYTES, "%s/%s.json", b->dir, name);
  if (n < 0 || n >= PATH_BYTES) snprintf(path, PATH_BYTES, "(too long a path)");
  return path;
}

static void BenchCosma_runNet(BenchCosma *b, const BenchCosmaNet *job) {
  char path[PATH_BYTES];
  BenchCosma_path(b, job->name, path);
  Net *net = NULL;
  SpError err;
  if (Net_load(path, &net, &err)) {
    for (int p = 0; p < 2; p++)
      if (b->settings[p] && !(job->nas && p)) BenchCosma_fail(b, job, p, err.text, 0, 3);
    return;
  }
  for (int p = 0; p < 2; p++)
    if (b->settings[p] && !(job->nas && p)) BenchCosma_runSetting(b, net, job, p);
  Net_free(net);
}

/* ---------------------------------------------------------------- tables */

static const char *BenchCosma_kib(const BenchRun *r, char *buf, size_t n) {
  switch (r->kind) {
  case RUN_NA: snprintf(buf, n, "n/a"); break;
  case RUN_ERROR: snprintf(buf, n, "error: %s", r->text); break;
  case RUN_INVALID: snprintf(buf, n, "INVALID"); break;
  case RUN_VALID: snprintf(buf, n, "%.1f", (double)r->bytes / 1024); break;
  }
  return buf;
}

static const char *BenchCosma_statusCell(const BenchRun *r) {
  return r->kind == RUN_NA ? "n/a" : r->kind == RUN_ERROR ? "-" : SolverStatus_name(r->solver.status);
}

static const char *BenchCosma_gapCell(const BenchRun *r, char *buf, size_t n) {
  double g = BenchCosma_gap(r);
  if (g < 0) snprintf(buf, n, "-");
  else snprintf(buf, n, "%.2f%%", g * 100);
  return buf;
}

static const char *BenchCosma_secondsCell(const BenchRun *r, char *buf, size_t n) {
  if (r->kind == RUN_NA) snprintf(buf, n, "-");
  else snprintf(buf, n, "%.2f", r->seconds);
  return buf;
}

/* Index of the valid baseline with the least traffic, or -1. */
static int BenchCosma_best(const BenchCosmaRow *row) {
  int best = -1;
  for (int k = 0; k < BASELINES; k++)
    if (row->base[k].kind == RUN_VALID && (best < 0 || row->base[k].bytes < row->base[best].bytes)) best = k;
  return best;
}

/* 100 * (best baseline - r) / best baseline; false when undefined: no valid plan
 * on either side, or a best baseline without any traffic to reduce. */
static bool BenchCosma_reduction(const BenchCosmaRow *row, const BenchRun *r, double *pct) {
  int best = BenchCosma_best(row);
  if (best < 0 || r->kind != RUN_VALID || row->base[best].bytes == 0) return false;
  *pct = 100.0 * (double)(row->base[best].bytes - r->bytes) / (double)row->base[best].bytes;
  return true;
}

static const char *BenchCosma_reductionCell(const BenchCosmaRow *row, const BenchRun *r, char *buf, size_t n) {
  double pct;
  if (BenchCosma_reduction(row, r, &pct)) snprintf(buf, n, "%.1f%%", pct);
  else snprintf(buf, n, "-");
  return buf;
}

static const char *BenchCosma_budgetCell(const BenchCosmaRow *row, char *buf, size_t n) {
  snprintf(buf, n, "%s%s", BenchCosma_budgetNames[row->budget], row->budget == 2 && !row->mp_exact ? "*" : "");
  return buf;
}

/* An error row: the message in the first data cell, "-" in the other columns. */
static void BenchCosma_errorRow(const BenchCosmaRow *row, int columns) {
  printf("| %s | - | - | error: %s |", row->net, row->error);
  for (int c = 4; c < columns; c++) printf(" - |");
  printf("\n");
}

static bool BenchCosma_any(const BenchCosma *b, bool nas, bool params) {
  for (int i = 0; i < b->nrows; i++)
    if (b->rows[i].nas == nas && b->rows[i].params == params) return true;
  return false;
}

static void BenchCosma_humanTable(const BenchCosma *b, bool params) {
  if (!BenchCosma_any(b, false, params)) return;
  printf("\n## Human-designed networks, %s\n\n", BenchCosma_settingLong(params));
  printf("Non-compulsory traffic in KiB (1 KiB = 1024 bytes); every baseline uses the linear allocator.\n"
         "\"vs best\": cosma's reduction against the best baseline; status, gap and s (wall-clock seconds) "
         "are cosma's.\n\n");
  printf("| network | budget | budget KiB |");
  for (int k = 0; k < BASELINES; k++) printf(" %s |", BenchCosma_baselines[k].label);
  printf(" cosma | vs best | status | gap | s |\n|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|\n");
  for (int i = 0; i < b->nrows; i++) {
    const BenchCosmaRow *row = &b->rows[i];
    if (row->nas || row->params != params) continue;
    if (row->budget < 0) {
      BenchCosma_errorRow(row, 12);
      continue;
    }
    char c[8][TEXT + 16];
    printf("| %s | %s | %.1f |", row->net, BenchCosma_budgetCell(row, c[0], sizeof c[0]),
           (double)row->budget_bytes / 1024);
    for (int k = 0; k < BASELINES; k++) printf(" %s |", BenchCosma_kib(&row->base[k], c[1], sizeof c[1]));
    const BenchRun *r = &row->cosma[0];
    printf(" %s | %s | %s | %s | %s |\n", BenchCosma_kib(r, c[2], sizeof c[2]),
           BenchCosma_reductionCell(row, r, c[3], sizeof c[3]), BenchCosma_statusCell(r),
           BenchCosma_gapCell(r, c[4], sizeof c[4]), BenchCosma_secondsCell(r, c[5], sizeof c[5]));
  }
}

static void BenchCosma_nasTraffic(const BenchCosma *b) {
  printf("\n## NAS networks, activations only\n\n");
  printf("Non-compulsory traffic in KiB (1 KiB = 1024 bytes). \"best baseline\": the least of the four baseline\n"
         "schemes (linear allocator), named in \"scheme\"; \"vs best\": the reduction against it.\n\n");
  printf("| network | budget | budget KiB | best baseline | scheme |");
  for (int k = 0; k < NAS_SCHEMES; k++) printf(" %s | vs best |", BenchCosma_nas[k].label);
  printf("\n|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|\n");
  for (int i = 0; i < b->nrows; i++) {
    const BenchCosmaRow *row = &b->rows[i];
    if (!row->nas) continue;
    if (row->budget < 0) {
      BenchCosma_errorRow(row, 11);
      continue;
    }
    char c[4][TEXT + 16];
    int best = BenchCosma_best(row);
    printf("| %s | %s | %.1f | %s | %s |", row->net, BenchCosma_budgetCell(row, c[0], sizeof c[0]),
           (double)row->budget_bytes / 1024, best < 0 ? "-" : BenchCosma_kib(&row->base[best], c[1], sizeof c[1]),
           best < 0 ? "-" : BenchCosma_baselines[best].label);
    for (int k = 0; k < NAS_SCHEMES; k++)
      printf(" %s | %s |", BenchCosma_kib(&row->cosma[k], c[2], sizeof c[2]),
             BenchCosma_reductionCell(row, &row->cosma[k], c[3], sizeof c[3]));
    printf("\n");
  }
}

static void BenchCosma_nasSolver(const BenchCosma *b) {
  printf("\nSolver status, gap and wall-clock seconds (the paper's Table II):\n\n| network | budget |");
  for (int k = 0; k < NAS_SCHEMES; k++) printf(" %s | gap | s |", BenchCosma_nas[k].label);
  printf("\n|---|---|---|--:|--:|---|--:|--:|---|--:|--:|\n");
  for (int i = 0; i < b->nrows; i++) {
    const BenchCosmaRow *row = &b->rows[i];
    if (!row->nas) continue;
    if (row->budget < 0) {
      BenchCosma_errorRow(row, 11);
      continue;
    }
    char c[3][32];
    printf("| %s | %s |", row->net, BenchCosma_budgetCell(row, c[0], sizeof c[0]));
    for (int k = 0; k < NAS_SCHEMES; k++) {
      const BenchRun *r = &row->cosma[k];
      printf(" %s | %s | %s |", BenchCosma_statusCell(r), BenchCosma_gapCell(r, c[1], sizeof c[1]),
             BenchCosma_secondsCell(r, c[2], sizeof c[2]));
    }
    printf("\n");
  }
}

/* ---------------------------------------------------------------- summary */

typedef struct {
  int runs, optimal, nred;
  double red_sum;
} BenchTally;

/* Which runs a mean counts: all of them; each distinct budget of a network and
 * setting once (M_H or M_P equal to an earlier budget repeats that run); M_R only. */
typedef enum { TALLY_ALL, TALLY_DISTINCT, TALLY_MR } TallyRuns;

/* An earlier row of the same network and setting with the same budget bytes. */
static bool BenchCosma_repeats(const BenchCosma *b, int i) {
  const BenchCosmaRow *row = &b->rows[i];
  for (int j = 0; j < i; j++) {
    const BenchCosmaRow *o = &b->rows[j];
    if (o->budget >= 0 && o->nas == row->nas && o->params == row->params && strcmp(o->net, row->net) == 0 &&
        o->budget_bytes == row->budget_bytes)
      return true;
  }
  return false;
}

static BenchTally BenchCosma_tally(const BenchCosma *b, bool nas, int k, TallyRuns which) {
  BenchTally t = {0};
  for (int i = 0; i < b->nrows; i++) {
    const BenchCosmaRow *row = &b->rows[i];
    const BenchRun *r = &row->cosma[k];
    if (row->nas != nas || row->budget < 0 || r->kind == RUN_NA) continue;
    if ((which == TALLY_MR && row->budget != 0) || (which == TALLY_DISTINCT && BenchCosma_repeats(b, i))) continue;
    t.runs++;
    t.optimal += r->kind == RUN_VALID && r->solver.status == SOLVER_OPTIMAL;
    double pct;
    if (BenchCosma_reduction(row, r, &pct)) t.red_sum += pct, t.nred++;
  }
  return t;
}

static void BenchCosma_summaryLine(const BenchCosma *b, bool nas, int k) {
  bool any = false;
  for (int i = 0; i < b->nrows && !any; i++) any = b->rows[i].nas == nas && b->rows[i].budget >= 0;
  if (!any) return;
  const BenchScheme *sc = BenchCosma_scheme(nas, k);
  BenchTally t = BenchCosma_tally(b, nas, k, TALLY_ALL);
  printf("- %s on the %s networks: ", sc->label, nas ? "NAS" : "human-designed");
  if (!t.runs) {
    printf("n/a (not in this build)\n");
    return;
  }
  printf("%d of %d runs proven optimal; mean reduction vs the best baseline ", t.optimal, t.runs);
  if (t.nred) printf("%.1f%% (over the %d runs where the best baseline has traffic)\n", t.red_sum / t.nred, t.nred);
  else printf("- (no run where the best baseline has traffic)\n");
  if (nas) return;
  /* a budget equal to another of the same network and setting repeats its run:
   * the mean over every run weighs such networks up to three times */
  BenchTally d = BenchCosma_tally(b, nas, k, TALLY_DISTINCT), m = BenchCosma_tally(b, nas, k, TALLY_MR);
  printf("  - each distinct budget once: %d of the %d runs (the others repeat an equal budget of the same network "
         "and setting); mean reduction ",
         d.runs, t.runs);
  if (d.nred) printf("%.1f%% (over %d run%s)", d.red_sum / d.nred, d.nred, d.nred == 1 ? "" : "s");
  else printf("-");
  printf("; at M_R alone ");
  if (m.nred) printf("%.1f%% (over %d run%s)\n", m.red_sum / m.nred, m.nred, m.nred == 1 ? "" : "s");
  else printf("-\n");
}

static int BenchCosma_nproc(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static const char *BenchCosma_cpuModel(char *buf, size_t n) {
  snprintf(buf, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) != 0 || !colon) continue;
    colon += strspn(colon + 1, " \t") + 1;
    colon[strcspn(colon, "\n")] = '\0';
    snprintf(buf, n, "%s", colon);
    break;
  }
  if (f) fclose(f);
  return buf;
}

/* Why each unproven run stopped and where its bound comes from (the solver's note). */
static void BenchCosma_unproven(const BenchCosma *b) {
  for (int i = 0; i < b->nrows; i++) {
    const BenchCosmaRow *row = &b->rows[i];
    if (row->budget < 0) continue;
    int nschemes = row->nas ? NAS_SCHEMES : 1;
    for (int k = 0; k < nschemes; k++) {
      const BenchRun *r = row->nas ? &row->cosma[k] : &row->cosma[0];
      if (r->kind != RUN_VALID || r->solver.status == SOLVER_OPTIMAL || !r->solver.note[0]) continue;
      printf("- not proven: %s, %s, %s, %s: %s\n", row->net, BenchCosma_setting(row->params),
             BenchCosma_budgetNames[row->budget], BenchCosma_scheme(row->nas, k)->key, r->solver.note);
    }
  }
}

static void BenchCosma_summary(const BenchCosma *b, double total_s) {
  printf("\n## Summary\n\n");
  BenchCosma_summaryLine(b, false, 0);
  for (int k = 0; k < NAS_SCHEMES; k++) BenchCosma_summaryLine(b, true, k);
  BenchCosma_unproven(b);
  for (int i = 0; i < b->nnets; i++)
    if (b->breaks[i]) printf("- DnC break nodes on %s, by hand: %s\n", b->nets[i].name, b->breaks[i]);
  bool inexact = false;
  for (int i = 0; i < b->nrows; i++) inexact |= b->rows[i].budget >= 0 && !b->rows[i].mp_exact;
  if (inexact) printf("- M_P*: the exact search hit its state limit; this M_P is an upper bound\n");
  char tls[24], wls[24];
  printf("- slowest solve: %.2f s (%s); time limit %s s per ILP solve", b->slowest,
         b->slowest_what[0] ? b->slowest_what : "-", Words_figure(b->time_limit, tls, sizeof tls));
  if (b->wall_limit > 0) printf(" (work budget; wall-clock stop %s s)", Words_figure(b->wall_limit, wls, sizeof wls));
  printf("; total %.1f s\n", total_s);
  printf("- plans: %d validated (%d valid, %d INVALID); errors: %d; n/a: %d%s%s%s\n", b->valid + b->invalid, b->valid,
         b->invalid, b->errors, b->na, b->missing[0] ? " (policies not in this build: " : "", b->missing,
         b->missing[0] ? ")" : "");
  char cpu[256];
  printf("- machine: nproc %d, CPU %s, GLPK %s\n", BenchCosma_nproc(), BenchCosma_cpuModel(cpu, sizeof cpu),
         Ilp_version());
}

/* ---------------------------------------------------------------- options */

/* Every value of a repeatable option (Cli_parse keeps only the last), walking argv with the
 * option table so that other options' values are skipped as Cli_parse skips them. */
static int BenchCosma_optionArgs(int argc, char **argv, const char *option, const char **out, int max) {
  int n = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const CliOption *o = BenchCosma_options;
    while (o->name && !(strlen(o->name) == len && strncmp(o->name, arg, len) == 0)) o++;
    if (!o->name || !o->arg) continue;
    const char *value = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
    if (value && strcmp(o->name, option) == 0 && n < max) out[n++] = value;
  }
  return n;
}

static bool BenchCosma_inList(const char *name, const char *const *list, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(name, list[i]) == 0) return true;
  return false;
}

static void BenchCosma_addNet(BenchCosma *b, const char *name, bool nas) {
  for (int i = 0; i < b->nnets; i++)
    if (strcmp(b->nets[i].name, name) == 0) return;
  if (b->nnets == MAX_NETS) return;
  snprintf(b->nets[b->nnets].name, sizeof b->nets[0].name, "%s", name);
  b->nets[b->nnets++].nas = nas;
}

/* Splits the --network values at commas into names; -1 (message printed) on a bad one. */
static int BenchCosma_wanted(int argc, char **argv, char names[][64], int max) {
  const char *values[MAX_NETS];
  int nv = BenchCosma_optionArgs(argc, argv, "--network", values, MAX_NETS), n = 0;
  for (int v = 0; v < nv; v++) {
    for (const char *p = values[v]; *p;) {
      size_t len = strcspn(p, ",");
      if (len >= 64 || n == max) {
        fprintf(stderr, "spadmap bench cosma: --network: too long a name or too many names\n");
        return -1;
      }
      if (len) memcpy(names[n], p, len), names[n++][len] = '\0';
      p += len + (p[len] == ',');
    }
  }
  if (nv && !n) fprintf(stderr, "spadmap bench cosma: --network needs a name\n");
  return nv && !n ? -1 : n;
}

/* The networks to run: the paper's human-designed ones in its order, any others
 * named (run like them), the NAS ones; -1 on a usage error. */
static int BenchCosma_select(BenchCosma *b, int argc, char **argv, bool human, bool nas) {
  char names[MAX_NETS][64];
  int n = BenchCosma_wanted(argc, argv, names, MAX_NETS);
  if (n < 0) return -1;
  for (int i = 0; i < n; i++) {
    char path[PATH_BYTES];
    BenchCosma_path(b, names[i], path);
    bool known = BenchCosma_inList(names[i], BenchCosma_humanNets, NHUMAN) ||
                 BenchCosma_inList(names[i], BenchCosma_nasNets, NNAS);
    if (!known && access(path, R_OK) != 0) {
      fprintf(stderr, "spadmap bench cosma: unknown network \"%s\": not one of the paper's and no %s\n",
              Cli_safe(names[i]), Cli_safe(path));
      return -1;
    }
  }
  for (int i = 0; i < NHUMAN; i++) {
    bool w = !n;
    for (int j = 0; j < n; j++) w |= strcmp(names[j], BenchCosma_humanNets[i]) == 0;
    if (human && w) BenchCosma_addNet(b, BenchCosma_humanNets[i], false);
  }
  for (int j = 0; j < n && human; j++)
    if (!BenchCosma_inList(names[j], BenchCosma_nasNets, NNAS)) BenchCosma_addNet(b, names[j], false);
  for (int i = 0; i < NNAS; i++) {
    bool w = !n;
    for (int j = 0; j < n; j++) w |= strcmp(names[j], BenchCosma_nasNets[i]) == 0;
    if (nas && w) BenchCosma_addNet(b, BenchCosma_nasNets[i], true);
  }
  return b->nnets;
}

/* --break-nodes NET=A,B,... (repeatable): each NET one of the networks to run, once;
 * the op names are checked by DnC itself (an unknown or misplaced one fails that run). */
static int BenchCosma_breakArgs(BenchCosma *b, int argc, char **argv) {
  const char *values[MAX_NETS];
  int nv = BenchCosma_optionArgs(argc, argv, "--break-nodes", values, MAX_NETS);
  for (int v = 0; v < nv; v++) {
    const char *eq = strchr(values[v], '=');
    size_t len = eq ? (size_t)(eq - values[v]) : 0;
    int at = -1;
    for (int i = 0; eq && i < b->nnets; i++)
      if (strlen(b->nets[i].name) == len && strncmp(b->nets[i].name, values[v], len) == 0) at = i;
    if (!eq || !len || !eq[1]) {
      fprintf(stderr, "spadmap bench cosma: --break-nodes \"%s\": expected NET=OP,OP,...\n", Cli_safe(values[v]));
      return -1;
    }
    if (at < 0 || !b->nets[at].nas) {
      fprintf(stderr, "spadmap bench cosma: --break-nodes \"%.*s\": not one of the NAS networks this run solves with DnC\n",
              (int)len, Cli_safe(values[v]));
      return -1;
    }
    if (b->breaks[at]) {
      fprintf(stderr, "spadmap bench cosma: --break-nodes: %s is given twice\n", b->nets[at].name);
      return -1;
    }
    b->breaks[at] = eq + 1;
  }
  return 0;
}

static int BenchCosma_parseSeconds(const char *option, const char *text, double *out) {
  char *end;
  double v = strtod(text, &end);
  if (end == text || *end || !(v > 0) || v > 1e7) {
    fprintf(stderr, "spadmap bench cosma: %s \"%s\": expected a positive number of seconds\n", option,
            Cli_safe(text));
    return -1;
  }
  *out = v;
  return 0;
}

/* Options into b; EXIT_USAGE (message printed) or -1 to go on. */
static int BenchCosma_configure(BenchCosma *b, const CliArgs *a, int argc, char **argv) {
  const CliCommand *c = &Cli_benchCosma;
  int bad = Cli_inputDir(c, a);
  if (bad >= 0) return bad; /* bench taa --dir /nonexistent printed its tables empty */
  if (Cli_value(c, a, "--dir") && Cli_value(c, a, "--unfolded")) {
    fprintf(stderr, "spadmap bench cosma: --dir and --unfolded exclude each other (--unfolded is the bundled "
                    "networks/unfolded)\n");
    return EXIT_USAGE;
  }
  const char *bundled = Cli_value(c, a, "--unfolded") ? "networks/unfolded" : "networks";
  snprintf(b->dir_buf, sizeof b->dir_buf, "%s", Data_file(bundled));
  b->dir = Cli_value(c, a, "--dir") ? Cli_value(c, a, "--dir") : b->dir_buf;
  b->time_limit = 60;
  if (Cli_value(c, a, "--time-limit") &&
      BenchCosma_parseSeconds("--time-limit", Cli_value(c, a, "--time-limit"), &b->time_limit))
    return EXIT_USAGE;
  if (Cli_value(c, a, "--wall-limit") &&
      BenchCosma_parseSeconds("--wall-limit", Cli_value(c, a, "--wall-limit"), &b->wall_limit))
    return EXIT_USAGE;
  const char *model = Cli_value(c, a, "--model");
  if (model && strcmp(model, "paper") != 0 && strcmp(model, "ours") != 0) {
    fprintf(stderr, "spadmap bench cosma: --model \"%s\": expected ours or paper\n", Cli_safe(model));
    return EXIT_USAGE;
  }
  b->paper_model = model && strcmp(model, "paper") == 0;
  const char *mpo = Cli_value(c, a, "--mp-orders");
  if (mpo && strcmp(mpo, "1") != 0 && strcmp(mpo, "2") != 0) {
    fprintf(stderr, "spadmap bench cosma: --mp-orders \"%s\": expected 1 or 2\n", Cli_safe(mpo));
    return EXIT_USAGE;
  }
  b->mp_orders = mpo ? atoi(mpo) : 1;
  bool acts = Cli_value(c, a, "--acts"), params = Cli_value(c, a, "--params");
  b->settings[0] = acts || !params;
  b->settings[1] = params || !acts;
  bool human_only = Cli_value(c, a, "--human-only"), nas_only = Cli_value(c, a, "--nas-only");
  if (human_only && nas_only) {
    fprintf(stderr, "spadmap bench cosma: --human-only and --nas-only exclude each other\n");
    return EXIT_USAGE;
  }
  if (Cli_value(c, a, "--unfolded")) {
    if (nas_only) {
      fprintf(stderr, "spadmap bench cosma: --unfolded has the ten human-designed networks only, not the NAS ones\n");
      return EXIT_USAGE;
    }
    human_only = true; /* networks/unfolded holds no NAS network */
  }
  if (BenchCosma_select(b, argc, argv, !nas_only, !human_only) < 0) return EXIT_USAGE;
  if (BenchCosma_breakArgs(b, argc, argv) < 0) return EXIT_USAGE;
  for (int i = 0; i < b->nnets; i++)
    for (int p = 0; p < 2; p++)
      if (b->settings[p] && !(b->nets[i].nas && p)) b->total += 3 * BenchCosma_solvesPerBudget(b->nets[i].nas);
  if (!b->total) {
    fprintf(stderr, "spadmap bench cosma: nothing to run (the NAS networks are run with activations only)\n");
    return EXIT_USAGE;
  }
  return -1;
}

static int BenchCosma_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_benchCosma;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  BenchCosma b = {0};
  rc = BenchCosma_configure(&b, &a, argc, argv);
  if (rc >= 0) return rc;
  const char *csv = Cli_value(c, &a, "--csv");
  FileOut out = {0};
  SpError err;
  if (csv && FileIO_open(csv, &out, &err)) {
    fprintf(stderr, "spadmap bench cosma: %s\n", err.text);
    return EXIT_INVALID;
  }
  b.csv = out.f; /* a temporary renamed into place at the end (engine/fileio.h) */
  if (b.csv)
    fprintf(b.csv, "network,setting,budget_name,budget_bytes,scheme,noncompulsory_bytes,status,objective,bound,gap,"
                   "seconds,valid\n");
  if (b.csv && FileIO_flush(&out, &err)) { /* /dev/full: before the long run */
    fprintf(stderr, "spadmap bench cosma: %s\n", err.text);
    return EXIT_INVALID;
  }
  double t0 = Clock_now();
  for (int i = 0; i < b.nnets; i++) BenchCosma_runNet(&b, &b.nets[i]);
  /* the CSV is complete: kept (or the run fails) before the tables are printed */
  if (b.csv && FileIO_commit(&out, &err)) {
    fprintf(stderr, "spadmap bench cosma: %s\n", err.text);
    free(b.rows);
    return EXIT_INVALID;
  }
  b.csv = NULL;
  printf("# COSMA evaluation (paper section V): non-compulsory off-chip traffic at M_R, M_H, M_P\n");
  if (b.paper_model)
    printf("\n\"cosma\" below is the paper's model (Eqs. 1-12 with its Section III-F overlap analysis), solved "
           "directly (--model paper), not our pipeline.\n");
  BenchCosma_humanTable(&b, false);
  BenchCosma_humanTable(&b, true);
  if (BenchCosma_any(&b, true, false)) {
    BenchCosma_nasTraffic(&b);
    BenchCosma_nasSolver(&b);
  }
  BenchCosma_summary(&b, Clock_now() - t0);
  free(b.rows);
  return b.invalid || b.errors ? EXIT_INVALID : EXIT_OK;
}

const CliCommand Cli_benchCosma = {
    "bench cosma", "[options]",
    "The COSMA paper's evaluation: cosma, COSMA FS and DnC vs the four baselines at M_R, M_H, M_P.",
    BenchCosma_options, BenchCosma_run, CLI_IN(FILE_NETWORK)};

/* spadmap tui / snapshot / bench-render: the explorer's entry points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"
#include "clock.h"
#include "policy.h"
#include "actions.h"
#include "cli.h"
#include "cli_layer.h"
#include "fileio.h"
#include "layer/arch.h"
#include "snapshot.h"
#include "solve.h"
#include "term.h"
#include "views.h"

/* Opens the network with the command's model options (--dtype, --fold, --dim);
 * -1 to go on, else the exit code after printing why. */
static char Tui_importNote[600]; /* how a model was re-imported for --plan, for the message line */

static int Tui_app(const CliCommand *c, const CliArgs *a, App *app, const char *path) {
  ImportOptions o;
  int rc = Cli_planModelOptions(c, a, path, Cli_value(c, a, "--plan"), &o, Tui_importNote, sizeof Tui_importNote);
  if (rc >= 0) return rc;
  SpError err;
  if (App_initWith(app, path, &o, &err)) {
    Cli_netError(c->name, path, err.text);
    return EXIT_INVALID;
  }
  return -1;
}

/* Key bindings: ~/.config/spadmap/keys (one action=key a line), then SPADMAP_KEYS. */
static bool Tui_keys(void) {
  const char *home = getenv("HOME");
  if (home) {
    char path[1024];
    snprintf(path, sizeof path, "%s/.config/spadmap/keys", home);
    FILE *f = fopen(path, "r");
    if (f) {
      char line[256];
      while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        const char *why = Actions_configure(line);
        if (why[0]) {
          fprintf(stderr, "spadmap %s: %s: %s\n", Cli_name(), Cli_safe(path), why);
          fclose(f);
          return false;
        }
      }
      fclose(f);
    }
  }
  const char *env = getenv("SPADMAP_KEYS");
  if (env) {
    const char *why = Actions_configure(env);
    if (why[0]) {
      fprintf(stderr, "spadmap %s: SPADMAP_KEYS: %s\n", Cli_name(), why);
      return false;
    }
  }
  return true;
}

#define TUI_SETTING_OPTIONS                                                                                     \
  {"--plan", "FILE", "open a saved plan (validated against NET; refused with the reason if it does not match)"},      \
  {"--budget", "SIZE", "M_R (default), M_H, M_P, M_P*1.1 or a size: 512K, 2.5M, 1,026,880"},                          \
  {"--schedule", "NAME", "schedule policy (spadmap solve --list)"},                                                   \
  {"--replacement", "NAME", "replacement policy"},                                                                     \
  {"--allocator", "NAME", "allocator"},                                                                               \
  {"--params", NULL, "hold parameter tensors on chip too"},                                                           \
  {"--time-limit", "SECONDS", "time limit of the searching (ILP) policies (default 60; 0: none)"},                   \
  {"--arch", "FILE", "the layer view's (I) architecture, and the status line's network cycles on it (layers by cosa): an arch file or a bundled name (cosa_4xpe)"},   \
      CLI_MODEL_OPTIONS

static int Tui_policy(const char *cmd, PolicyKind k, const char *name, int *idx) {
  if (!name) return 0;
  for (int i = 0; i < App_policyCount(k); i++)
    if (strcmp(App_policy(k, i)->name, name) == 0) {
      *idx = i;
      return 0;
    }
  fprintf(stderr, "spadmap %s: unknown %s policy \"%s\" (", cmd, PolicyKind_name(k), name);
  for (int i = 0; i < App_policyCount(k); i++) fprintf(stderr, "%s%s", i ? ", " : "", App_policy(k, i)->name);
  fprintf(stderr, ")\n");
  return EXIT_USAGE;
}

/* The settings options of tui and snapshot onto the app; an exit code, or -1 to go on. */
static int Tui_settings(const CliCommand *c, const CliArgs *a, App *app) {
  int rc;
  if ((rc = Tui_policy(c->name, POLICY_SCHEDULE, Cli_value(c, a, "--schedule"), &app->set.sched)) ||
      (rc = Tui_policy(c->name, POLICY_REPLACEMENT, Cli_value(c, a, "--replacement"), &app->set.repl)) ||
      (rc = Tui_policy(c->name, POLICY_ALLOCATOR, Cli_value(c, a, "--allocator"), &app->set.alloc)))
    return rc;
  app->set.params = Cli_value(c, a, "--params") != NULL;
  const char *tl = Cli_value(c, a, "--time-limit");
  if (tl) {
    double v; /* the shared parser: 1e999 (inf) and 20 nines were taken */
    if (!Cli_real(tl, 0, 1e7, &v)) {
      fprintf(stderr, "spadmap %s: --time-limit wants seconds from 0 to 1e7, e.g. 10 or 0.5 (got \"%s\")\n", c->name,
              Cli_safe(tl));
      return EXIT_USAGE;
    }
    app->set.time_limit = v;
  }
  SpError err;
  const char *btext = Cli_value(c, a, "--budget"), *preset = NULL;
  app->set.params = Cli_value(c, a, "--params") != NULL;
  app->set.budget = Figures_minRequired(app->net, app->set.params); /* M_R is cheap; M_P is not */
  app->set.preset = 'R';
  if (btext) {
    /* the exact M_P search only when the text names M_H or M_P: it can take a minute on a big graph */
    bool needs = strstr(btext, "M_H") || strstr(btext, "M_P") || strstr(btext, "m_h") || strstr(btext, "m_p");
    NetFigures quick = {.m_r = app->set.budget, .m_h = app->set.budget, .m_p = app->set.budget};
    if (Budget_parse(btext, needs ? App_figures(app) : &quick, &app->set.budget, &preset, &err)) {
      fprintf(stderr, "spadmap %s: %s\n", c->name, err.text);
      return EXIT_USAGE;
    }
    app->set.preset = preset && preset[0] ? preset[2] : 0;
  }
  const char *arch = Cli_value(c, a, "--arch");
  if (arch) { /* checked now, not when the layer view first opens; a bundled name as cost and layer take it */
    Arch probe;
    char path[1024];
    if (CliLayer_archPath(arch, NULL, path, sizeof path, &err) || Arch_load(path, &probe, &err)) {
      fprintf(stderr, "spadmap %s: --arch: %s\n", c->name, Cli_safe(err.text));
      return EXIT_INVALID;
    }
    snprintf(app->layer_arch, sizeof app->layer_arch, "%s", path);
    app->netstatus_on = true; /* the status line gives the network's cycles on it (netcost_status.c) */
  }
  const char *plan = Cli_value(c, a, "--plan");
  if (plan && App_openPlan(app, plan, &err)) {
    fprintf(stderr, "spadmap %s: %s%s%s\n", c->name, err.text, Tui_importNote[0] ? "; " : "", Tui_importNote);
    return EXIT_INVALID;
  }
  if (plan && Tui_importNote[0]) {
    char opened[256];
    snprintf(opened, sizeof opened, "%s", app->message);
    App_setMessage(app, false, "%.120s; %.130s", opened, Tui_importNote);
  }
  return -1;
}

static const CliOption Tui_options[] = {TUI_SETTING_OPTIONS, {NULL, NULL, NULL}};

static int Tui_run(int argc, char **argv) {
  CliArgs a;
  int rc = Cli_parse(&Cli_tui, argc, argv, 0, 1, &a);
  if (rc >= 0) return rc;
  if (!Tui_keys()) return EXIT_USAGE;
  App app;
  if ((rc = Tui_app(&Cli_tui, &a, &app, a.npos ? Data_net(a.pos[0]) : Data_file("networks/resnet50.json"))) >= 0) return rc;
  if ((rc = Tui_settings(&Cli_tui, &a, &app)) >= 0) {
    App_free(&app);
    return rc;
  }
  rc = Term_run(&app);
  App_free(&app);
  rc = rc ? EXIT_INVALID : EXIT_OK;
  if (Worker_abandoned()) { /* a solve that does not listen still runs: leave without running exit handlers under it */
    fflush(stdout);
    fflush(stderr);
    _exit(rc);
  }
  return rc;
}

const CliCommand Cli_tui = {"tui", "[NET] [--plan F.json] [--budget B] [--schedule S] [--replacement R] [--allocator A] [--params] [--time-limit S] [--arch F] [--dim N=1 --value X=V --dtype T --fold]",
                            "The interactive explorer (also `spadmap NET`; `spadmap` alone opens resnet50).",
                            Tui_options, Tui_run, CLI_IN_NET | CLI_IN(FILE_PLAN) | CLI_IN(FILE_ARCH)};

/* --size WxH (default 120x40); false after printing what was wrong. */
static bool Tui_size(const CliCommand *c, const char *text, int *w, int *h) {
  *w = 120, *h = 40;
  if (text && (sscanf(text, "%dx%d", w, h) != 2 || *w < 1 || *h < 1 || *w > 1000 || *h > 1000)) {
    fprintf(stderr, "spadmap %s: --size wants WxH, e.g. 120x40 (got \"%s\")\n", c->name, Cli_safe(text));
    return false;
  }
  return true;
}

static const CliOption Snapshot_options[] = {
  {"--keys", "KEYS", "keys to apply first, e.g. \"rx<Right><Tab>\" (<Left> <Right> <Up> <Down> <Tab> <S-Tab> <Enter> <Esc> <PgUp> <PgDn> <Home> <End> <lt>; <Click:X,Y> clicks column X, row Y)"},
  {"--size", "WxH", "screen size (default 120x40)"},
  {"--out", "FILE", "write FILE.txt (text) or FILE.svg (colors); default: text on stdout"},
  {"--ascii", NULL, "draw as a non-UTF-8 terminal would"},
  {"--mono", NULL, "draw as a terminal without colours would (blocks told apart by their fills)"},
  TUI_SETTING_OPTIONS,
  {NULL, NULL, NULL},
};

static int Snapshot_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_snapshot;
  int rc = Cli_parse(c, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  int w, h;
  if (!Tui_size(c, Cli_value(c, &a, "--size"), &w, &h)) return EXIT_USAGE;
  App app;
  if ((rc = Tui_app(c, &a, &app, Data_net(a.pos[0]))) >= 0) return rc;
  app.deterministic = true;
  app.mono = Cli_value(c, &a, "--mono") != NULL;
  if ((rc = Tui_settings(c, &a, &app)) >= 0) {
    App_free(&app);
    return rc;
  }
  if (!app.plan) App_resolve(&app);
  Grid *g = Grid_new(w, h, !Cli_value(c, &a, "--ascii"));
  if (!g) {
    App_free(&app);
    return EXIT_INVALID;
  }
  app.grid = g; /* clicks in the script hit the screen as drawn at that point */
  const char *keys = Cli_value(c, &a, "--keys"), *bad = NULL;
  if (keys && !Snapshot_keys(&app, keys, &bad)) {
    fprintf(stderr, "spadmap snapshot: unknown key name at \"%s\"\n", Cli_safe(bad));
    Grid_free(g);
    App_free(&app);
    return EXIT_USAGE;
  }
  View_draw(&app, g);
  const char *out = Cli_value(c, &a, "--out");
  FileOut fo;
  SpError err;
  rc = EXIT_OK;
  if (FileIO_open(out ? out : "-", &fo, &err)) {
    fprintf(stderr, "spadmap snapshot: %s\n", err.text);
    rc = EXIT_INVALID;
  } else {
    size_t len = out ? strlen(out) : 0;
    if (len > 4 && strcmp(out + len - 4, ".svg") == 0) Snapshot_writeSVG(g, fo.f);
    else Snapshot_writeText(g, fo.f);
    if (FileIO_commit(&fo, &err)) {
      fprintf(stderr, "spadmap snapshot: %s\n", err.text);
      rc = EXIT_INVALID;
    }
  }
  Grid_free(g);
  App_free(&app);
  return rc;
}

const CliCommand Cli_snapshot = {"snapshot", "NET [--keys KEYS] [--size WxH] [--out F.txt|F.svg] [tui's settings]",
                                 "Renders the explorer's screen after a key script, deterministically, without a terminal.",
                                 Snapshot_options, Snapshot_run, CLI_IN_NET | CLI_IN(FILE_PLAN) | CLI_IN(FILE_ARCH)};

static const CliOption BenchRender_options[] = {
  {"--size", "WxH", "screen size (default 120x40)"},
  {"--repeat", "N", "best of N redraws (default 200)"},
  {"--budget", "SIZE", "budget (default M_R)"},
  {NULL, NULL, NULL},
};

static int BenchRender_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_benchRender;
  int rc = Cli_parse(c, argc, argv, 0, 1, &a);
  if (rc >= 0) return rc;
  int w, h, n = 200;
  const char *rep = Cli_value(c, &a, "--repeat");
  if (!Tui_size(c, Cli_value(c, &a, "--size"), &w, &h)) return EXIT_USAGE;
  long long reps = n;
  if (rep && !Cli_int(rep, 1, 1000000, &reps)) {
    fprintf(stderr, "spadmap bench-render: --repeat wants a count from 1 to 1000000 (got \"%s\")\n", Cli_safe(rep));
    return EXIT_USAGE;
  }
  n = (int)reps;
  App app;
  if ((rc = Tui_app(&Cli_benchRender, &a, &app, a.npos ? Data_net(a.pos[0]) : Data_file("networks/nasnet_a.json"))) >= 0) return rc;
  app.deterministic = true;
  const char *btext = Cli_value(c, &a, "--budget");
  if (btext) {
    SpError err;
    if (Budget_parse(btext, App_figures(&app), &app.set.budget, NULL, &err)) {
      fprintf(stderr, "spadmap bench-render: %s\n", err.text);
      App_free(&app);
      return EXIT_USAGE;
    }
  }
  App_resolve(&app);
  Grid *g = Grid_new(w, h, true);
  double best_map = 1e9, best_all = 1e9;
  for (int i = 0; g && i < n; i++) {
    double t0 = Clock_now();
    Grid_clear(g);
    MapView_draw(&app, g, 0, 1, w - 44, h - 2);
    double t1 = Clock_now();
    View_draw(&app, g);
    double t2 = Clock_now();
    if (t1 - t0 < best_map) best_map = t1 - t0;
    if (t2 - t1 < best_all) best_all = t2 - t1;
  }
  if (g && app.plan)
    printf("render %s (%d ops, %d stays) at %dx%d: map %.3f ms, whole screen %.3f ms (best of %d; target < 5 ms)\n",
           Cli_safe(app.net->name), app.net->nops, app.plan->nstays, w, h, best_map * 1e3, best_all * 1e3, n);
  else {
    fprintf(stderr, "spadmap bench-render: no plan: %s\n", app.error);
    rc = EXIT_INVALID;
  }
  rc = rc < 0 ? EXIT_OK : rc;
  Grid_free(g);
  App_free(&app);
  return rc;
}

const CliCommand Cli_benchRender = {"bench-render", "[NET] [--size WxH] [--repeat N]",
                                    "Times redrawing the explorer's map (default: nasnet_a, the largest).",
                                    BenchRender_options, BenchRender_run, CLI_IN_NET};

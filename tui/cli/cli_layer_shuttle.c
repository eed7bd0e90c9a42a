/* cli_layer_shuttle: `spadmap layer ... --method smartshuttle|steps-*`: the
 * options of these methods; the work is in shuttle_methods.c (TUI library). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_layer_shuttle.h"
#include "cli_layer.h"
#include "layer/layer.h"
#include "shuttle_methods.h"

static int LayerSteps_num(const char *s, const char *what, long long lo, long long hi, long long *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
    fprintf(stderr, "spadmap layer: %s must be an integer in %lld..%lld, not '%s'\n", what, lo, hi, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* The steps ILP's progress, on the mappers' progress line. */
static void LayerSteps_progress(const IlpProgress *p, void *user) {
  bool both = p->has_incumbent && p->has_bound;
  CliLayer_progress(p->stage ? p->stage : "", p->incumbent, p->bound, both ? p->gap : -1, p->elapsed, user);
}

int CliLayerShuttle_run(const CliCommand *c, const CliArgs *ap, const char *method, Layer *l, atomic_int *cancel,
                        bool tty) {
  const CliArgs *a = ap;
  ShuttleMethodOptions o;
  ShuttleMethodOptions_init(&o);
  long long v;
  if (Cli_value(c, a, "--size-mem")) {
    if (LayerSteps_num(Cli_value(c, a, "--size-mem"), "--size-mem", 1, 1LL << 50, &v)) return EXIT_USAGE;
    o.size_mem = v;
  }
  if (Cli_value(c, a, "--nbop-pe")) {
    if (LayerSteps_num(Cli_value(c, a, "--nbop-pe"), "--nbop-pe", 1, 1LL << 50, &v)) return EXIT_USAGE;
    o.nbop_pe = v;
    o.group_size = 0;
  }
  if (Cli_value(c, a, "--group-size")) {
    if (LayerSteps_num(Cli_value(c, a, "--group-size"), "--group-size", 1, 1 << 20, &v)) return EXIT_USAGE;
    o.group_size = (int)v;
  }
  if (Cli_value(c, a, "--max-loads")) {
    if (LayerSteps_num(Cli_value(c, a, "--max-loads"), "--max-loads", 0, 1000, &v)) return EXIT_USAGE;
    o.max_loads = (int)v;
  }
  if (Cli_value(c, a, "--steps")) { /* the engine says which n the layer allows */
    if (LayerSteps_num(Cli_value(c, a, "--steps"), "--steps", 1, 1 << 20, &v)) return EXIT_USAGE;
    o.steps = (int)v;
  }
  if (Cli_value(c, a, "--threads")) {
    if (LayerSteps_num(Cli_value(c, a, "--threads"), "--threads", 1, 8, &v)) return EXIT_USAGE;
    o.threads = (int)v;
  }
  if (Cli_value(c, a, "--time-limit")) {
    char *end;
    double t = strtod(Cli_value(c, a, "--time-limit"), &end);
    if (*end || !(t > 0)) {
      fprintf(stderr, "spadmap %s: --time-limit must be a positive number of seconds\n", c->name);
      return EXIT_USAGE;
    }
    o.time_limit = t;
  }
  if (Cli_value(c, a, "--cycles")) {
    long long t[3];
    char tail;
    if (sscanf(Cli_value(c, a, "--cycles"), "%lld,%lld,%lld%c", &t[0], &t[1], &t[2], &tail) != 3 || t[0] < 0 ||
        t[1] < 0 || t[2] < 0 || t[0] > 1000000000 || t[1] > 1000000000 || t[2] > 1000000000) {
      fprintf(stderr, "spadmap %s: --cycles must be TL,TW,TACC (three integers 0..1e9), not '%s'\n", c->name,
              Cli_value(c, a, "--cycles"));
      return EXIT_USAGE;
    }
    o.tl = t[0], o.tw = t[1], o.tacc = t[2];
  }
  if (Cli_value(c, a, "--batch")) {
    if (LayerSteps_num(Cli_value(c, a, "--batch"), "--batch", 1, 1 << 20, &v)) return EXIT_USAGE;
    l->N = v;
  }
  char path[1024];
  SpError err;
  if (CliLayer_archPath(Cli_value(c, a, "--arch"), "smartshuttle", path, sizeof path, &err) != SP_OK) {
    fprintf(stderr, "spadmap %s: %s\n", c->name, err.text);
    return EXIT_USAGE;
  }
  o.arch_path = path;
  o.capacity = Cli_value(c, a, "--capacity");
  o.all_steps = Cli_value(c, a, "--all") != NULL;
  o.json = Cli_value(c, a, "--json") != NULL;
  const char *model = Cli_value(c, a, "--model");
  if (model && strcmp(model, "paper") != 0 && strcmp(model, "exact") != 0) {
    fprintf(stderr, "spadmap %s: --model must be exact or paper (got \"%s\")\n", c->name, Cli_safe(model));
    return EXIT_USAGE;
  }
  o.paper_model = model && strcmp(model, "paper") == 0;
  o.cancel = cancel;
  if (tty) o.progress = LayerSteps_progress;
  int rc = ShuttleMethod_run(method, l, &o, stdout);
  if (tty) fprintf(stderr, "\r%90s\r", "");
  if (rc == EXIT_INTERRUPTED) fprintf(stderr, "spadmap layer: interrupted (Ctrl-C)\n");
  return rc;
}

/* spadmap info NET: the network's size and its budget presets. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { INFO_BIG_OPS = 10000 };
static const double INFO_BIG_SECONDS = 0.2;

static const CliOption Info_options[] = {
  {"--json", NULL, "print a JSON object instead of a table"},
  {"--time-limit", "SECONDS", "stop the exact M_P search after this long (both settings together; \"none\": only its "
                              "memory cap; default: none below 10,000 ops, 0.2 s from 10,000 ops); M_P is then "
                              "\"not proven\", the best peak found"},
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

static cJSON *Info_figuresJSON(const NetFigures *f) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "m_r", (double)f->m_r);
  cJSON_AddNumberToObject(o, "m_h", (double)f->m_h);
  cJSON_AddNumberToObject(o, "m_p", (double)f->m_p);
  cJSON_AddBoolToObject(o, "m_p_exact", f->m_p_exact);
  cJSON_AddNumberToObject(o, "default_peak", (double)f->default_peak);
  cJSON_AddNumberToObject(o, "m_p_seconds", f->search.seconds);
  cJSON_AddNumberToObject(o, "m_p_states", (double)f->search.states);
  return o;
}

static void Info_row(const char *label, int64_t a, int64_t b, const char *note) {
  char x[32], y[32], hx[32], hy[32];
  printf("%-14s %15s %-11s %15s %-11s %s\n", label, Cli_count(a, x, sizeof x), Cli_bytes(a, hx, sizeof hx),
         Cli_count(b, y, sizeof y), Cli_bytes(b, hy, sizeof hy), note);
}

static int Info_run(int argc, char **argv) {
  CliArgs a;
  int rc = Cli_parse(&Cli_info, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  double limit = 0;
  const char *tl = Cli_value(&Cli_info, &a, "--time-limit");
  if (tl && strcmp(tl, "none") == 0) tl = NULL, limit = -1;
  if (tl) {
    if (!Cli_real(tl, 0, 1e7, &limit) || !(limit > 0)) {
      fprintf(stderr, "spadmap info: --time-limit \"%s\": expected seconds, more than 0 and at most 10000000, or \"none\"\n", Cli_safe(tl));
      return EXIT_USAGE;
    }
  }
  Net *net = Cli_loadModel(&Cli_info, &a, a.pos[0], &rc);
  if (!net) return rc;
  /* On large graphs the exact search is mostly a cost: at 20k and 50k ops it ran
   * about 1 s per setting into its 256 MiB cap and proved nothing. So from
   * 10,000 ops info gives it a short budget by default and reports the best
   * order found as "not proven" when that runs out (11k-op graphs are still
   * proven in 0.06 s); smaller networks keep the unbounded exact search
   * (transformer.json, 212 ops, needs 1.2 s to prove its M_P). */
  bool default_budget = limit == 0 && net->nops >= INFO_BIG_OPS;
  if (default_budget) limit = INFO_BIG_SECONDS;
  if (limit < 0) limit = 0;
  NetFigures f[2];
  for (int p = 0; p < 2; p++) {
    SpError err;
    MinPeakOptions mo;
    MinPeakOptions_init(&mo);
    mo.time_limit = limit / 2;
    if (Figures_computeWith(net, p, &mo, &f[p], NULL, &err)) {
      fprintf(stderr, "spadmap info: %s: %s\n", Cli_safe(a.pos[0]), Cli_safe(err.text));
      Net_free(net);
      return EXIT_INVALID;
    }
  }
  int counts[4] = {0};
  for (int t = 0; t < net->ntensors; t++) counts[net->tensors[t].kind]++;
  if (Cli_value(&Cli_info, &a, "--json")) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "network", net->name);
    cJSON_AddStringToObject(o, "file", a.pos[0]);
    cJSON_AddNumberToObject(o, "ops", net->nops);
    cJSON_AddNumberToObject(o, "tensors", net->ntensors);
    cJSON_AddNumberToObject(o, "inputs", counts[TK_INPUT]);
    cJSON_AddNumberToObject(o, "params", counts[TK_PARAM]);
    cJSON_AddNumberToObject(o, "outputs", counts[TK_OUTPUT]);
    cJSON_AddItemToObject(o, "activations_only", Info_figuresJSON(&f[0]));
    cJSON_AddItemToObject(o, "with_params", Info_figuresJSON(&f[1]));
    char *s = cJSON_Print(o);
    printf("%s\n", s);
    cJSON_free(s);
    cJSON_Delete(o);
  } else {
    printf("network  %s  (%s)\n", Cli_safe(net->name), Cli_safe(a.pos[0]));
    if (net->source[0]) printf("source   %s\n", Cli_safe(net->source));
    printf("ops %d, tensors %d (inputs %d, params %d, outputs %d)\n\n", net->nops, net->ntensors, counts[TK_INPUT],
           counts[TK_PARAM], counts[TK_OUTPUT]);
    printf("%-14s %27s %27s\n", "", "activations only", "with params");
    Info_row("M_R", f[0].m_r, f[1].m_r, "largest op: its inputs + outputs");
    Info_row("M_H", f[0].m_h, f[1].m_h, "(M_R + M_P) / 2");
    char note[128];
    snprintf(note, sizeof note, "minimum peak, %s (%ld + %ld states, %.3f s)",
             f[0].m_p_exact && f[1].m_p_exact ? "exact" : "NOT proven (search limit)", f[0].search.states,
             f[1].search.states, f[0].search.seconds + f[1].search.seconds);
    Info_row("M_P", f[0].m_p, f[1].m_p, note);
    Info_row("default peak", f[0].default_peak, f[1].default_peak, "peak of the file's op order");
    if (default_budget) /* say so: whether it proves in time depends on the machine */
      printf("\n(%d ops: the M_P search had %.1f s, the default from %d ops; --time-limit none lifts it)\n",
             net->nops, INFO_BIG_SECONDS, INFO_BIG_OPS);
  }
  Net_free(net);
  return EXIT_OK;
}

const CliCommand Cli_info = {"info", "NET", "Ops, tensors, M_R, M_H, M_P and the default schedule's peak.",
                             Info_options, Info_run, CLI_IN_NET};

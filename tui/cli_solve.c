/* spadmap solve NET --budget ...: one plan, its metrics, the validator's verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "policy.h"
#include "solve.h"
#include "validate.h"

static const CliOption Solve_options[] = {
  {"--budget", "SIZE", "M_R, M_H, M_P or bytes with an optional K/M/G suffix (required)"},
  {"--schedule", "NAME", "schedule policy (default: default)"},
  {"--replacement", "NAME", "replacement policy (default: belady)"},
  {"--allocator", "NAME", "allocator (default: linear)"},
  {"--params", NULL, "hold parameter tensors on chip too (default: activations only)"},
  {"--time-limit", "SECONDS", "time limit of the searching (ILP) policies (default: 60)"},
  {"--break-nodes", "A,B,...", "dnc: the break nodes (op names, each an ancestor of the next; default: automatic)"},
  {"--model", "ours|paper", "cosma: our pipeline (default) or the paper's model as written, solved directly"},
  {"--out", "FILE", "write the plan (spadmap-plan JSON)"},
  {"--list", NULL, "list the policies and exit"},
  {NULL, NULL, NULL},
};

static void Solve_list(void) {
  for (int k = 0; k < POLICY_KIND_COUNT; k++) {
    printf("%s:\n", PolicyKind_name((PolicyKind)k));
    for (int i = 0; i < Policy_countAll((PolicyKind)k); i++)
      printf("  %-12s %s\n", Policy_atAll((PolicyKind)k, i)->name, Policy_atAll((PolicyKind)k, i)->help);
  }
}

static int Solve_run_cmd(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_solve;
  int rc = Cli_parse(c, argc, argv, 0, 1, &a);
  if (rc >= 0) return rc;
  if (Cli_value(c, &a, "--list")) {
    Solve_list();
    return EXIT_OK;
  }
  if (a.npos != 1 || !Cli_value(c, &a, "--budget")) {
    fprintf(stderr, "spadmap solve: needs NET and --budget (usage: spadmap solve %s)\n", c->args);
    return EXIT_USAGE;
  }
  SolveSettings s;
  SolveSettings_init(&s);
  s.params = Cli_value(c, &a, "--params") != NULL;
  if (Cli_value(c, &a, "--schedule")) s.schedule = Cli_value(c, &a, "--schedule");
  if (Cli_value(c, &a, "--replacement")) s.replacement = Cli_value(c, &a, "--replacement");
  if (Cli_value(c, &a, "--allocator")) s.allocator = Cli_value(c, &a, "--allocator");
  s.break_nodes = Cli_value(c, &a, "--break-nodes");
  const char *tl = Cli_value(c, &a, "--time-limit");
  if (tl) {
    char *end;
    double v = strtod(tl, &end);
    if (end == tl || *end || !(v > 0) || v > 1e7) {
      fprintf(stderr, "spadmap solve: --time-limit \"%s\": expected a positive number of seconds\n", tl);
      return EXIT_USAGE;
    }
    s.time_limit = v;
  }
  const char *model = Cli_value(c, &a, "--model");
  if (model && strcmp(model, "paper") != 0 && strcmp(model, "ours") != 0) {
    fprintf(stderr, "spadmap solve: --model \"%s\": expected ours or paper\n", model);
    return EXIT_USAGE;
  }
  s.paper_model = model && strcmp(model, "paper") == 0;
  const PolicyKind kinds[3] = {POLICY_SCHEDULE, POLICY_REPLACEMENT, POLICY_ALLOCATOR};
  const char *names[3] = {s.schedule, s.replacement, s.allocator};
  for (int k = 0; k < 3; k++)
    if (!Policy_find(kinds[k], names[k])) {
      fprintf(stderr, "spadmap solve: unknown %s policy \"%s\" (see spadmap solve --list)\n",
              PolicyKind_name(kinds[k]), names[k]);
      return EXIT_USAGE;
    }
  Net *net = Cli_loadNet(a.pos[0]);
  if (!net) return EXIT_INVALID;
  int exit_code = EXIT_INVALID;
  Plan *plan = NULL;
  SpError err;
  NetFigures f;
  const char *budget_text = Cli_value(c, &a, "--budget"), *preset;
  bool needs_figures = strncasecmp(budget_text, "M_", 2) == 0;
  if (needs_figures && Figures_compute(net, s.params, &f, NULL, &err)) {
    fprintf(stderr, "spadmap solve: %s\n", err.text);
    goto out;
  }
  if (Budget_parse(budget_text, needs_figures ? &f : NULL, &s.budget, &preset, &err)) {
    fprintf(stderr, "spadmap solve: %s\n", err.text);
    exit_code = EXIT_USAGE;
    goto out;
  }
  if (Solve_run(net, &s, &plan, &err)) {
    fprintf(stderr, "spadmap solve: %s: %s\n", Cli_safe(net->name), err.text);
    if (err.code == SP_ERR_ARG) exit_code = EXIT_USAGE; /* e.g. a bad --break-nodes */
    goto out;
  }
  ValidateReport rep;
  Status vst = Validate_plan(net, plan, &rep);
  char b1[32], b2[32];
  const Metrics *m = &plan->metrics;
  printf("network        %s (%d ops)\n", Cli_safe(net->name), net->nops);
  printf("budget         %s bytes (%s)%s%s\n", Cli_count(s.budget, b1, sizeof b1), Cli_bytes(s.budget, b2, sizeof b2),
         preset[0] ? " = " : "", preset);
  printf("policies       schedule %s, replacement %s, allocator %s, %s\n", Cli_safe(plan->schedule_policy),
         Cli_safe(plan->replacement_policy), Cli_safe(plan->allocator_policy), s.params ? "with params" : "activations only");
  printf("non-compulsory %s bytes (%s)\n", Cli_count(m->noncompulsory_bytes, b1, sizeof b1),
         Cli_bytes(m->noncompulsory_bytes, b2, sizeof b2));
  printf("compulsory     %s bytes\n", Cli_count(m->compulsory_bytes, b1, sizeof b1));
  printf("spills         %d\nretrievals     %d\n", m->spills, m->retrievals);
  printf("peak           %s bytes\n", Cli_count(m->peak_bytes, b1, sizeof b1));
  printf("footprint      %s bytes\n", Cli_count(m->footprint_bytes, b1, sizeof b1));
  const SolverInfo *si = &plan->solver;
  if (si->has_bound) {
    double gap = si->objective > 0 ? (si->objective - si->bound) / si->objective : 0;
    printf("solver         %s, %.3f s, objective %s, bound %s, gap %.2f%%\n", SolverStatus_name(si->status), si->seconds,
           Cli_count((int64_t)si->objective, b1, sizeof b1), Cli_count((int64_t)si->bound, b2, sizeof b2),
           gap < 0 ? 0 : gap * 100);
  } else {
    printf("solver         %s, %.3f ms\n", SolverStatus_name(si->status), si->seconds * 1e3);
  }
  if (vst == SP_OK) {
    printf("validator      valid\n");
    exit_code = EXIT_OK;
  } else {
    printf("validator      %d violation(s):\n", rep.count);
    for (int i = 0; i < rep.nlines; i++) printf("  %s\n", rep.lines[i]);
  }
  ValidateReport_free(&rep);
  const char *outp = Cli_value(c, &a, "--out");
  if (outp && Plan_write(plan, net, outp, &err)) {
    fprintf(stderr, "spadmap solve: %s\n", err.text);
    exit_code = EXIT_INVALID;
  }
out:
  Plan_free(plan);
  Net_free(net);
  return exit_code;
}

const CliCommand Cli_solve = {"solve", "NET --budget M_R|M_H|M_P|BYTES[K|M] [options]",
                              "Maps NET under a scratchpad budget with the chosen policies; prints the metrics.",
                              Solve_options, Solve_run_cmd};

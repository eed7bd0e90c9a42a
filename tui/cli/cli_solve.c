/* spadmap solve NET --budget ...: one plan, its metrics, the validator's verdict.
 * The time limit counts from the command's start; Ctrl-C stops the search and
 * keeps the best plan found so far (printed, validated and written, exit 130);
 * a second Ctrl-C ends the process at once. */
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "words.h"
#include "clock.h"
#include "fileio.h"
#include "policy.h"
#include "solve.h"
#include "validate.h"
#include "workclock.h"

static const CliOption Solve_options[] = {
  {"--budget", "SIZE", "M_R, M_H, M_P or bytes with an optional K/M/G suffix (required)"},
  {"--schedule", "NAME", "schedule policy (default: default)"},
  {"--replacement", "NAME", "replacement policy (default: belady)"},
  {"--allocator", "NAME", "allocator (default: linear)"},
  {"--params", NULL, "hold parameter tensors on chip too (default: activations only)"},
  {"--time-limit", "SECONDS", "time limit of the searching policies (ILP, exact M_P), counted from the start: their work budget and a wall-clock stop (default: 60)"},
  {"--wall-limit", "SECONDS", "the wall-clock stop instead (default: --time-limit; a run it stops says so, and may differ on a slower machine)"},
  {"--break-nodes", "A,B,...", "dnc: the break nodes (op names, each an ancestor of the next; default: automatic)"},
  {"--model", "ours|paper", "cosma: our pipeline (default) or the paper's model (with its overlap analysis), solved directly"},
  {"--mp-orders", "1|2", "cosma, dnc: 2 also tries the M_P order of the whole-network search (another optimal order) in every joint solve"},
  {"--out", "FILE", "write the plan (spadmap-plan JSON; - for standard output)"},
  {"--list", NULL, "list the policies and exit"},
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

static void Solve_list(void) {
  for (int k = 0; k < POLICY_KIND_COUNT; k++) {
    printf("%s:\n", PolicyKind_name((PolicyKind)k));
    for (int i = 0; i < Policy_countAll((PolicyKind)k); i++)
      printf("  %-12s %s\n", Policy_atAll((PolicyKind)k, i)->name, Policy_atAll((PolicyKind)k, i)->help);
  }
}

static atomic_int Solve_interrupt;
static double Solve_firstInterrupt;

/* First Ctrl-C: stop the search, keep the best plan. A second one (more than
 * half a second later: `timeout -s INT` signals both the process and its group,
 * so one interrupt can arrive twice), SIGTERM or SIGHUP: remove a half-written
 * --out temporary, then the default action. Clock_now is clock_gettime:
 * async-signal-safe. */
static void Solve_onSignal(int sig) {
  if (sig == SIGINT && !atomic_load(&Solve_interrupt)) {
    Solve_firstInterrupt = Clock_now();
    atomic_store(&Solve_interrupt, 1);
    return;
  }
  if (sig == SIGINT && Clock_now() - Solve_firstInterrupt < 0.5) return;
  Cli_removeTempAndDie(sig);
}

/* Options that do not apply to the chosen policies: refused (exit 2) when they
 * would change nothing the user could mean otherwise, else a warning. */
static int Solve_checkApplies(const CliCommand *c, const CliArgs *a, const SolveSettings *s) {
  const PolicyInfo *sp = Policy_find(POLICY_SCHEDULE, s->schedule);
  const PolicyInfo *rp = Policy_find(POLICY_REPLACEMENT, s->replacement);
  bool dnc = strcmp(sp->name, "dnc") == 0, joint = sp->joint != NULL;
  if (Cli_value(c, a, "--break-nodes") && !dnc) {
    fprintf(stderr, "spadmap solve: --break-nodes applies to --schedule dnc only (the schedule is %s)\n", sp->name);
    return EXIT_USAGE;
  }
  if (Cli_value(c, a, "--mp-orders") && !joint) {
    fprintf(stderr, "spadmap solve: --mp-orders applies to --schedule cosma or dnc only (the schedule is %s)\n", sp->name);
    return EXIT_USAGE;
  }
  if (Cli_value(c, a, "--model") && !joint) {
    fprintf(stderr, "spadmap solve: --model applies to --schedule cosma or dnc only (the schedule is %s)\n", sp->name);
    return EXIT_USAGE;
  }
  if (joint && (Cli_value(c, a, "--replacement") || Cli_value(c, a, "--allocator")))
    fprintf(stderr, "spadmap solve: warning: --schedule %s chooses replacement and allocation itself; "
                    "--replacement and --allocator are ignored\n", sp->name);
  else if (rp->plan && Cli_value(c, a, "--allocator"))
    fprintf(stderr, "spadmap solve: warning: --replacement %s places tensors itself; --allocator is ignored\n",
            rp->name);
  bool searches = sp->searching || (!joint && rp->searching) || strcmp(sp->name, "mpmf") == 0;
  const char *b = Cli_value(c, a, "--budget");
  searches |= b && (strcasecmp(b, "M_P") == 0 || strcasecmp(b, "M_H") == 0); /* the exact M_P search */
  if (Cli_value(c, a, "--time-limit") && !searches)
    fprintf(stderr, "spadmap solve: warning: --time-limit has no effect: schedule %s, replacement %s do not search\n",
            sp->name, joint ? sp->name : rp->name);
  return -1;
}

/* The budget; M_R needs no search, M_H and M_P the exact M_P search (under the
 * time limit and Ctrl-C: its best peak when not proven, with a note). */
static int Solve_budget(const Net *net, SolveSettings *s, const char *text, const char **preset) {
  NetFigures f = {0};
  SpError err;
  bool lazy = strcasecmp(text, "M_R") == 0, needs = !lazy && strncasecmp(text, "M_", 2) == 0;
  if (lazy) f.m_r = Figures_minRequired(net, s->params);
  if (needs) {
    MinPeakOptions mo;
    MinPeakOptions_init(&mo);
    mo.cancel = s->cancel;
    mo.time_limit = s->time_limit; /* work: nothing spent yet */
    mo.deadline = s->deadline;
    Status st = Figures_computeWith(net, s->params, &mo, &f, NULL, &err);
    if (st) {
      fprintf(stderr, "spadmap solve: %s\n", err.text);
      return st == SP_ERR_CANCELLED ? EXIT_INTERRUPTED : st == SP_ERR_NOMEM ? EXIT_INVALID : EXIT_LIMIT;
    }
    char b1[32], b2[32];
    if (!f.m_p_exact)
      fprintf(stderr, "spadmap solve: note: M_P not proven (the search stopped at its limit): the budget uses the "
                      "best peak found, %s bytes (proven lower bound %s)\n",
              Cli_count(f.m_p, b1, sizeof b1), Cli_count(f.search.lower_bound, b2, sizeof b2));
  }
  if (Budget_parse(text, lazy || needs ? &f : NULL, &s->budget, preset, &err)) {
    fprintf(stderr, "spadmap solve: %s\n", err.text);
    return EXIT_USAGE;
  }
  return -1;
}

static int Solve_exitFor(Status st) {
  switch (st) {
  case SP_ERR_ARG: return EXIT_USAGE; /* e.g. a bad --break-nodes */
  case SP_ERR_LIMIT:
  case SP_ERR_SOLVER: return EXIT_LIMIT;
  case SP_ERR_CANCELLED: return atomic_load(&Solve_interrupt) ? EXIT_INTERRUPTED : EXIT_LIMIT;
  default: return EXIT_INVALID;
  }
}

static int Solve_run_cmd(int argc, char **argv) {
  double t_start = Clock_now(), w_start = WorkClock_now();
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
    if (end == tl || *end || !(v > 0)) { /* NaN too; inf and 1e400 are "too large" below */
      fprintf(stderr, "spadmap solve: --time-limit \"%s\": expected a positive number of seconds\n", tl);
      return EXIT_USAGE;
    }
    if (v > 1e7) {
      fprintf(stderr, "spadmap solve: --time-limit \"%s\" is too large: at most 10000000 seconds (about 116 days)\n",
              tl);
      return EXIT_USAGE;
    }
    s.time_limit = v;
  }
  const char *wl = Cli_value(c, &a, "--wall-limit");
  double wall = 0;
  if (wl) {
    char *end;
    wall = strtod(wl, &end);
    if (end == wl || *end || !(wall > 0) || wall > 1e7) {
      fprintf(stderr, "spadmap solve: --wall-limit \"%s\": expected seconds > 0 (at most 10000000)\n", wl);
      return EXIT_USAGE;
    }
  }
  /* the wall-clock stop, counted from the start; the work budget (time_limit) is
   * counted on the work clock, so loading the network does not change the answer */
  if (wall > 0 || s.time_limit > 0) s.deadline = t_start + (wall > 0 ? wall : s.time_limit);
  const char *model = Cli_value(c, &a, "--model");
  if (model && strcmp(model, "paper") != 0 && strcmp(model, "ours") != 0) {
    fprintf(stderr, "spadmap solve: --model \"%s\": expected ours or paper\n", model);
    return EXIT_USAGE;
  }
  s.paper_model = model && strcmp(model, "paper") == 0;
  const char *mpo = Cli_value(c, &a, "--mp-orders");
  if (mpo && strcmp(mpo, "1") != 0 && strcmp(mpo, "2") != 0) {
    fprintf(stderr, "spadmap solve: --mp-orders \"%s\": expected 1 or 2\n", Cli_safe(mpo));
    return EXIT_USAGE;
  }
  s.mp_orders = mpo ? atoi(mpo) : 1;
  const PolicyKind kinds[3] = {POLICY_SCHEDULE, POLICY_REPLACEMENT, POLICY_ALLOCATOR};
  const char *names[3] = {s.schedule, s.replacement, s.allocator};
  for (int k = 0; k < 3; k++)
    if (!Policy_find(kinds[k], names[k])) {
      fprintf(stderr, "spadmap solve: unknown %s policy \"%s\" (see spadmap solve --list)\n",
              PolicyKind_name(kinds[k]), names[k]);
      return EXIT_USAGE;
    }
  if ((rc = Solve_checkApplies(c, &a, &s)) >= 0) return rc;
  Net *net = Cli_loadModel(c, &a, a.pos[0], &rc);
  if (!net) return rc;
  atomic_store(&Solve_interrupt, 0);
  s.cancel = &Solve_interrupt;
  Cli_catchSignals(Solve_onSignal);
  int exit_code = EXIT_INVALID;
  Plan *plan = NULL;
  SpError err;
  const char *preset = "";
  if ((exit_code = Solve_budget(net, &s, Cli_value(c, &a, "--budget"), &preset)) >= 0) goto out;
  exit_code = EXIT_INVALID;
  double asked_limit = s.time_limit; /* what the user gave (the result's words compare against it) */
  if (s.time_limit > 0) s.time_limit = fmax(s.time_limit - (WorkClock_now() - w_start), 0.001); /* M_P's work */
  Status sst = Solve_run(net, &s, &plan, &err);
  if (sst) {
    fprintf(stderr, "spadmap solve: %s: %s\n", Cli_safe(net->name), err.text);
    if (sst == SP_ERR_INFEASIBLE && s.budget < Figures_minRequired(net, s.params)) { /* say where such budgets go */
      /* a model opened with import options (--dtype int8): offchip reads network files
       * as they are, so the import comes first, or the tiles would be of another network */
      ImportOptions io, none;
      ImportOptions_init(&none);
      char opts[256];
      bool imported = Cli_modelOptions(c, &a, &io) < 0 && !ImportOptions_equal(&io, &none);
      if (imported)
        fprintf(stderr, "spadmap solve: below M_R some op's tensors cannot all be on chip: tile it with `spadmap import "
                        "%s %s --out N.json`, `spadmap offchip N.json --budget %lld --tiled-net T.json`, then `spadmap "
                        "solve T.json --budget %lld`\n", Cli_safe(a.pos[0]), ImportOptions_describe(&io, opts, sizeof opts),
                (long long)s.budget, (long long)s.budget);
      else
        fprintf(stderr, "spadmap solve: below M_R some op's tensors cannot all be on chip: tile it with `spadmap offchip "
                        "%s --budget %lld --tiled-net T.json`, then `spadmap solve T.json --budget %lld`; `spadmap cost` and "
                        "`spadmap sweep --from` do both\n", Cli_safe(a.pos[0]), (long long)s.budget, (long long)s.budget);
    }
    exit_code = Solve_exitFor(sst);
    goto out;
  }
  ValidateReport rep;
  Status vst = Validate_plan(net, plan, &rep);
  /* the file first, then the summary: a failed write (/dev/full, a full disk)
   * exits 1 with nothing on stdout that claims a plan was kept; "-" (the plan on
   * stdout) comes after the summary, as before */
  const char *outp = Cli_value(c, &a, "--out");
  if (outp && strcmp(outp, "-") != 0 && Plan_write(plan, net, outp, &err)) {
    fprintf(stderr, "spadmap solve: %s\n", Cli_safe(err.text));
    ValidateReport_free(&rep);
    exit_code = EXIT_INVALID;
    goto out;
  }
  char b1[32], b2[32], sz[80];
  const Metrics *m = &plan->metrics;
  printf("network        %s (%d ops)\n", Cli_safe(net->name), net->nops);
  printf("budget         %s%s%s\n", Words_bytesExact((double)s.budget, sz, sizeof sz), preset[0] ? " = " : "", preset);
  printf("policies       schedule %s, replacement %s, allocator %s, %s\n", Cli_safe(plan->schedule_policy),
         Cli_safe(plan->replacement_policy), Cli_safe(plan->allocator_policy), s.params ? "with params" : "activations only");
  /* every size the same way: the exact count and the binary size (words.c) */
  printf("non-compulsory %s\n", Words_bytesExact((double)m->noncompulsory_bytes, sz, sizeof sz));
  printf("compulsory     %s\n", Words_bytesExact((double)m->compulsory_bytes, sz, sizeof sz));
  printf("spills         %d\nretrievals     %d\n", m->spills, m->retrievals);
  printf("peak           %s\n", Words_bytesExact((double)m->peak_bytes, sz, sizeof sz));
  printf("footprint      %s\n", Words_bytesExact((double)m->footprint_bytes, sz, sizeof sz));
  const SolverInfo *si = &plan->solver;
  char res[200]; /* the explorer's words (words.c): one vocabulary for status, gap and time */
  Words_result(si, si->seconds, asked_limit, res, sizeof res);
  if (si->has_bound)
    printf("solver         %s; objective %s, bound %s\n", res, Cli_count((int64_t)si->objective, b1, sizeof b1),
           Cli_count((int64_t)si->bound, b2, sizeof b2));
  else
    printf("solver         %s\n", res);
  if (si->note[0]) printf("note           %s\n", si->note);
  bool interrupted = atomic_load(&Solve_interrupt);
  if (interrupted) printf("interrupted    Ctrl-C: this is the best plan found so far\n");
  if (vst == SP_OK) {
    printf("validator      valid\n");
    exit_code = EXIT_OK;
  } else {
    printf("validator      %d violation(s):\n", rep.count);
    for (int i = 0; i < rep.nlines; i++) printf("  %s\n", rep.lines[i]);
  }
  ValidateReport_free(&rep);
  if (outp && strcmp(outp, "-") == 0 && Plan_write(plan, net, outp, &err)) {
    fprintf(stderr, "spadmap solve: %s\n", err.text);
    exit_code = EXIT_INVALID;
  }
  if (interrupted && exit_code == EXIT_OK) exit_code = EXIT_INTERRUPTED;
out:
  Plan_free(plan);
  Net_free(net);
  return exit_code;
}

const CliCommand Cli_solve = {"solve", "NET --budget M_R|M_H|M_P|BYTES[K|M] [options]",
                              "Maps NET under a scratchpad budget with the chosen policies; prints the metrics.",
                              Solve_options, Solve_run_cmd, CLI_IN_NET};

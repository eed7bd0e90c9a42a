/* spadmap pack: fixed-lifetime packing (engine/pack) on a google/minimalloc CSV
 * instance (id,lower,upper,size; the output adds offset), or on a network's tensor
 * lifetimes under a schedule; --check validates a solution file. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "pack/pack.h"
#include "solve.h"

static const CliOption Pack_options[] = {
  {"--capacity", "BYTES", "the capacity (no capacity: minimise the height)"},
  {"--budget", "SIZE", "NET: the capacity, M_R, M_H, M_P or bytes with an optional K/M/G suffix"},
  {"--schedule", "NAME", "NET: the schedule policy whose lifetimes are packed (default: default)"},
  {"--params", NULL, "NET: parameter tensors on chip too"},
  {"--method", "NAME", "exact (default), so-size, so-breadth, so-improved, offset-size, offset-breadth, conflict, "
                       "skyline, best-heuristic"},
  {"--time-limit", "SECONDS", "stop the exact search after this long (default 60)"},
  {"--node-limit", "N", "stop the exact search after N nodes: the same N gives the same answer on any machine"},
  {"--out", "FILE", "write the solution (the input's columns and offset)"},
  {"--check", "FILE", "validate a solution CSV (with an offset column) instead of solving"},
  {NULL, NULL, NULL},
};

/* 1..2^62: the packer adds offsets and sizes in int64 (20 nines clamped to INT64_MAX). */
static bool Pack_parseInt(const char *text, int64_t *v) {
  long long x;
  if (!Cli_int(text, 1, (long long)1 << 62, &x)) return false;
  *v = x;
  return true;
}

/* The engine's messages start with its module ("pack: ..."): after the
 * command's own prefix that read "spadmap pack: pack: ...". */
static const char *Pack_msg(const char *text) {
  return Cli_safe(strncmp(text, "pack: ", 6) == 0 ? text + 6 : text);
}

static bool Pack_isNet(const char *path) {
  size_t n = strlen(path);
  return n > 5 && strcasecmp(path + n - 5, ".json") == 0;
}

/* --check FILE: offsets against lifetimes, alignment and the capacity. */
static int Pack_check_cmd(const char *path, int64_t capacity) {
  PackInstance in;
  SpError err;
  if (PackInstance_readCsv(path, &in, &err)) { /* errors on stderr, as every command's (they were on stdout) */
    fprintf(stderr, "spadmap pack: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  if (!in.offsets) {
    fprintf(stderr, "spadmap pack: %s: no 'offset' column (expected a solution: id,lower,upper,size,offset)\n",
            Cli_safe(path));
    PackInstance_free(&in);
    return EXIT_INVALID;
  }
  int rc = EXIT_OK;
  if (Pack_check(in.buffers, in.n, in.offsets, capacity, &err)) {
    /* the engine names buffers by index: give the ids too */
    printf("%s: invalid: %s\n", path, err.text);
    rc = EXIT_INVALID;
  } else {
    int64_t h = 0;
    for (int i = 0; i < in.n; i++)
      if (in.offsets[i] + in.buffers[i].size > h) h = in.offsets[i] + in.buffers[i].size;
    printf("valid: %s, %d buffers, height %lld, lower bound %lld%s\n", path, in.n, (long long)h,
           (long long)Pack_maxLoad(in.buffers, in.n), h == Pack_maxLoad(in.buffers, in.n) ? " (optimal)" : "");
  }
  PackInstance_free(&in);
  return rc;
}

/* A network's lifetimes as an instance (ids are tensor names); head gets the
 * summary's first line, printed with the rest once the solution is kept. */
static int Pack_fromNet(const CliCommand *c, const CliArgs *a, PackInstance *in, int64_t *capacity, char *head,
                        size_t n) {
  Net *net = Cli_loadNet(a->pos[0]);
  if (!net) return EXIT_INVALID;
  SolveSettings s;
  SolveSettings_init(&s);
  s.params = Cli_value(c, a, "--params") != NULL;
  if (Cli_value(c, a, "--schedule")) s.schedule = Cli_value(c, a, "--schedule");
  const char *tlv = Cli_value(c, a, "--time-limit");
  if (tlv && !Cli_real(tlv, 0, 1e7, &s.time_limit)) { /* as solve's; atof took inf and 5x */
    fprintf(stderr, "spadmap pack: --time-limit \"%s\": expected seconds from 0 to 1e7\n", Cli_safe(tlv));
    Net_free(net);
    return EXIT_USAGE;
  }
  int rc = EXIT_INVALID;
  SpError err;
  int *order = malloc(sizeof(int) * (size_t)(net->nops + 1)), *tensor = NULL;
  if (!order) goto out;
  const char *budget = Cli_value(c, a, "--budget");
  if (budget) {
    NetFigures f;
    bool figures = strncasecmp(budget, "M_", 2) == 0;
    if (figures && Figures_compute(net, s.params, &f, NULL, &err)) {
      fprintf(stderr, "spadmap pack: %s\n", Pack_msg(err.text));
      goto out;
    }
    if (Budget_parse(budget, figures ? &f : NULL, capacity, NULL, &err)) {
      fprintf(stderr, "spadmap pack: %s\n", Pack_msg(err.text));
      rc = EXIT_USAGE;
      goto out;
    }
  }
  if (Solve_schedule(net, &s, order, NULL, &err)) {
    fprintf(stderr, "spadmap pack: %s: %s\n", Cli_safe(net->name), Pack_msg(err.text));
    if (err.code == SP_ERR_ARG) rc = EXIT_USAGE;
    goto out;
  }
  if (Pack_netBuffers(net, s.params, order, &in->buffers, &tensor, &in->n, &err)) {
    fprintf(stderr, "spadmap pack: %s\n", Pack_msg(err.text));
    goto out;
  }
  in->ids = calloc((size_t)in->n + 1, sizeof(char *));
  for (int k = 0; in->ids && k < in->n; k++) in->ids[k] = strdup(net->tensors[tensor[k]].name);
  for (int k = 0; in->ids && k < in->n; k++)
    if (!in->ids[k]) goto out;
  if (in->ids) rc = -1;
  snprintf(head, n, "network        %s, schedule %s, %s, %d tensors\n", Cli_safe(net->name), s.schedule,
           s.params ? "with params" : "activations only", in->n);
out:
  free(order);
  free(tensor);
  Net_free(net);
  return rc;
}

/* The first Ctrl-C stops the search, which then writes the best packing it
 * has; a second one (or SIGTERM, SIGHUP) ends at once, removing a half-written
 * --out. */
static atomic_int Pack_interrupt;

static void Pack_onSignal(int sig) {
  if (sig == SIGINT && !atomic_load(&Pack_interrupt)) {
    atomic_store(&Pack_interrupt, 1);
    return;
  }
  Cli_removeTempAndDie(sig);
}

static int Pack_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_pack;
  int rc = Cli_parse(c, argc, argv, 0, 1, &a);
  if (rc >= 0) return rc;
  int64_t capacity = 0;
  const char *cap_text = Cli_value(c, &a, "--capacity");
  if (cap_text && !Pack_parseInt(cap_text, &capacity)) {
    fprintf(stderr, "spadmap pack: --capacity \"%s\": expected a byte count from 1 to 2^62\n", Cli_safe(cap_text));
    return EXIT_USAGE;
  }
  if (Cli_value(c, &a, "--check")) {
    if (a.npos) {
      fprintf(stderr, "spadmap pack: --check FILE takes no instance (the solution file holds it)\n");
      return EXIT_USAGE;
    }
    /* the check reads the capacity only: the rest was ignored */
    static const char *const unused[] = {"--budget", "--schedule", "--params", "--method", "--time-limit", "--node-limit",
                                         "--out"};
    for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
      if (Cli_value(c, &a, unused[i])) {
        fprintf(stderr, "spadmap pack: %s does not apply to --check (which reads the offsets and --capacity)\n",
                unused[i]);
        return EXIT_USAGE;
      }
    return Pack_check_cmd(Cli_value(c, &a, "--check"), capacity);
  }
  if (a.npos != 1) {
    fprintf(stderr, "spadmap pack: needs FILE.csv or NET.json (usage: spadmap pack %s)\n", c->args);
    return EXIT_USAGE;
  }
  PackOptions o;
  PackOptions_init(&o);
  o.time_limit = 60;
  const char *tl = Cli_value(c, &a, "--time-limit");
  if (tl && !(Cli_real(tl, 0, 1e7, &o.time_limit) && o.time_limit > 0)) { /* inf was taken */
    fprintf(stderr, "spadmap pack: --time-limit \"%s\": expected seconds, more than 0 and at most 1e7\n", Cli_safe(tl));
    return EXIT_USAGE;
  }
  const char *nl = Cli_value(c, &a, "--node-limit");
  long long nodes_max = 0;
  if (nl && !Cli_int(nl, 1, (long long)1 << 62, &nodes_max)) {
    fprintf(stderr, "spadmap pack: --node-limit \"%s\": expected a node count from 1 to 2^62\n", Cli_safe(nl));
    return EXIT_USAGE;
  }
  o.node_limit = (long)nodes_max;
  const char *method = Cli_value(c, &a, "--method");
  if (method && !PackMethod_parse(method, &o.method)) {
    fprintf(stderr, "spadmap pack: --method \"%s\": expected one of exact, so-size, so-breadth, so-improved, "
                    "offset-size, offset-breadth, conflict, skyline, best-heuristic\n", method);
    return EXIT_USAGE;
  }
  PackInstance in;
  char head[512] = "";
  memset(&in, 0, sizeof in);
  SpError err;
  if (Pack_isNet(a.pos[0])) {
    if (cap_text && Cli_value(c, &a, "--budget")) { /* --budget won silently */
      fprintf(stderr, "spadmap pack: --capacity and --budget both set the capacity: give one\n");
      return EXIT_USAGE;
    }
    rc = Pack_fromNet(c, &a, &in, &capacity, head, sizeof head);
    if (rc >= 0) {
      PackInstance_free(&in);
      return rc;
    }
  } else {
    if (Cli_value(c, &a, "--budget") || Cli_value(c, &a, "--schedule") || Cli_value(c, &a, "--params")) {
      fprintf(stderr, "spadmap pack: --budget, --schedule and --params apply to a network (NET.json)\n");
      return EXIT_USAGE;
    }
    if (PackInstance_readCsv(a.pos[0], &in, &err)) {
      fprintf(stderr, "spadmap pack: %s\n", Cli_safe(err.text));
      return EXIT_INVALID;
    }
  }
  PackResult r;
  atomic_store(&Pack_interrupt, 0);
  o.cancel = &Pack_interrupt;
  Cli_catchSignals(Pack_onSignal);
  if (Pack_solve(in.buffers, in.n, capacity, &o, &r, &err)) {
    fprintf(stderr, "spadmap pack: %s\n", Pack_msg(err.text));
    PackInstance_free(&in);
    return EXIT_INVALID;
  }
  bool interrupted = atomic_load(&Pack_interrupt);
  /* the documented codes: a proof of infeasibility is an answer about the input (1);
   * no answer within the limits is a solver limit (3); Ctrl-C 130, after the
   * best packing found is written */
  rc = r.offsets ? EXIT_OK : r.status == PACK_INFEASIBLE ? EXIT_INVALID : EXIT_LIMIT;
  /* the file before the summary: a failed write exits 1 with no summary on stdout */
  const char *out = Cli_value(c, &a, "--out");
  if (out && r.offsets) {
    /* never write what does not check */
    if (Pack_check(in.buffers, in.n, r.offsets, capacity, &err)) {
      fprintf(stderr, "spadmap pack: internal error, the solution does not check: %s\n", Cli_safe(err.text));
      rc = EXIT_INVALID;
    } else if (PackInstance_writeCsv(out, &in, r.offsets, &err)) {
      fprintf(stderr, "spadmap pack: %s\n", Cli_safe(err.text));
      rc = EXIT_INVALID;
    }
    if (rc == EXIT_INVALID) {
      PackResult_free(&r);
      PackInstance_free(&in);
      return rc;
    }
  }
  char b1[32];
  fputs(head, stdout);
  printf("buffers        %d\n", in.n);
  printf("method         %s\n", PackMethod_name(o.method));
  if (capacity > 0) printf("capacity       %s\n", Cli_count(capacity, b1, sizeof b1));
  printf("status         %s\n", PackResultStatus_name(r.status));
  if (r.offsets) printf("height         %s\n", Cli_count(r.height, b1, sizeof b1));
  printf("lower bound    %s\n", Cli_count(r.lower_bound, b1, sizeof b1));
  if (r.status == PACK_INFEASIBLE && r.infeasible_at >= 0)
    printf("proof          the load at time %lld exceeds the capacity\n", (long long)r.infeasible_at);
  else if (r.status == PACK_INFEASIBLE)
    printf("proof          exhaustive search\n");
  printf("time           %.3f s, %ld nodes\n", r.seconds, r.nodes);
  bool stopped = interrupted || (o.method == PACK_EXACT && r.status != PACK_OPTIMAL && r.status != PACK_INFEASIBLE &&
                                 !(capacity > 0 && r.status == PACK_FOUND));
  if (stopped) {
    /* say what stopped it and what the packing written is worth */
    printf("stopped        %s", interrupted                                         ? "by Ctrl-C"
                                 : o.node_limit > 0 && r.nodes >= o.node_limit ? "at the node limit"
                                                                               : "at the time limit");
    if (r.offsets && capacity <= 0 && r.height > 0)
      printf(": the best packing found is written, gap %.1f %% above the bound\n",
             100.0 * (double)(r.height - r.lower_bound) / (double)r.height);
    else
      printf(": no packing under the capacity found\n");
  }
  if (out && r.offsets) {
    printf("written        %s\n", Cli_safe(out));
  } else if (out) {
    printf("not written    %s (no solution)\n", Cli_safe(out));
  }
  PackResult_free(&r);
  PackInstance_free(&in);
  return interrupted ? EXIT_INTERRUPTED : rc;
}

const CliCommand Cli_pack = {
  "pack", "FILE.csv [--capacity N] [options] | NET.json --budget B [--schedule S] | --check SOLUTION.csv",
  "Packs buffers with fixed lifetimes at addresses (google/minimalloc's CSV: id,lower,upper,size); with no "
  "capacity, minimises the height. Exit 0 with a solution, 1 when proven infeasible or on bad input, 3 when the limit came first (unknown).",
  Pack_options, Pack_run, CLI_IN(FILE_CSV) | CLI_IN_NET};

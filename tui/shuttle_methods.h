/* shuttle_methods: the SmartShuttle and offloading-steps methods of the layer
 * command (smartshuttle, steps-s1, steps-row, steps-zigzag, steps-ilp), printing
 * to a stream, so that any layer command can list and run them. */
#ifndef SPADMAP_SHUTTLE_METHODS_H
#define SPADMAP_SHUTTLE_METHODS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "ilp.h"
#include "layer/layer.h"

typedef struct {
  const char *arch_path;  /* platform for smartshuttle (NULL: data/arch/smartshuttle.json) */
  const char *capacity;   /* "paper" (default), "halo", "raw" */
  long long size_mem, nbop_pe;
  long long tl, tw, tacc;  /* cycles (default 1, 1, 1) */
  int group_size, max_loads;
  double time_limit;
  bool all_steps;         /* print every step, not the first 40 */
  bool json;              /* one JSON object instead of text (every step) */
  bool paper_model;       /* steps-ilp: the paper's MIP alone (STEPS_MODEL_PAPER) */
  int threads;            /* steps-ilp: threads of the exact search (0: one per processor) */
  int steps;              /* steps-ilp: number of groups n (0: Kmin, as the paper) */
  atomic_int *cancel;     /* non-zero: the oracle, the steps ILP and the functional check stop
                             (Ctrl-C); NULL: none. Cleared while the plan of a cancelled ILP is
                             checked (a second Ctrl-C stops that), then set again */
  void (*progress)(const IlpProgress *p, void *user); /* the steps ILP's progress, or NULL */
  void *user;
} ShuttleMethodOptions;

void ShuttleMethodOptions_init(ShuttleMethodOptions *o);
/* The method names, NULL-ended, and a line of help each. */
extern const char *const ShuttleMethod_names[];
extern const char *const ShuttleMethod_help[];
bool ShuttleMethod_known(const char *method);
/* Runs one method on a layer, printing the result; returns one of cli.h's exit
 * codes (on a failure the message is printed to stderr; a steps-ilp cancelled by
 * *cancel still prints the best plan it found, checked, with EXIT_INTERRUPTED; a
 * cancelled functional check prints the plan with "functional check: cancelled
 * ...", EXIT_INTERRUPTED; a check skipped as too large to simulate prints
 * "functional check: skipped (...)" and is not a failure). */
int ShuttleMethod_run(const char *method, const Layer *l, const ShuttleMethodOptions *o, FILE *out);

#endif

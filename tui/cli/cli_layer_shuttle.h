/* cli_layer_shuttle: the SmartShuttle and offloading-steps methods of
 * `spadmap layer` (smartshuttle, steps-*): their options and the run. */
#ifndef SPADMAP_CLI_LAYER_SHUTTLE_H
#define SPADMAP_CLI_LAYER_SHUTTLE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "cli.h"
#include "layer/layer.h"

/* The option rows these methods add to the layer command's table ({NULL}-ended
 * list is not needed: CLI_LAYER_SHUTTLE_OPTIONS expands to the rows). */
#define CLI_LAYER_SHUTTLE_OPTIONS                                                                        \
  {"--batch", "N", "smartshuttle: batch size (default: the layer's)"},                                   \
  {"--capacity", "RULE", "smartshuttle: buffer occupancy paper (default), halo or raw"},                 \
  {"--size-mem", "N", "steps-*: on-chip memory in elements (default: unbounded)"},                       \
  {"--nbop-pe", "N", "steps-*: MACs per step (sets the patches per step)"},                              \
  {"--group-size", "N", "steps-*: patches per step (default 4 unless --nbop-pe)"},                       \
  {"--max-loads", "N", "steps-ilp: Eq. 9's nb_data_reload, loads per pixel at most (default 2, from the paper's Section 2.3; 0: none)"}, \
  {"--steps", "N", "steps-ilp: number of steps (groups) n, Kmin..patches (default Kmin, as the paper)"},  \
  {"--cycles", "TL,TW,TACC", "steps-*: cycles per loaded, per written element, per compute (default 1,1,1)"}, \
  {"--all", NULL, "steps-*: print every step"},                                                           \
  {"--model", "exact|paper", "steps-ilp: bound, exact search, then the MIP (default), or the paper's MIP alone"},      \
  {"--threads", "N", "steps-ilp: threads of the exact search (default: one per processor, at most 2: its two lanes; the answer does not depend on it)"},

/* Runs `method` (ShuttleMethod_known) on l with cmd's options from a (--arch
 * defaults to smartshuttle here); *cancel (set by the caller's Ctrl-C handler)
 * stops the oracle and the steps ILP; tty: the ILP's progress goes to stderr.
 * An exit code. */
int CliLayerShuttle_run(const CliCommand *cmd, const CliArgs *a, const char *method, Layer *l, atomic_int *cancel,
                        bool tty);

#endif

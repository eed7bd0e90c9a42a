/* timeloop_run: what spadmap needs to use NVIDIA's Timeloop v1.0 as a referee
 * (`spadmap bench layer --timeloop DIR`): the mapper's input for its Hybrid
 * search with the CoSA paper's settings, and the figures read back from
 * Timeloop's stats files. The engine only writes and parses text; running the
 * programs is the CLI's (tui/bench/cli_bench_timeloop.c). Timeloop's code is
 * not in spadmap: it is built apart and only its outputs are read. */
#ifndef SPADMAP_TIMELOOP_RUN_H
#define SPADMAP_TIMELOOP_RUN_H

#include "arch.h"
#include "status.h"

/* The CoSA paper's Hybrid settings (Section IV): each thread stops after 500
 * consecutive valid, sub-optimal mappings ("16,000+ valid schedules" from 32
 * threads). Timeloop's other stop, 1000 consecutive invalid mappings, is off
 * (timeout 0): on our archs most random spatial factors exceed a fan-out and
 * it ended ResNet-50's fc after 1 s (993 fan-out failures) with far fewer
 * valid mappings than the paper's runs saw; the caller's wall-clock cap bounds
 * the search instead. */
#define TIMELOOP_VICTORY 500
#define TIMELOOP_INVALID_TIMEOUT 0

/* mapper.yaml for `timeloop-mapper arch.yaml prob.yaml mapper.yaml`: the
 * Hybrid algorithm, `threads` threads, victory-condition 500, delay first and
 * energy second as the metrics (the comparison is on cycles), and the mapspace
 * constraints of the CoSA authors' Timeloop setup (ucb-bar/cosa,
 * configs/mapspace/mapspace.yaml: only which operands each level keeps or
 * bypasses), written for our levels from the arch file as the export does.
 * fix_outer adds one of ours: the outermost level's loop order fixed to
 * R S P Q C K N, for layers whose mapspace Timeloop refuses as larger than
 * 2^128 (ResNet-50's conv1). Malloc'd into *out. */
Status Timeloop_mapperText(const Arch *a, int threads, bool fix_outer, char **out, SpError *err);

/* The summary of one Timeloop evaluation (timeloop-model.stats.txt or
 * timeloop-mapper.stats.txt): the "Summary Stats" block. */
typedef struct {
  double cycles;       /* "Cycles: N" */
  double energy_uj;    /* "Energy: X uJ" */
  double utilization;  /* "Utilization: U" */
  double maccs;        /* "MACCs = N" (0 when absent) */
} TimeloopStats;

/* Reads the "Summary Stats" block from a stats file's text. SP_ERR_FORMAT with
 * what is missing (the block, Cycles, Energy) or malformed, and the line. */
Status Timeloop_parseStats(const char *text, TimeloopStats *s, SpError *err);

#endif

/* cli_bench_timeloop: `spadmap bench layer NET --timeloop DIR` (tui/bench/cli_bench_timeloop.c). */
#ifndef SPADMAP_CLI_BENCH_TIMELOOP_H
#define SPADMAP_CLI_BENCH_TIMELOOP_H

#include "layer/layer_map.h"

/* Every unique layer of the network at net_path (ops: "a,b" op or CoSA names,
 * NULL: all) mapped by cosa and cosa-plus and by Timeloop's Hybrid (capped at
 * cap seconds of wall clock per layer), all judged by timeloop-model. An exit
 * code: 0, EXIT_INVALID on a failure, 77 when Timeloop is missing. */
int BenchLayer_timeloop(const Arch *arch, const char *net_path, const char *ops, const char *tl_dir, double cap,
                        const LayerMapOptions *base);

#endif

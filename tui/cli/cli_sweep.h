/* cli_sweep: what the sweep command's files share: the CSV rows (one writer for
 * the serial --csv and every job, so the merge is byte-identical), the plot,
 * the jobs and their merge, and what `cost` lends it (the mapper from --arch). */
#ifndef SPADMAP_CLI_SWEEP_H
#define SPADMAP_CLI_SWEEP_H

#include <stdatomic.h>
#include <stdbool.h>

#include "cli.h"
#include "netcost/netcost.h"
#include "strbuf.h"
#include "sweep.h"

void SweepCsv_header(StrBuf *b, bool arch);
void SweepCsv_rows(StrBuf *b, Sweep *sw, bool arch);
/* The SVG plot into path (cli_sweep_plot.c). */
Status SweepPlot_write(const char *path, const Net *net, const NetFigures *f, Sweep *sw, const NetCostMapper *mapper,
                       SpError *err);
/* DIR/jobs.txt for the sweep's budgets (cli_sweep_jobs.c); an exit code. */
int SweepJobs_write(const char *dir, const char *netpath, const CliCommand *c, const CliArgs *a, const Sweep *sw);
/* The merged CSV of a --jobs run, to stdout or out; an exit code. */
int SweepJobs_merge(const char *dir, const char *out);
/* cli_cost.c: --arch and --method into a mapper (an exit code after a message, else -1). */
int CliCost_mapper(const CliCommand *c, const CliArgs *a, double time_limit, atomic_int *cancel, NetCostMapper **out);

#endif

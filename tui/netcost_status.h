/* netcost_status: the network's cycles on the status line when an architecture
 * is chosen (spadmap NET --arch F): every distinct layer shape mapped once by
 * the paper's cosa on a thread of its own (engine/netcost), then the shown
 * plan's cost, cheap, on the UI thread (docs/design/cost.md). */
#ifndef SPADMAP_NETCOST_STATUS_H
#define SPADMAP_NETCOST_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "netcost/netcost.h"

/* Starts mapping app->net's layers onto app->layer_arch (nothing without one):
 * on a thread when the explorer has workers, else here (snapshots). */
void NetStatus_start(App *app);
/* true when the mapping finished since the last call (the status line changes). */
bool NetStatus_poll(App *app);
/* "38.9M cycles, 14.6 mJ on A" for the plan shown, "cycles: mapping 5/24 layers",
 * or "" (no arch, no plan); below M_R the tiled plan costed as the opened network's,
 * as `spadmap cost` does; out gets at most n bytes. */
void NetStatus_text(App *app, char *out, size_t n);
/* "1.166k cycles, 1.19 uJ on cosa-baseline (cosa)": the text for a cost. */
void NetStatus_format(const NetCost *c, const char *arch, char *out, size_t n);
/* Lets the thread go (never waits). */
void NetStatus_free(App *app);

#endif

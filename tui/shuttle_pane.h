/* shuttle_pane: SmartShuttle and the offloading steps inside the layer view:
 * extra methods after the engine's mappers. A solve returns a result the view
 * keeps (under its lock) and draws; the steps map takes the cursor keys. */
#ifndef SPADMAP_SHUTTLE_PANE_H
#define SPADMAP_SHUTTLE_PANE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "grid.h"
#include "ilp.h"
#include "layer/layer.h"

enum { SHUTTLE_PANE_METHODS = 5 }; /* smartshuttle, steps-s1, steps-row, steps-zigzag, steps-ilp */
/* The most steps the steps map takes (2^18: each redraw replays them). */
enum { SHUTTLE_PANE_MAX_STEPS = 1 << 18 };

typedef struct ShuttlePaneResult ShuttlePaneResult;

const char *ShuttlePane_methodName(int which);
/* The patches per step the steps methods start with (the layer command's default). */
enum { SHUTTLE_PANE_GROUP_SIZE = 4 };

/* Runs method `which` on l, the steps methods with group_size patches per step
 * (may take the ILP's 10 s, reporting through progress if not NULL; stops on
 * *cancel); NULL with err filled on failure. */
ShuttlePaneResult *ShuttlePane_solve(int which, const Layer *l, int group_size, atomic_int *cancel,
                                     void (*progress)(const IlpProgress *p, void *user), void *user, char *err,
                                     int errlen);
void ShuttlePaneResult_free(ShuttlePaneResult *r);
/* true: the steps cursor moved delta steps (stopping at the ends). */
bool ShuttlePane_move(ShuttlePaneResult *r, int delta);
/* The figures the view draws: steps methods fill steps, duration and group
 * (true), SmartShuttle the MACs per DRAM access of the rule's and the oracle's
 * picks (false). */
bool ShuttlePane_figures(const ShuttlePaneResult *r, int *steps, long long *duration, int *group, double *rule_macs,
                         double *oracle_macs);
void ShuttlePane_draw(Grid *g, int x, int y, int w, int h, const ShuttlePaneResult *r);

#endif

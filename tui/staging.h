/* staging: budgets below M_R in the explorer. No plan of the network exists
 * there; its tiled network (engine/tiles: one op per tile, one tensor per row
 * piece) is opened instead, and the usual solver, validator and on-chip map show
 * the tiles being staged. A budget at or above the original M_R opens the
 * original network again. A separate path: App_resolve asks it first. */
#ifndef SPADMAP_STAGING_H
#define SPADMAP_STAGING_H

#include <stdbool.h>

#include "app.h"
#include "tiles/tiles.h"

/* Switches to the tiled network (or back) when the budget asks for it, then
 * solves; true when it did (App_resolve then has nothing left to do). */
bool Staging_apply(App *app);
/* With a worker (a terminal session) the tiling runs on a thread of its own:
 * Staging_poll finishes a done one on the UI thread (true: the screen changed),
 * Staging_cancel lets a running one go (true if there was one; the last plan
 * stays), Staging_drop lets it go silently (closing). */
bool Staging_poll(App *app);
/* The running tiling's progress as the UI last took it (Staging_poll), for the
 * status line: false when no tiling runs; pass 0 before its first figure. */
bool Staging_figure(const App *app, TilesProgress *out);
/* Figures are kept at most every STAGING_PROGRESS_MS. Tests: every (seconds;
 * < 0: the default) and a hook the tiling thread calls after keeping each
 * figure (a test holds the thread there to read the screen; NULL: none). */
enum { STAGING_PROGRESS_MS = 100 };
void Staging_testHooks(double every, void (*hook)(const TilesProgress *p, void *user), void *user);
bool Staging_cancel(App *app);
void Staging_drop(App *app);

#endif

/* offchip_view: the off-chip (DRAM) map. The shown plan's schedule, tiled for
 * its on-chip budget (engine/tiles), allocated with TAA; sub-steps across, DRAM
 * addresses up, every tile's chunks drawn as the stripes they are and freed as
 * the tile's last use passes. The cursor (a step: all its tiles' sub-steps) and
 * the selection (a tensor: its tiles and chunks light up) are the on-chip map's. */
#ifndef SPADMAP_OFFCHIP_VIEW_H
#define SPADMAP_OFFCHIP_VIEW_H

#include <stdbool.h>

#include "app.h"
#include "grid.h"

typedef struct OffchipView OffchipView;

void OffchipView_free(OffchipView *v);
/* The map (where the on-chip map goes) and its side panel. */
void OffchipView_draw(App *app, Grid *g, int x, int y, int w, int h);
void OffchipView_drawPanel(App *app, Grid *g, int x, int y, int w, int h);
/* A click: the step under it, and the tensor whose chunk is there (or none). */
bool OffchipView_click(App *app, int x, int y);
/* Tab / Shift-Tab: the tensors live in DRAM at the cursor, by base address. */
int OffchipView_selectLive(App *app, int dir);

/* The panel's figures (lessons quote them). false when there is no off-chip plan. */
typedef struct {
  int64_t taa_peak, so_peak, lower_bound; /* so_peak -1: no Shared Objects strategy ran */
  const char *so_method;
  int tiles;
} OffchipFigures;
bool OffchipView_figures(App *app, OffchipFigures *f);

/* S in the off-chip view: writes its plan (spadmap-offchip JSON, the placement
 * shown), validated first; msg gets the line to show. */
Status OffchipView_save(App *app, const char *path, char *msg, size_t n, SpError *err);

#endif

/* legend_view: the legend overlay, one per view, reached by the same key (the
 * `legend` action): the on-chip map, the off-chip map, the budget sweep, and
 * the layer view (the mappers' tile bars, SmartShuttle, the steps map). Each
 * row is a mark drawn as the view draws it and what it means. */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "layer_view.h"
#include "views.h"

typedef struct {
  uint32_t glyph;  /* 0: the row is a heading (text only, bold) */
  Role role;
  const char *text;
} LegendRow;

/* Every mark and word the map draws (map_view.c), and the words of a stay's ends that the
 * panel and find use; at 80x24 it all fits one box, so each row keeps to one line where it can. */
static const LegendRow Legend_map[] = {
  {0x2588, ROLE_TENSOR0, "a tensor's stay on chip: steps across, addresses up (one colour per tensor; "
                         "without colour, alternating solid and shaded fills)"},
  {0x2580, ROLE_TENSOR0 + 1, "and \u2584: half blocks, two address bands a cell, one block each"},
  {0x2592, ROLE_SELECT, "the selected tensor (shaded: visible without colour)"},
  {0x25BC, ROLE_SPILL, "spill: it leaves the chip after this step (copied to the host)"},
  {0x25B2, ROLE_RETRIEVE, "retrieve: it comes back from the host for this step"},
  {0x2195, ROLE_WARN, "spill row: spills and retrieves on the same step"},
  {0x00B7, ROLE_FREE, "free bytes below the column's highest block (fragmentation)"},
  {0x2502, ROLE_CURSOR, "the cursor's step; \u25B2 under the step axis marks it too"},
  {0x25C6, ROLE_PEAK, "peak: the step with most bytes resident; \u252C on the budget line"},
  {0x2500, ROLE_BUDGET, "the budget (dashed when the addresses are zoomed)"},
  {0x2026, ROLE_DIM, "text cut to fit; a long name keeps its distinctive end"},
  {0, ROLE_DEFAULT, "a stay starts: create (its op writes it), load (from DRAM), retrieve (from the host); "
                    "ends: free (read for the last time), spill, drop (evicted; the host has a copy), "
                    "store (an output, to DRAM)"},
};

static const LegendRow Legend_offchip[] = {
  {0x2588, ROLE_TENSOR0, "a tile's chunk in DRAM (off chip): sub-steps across, DRAM addresses up; one colour "
                         "per tensor, its tiles in the same colour (ASCII: # a whole tensor, = a tile)"},
  {0x2588, ROLE_SELECT, "the selected tensor's tiles (ASCII: @)"},
  {0x2500, ROLE_PEAK, "the DRAM peak: the highest address any chunk reaches"},
  {0x2502, ROLE_CURSOR, "the cursor's step: its sub-steps (bold), the mark under the step axis"},
  {0x25B2, ROLE_CURSOR, "the step the cursor is on, under the step axis"},
  {0, ROLE_DEFAULT, "below M_R the network runs tile by tile: each op's tiles are its sub-steps; TAA places "
                    "the chunks (Tile-Aware Allocation), the panel compares Shared Objects"},
  {0, ROLE_DEFAULT, "ticks (the panel's lifetimes): sub-step u reads its input tiles at tick 2u+1 and writes "
                    "its output tiles at 2u+2; tick 0 is before the first op"},
  {0x2026, ROLE_DIM, "text cut to fit; a long name keeps its distinctive end"},
};

static const LegendRow Legend_sweep[] = {
  {0x00B7, ROLE_DIM, "one fast combination (schedule/replacement/allocator) at each budget; in a narrow "
                    "list the schedule is its initial: d/ default, m/ mpmf"},
  {0x25CF, ROLE_SELECT, "the combination the cursor is on (Up/Down), its value at each budget"},
  {0x2605, ROLE_OK, "the proven ILP optimum (ilp replacement, default order) at that budget: the floor "
                    "the heuristics are measured against; not drawn where it was not proven in time"},
  {0x2502, ROLE_CURSOR, "the cursor's budget (Left/Right); the list on the right is every combination there"},
  {0, ROLE_DEFAULT, "Tab: the metric (traffic = non-compulsory bytes, spills, peak resident); "
                    "Enter opens that point's plan on the map; budgets from M_R to past M_P"},
};

static const LegendRow Legend_mapper[] = {
  {0, ROLE_DEFAULT, "tiles vs capacity: one bar per memory level, each operand's tile as a share of it"},
  {0x2588, ROLE_TENSOR0 + 0, "W: the weights' (kernels') tile"},
  {0x2588, ROLE_TENSOR0 + 1, "I: the inputs' tile"},
  {0x2588, ROLE_TENSOR0 + 2, "O: the outputs' (partial sums') tile"},
  {0x00B7, ROLE_FREE, "capacity left free; (unbounded): DRAM"},
  {0x2588, ROLE_WARN, "a level's name in this colour bounds the latency ('-bound')"},
  {0, ROLE_DEFAULT, "the loop nest: 'for' loops run in time, 'spatial_for' across the PEs; the dimensions "
                    "R S (kernel rows, columns), P Q (output rows, columns), C (input channels), "
                    "K (output channels), N (batch)"},
};

static const LegendRow Legend_steps[] = {
  {'k', ROLE_TENSOR0 + 2, "a kernel element held on chip (the kernels band)"},
  {0x2588, ROLE_TENSOR0 + 1, "an input element kept from the step before"},
  {0x25B2, ROLE_RETRIEVE, "an input element loaded from DRAM at this step"},
  {0x25BC, ROLE_SPILL, "an input element freed after this step"},
  {'o', ROLE_TENSOR0 + 4, "an output element written at this step"},
  {0x00B7, ROLE_FREE, "free on-chip space"},
  {'#', ROLE_OK, "patch grid: an output patch done in an earlier step"},
  {'@', ROLE_CURSOR, "patch grid: a patch of the cursor's step"},
  {'.', ROLE_DIM, "patch grid: a patch still to do"},
  {0, ROLE_DEFAULT, "G: patches per step (+/-); sizes and addresses in elements, durations in cycles"},
};

static const LegendRow Legend_shuttle[] = {
  {0, ROLE_DEFAULT, "SmartShuttle: each reuse scheme (which operand stays on chip) with its DRAM traffic "
                    "and MACs per DRAM access; the chosen scheme is the one with the least traffic"},
  {0, ROLE_DEFAULT, "the dimensions as in the mappers' loop nest: R S kernel, P Q output, C input "
                    "channels, K output channels, N batch"},
};

/* The box: a blank row under the title and before the units when they fit; on a short
 * screen (a lesson's pane under the explorer at 80x24) without them, and rows that do
 * not fit whole are left out and the bottom border says so (they were drawn over it). */
static void Legend_box(App *app, Grid *g, const char *title, const LegendRow *rows, int n, const char *units) {
  int w = g->w - 8 < 76 ? g->w - 8 : 76, tw, body, ul, roomy;
  for (;;) { /* short of rows: the width of the screen less a column each side, fewer lines */
    tw = w - 8, body = 0;
    for (int i = 0; i < n; i++) body += View_wrap(NULL, 0, 0, rows[i].glyph ? tw : w - 4, ROLE_DEFAULT, rows[i].text);
    ul = units ? View_wrap(NULL, 0, 0, w - 4, ROLE_DEFAULT, units) : 0;
    roomy = body + ul + (units ? 1 : 0) + 4 <= g->h; /* the blank rows fit */
    if (roomy || w >= g->w - 2) break;
    w = g->w - 2;
  }
  int h = roomy ? body + ul + (units ? 1 : 0) + 4 : body + ul + 2;
  if (h > g->h) h = g->h;
  int x0 = (g->w - w) / 2, y0 = (g->h - h) / 2, y = y0 + 1 + roomy, last = y0 + h - 2; /* the last text row */
  Grid_box(g, x0, y0, w, h);
  char head[120], lk[16];
  snprintf(head, sizeof head, " legend: %s (any key closes; %s again too) ", title,
           Key_name(Actions_keyOf("legend"), lk, sizeof lk));
  Grid_text(g, x0 + 2, y0, w - 4, ROLE_TITLE, ATTR_BOLD, head);
  bool cut = false;
  for (int i = 0; i < n && !cut; i++) {
    int k = View_wrap(NULL, 0, 0, rows[i].glyph ? tw : w - 4, ROLE_DEFAULT, rows[i].text);
    if (y + k - 1 > last) {
      cut = true;
      break;
    }
    if (!rows[i].glyph) {
      y += View_wrap(g, x0 + 2, y, w - 4, ROLE_DIM, rows[i].text);
      continue;
    }
    Grid_put(g, x0 + 3, y, Grid_glyph(g, rows[i].glyph), rows[i].role, ATTR_BOLD);
    y += View_wrap(g, x0 + 6, y, tw, ROLE_DEFAULT, rows[i].text);
  }
  y += roomy;
  if (units && !cut) {
    if (y + ul - 1 > last) cut = true;
    else View_wrap(g, x0 + 2, y, w - 4, ROLE_DIM, units);
  }
  if (cut) {
    char k[16], more[96];
    if (app->lesson) snprintf(more, sizeof more, " more than fits: %s folds the lesson's text ",
                              Key_name(Actions_keyOf("lesson_pane"), k, sizeof k));
    else snprintf(more, sizeof more, " more than fits: a taller terminal ");
    Grid_text(g, x0 + 2, y0 + h - 1, w - 4, ROLE_WARN, ATTR_BOLD, more);
  }
}

#define LEGEND(rows) rows, (int)(sizeof rows / sizeof rows[0])

void LegendView_draw(App *app, Grid *g) {
  static const char *bytes = "sizes: B bytes, K KiB, M MiB, G GiB; addresses count bytes from 0 up";
  if (LayerView_isOpen(app)) {
    const char *method = LayerView_methodShown(app);
    if (strncmp(method, "steps", 5) == 0) Legend_box(app, g, "the steps map", LEGEND(Legend_steps), NULL);
    else if (strcmp(method, "smartshuttle") == 0) Legend_box(app, g, "SmartShuttle", LEGEND(Legend_shuttle), NULL);
    else Legend_box(app, g, "the layer's mapping", LEGEND(Legend_mapper), "tiles in bytes (elements x precision)");
  } else if (app->sweep_open && app->sweep)
    Legend_box(app, g, "the budget sweep", LEGEND(Legend_sweep),
               "sizes: B bytes, K KiB (1024 B), M MiB, as the CLI prints them; the budget axis from M_R up");
  else if (app->offchip_map) Legend_box(app, g, "the off-chip map", LEGEND(Legend_offchip), bytes);
  else Legend_box(app, g, "the on-chip map", LEGEND(Legend_map), bytes);
}

/* layer_view: the selected op as one layer on an accelerator (CoSA's view):
 * the loop nest, a bar per memory level with each operand's tile against the
 * capacity, the costs; m switches the method, a the architecture, and the
 * layer is mapped again off the UI thread (its own thread: GLPK keeps its
 * environment per thread, see engine/ilp.h). */
#ifndef SPADMAP_LAYER_VIEW_H
#define SPADMAP_LAYER_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "grid.h"

/* Opens the view on the op at the cursor; ACT_* flags (a message when the op is not a layer). */
int LayerView_open(App *app);
bool LayerView_isOpen(const App *app);
int LayerView_key(App *app, int key);   /* ACT_* flags */
void LayerView_draw(App *app, Grid *g);
bool LayerView_poll(App *app);          /* a result arrived: redraw */
/* Stores a progress report as if the running solve had made it (the mappers'
 * callback, incumbent/bound NAN when unknown, gap < 0 unknown) and marks the
 * view busy: tests show the progress line at a known state through it. */
void LayerView_report(App *app, const char *stage, double inc, double bound, double gap, double el);
void LayerView_free(App *app);          /* stops a running solve */
/* The method the view shows ("cosa", "smartshuttle", "steps-row" ...), "" when closed (its legend). */
const char *LayerView_methodShown(const App *app);
/* The view's actions (tui/actions.c binds their keys; each says so when the view is closed). */
int LayerView_method(App *app, int dir); /* the next (1) or previous (-1) method */
int LayerView_arch(App *app);            /* the next architecture (mappers) */
int LayerView_cancel(App *app);
int LayerView_group(App *app, int d);    /* patches per step of Row, ZigZag and the ILP */
int LayerView_step(App *app, int delta); /* the steps map's cursor, delta steps (stops at the ends) */
/* Opens a user's architecture file (as --arch F): the view's fourth, shown now;
 * app->layer_arch keeps it for layers opened later. */
int LayerView_openArch(App *app, const char *path);
/* While on, method and architecture switches only note that a solve is wanted;
 * off starts it (lessons replay several presses of m, as a user would, without
 * mapping every method passed). */
void LayerView_defer(App *app, bool on);
/* A figure of the mapping shown, as drawn: latency, energy, dram, layer_method, arch. */
bool LayerView_figure(App *app, const char *name, char *out, size_t n);

/* What a mapping of the layer gives, from the engine's result (lessons quote
 * and compare these). */
typedef struct {
  char method[32], arch[64], op[128];
  bool mapper;                 /* cycles, energy_pj, dram_bytes */
  double cycles, energy_pj, dram_bytes;
  bool steps;                  /* nsteps, duration, group */
  int nsteps, group;
  long long duration;
  bool shuttle;                /* rule_macs, oracle_macs */
  double rule_macs, oracle_macs;
} LayerFigures;
/* The mapping shown (false while none is, or it failed). */
bool LayerView_figures(App *app, LayerFigures *f);
/* Shows method (NULL: the view's), on arch (NULL: the view's) with group patches
 * per step (0: the view's): a lesson's stage. SP_ERR_ARG naming the choices when
 * a name is not one of the view's. */
Status LayerView_set(App *app, const char *method, const char *arch, int group, SpError *err);
/* The shown layer mapped otherwise, on this thread (the view stays as it is). */
Status LayerView_mapOther(App *app, const char *method, const char *arch, int group, LayerFigures *f, SpError *err);

#endif

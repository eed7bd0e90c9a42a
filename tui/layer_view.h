/* layer_view: the selected op as one layer on an accelerator (CoSA's view):
 * the loop nest, a bar per memory level with each operand's tile against the
 * capacity, the costs; m switches the method, a the architecture, and the
 * layer is mapped again off the UI thread (its own thread: GLPK keeps its
 * environment per thread, see engine/ilp.h). */
#ifndef SPADMAP_LAYER_VIEW_H
#define SPADMAP_LAYER_VIEW_H

#include <stdbool.h>

#include "app.h"
#include "grid.h"

/* Opens the view on the op at the cursor; ACT_* flags (a message when the op is not a layer). */
int LayerView_open(App *app);
bool LayerView_isOpen(const App *app);
int LayerView_key(App *app, int key);   /* ACT_* flags */
void LayerView_draw(App *app, Grid *g);
bool LayerView_poll(App *app);          /* a result arrived: redraw */
void LayerView_free(App *app);          /* stops a running solve */
/* The method the view shows ("cosa", "smartshuttle", "steps-row" ...), "" when closed (its legend). */
const char *LayerView_methodShown(const App *app);

#endif

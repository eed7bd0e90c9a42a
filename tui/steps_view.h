/* steps_view: the offloading steps of one layer as a step x on-chip-address map
 * (kernels, input slots, the step's outputs; what each step loads and frees),
 * the patch grid (done / this step / to do) and the cursor step's numbers; and
 * shuttle_view: SmartShuttle's scheme table (IRO/ORO/WRO, the rule's and the
 * oracle's pick). Both draw into a grid region, for the layer view. */
#ifndef SPADMAP_STEPS_VIEW_H
#define SPADMAP_STEPS_VIEW_H

#include "grid.h"
#include "layer/shuttle.h"
#include "layer/steps.h"

typedef struct {
  int cursor; /* the step under the cursor (0-based) */
} StepsViewState;

/* Moves the cursor delta steps, stopping at the ends; true if it moved. The
 * keys are actions of the one table (steps_prev ... steps_last, actions.c). */
bool StepsView_move(StepsViewState *s, const StepsPlan *p, int delta);
void StepsView_draw(Grid *g, int x, int y, int w, int h, const StepsPlan *p, const StepsViewState *s);

void ShuttleView_draw(Grid *g, int x, int y, int w, int h, const Layer *l, const ShuttleOptions *o,
                      const ShuttleLayer *r);

#endif

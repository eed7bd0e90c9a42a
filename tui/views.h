/* views: each draws one part of the screen into a grid from the app's state. */
#ifndef SPADMAP_VIEWS_H
#define SPADMAP_VIEWS_H

#include "app.h"
#include "grid.h"

enum { VIEW_MIN_W = 80, VIEW_MIN_H = 24 };

/* The whole screen (layout, or "terminal too small"); remembers g in app->grid. */
void View_draw(App *app, Grid *g);

void MapView_draw(App *app, Grid *g, int x, int y, int w, int h);
void PanelView_draw(App *app, Grid *g, int x, int y, int w, int h);
void StatusView_drawTop(App *app, Grid *g, int y);
void StatusView_drawBottom(App *app, Grid *g, int y);
void HelpView_draw(App *app, Grid *g);

#endif

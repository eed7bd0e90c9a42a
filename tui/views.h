/* views: each draws one part of the screen into a grid from the app's state. */
#ifndef SPADMAP_VIEWS_H
#define SPADMAP_VIEWS_H

#include "app.h"
#include "grid.h"
#include "sweep.h"

enum { VIEW_MIN_W = 80, VIEW_MIN_H = 24 };

/* The whole screen (layout, or "terminal too small"); remembers g in app->grid. */
void View_draw(App *app, Grid *g);

void MapView_draw(App *app, Grid *g, int x, int y, int w, int h);
/* An axis label for a round address, unit always included; false if it does not fit. */
bool MapView_tickLabel(int64_t v, char *buf, int n);
/* Free bytes and the largest gap at step t of plan p, as the map shows them
 * (the lessons quote the same figures). */
void MapView_freeAt(const App *app, const Plan *p, int t, int64_t *free_bytes, int64_t *gap);
void PanelView_draw(App *app, Grid *g, int x, int y, int w, int h);
void StatusView_drawTop(App *app, Grid *g, int y);
void StatusView_drawBottom(App *app, Grid *g, int y);
void HelpView_draw(App *app, Grid *g);
/* Draws text wrapped at w columns from (x, y) (words whole where they fit); with
 * g NULL only counts. Returns the lines. */
int View_wrap(Grid *g, int x, int y, int w, Role role, const char *text);
/* Pages the help takes on this grid. */
int HelpView_pages(const Grid *g);
void LegendView_draw(App *app, Grid *g);
/* The shown plan's solver result in words ("✓ solved in 1.20 ms", "feasible (timeout), gap 12.5 %, 19.70 s"). */
void StatusView_result(const App *app, const Plan *p, bool unicode, char *out, size_t n);

/* A click at screen cell (x, y) of the last drawn screen: in the map it moves the
 * cursor to that step and selects the topmost block under the pointer (or none);
 * on a schedule row it moves the cursor to that row's step. true if anything changed. */
bool View_click(App *app, int x, int y);
/* What is under screen cell (x, y) in the last drawn map, through the map's own
 * axes (zoom and pan included): false outside it; else *step is the column's
 * (first) step and *stay the plan stay drawn topmost in that cell, -1 if none
 * (always -1 on the axis rows above and below the blocks). */
bool MapView_hit(const App *app, int x, int y, int *step, int *stay);

/* The file picker (picker.c): *.json files of the network's directory and the
 * bundled networks; type to filter, Up/Down/PgUp/PgDn, Enter opens, Esc closes. */
void Picker_open(App *app);
void Picker_close(App *app);
int Picker_key(App *app, int key); /* ACT_* flags */
void PickerView_draw(App *app, Grid *g);

/* The policy menu (menu.c): every policy of each kind, searching ones included;
 * Left/Right pick the kind, Up/Down the policy, Enter applies and re-solves. */
void Menu_open(App *app);
int Menu_key(App *app, int key); /* ACT_* flags */
void MenuView_draw(App *app, Grid *g);

/* The budget sweep (sweep_view.c): opened by its action, drawn over the map. */
int SweepView_openKey(App *app);
int SweepView_key(App *app, int key); /* ACT_* flags */
void SweepView_draw(App *app, Grid *g, int x, int y, int w, int h);
bool SweepView_poll(App *app);        /* true when new points arrived */
void SweepView_close(App *app);       /* lets its thread go (never waits), frees what it can */
/* What the UI has of the sweep so far; a point (combo -1: the proven ILP point). */
void SweepView_progress(const App *app, int *done, int *total, int *ilp_tried, int *ncombos, int *nbudgets);
bool SweepView_point(const App *app, int combo, int budget, SweepPoint *out);

#endif

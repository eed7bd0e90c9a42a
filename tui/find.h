/* find: moving around a plan by meaning: a search over tensor and op names, a
 * step number, the peak, the spill events one by one (several on one step
 * included), and the selected tensor's own events. Each sets the cursor (and
 * the selection), says where it went, and returns ACT_* flags. */
#ifndef SPADMAP_FIND_H
#define SPADMAP_FIND_H

#include "app.h"

/* Searches app->search (substring, case-insensitive) from the match after the
 * current one (dir 1) or before it (dir -1); the first search starts at the cursor. */
int Find_search(App *app, int dir);
int Find_goto(App *app, const char *text);
int Find_peak(App *app);
int Find_spill(App *app, int dir);
int Find_tensorEvent(App *app, int dir);

/* Where two plans of one network first part: the step (-1: the same step for
 * step), the tensor concerned (-1: the op order), and what differs, in words
 * naming a's and b's figures (a: "here", b: "pinned"). A stay present in one
 * plan only parts them at its start; the same stay (tensor, start, how it came)
 * at another address at its start; leaving at another step at the earlier end. */
typedef struct {
  int step, tensor;
  char what[200];
} FindDiff;
void Find_planDiff(const Net *net, const Plan *a, const Plan *b, FindDiff *d);
/* The cursor to the first step where the current and the pinned plan differ (d). */
int Find_firstDifference(App *app);

/* The spill events of a plan: stay indices sorted by step, then by address. */
int Find_spillEvents(const Plan *p, int **out);

#endif

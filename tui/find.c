#include "find.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"

static bool Find_has(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = hay; *p; p++) {
    size_t i = 0;
    while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return n == 0;
}

/* A match: an op at its step, or a tensor at the first step it is on chip. */
typedef struct {
  int step, tensor, op; /* one of tensor / op is -1 */
} FindMatch;

static int Find_byStep(const void *a, const void *b) {
  const FindMatch *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  if ((x->op >= 0) != (y->op >= 0)) return x->op >= 0 ? -1 : 1; /* the op, then what it touches */
  return x->op >= 0 ? x->op - y->op : x->tensor - y->tensor;
}

static int Find_matches(const App *app, const Plan *p, FindMatch **out) {
  const Net *net = app->net;
  FindMatch *m = malloc(sizeof *m * (size_t)(net->nops + net->ntensors + 1));
  int *step_of = malloc(sizeof(int) * (size_t)(net->nops + 1)), n = 0;
  if (!m || !step_of) {
    free(m);
    free(step_of);
    return -1;
  }
  for (int s = 0; s < p->nsteps; s++) step_of[p->order[s]] = s;
  for (int o = 0; o < net->nops; o++)
    if (Find_has(net->ops[o].name, app->search)) m[n++] = (FindMatch){step_of[o], -1, o};
  for (int t = 0; t < net->ntensors; t++) {
    if (!Find_has(net->tensors[t].name, app->search)) continue;
    int first = -1;
    for (int i = 0; i < p->nstays; i++)
      if (p->stays[i].tensor == t && (first < 0 || p->stays[i].start < first)) first = p->stays[i].start;
    if (first < 0 && net->tensors[t].producer >= 0) first = step_of[net->tensors[t].producer];
    if (first < 0) /* never on chip (a param): where it is first read */
      for (int c = 0; c < net->tensors[t].nconsumers; c++) {
        int s = step_of[net->tensors[t].consumers[c]];
        if (first < 0 || s < first) first = s;
      }
    if (first < 0) first = 0;
    m[n++] = (FindMatch){first, t, -1};
  }
  free(step_of);
  qsort(m, (size_t)n, sizeof *m, Find_byStep);
  *out = m;
  return n;
}

int Find_search(App *app, int dir) {
  const Plan *p = App_shownPlan(app);
  if (!app->search[0]) {
    App_setMessage(app, false, "no search yet: / searches tensor and op names");
    return ACT_REDRAW;
  }
  if (!p) return 0;
  FindMatch *m;
  int n = Find_matches(app, p, &m);
  if (n <= 0) {
    if (n == 0) free(m);
    App_setMessage(app, true, "no tensor or op name contains \"%s\"", app->search);
    return ACT_REDRAW;
  }
  /* where we are: the match at the cursor that is selected (a tensor) or the op there */
  int at = -1;
  for (int i = 0; i < n && at < 0; i++)
    if (m[i].step == app->cursor && (m[i].tensor >= 0 ? m[i].tensor == app->selected : app->selected < 0)) at = i;
  int k;
  if (at >= 0) k = (at + dir + n) % n;
  else if (dir > 0) { /* the first match at or after the cursor */
    k = 0;
    while (k < n && m[k].step < app->cursor) k++;
    if (k == n) k = 0;
  } else {
    k = n - 1;
    while (k >= 0 && m[k].step > app->cursor) k--;
    if (k < 0) k = n - 1;
  }
  app->cursor = m[k].step;
  app->selected = m[k].tensor;
  App_clampView(app);
  App_setMessage(app, false, "\"%s\" %d/%d: %s %s at step %d", app->search, k + 1, n, m[k].op >= 0 ? "op" : "tensor",
                 m[k].op >= 0 ? app->net->ops[m[k].op].name : app->net->tensors[m[k].tensor].name, m[k].step);
  free(m);
  return ACT_REDRAW;
}

int Find_goto(App *app, const char *text) {
  const Plan *p = App_shownPlan(app);
  char *end;
  long s = strtol(text, &end, 10);
  int n = p ? p->nsteps : app->net->nops;
  while (*end == ' ') end++;
  if (end == text || *end || s < 0 || s >= n) {
    App_setMessage(app, true, "go to step: expected a step number from 0 to %d (got \"%s\")", n - 1, text);
    return ACT_REDRAW;
  }
  app->cursor = (int)s;
  App_clampView(app);
  app->message[0] = '\0';
  return ACT_REDRAW;
}

int Find_peak(App *app) {
  const Plan *p = App_shownPlan(app);
  if (!p) return 0;
  app->cursor = App_shownSteps(app)->peak_step;
  App_clampView(app);
  char b[16];
  App_setMessage(app, false, "the peak: %s resident at step %d", App_bytes(p->metrics.peak_bytes, b, sizeof b),
                 app->cursor);
  return ACT_REDRAW;
}

static const Plan *Find_sortPlan;
static int Find_byEvent(const void *a, const void *b) {
  const Stay *x = &Find_sortPlan->stays[*(const int *)a], *y = &Find_sortPlan->stays[*(const int *)b];
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return *(const int *)a - *(const int *)b;
}

int Find_spillEvents(const Plan *p, int **out) {
  int *ev = malloc(sizeof(int) * (size_t)(p->nstays + 1)), n = 0;
  if (!ev) return -1;
  for (int i = 0; i < p->nstays; i++)
    if (p->stays[i].out == STAY_SPILL) ev[n++] = i;
  Find_sortPlan = p; /* the UI thread only */
  qsort(ev, (size_t)n, sizeof(int), Find_byEvent);
  *out = ev;
  return n;
}

int Find_spill(App *app, int dir) {
  const Plan *p = App_shownPlan(app);
  if (!p) return 0;
  int *ev, n = Find_spillEvents(p, &ev);
  if (n < 0) return 0;
  int at = -1; /* the event the cursor and selection are on */
  for (int i = 0; i < n && at < 0; i++)
    if (p->stays[ev[i]].end == app->cursor && p->stays[ev[i]].tensor == app->selected) at = i;
  int k = -1;
  if (at >= 0) k = at + dir;
  else if (dir > 0) { /* the cursor's own step counts: a spill at step 0 is reachable */
    for (k = 0; k < n && p->stays[ev[k]].end < app->cursor; k++) {}
  } else {
    for (k = n - 1; k >= 0 && p->stays[ev[k]].end > app->cursor; k--) {}
  }
  if (k < 0 || k >= n) {
    App_setMessage(app, false, n ? "no spill %s this one (%d in all)" : "this plan spills nothing",
                   dir > 0 ? "after" : "before", n);
    free(ev);
    return ACT_REDRAW;
  }
  const Stay *s = &p->stays[ev[k]];
  app->cursor = s->end;
  app->selected = s->tensor;
  App_clampView(app);
  char b[16];
  App_setMessage(app, false, "spill %d/%d: %s (%s) leaves after step %d", k + 1, n, app->net->tensors[s->tensor].name,
                 App_bytes(app->net->tensors[s->tensor].bytes, b, sizeof b), s->end);
  free(ev);
  return ACT_REDRAW;
}

/* The selected tensor's events: each stay's start (created, loaded, retrieved)
 * and end (spilled, stored, dropped, freed), and each step that reads it. */
int Find_tensorEvent(App *app, int dir) {
  const Plan *p = App_shownPlan(app);
  int t = app->selected;
  if (!p || t < 0) {
    App_setMessage(app, false, "select a tensor first (Tab, a click, / or x)");
    return ACT_REDRAW;
  }
  int best = -1;
  const char *what = "";
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    if (s->tensor != t) continue;
    int cand[2] = {s->start, s->end};
    const char *names[2] = {StayIn_name(s->in), StayOut_name(s->out)};
    for (int j = 0; j < 2; j++) {
      int c = cand[j];
      if ((dir > 0 && c > app->cursor && (best < 0 || c < best)) || (dir < 0 && c < app->cursor && c > best))
        best = c, what = names[j];
    }
  }
  for (int s = 0; s < p->nsteps; s++) {
    const Op *o = &app->net->ops[p->order[s]];
    bool reads = false;
    for (int i = 0; i < o->ninputs; i++) reads |= o->inputs[i] == t;
    if (reads && ((dir > 0 && s > app->cursor && (best < 0 || s < best)) || (dir < 0 && s < app->cursor && s > best)))
      best = s, what = "read";
  }
  if (best < 0) {
    App_setMessage(app, false, "%s has no event %s step %d", app->net->tensors[t].name, dir > 0 ? "after" : "before",
                   app->cursor);
    return ACT_REDRAW;
  }
  app->cursor = best;
  App_clampView(app);
  App_setMessage(app, false, "%s: %s at step %d", app->net->tensors[t].name, what, best);
  return ACT_REDRAW;
}

/* A plan's stays sorted by (tensor, start, how it came), to match the other plan's stays in
 * log time (a scan per stay made d quadratic: seconds on plans of tens of thousands of stays). */
typedef struct {
  int tensor, start, in, index;
} StayKey;

static int StayKey_cmp(const void *x, const void *y) {
  const StayKey *a = x, *b = y;
  if (a->tensor != b->tensor) return a->tensor < b->tensor ? -1 : 1;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return (a->in > b->in) - (a->in < b->in);
}

static StayKey *Find_keys(const Plan *p) {
  StayKey *k = malloc(sizeof *k * ((size_t)p->nstays + 1));
  if (!k) return NULL;
  for (int i = 0; i < p->nstays; i++)
    k[i] = (StayKey){p->stays[i].tensor, p->stays[i].start, (int)p->stays[i].in, i};
  qsort(k, (size_t)p->nstays, sizeof *k, StayKey_cmp);
  return k;
}

/* The stay of b matching s (tensor, start, how it came), or NULL; keys: b's, sorted. */
static const Stay *Find_match(const Plan *b, const StayKey *keys, const Stay *s) {
  StayKey want = {s->tensor, s->start, (int)s->in, 0};
  const StayKey *k = bsearch(&want, keys, (size_t)b->nstays, sizeof *keys, StayKey_cmp);
  return k ? &b->stays[k->index] : NULL;
}

/* The earliest step where a stay of x is not the same in y; *who the stay, *other its match;
 * -2: out of memory. */
static int Find_firstUnlike(const Plan *x, const Plan *y, const Stay **who, const Stay **other) {
  StayKey *keys = Find_keys(y);
  if (!keys) return -2;
  int best = -1;
  for (int i = 0; i < x->nstays; i++) {
    const Stay *s = &x->stays[i], *o = Find_match(y, keys, s);
    int at = !o ? s->start : o->offset != s->offset ? s->start : (o->end != s->end || o->out != s->out) ? (o->end < s->end ? o->end : s->end) : -1;
    if (at >= 0 && (best < 0 || at < best)) best = at, *who = s, *other = o;
  }
  free(keys);
  return best;
}

void Find_planDiff(const Net *net, const Plan *a, const Plan *b, FindDiff *d) {
  d->step = -1, d->tensor = -1, d->what[0] = '\0';
  int n = a->nsteps < b->nsteps ? a->nsteps : b->nsteps;
  int order = -1;
  for (int t = 0; t < n && order < 0; t++)
    if (a->order[t] != b->order[t]) order = t;
  const Stay *sa = NULL, *oa = NULL, *sb = NULL, *ob = NULL;
  int at = Find_firstUnlike(a, b, &sa, &oa), bt = Find_firstUnlike(b, a, &sb, &ob);
  if (at == -2 || bt == -2) {
    snprintf(d->what, sizeof d->what, "out of memory comparing the plans");
    return;
  }
  int step = order;
  if (at >= 0 && (step < 0 || at < step)) step = at;
  if (bt >= 0 && (step < 0 || bt < step)) step = bt;
  if (step < 0) return;
  d->step = step;
  char b1[16], b2[16];
  if (step == order) {
    snprintf(d->what, sizeof d->what, "step %d runs %s here, %s pinned", step, net->ops[a->order[step]].name,
             net->ops[b->order[step]].name);
    return;
  }
  bool here = step == at; /* the stay of the current plan, else the pinned one's */
  const Stay *s = here ? sa : sb, *o = here ? oa : ob;
  const char *name = net->tensors[s->tensor].name;
  d->tensor = s->tensor;
  if (!o)
    snprintf(d->what, sizeof d->what, "%s: %s at step %d %s only", name,
             s->in == STAY_RETRIEVE ? "retrieved" : s->in == STAY_LOAD ? "loaded" : "placed", step,
             here ? "here" : "in the pinned plan");
  else if (o->offset != s->offset)
    snprintf(d->what, sizeof d->what, "%s: at %s here, at %s pinned", name,
             App_bytes(here ? s->offset : o->offset, b1, sizeof b1), App_bytes(here ? o->offset : s->offset, b2, sizeof b2));
  else {
    const Stay *x = here ? s : o, *y = here ? o : s; /* x the current plan's, y the pinned one's */
    snprintf(d->what, sizeof d->what, "%s: %s after step %d here, %s after step %d pinned", name, StayOut_name(x->out),
             x->end, StayOut_name(y->out), y->end);
  }
}

int Find_firstDifference(App *app) {
  if (!app->pinned || !app->plan) {
    App_setMessage(app, false, "pin a plan first (c), then change a setting: d finds where the two part");
    return ACT_REDRAW;
  }
  if (app->pinned == app->plan || app->pinned->nsteps != app->plan->nsteps) {
    App_setMessage(app, false, app->pinned == app->plan ? "the pinned plan is the one shown: change a setting first"
                                                          : "the pinned plan has another number of steps");
    return ACT_REDRAW;
  }
  FindDiff d;
  Find_planDiff(app->net, app->plan, app->pinned, &d);
  if (d.step < 0) {
    App_setMessage(app, false, "%s", d.what[0] ? d.what : "the two plans are the same, step for step");
    return ACT_REDRAW;
  }
  app->cursor = d.step;
  if (d.tensor >= 0) app->selected = d.tensor;
  App_clampView(app);
  App_setMessage(app, false, "the plans part at step %d: %s", d.step, d.what);
  return ACT_REDRAW;
}

/* sweep_view: the budget sweep (engine/sweep.c) as a chart over the map:
 * budget across (M_R to past M_P), traffic (or spills, or peak) up, one dot per
 * fast policy combination, the selected combination joined and listed beside
 * with its value at the cursor's budget. The points fill in on a thread of
 * their own (a heuristic solve is about a millisecond); then the same thread
 * proves the ILP optimum (the `ilp` replacement on the default order) budget by
 * budget, and each proven point joins the chart. Enter opens the plan of the
 * point under the cursor. Closing never waits: a thread inside a model build
 * is left to finish and frees the view itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "solve.h"
#include "sweep.h"
#include "views.h"
#include "words.h"

struct SweepView {
  Sweep *work;            /* filled by the thread */
  SweepPoint *staged;     /* its points as of the last progress report, under mu */
  Sweep *shown;           /* the UI's copy */
  int done, total;        /* points done (under mu for the thread's side) */
  int shown_done;         /* done as of the UI's copy */
  int ilp_shown;          /* ilp_tried as of the UI's copy */
  bool params;
  bool below;             /* from M_R/16: the budgets below M_R on their tiled networks (key b) */
  atomic_int cancel;
  pthread_t thread;
  bool threaded;
  pthread_mutex_t mu;
  SharedNet *net;         /* the thread's reference */
  const Net *rawnet;
  SweepOptions opt;
  int combo, budget, metric; /* the cursor: a combination, a budget, what is drawn */
  SweepPoint *ilp, *ilp_staged; /* the proven ILP points per budget (done: tried; status SP_OK: proven) */
  int ilp_tried;          /* budgets tried so far (under mu) */
  bool ilp_skipped;       /* a snapshot of a network too big to prove each budget in */
  bool closed, finished;  /* under mu: the UI let go / the thread is done */
};

enum { SWEEP_ILP_SECONDS = 5 };
/* Snapshots prove the ILP points too (synchronously, so the picture has them)
 * on networks this small, where each budget is proven in well under a second. */
enum { SWEEP_SNAPSHOT_ILP_OPS = 64 };

static const char *const Sweep_metrics[] = {"traffic (non-compulsory bytes)", "spills", "peak resident"};

static int64_t Sweep_value(const SweepPoint *p, int metric) {
  return metric == 0 ? p->traffic : metric == 1 ? p->spills : p->peak;
}

static void Sweep_progress(int done, int total, void *user) {
  SweepView *v = user;
  pthread_mutex_lock(&v->mu);
  memcpy(v->staged, v->work->points, sizeof *v->staged * (size_t)total);
  v->done = done;
  pthread_mutex_unlock(&v->mu);
}

static void SweepView_release(SweepView *v);

/* The ILP optimum for the default order at each budget, proven or not tried further. */
static void Sweep_ilp(SweepView *v) {
  for (int b = 0; b < v->work->nbudgets && !atomic_load(&v->cancel); b++) {
    if (v->work->budgets[b] < v->work->m_r) { /* no plan of the network itself below M_R: nothing to prove */
      pthread_mutex_lock(&v->mu);
      v->ilp_staged[b] = (SweepPoint){.done = true, .status = SP_ERR_INFEASIBLE};
      v->ilp_tried = b + 1;
      pthread_mutex_unlock(&v->mu);
      continue;
    }
    SolveSettings s;
    SolveSettings_init(&s);
    s.params = v->params;
    s.budget = v->work->budgets[b];
    s.replacement = "ilp";
    s.time_limit = SWEEP_ILP_SECONDS;
    s.cancel = &v->cancel;
    Plan *p = NULL;
    SpError err;
    SweepPoint pt = {.done = true};
    pt.status = Solve_run(v->rawnet, &s, &p, &err);
    if (!pt.status && p->solver.status != SOLVER_OPTIMAL) pt.status = SP_ERR_LIMIT; /* not proven: not drawn */
    if (p) pt.traffic = p->metrics.noncompulsory_bytes, pt.spills = p->metrics.spills, pt.peak = p->metrics.peak_bytes;
    Plan_free(p);
    pthread_mutex_lock(&v->mu);
    v->ilp_staged[b] = pt;
    v->ilp_tried = b + 1;
    pthread_mutex_unlock(&v->mu);
  }
}

static void *Sweep_thread(void *arg) {
  SweepView *v = arg;
  SpError err;
  if (!Sweep_fill(v->rawnet, &v->opt, v->work, &err)) Sweep_ilp(v);
  pthread_mutex_lock(&v->mu);
  v->finished = true;
  bool closed = v->closed;
  pthread_mutex_unlock(&v->mu);
  if (closed) SweepView_release(v); /* the UI let go while it ran: the last holder frees */
  return NULL;
}

static void SweepView_free(SweepView *v) {
  if (!v) return;
  if (v->threaded) {
    atomic_store(&v->cancel, 1); /* heuristic solves stop between points; a model build may not listen */
    pthread_mutex_lock(&v->mu);
    v->closed = true;
    bool finished = v->finished;
    if (!finished) pthread_detach(v->thread);
    pthread_mutex_unlock(&v->mu);
    if (!finished) return; /* the thread frees it when it ends */
    pthread_join(v->thread, NULL);
  }
  SweepView_release(v);
}

static void SweepView_release(SweepView *v) {
  SharedNet_release(v->net);
  pthread_mutex_destroy(&v->mu);
  Sweep_free(v->work);
  Sweep_free(v->shown);
  free(v->staged);
  free(v->ilp);
  free(v->ilp_staged);
  free(v);
}

void SweepView_close(App *app) {
  SweepView_free(app->sweep);
  app->sweep = NULL;
  app->sweep_open = false;
}

/* Copies the thread's progress into the shown sweep; true if anything new. */
bool SweepView_poll(App *app) {
  SweepView *v = app->sweep;
  if (!v || !v->threaded) return false;
  pthread_mutex_lock(&v->mu);
  bool changed = v->done != v->shown_done || v->ilp_tried != v->ilp_shown;
  if (changed) {
    memcpy(v->shown->points, v->staged, sizeof *v->staged * (size_t)v->total);
    memcpy(v->ilp, v->ilp_staged, sizeof *v->ilp * (size_t)v->shown->nbudgets);
  }
  v->shown_done = v->done;
  v->ilp_shown = v->ilp_tried;
  pthread_mutex_unlock(&v->mu);
  return changed;
}

static int Sweep_open(App *app, bool below) {
  if (app->sweep && app->sweep->params == app->set.params && app->sweep->below == below) {
    app->sweep_open = true;
    return ACT_REDRAW;
  }
  SweepView_close(app);
  if (!App_figuresReady(app)) {
    App_setMessage(app, false, "computing figures... the sweep needs M_P: press it again in a moment");
    return ACT_REDRAW;
  }
  SweepView *v = calloc(1, sizeof *v);
  if (!v) return 0;
  pthread_mutex_init(&v->mu, NULL);
  atomic_init(&v->cancel, 0);
  v->params = app->set.params;
  v->below = below;
  v->rawnet = app->net;
  SweepOptions_init(&v->opt);
  v->opt.params = v->params;
  if (below) v->opt.from = (App_figures(app)->m_r + 8) / 16; /* M_R/16 (rounded), as the CLI's --from M_R/16 */
  v->opt.cancel = &v->cancel;
  SpError err;
  if (Sweep_new(app->net, App_figures(app), &v->opt, &v->work, &err) ||
      Sweep_new(app->net, App_figures(app), &v->opt, &v->shown, &err)) {
    App_setMessage(app, true, "sweep: %s", err.text);
    SweepView_free(v);
    return ACT_REDRAW;
  }
  v->total = v->work->ncombos * v->work->nbudgets;
  v->staged = calloc((size_t)v->total, sizeof *v->staged);
  v->ilp = calloc((size_t)v->work->nbudgets, sizeof *v->ilp);
  v->ilp_staged = calloc((size_t)v->work->nbudgets, sizeof *v->ilp_staged);
  /* the cursor on the current settings' combination and the budget nearest */
  for (int k = 0; k < v->work->ncombos; k++) {
    const SweepCombo *c = &v->work->combos[k];
    if (strcmp(c->schedule, App_policy(POLICY_SCHEDULE, app->set.sched)->name) == 0 &&
        (strcmp(c->replacement, "-") == 0 ||
         (strcmp(c->replacement, App_policy(POLICY_REPLACEMENT, app->set.repl)->name) == 0 &&
          strcmp(c->allocator, App_policy(POLICY_ALLOCATOR, app->set.alloc)->name) == 0)))
      v->combo = k;
  }
  for (int b = 0; b < v->work->nbudgets; b++)
    if (v->work->budgets[b] <= app->set.budget) v->budget = b;
  app->sweep = v;
  app->sweep_open = true;
  if (!v->staged || !v->ilp || !v->ilp_staged) {
    SweepView_close(app);
    return 0;
  }
  if (app->worker && app->shared) { /* a terminal session: fill in on a thread */
    v->net = app->shared;
    SharedNet_retain(v->net);
    v->opt.progress = Sweep_progress;
    v->opt.user = v;
    if (pthread_create(&v->thread, NULL, Sweep_thread, v) == 0) {
      v->threaded = true;
      return ACT_REDRAW;
    }
    SharedNet_release(v->net);
    v->net = NULL;
  }
  Sweep_fill(app->net, &v->opt, v->shown, &err); /* snapshots: here, deterministically */
  v->done = v->total;
  if (app->net->nops <= SWEEP_SNAPSHOT_ILP_OPS) { /* the proven optima too: a picture without them misleads */
    Sweep_ilp(v);
    memcpy(v->ilp, v->ilp_staged, sizeof *v->ilp * (size_t)v->shown->nbudgets);
    v->ilp_shown = v->ilp_tried;
  } else
    v->ilp_skipped = true;
  return ACT_REDRAW;
}

int SweepView_openKey(App *app) { return Sweep_open(app, app->sweep ? app->sweep->below : false); }

int SweepView_key(App *app, int key) {
  SweepView *v = app->sweep;
  Sweep *sw = v->shown;
  if (app->legend) { /* any key closes it, as over the map; the quit key still quits */
    app->legend = false;
    return key == Actions_keyOf("quit") ? ACT_QUIT : ACT_REDRAW;
  }
  if (key == Actions_keyOf("legend")) { /* the sweep's own legend (legend_view.c) */
    app->legend = true;
    return ACT_REDRAW;
  }
  if (key == Actions_keyOf("help")) {
    app->help = true;
    app->help_page = 0;
    return ACT_REDRAW;
  }
  switch (key) {
  case K_ESC: app->sweep_open = false; return ACT_REDRAW;
  case K_LEFT: v->budget = v->budget > 0 ? v->budget - 1 : 0; return ACT_REDRAW;
  case K_RIGHT: v->budget = v->budget + 1 < sw->nbudgets ? v->budget + 1 : v->budget; return ACT_REDRAW;
  case K_UP: v->combo = (v->combo + sw->ncombos - 1) % sw->ncombos; return ACT_REDRAW;
  case K_DOWN: v->combo = (v->combo + 1) % sw->ncombos; return ACT_REDRAW;
  case K_HOME: v->budget = 0; return ACT_REDRAW;
  case K_END: v->budget = sw->nbudgets - 1; return ACT_REDRAW;
  case K_TAB: v->metric = (v->metric + 1) % 3; return ACT_REDRAW;
  case 'b': { /* below M_R and back: a new sweep (the budgets differ), the cursor's combination kept */
    int combo = v->combo, metric = v->metric;
    bool below = !v->below;
    int r = Sweep_open(app, below);
    if (app->sweep && app->sweep->below == below) {
      app->sweep->combo = combo < app->sweep->shown->ncombos ? combo : 0;
      app->sweep->metric = metric;
      App_setMessage(app, false, below ? "the sweep from M_R/16: below M_R each budget's tiled network"
                                       : "the sweep from M_R");
    }
    return r;
  }
  case K_ENTER:
  case '\r': { /* that point's plan, on the map */
    const SweepCombo *c = &sw->combos[v->combo];
    for (int i = 0; i < App_policyCount(POLICY_SCHEDULE); i++)
      if (strcmp(App_policy(POLICY_SCHEDULE, i)->name, c->schedule) == 0) app->set.sched = i;
    for (int i = 0; i < App_policyCount(POLICY_REPLACEMENT); i++)
      if (strcmp(App_policy(POLICY_REPLACEMENT, i)->name, c->replacement) == 0) app->set.repl = i;
    for (int i = 0; i < App_policyCount(POLICY_ALLOCATOR); i++)
      if (strcmp(App_policy(POLICY_ALLOCATOR, i)->name, c->allocator) == 0) app->set.alloc = i;
    app->set.budget = sw->budgets[v->budget];
    app->set.preset = sw->budgets[v->budget] == sw->m_r ? 'R' : 0; /* below M_R: the tiled network (staging.c) */
    app->sweep_open = false;
    char b[16];
    App_setMessage(app, false, "from the sweep: %s/%s/%s at %s", c->schedule, c->replacement, c->allocator,
                   App_bytes(app->set.budget, b, sizeof b));
    return ACT_REDRAW | ACT_RESOLVE;
  }
  default:
    if (key == Actions_keyOf("quit")) return ACT_QUIT;
    if (key == Actions_keyOf("sweep")) app->sweep_open = false;
    else if (key != K_RESIZE) {
      char kn[16], hk[16];
      App_setMessage(app, false, "no action on %s in the sweep (%s for help)", Key_name(key, kn, sizeof kn),
                     Key_name(Actions_keyOf("help"), hk, sizeof hk));
    }
    return ACT_REDRAW;
  }
}

void SweepView_draw(App *app, Grid *g, int x, int y, int w, int h) {
  SweepView *v = app->sweep;
  Sweep *sw = v->shown;
  Grid_fill(g, x, y, w, h, ' ', ROLE_DEFAULT, 0);
  int lw = 40 < w / 3 ? 40 : w / 3, cw = w - lw - 1; /* chart | list */
  char b1[16], b2[16];
  int n = Grid_printf(g, x, y, cw, ROLE_TITLE, ATTR_BOLD, "budget sweep: %s%s", Sweep_metrics[v->metric],
                      v->below ? ", from M_R/16 (tiled below M_R)" : "");
  int done = v->threaded ? v->shown_done : v->done;
  if (done < v->total) Grid_printf(g, x + n + 2, y, cw - n - 2, ROLE_DIM, 0, "%d/%d points", done, v->total);
  /* the value range over the points done */
  int64_t top = 0;
  for (int i = 0; i < sw->ncombos * sw->nbudgets; i++)
    if (sw->points[i].done && !sw->points[i].status && Sweep_value(&sw->points[i], v->metric) > top)
      top = Sweep_value(&sw->points[i], v->metric);
  if (top <= 0) top = 1;
  int px = x + 8, pw = cw - 9, ph = h - 6, py = y + 2; /* plot area */
  if (pw < sw->nbudgets || ph < 3) {
    Grid_text(g, x, y + 2, cw, ROLE_DIM, 0, "(too small for the chart)");
    return;
  }
#define SWEEP_X(bi) (px + (int)((int64_t)(bi) * (pw - 1) / (sw->nbudgets - 1)))
  for (int r = 0; r < ph; r += 4) { /* value labels */
    int64_t val = (int64_t)((double)top * (ph - 1 - r) / (ph - 1) + 0.5);
    if (v->metric == 1) snprintf(b1, sizeof b1, "%lld", (long long)val);
    else App_bytes(val, b1, sizeof b1);
    Grid_printf(g, x, py + r, 7, ROLE_AXIS, 0, "%7s", b1);
  }
  Grid_fill(g, px, py + ph, pw, 1, 0x2500, ROLE_AXIS, 0);
  int last_end = -1;
  for (int bi = 0; bi < sw->nbudgets; bi++) { /* budget labels where they fit */
    int lx = SWEEP_X(bi), len = (int)strlen(App_bytes(sw->budgets[bi], b1, sizeof b1));
    if (lx <= last_end + 1 || lx + len > x + cw) continue; /* whole, left of the list's divider */
    Grid_put(g, lx, py + ph, 0x2534, ROLE_AXIS, 0);
    Grid_text(g, lx, py + ph + 1, len, ROLE_AXIS, 0, b1);
    last_end = lx + len;
  }
  Grid_text(g, x, py + ph + 1, 7, ROLE_AXIS, 0, "budget");
  /* every combination as dim dots, then the selected one on top */
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < sw->ncombos; k++) {
      if ((pass == 1) != (k == v->combo)) continue;
      for (int bi = 0; bi < sw->nbudgets; bi++) {
        const SweepPoint *p = Sweep_at(sw, k, bi);
        if (!p->done || p->status) continue;
        int r = ph - 1 - (int)((double)Sweep_value(p, v->metric) * (ph - 1) / (double)top + 0.5);
        int cx = SWEEP_X(bi);
        bool cur = pass == 1 && bi == v->budget;
        Grid_put(g, cx, py + r, pass ? (g->unicode ? 0x25CF : 'o') : Grid_glyph(g, 0x00B7),
                 pass ? ROLE_SELECT : ROLE_DIM, cur ? ATTR_REVERSE | ATTR_BOLD : pass ? ATTR_BOLD : 0);
      }
    }
  for (int bi = 0; bi < sw->nbudgets; bi++) { /* proven ILP optima: the floor the heuristics are measured against */
    const SweepPoint *p = &v->ilp[bi];
    if (!p->done || p->status) continue;
    int r = ph - 1 - (int)((double)Sweep_value(p, v->metric) * (ph - 1) / (double)top + 0.5);
    Grid_put(g, SWEEP_X(bi), py + r, g->unicode ? 0x2605 : '*', ROLE_OK, ATTR_BOLD);
  }
  int ccx = SWEEP_X(v->budget);
  for (int r = 0; r < ph; r++) {
    Cell *c = Grid_at(g, ccx, py + r);
    if (c && c->ch == ' ') *c = (Cell){Grid_glyph(g, 0x2502), ROLE_CURSOR, ROLE_DEFAULT, 0};
  }
  char hint[160], lk[16], hk[16];
  snprintf(hint, sizeof hint, "Left/Right budget  Up/Down combination  Tab metric  Enter open  %s legend  %s help  Esc close",
           Key_name(Actions_keyOf("legend"), lk, sizeof lk), Key_name(Actions_keyOf("help"), hk, sizeof hk));
  if ((int)strlen(hint) > cw) /* the short form before a cut one */
    snprintf(hint, sizeof hint, "</> budget  ^/v combination  Tab metric  Enter open  %s legend  Esc", lk);
  Grid_text(g, x, y + h - 2, cw, ROLE_DIM, 0, hint);
  if (v->ilp_skipped)
    Grid_printf(g, x, y + h - 1, cw, ROLE_DIM, 0, "%s ILP optimum: not proven in snapshots of networks over %d ops",
                g->unicode ? "\u2605" : "*", SWEEP_SNAPSHOT_ILP_OPS);
  else if (v->threaded || v->ilp_shown > 0) {
    const SweepPoint *ip = &v->ilp[v->budget];
    char iv[80];
    if (!ip->done) snprintf(iv, sizeof iv, "%s", v->ilp_shown < sw->nbudgets && done == v->total ? "proving..." : "-");
    else if (sw->budgets[v->budget] < sw->m_r) snprintf(iv, sizeof iv, "none below M_R (the tiles' points are heuristic)");
    else if (ip->status) { /* the explorer's words (words.c) */
      char l[24];
      snprintf(iv, sizeof iv, "not proven (time limit %s)", Words_seconds(SWEEP_ILP_SECONDS, l, sizeof l));
    }
    else if (v->metric == 1) snprintf(iv, sizeof iv, "%d", ip->spills);
    else App_bytes(Sweep_value(ip, v->metric), iv, sizeof iv);
    Grid_printf(g, x, y + h - 1, cw, ROLE_OK, 0, "%s ILP optimum, default order, at this budget: %s",
                g->unicode ? "\u2605" : "*", iv);
  }
  /* the list: every combination's value at the cursor's budget */
  int lx = x + cw + 1;
  for (int r = y; r < y + h; r++) Grid_put(g, lx - 1, r, 0x2502, ROLE_DIM, 0);
  Grid_printf(g, lx, y, lw, ROLE_TITLE, ATTR_BOLD, "at %s", App_bytes(sw->budgets[v->budget], b1, sizeof b1));
  /* too narrow (80x24): every schedule shrinks to its initial (the legend says which), so the replacement and
   * the allocator, which tell the rows apart, stay whole; what still does not fit ends in an ellipsis */
  bool initials = false;
  for (int k = 0; k < sw->ncombos; k++)
    initials |= strcmp(sw->combos[k].replacement, "-") != 0 &&
                (int)(strlen(sw->combos[k].schedule) + strlen(sw->combos[k].replacement) +
                      strlen(sw->combos[k].allocator) + 2) > lw - 9;
  int rows = h - 2, first = v->combo - rows / 2;
  if (first + rows > sw->ncombos) first = sw->ncombos - rows;
  if (first < 0) first = 0;
  for (int i = 0; i < rows && first + i < sw->ncombos; i++) {
    int k = first + i;
    const SweepCombo *c = &sw->combos[k];
    const SweepPoint *p = Sweep_at(sw, k, v->budget);
    char name[96], val[24] = "...";
    if (strcmp(c->replacement, "-") == 0) snprintf(name, sizeof name, "%s (joint)", c->schedule);
    else if (initials) snprintf(name, sizeof name, "%c/%s/%s", c->schedule[0], c->replacement, c->allocator);
    else snprintf(name, sizeof name, "%s/%s/%s", c->schedule, c->replacement, c->allocator);
    if (p->done && p->status) snprintf(val, sizeof val, "no plan");
    else if (p->done && v->metric == 1) snprintf(val, sizeof val, "%d", p->spills);
    else if (p->done) App_bytes(Sweep_value(p, v->metric), val, sizeof val);
    bool sel = k == v->combo;
    Grid_printf(g, lx, y + 1 + i, lw - 9, sel ? ROLE_SELECT : ROLE_DEFAULT, sel ? ATTR_BOLD | ATTR_REVERSE : 0, "%-*s",
                lw - 9, name);
    Grid_printf(g, lx + lw - 8, y + 1 + i, 8, sel ? ROLE_SELECT : ROLE_DEFAULT, sel ? ATTR_BOLD : 0, "%8s", val);
  }
  (void)b2;
}

void SweepView_progress(const App *app, int *done, int *total, int *ilp_tried, int *ncombos, int *nbudgets) {
  const SweepView *v = app->sweep;
  *done = v ? (v->threaded ? v->shown_done : v->done) : 0;
  *total = v ? v->total : 0;
  *ilp_tried = v ? v->ilp_shown : 0;
  *ncombos = v ? v->shown->ncombos : 0;
  *nbudgets = v ? v->shown->nbudgets : 0;
}

bool SweepView_point(const App *app, int combo, int budget, SweepPoint *out) {
  const SweepView *v = app->sweep;
  if (!v || budget < 0 || budget >= v->shown->nbudgets || combo >= v->shown->ncombos) return false;
  *out = combo < 0 ? v->ilp[budget] : v->shown->points[combo * v->shown->nbudgets + budget];
  return true;
}

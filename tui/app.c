#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "layer_view.h"
#include "lesson.h"
#include "netcost_status.h"
#include "clock.h"
#include "offchip_view.h"
#include "policy.h"
#include "staging.h"
#include "validate.h"
#include "views.h"
#include "words.h"

int App_policyCount(PolicyKind kind) { return Policy_countAll(kind); }
const PolicyInfo *App_policy(PolicyKind kind, int i) { return Policy_atAll(kind, i); }

const char *App_policies(const AppSettings *s, char *buf, size_t n) {
  const PolicyInfo *sp = App_policy(POLICY_SCHEDULE, s->sched);
  if (sp->joint) snprintf(buf, n, "%s (joint)", sp->name); /* it decides replacement and addresses too */
  else snprintf(buf, n, "%s/%s/%s", sp->name, App_policy(POLICY_REPLACEMENT, s->repl)->name,
                App_policy(POLICY_ALLOCATOR, s->alloc)->name);
  return buf;
}

static int App_policyIndex(PolicyKind k, const char *name) {
  for (int i = 0; i < App_policyCount(k); i++)
    if (strcmp(App_policy(k, i)->name, name) == 0) return i;
  return 0;
}

/* Until the figures arrive: M_R (cheap) for every preset. */
static void App_provisional(App *app, int p) {
  int64_t m_r = Figures_minRequired(app->net, p);
  app->fig[p] = (NetFigures){.m_r = m_r, .m_p = m_r, .m_h = m_r, .default_peak = m_r};
}

/* Figures_compute's result (or its failure) becomes the setting's figures. */
static void App_takeFigures(App *app, int p, Status st, const NetFigures *f, int *order) {
  free(app->mp_order[p]);
  app->mp_order[p] = NULL;
  if (st == SP_OK && f) {
    app->fig[p] = *f;
    app->mp_order[p] = order;
  } else {
    /* fall back to M_R only: the explorer still works, presets M_H/M_P read as M_R */
    free(order);
    App_provisional(app, p);
  }
  app->fig_ok[p] = true;
  app->fig_asked[p] = false;
}

/* Figures go to their own worker when there is one: a long M_P search never
 * holds the first plan back. */
static Worker *App_figWorker(App *app) { return app->figworker ? app->figworker : app->worker; }

static void App_askFigures(App *app, int p) {
  if (app->fig_ok[p] || app->fig_asked[p] || !app->worker) return;
  App_provisional(app, p);
  Worker_postFigures(App_figWorker(app), p);
  app->fig_asked[p] = true;
}

void App_prefetchFigures(App *app) {
  App_askFigures(app, app->set.params);
  App_askFigures(app, !app->set.params);
}

const NetFigures *App_figures(App *app) {
  int p = app->set.params;
  if (app->fig_ok[p]) return &app->fig[p];
  if (app->worker) {
    App_askFigures(app, p);
    return &app->fig[p];
  }
  SpError err;
  NetFigures f;
  int *order = malloc(sizeof(int) * (size_t)(app->net->nops ? app->net->nops : 1));
  Status st = order ? Figures_compute(app->net, p, &f, order, &err) : SP_ERR_NOMEM;
  App_takeFigures(app, p, st, &f, order);
  return &app->fig[p];
}

bool App_figuresReady(App *app) {
  App_figures(app);
  return app->fig_ok[app->set.params];
}

const NetFigures *App_presetFigures(App *app, bool params, bool *ready) {
  if (app->untiled_path[0]) {
    *ready = app->untiled_fig_ok[params];
    return &app->untiled_fig[params];
  }
  if (params == app->set.params) {
    *ready = App_figuresReady(app);
    return App_figures(app);
  }
  *ready = app->fig_ok[params];
  return &app->fig[params];
}

/* The app around a loaded network (settings and worker kept by the caller). */
/* The file's own name without folder and ".json", every byte that is not a
 * letter, digit, '-', '_' or '.' replaced by '_' and no leading '.': file names
 * the explorer makes (NAME.plan.json, NAME.screen.txt) never leave the working
 * directory, whatever the network's "name" field says. */
void App_stem(const char *path, char *out, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  if (len > 5 && (strcmp(base + len - 5, ".json") == 0 || strcmp(base + len - 5, ".onnx") == 0)) len -= 5;
  size_t k = 0;
  for (size_t i = 0; i < len && k + 1 < n; i++) {
    char c = base[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              (c == '.' && k > 0);
    out[k++] = ok ? c : '_';
  }
  if (k == 0 && n > 8) k = (size_t)snprintf(out, n, "network");
  out[k < n ? k : n - 1] = '\0';
}

static void App_attach(App *app, Net *net, const char *path) {
  app->net = net;
  app->shared = SharedNet_new(net);
  snprintf(app->path, sizeof app->path, "%s", path);
  App_stem(path, app->stem, sizeof app->stem);
  app->selected = -1;
  app->violations = -1;
  App_provisional(app, 0);
  App_provisional(app, 1);
  app->set.budget = app->fig[app->set.params].m_r;
  app->tspan = app->net->nops;
}

Status App_init(App *app, const char *path, SpError *err) { return App_initWith(app, path, NULL, err); }

Status App_initWith(App *app, const char *path, const ImportOptions *import, SpError *err) {
  memset(app, 0, sizeof *app);
  app->selected = -1;
  app->mouse = true;
  if (import) app->import = *import;
  else ImportOptions_init(&app->import);
  Net *net;
  Status st = Import_open(path, &app->import, &net, err);
  if (st) return st;
  SolveSettings d;
  SolveSettings_init(&d);
  app->set.sched = App_policyIndex(POLICY_SCHEDULE, d.schedule);
  app->set.repl = App_policyIndex(POLICY_REPLACEMENT, d.replacement);
  app->set.alloc = App_policyIndex(POLICY_ALLOCATOR, d.allocator);
  app->set.time_limit = d.time_limit;
  App_attach(app, net, path);
  if (!app->shared) {
    Net_free(net);
    app->net = NULL;
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  return SP_OK;
}

void PlanSteps_free(PlanSteps *ps) {
  free(ps->resident);
  free(ps->spills);
  free(ps->retrievals);
  memset(ps, 0, sizeof *ps);
}

void PlanSteps_build(PlanSteps *ps, const Plan *p, const Net *net) {
  PlanSteps_free(ps);
  size_t n = (size_t)(p->nsteps > 0 ? p->nsteps : 1);
  ps->resident = calloc(n, sizeof(int64_t));
  ps->spills = calloc(n, sizeof(int));
  ps->retrievals = calloc(n, sizeof(int));
  if (!ps->resident || !ps->spills || !ps->retrievals) {
    PlanSteps_free(ps);
    return;
  }
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    for (int t = s->start; t <= s->end && t < p->nsteps; t++)
      if (t >= 0) ps->resident[t] += net->tensors[s->tensor].bytes;
    if (s->out == STAY_SPILL && s->end >= 0 && s->end < p->nsteps) ps->spills[s->end]++;
    if (s->in == STAY_RETRIEVE && s->start >= 0 && s->start < p->nsteps) ps->retrievals[s->start]++;
  }
  for (int t = 1; t < p->nsteps; t++)
    if (ps->resident[t] > ps->resident[ps->peak_step]) ps->peak_step = t;
}

/* Everything that belongs to the network (the worker too: it holds the net). */
static void App_release(App *app, bool keep_pin) {
  free(app->tiled_text);
  app->tiled_text = NULL;
  LayerView_free(app);
  SweepView_close(app);
  NetStatus_free(app);
  Worker_stop(app->worker); /* at most WORKER_GRACE_MS each: never a frozen screen */
  Worker_stop(app->figworker);
  Worker_stop(app->untiled_figworker);
  app->worker = app->figworker = app->untiled_figworker = NULL;
  if (!keep_pin) {
    if (app->pinned != app->plan) Plan_free(app->pinned);
    app->pinned = NULL;
    PlanSteps_free(&app->pinned_steps);
  }
  if (app->plan != app->pinned) Plan_free(app->plan);
  app->plan = NULL;
  PlanSteps_free(&app->steps);
  SimTrace_free(&app->trace);
  app->trace_plan = NULL;
  free(app->mp_order[0]);
  free(app->mp_order[1]);
  OffchipView_free(app->offchip);
  app->offchip = NULL;
  if (app->shared) SharedNet_release(app->shared); /* a worker still running keeps it */
  else Net_free(app->net);
  app->shared = NULL;
  app->net = NULL;
}

/* The workers of a terminal session: solves, and figures beside them. */
void App_startWorkers(App *app) {
  app->worker = Worker_startShared(app->shared);
  app->figworker = app->worker ? Worker_startShared(app->shared) : NULL;
}

void App_free(App *app) {
  Staging_drop(app);
  App_release(app, false);
  Picker_close(app);
  memset(app, 0, sizeof *app);
}

Status App_load(App *app, const char *path, SpError *err) {
  Net *net;
  Status st = Import_open(path, &app->import, &net, err);
  if (st) return st; /* the old network stays */
  bool had_worker = app->worker != NULL;
  /* the pin stays only for the same network (same file, same shape) */
  bool same = app->pinned && strcmp(app->path, path) == 0 && app->net->nops == net->nops &&
              app->net->ntensors == net->ntensors;
  bool dropped = app->pinned && !same;
  App_release(app, same);
  AppSettings set = app->set;
  bool det = app->deterministic, mouse = app->mouse, staging = app->staging; /* staging.c loads through here */
  bool offchip_map = app->offchip_map; /* a budget that re-tiles stays in the off-chip view */
  bool netstatus_on = app->netstatus_on; /* --arch's cycles stay on the status line, tiled or not */
  struct Lesson *lesson = app->lesson;
  char layer_arch[sizeof app->layer_arch];
  snprintf(layer_arch, sizeof layer_arch, "%s", app->layer_arch);
  Picker picker = app->picker;
  Grid *grid = app->grid;
  Plan *pinned = app->pinned;
  AppSettings pinned_set = app->pinned_set;
  PlanSteps pinned_steps = app->pinned_steps;
  ImportOptions import = app->import;
  memset(app, 0, sizeof *app);
  app->import = import;
  app->set = set;
  app->set.preset = 'R';
  app->deterministic = det;
  app->mouse = mouse;
  app->offchip_map = offchip_map;
  app->netstatus_on = netstatus_on;
  app->lesson = lesson;
  snprintf(app->layer_arch, sizeof app->layer_arch, "%s", layer_arch);
  app->staging = staging;
  app->picker = picker;
  app->grid = grid;
  app->pinned = pinned;
  app->pinned_set = pinned_set;
  app->pinned_steps = pinned_steps;
  App_attach(app, net, path);
  if (!app->shared) { /* no memory for the holder: keep going without workers */
    had_worker = false;
  }
  if (had_worker) {
    App_startWorkers(app);
    App_prefetchFigures(app);
  }
  if (dropped) App_setMessage(app, false, "the pinned plan was for another network: unpinned");
  return SP_OK;
}

bool App_cancel(App *app) {
  if (Staging_cancel(app)) return true; /* a tiling below M_R (staging.c) */
  if (!app->solving || !app->worker || app->cancel_asked) return false;
  Worker_cancel(app->worker);
  app->cancel_asked = true;
  return true;
}

static void App_accept(App *app, SolveResult *r) {
  if (r->seq != app->seq) { /* an older job finished after a newer was posted */
    Plan_free(r->plan);
    return;
  }
  app->solving = false;
  app->has_progress = false;
  /* cancelled only if the search stopped for it (a fast policy just finishes) */
  bool asked = app->cancel_asked;
  app->cancel_asked = false;
  app->cancelled = asked && (r->status == SP_ERR_CANCELLED || (r->plan && r->plan->solver.status == SOLVER_CANCELLED));
  if (asked) app->message[0] = '\0'; /* "cancelling the solve..." */
  if (app->cancelled && !r->plan) { /* stopped before any plan: the last good one stays */
    app->error[0] = '\0';
    return;
  }
  if (r->status) {
    snprintf(app->error, sizeof app->error, "%s", r->error);
    App_setMessage(app, true, "%s", r->error); /* newer messages replace it; the status line keeps it */
    return;
  }
  app->error[0] = '\0';
  if (app->plan != app->pinned) Plan_free(app->plan);
  if (app->trace_plan == app->plan) app->trace_plan = NULL; /* freed: never compare a stale pointer */
  app->plan = r->plan;
  app->plan_set = app->set;
  PlanSteps_build(&app->steps, app->plan, app->net);
  /* every plan on screen is re-checked, like the CLI does */
  ValidateReport rep;
  Status vst = Validate_plan(app->net, app->plan, &rep);
  app->violations = vst == SP_OK ? 0 : vst == SP_ERR_FORMAT ? rep.count : -1;
  ValidateReport_free(&rep);
  App_clampView(app);
}

void App_resolve(App *app) {
  if (Staging_apply(app)) return; /* below M_R: the tiled network is solved instead (staging.c) */
  const NetFigures *f = App_figures(app);
  (void)f;
  SolveJob job;
  memset(&job, 0, sizeof job);
  job.seq = ++app->seq;
  SolveSettings_init(&job.s);
  job.s.params = app->set.params;
  job.s.budget = app->set.budget;
  job.s.schedule = App_policy(POLICY_SCHEDULE, app->set.sched)->name;
  job.s.replacement = App_policy(POLICY_REPLACEMENT, app->set.repl)->name;
  job.s.allocator = App_policy(POLICY_ALLOCATOR, app->set.alloc)->name;
  job.s.time_limit = app->set.time_limit;
  /* mpmf's order depends only on (network, params): reuse the one computed with the figures */
  if (strcmp(job.s.schedule, "mpmf") == 0 && app->fig_ok[app->set.params] && app->fig[app->set.params].m_p_exact &&
      app->mp_order[app->set.params])
    job.s.order = app->mp_order[app->set.params];
  const AppSettings *st = &app->set;
  bool searching = App_policy(POLICY_SCHEDULE, st->sched)->searching ||
                   App_policy(POLICY_REPLACEMENT, st->repl)->searching || App_policy(POLICY_ALLOCATOR, st->alloc)->searching;
  if (app->worker && !app->plan && searching) { /* nothing on screen yet: a fast plan first (milliseconds) */
    SolveJob fast = job;
    SolveSettings_init(&fast.s);
    fast.s.params = job.s.params;
    fast.s.budget = job.s.budget;
    SolveResult r;
    Worker_solve(app->net, &fast, NULL, &r);
    if (r.plan) {
      AppSettings want = app->set;
      app->set.sched = App_policyIndex(POLICY_SCHEDULE, fast.s.schedule);
      app->set.repl = App_policyIndex(POLICY_REPLACEMENT, fast.s.replacement);
      app->set.alloc = App_policyIndex(POLICY_ALLOCATOR, fast.s.allocator);
      App_accept(app, &r); /* plan_set says what it is */
      app->set = want;
    } else Plan_free(r.plan);
  }
  app->solving = true;
  app->solve_t0 = Clock_now();
  app->has_progress = false;
  app->cancel_asked = app->cancelled = false;
  if (app->worker) {
    Worker_post(app->worker, &job);
    return;
  }
  SolveResult r;
  Worker_solve(app->net, &job, NULL, &r);
  App_accept(app, &r);
}

/* A solve told to stop that does not (GLPK building a model, say) is abandoned
 * after APP_STUCK_MS: a fresh worker takes the newest job, or the cancel is
 * done. The old thread finishes on its own references; its result is dropped. */
enum { APP_STUCK_MS = 120 };
static bool App_unstick(App *app) {
  if (!app->worker || !app->figworker || !Worker_stuck(app->worker, APP_STUCK_MS)) return false;
  Worker *fresh = Worker_startShared(app->shared);
  if (!fresh) return false;
  Worker_stop(app->worker);
  app->worker = fresh;
  if (app->cancel_asked) { /* the user's cancel: done, the last plan stays */
    app->solving = app->has_progress = app->cancel_asked = false;
    app->cancelled = true;
    app->error[0] = '\0';
    app->message[0] = '\0';
  } else if (app->solving) { /* superseded: the newest settings, on the fresh worker */
    long seq = app->seq;
    App_resolve(app);
    (void)seq;
  }
  return true;
}

bool App_poll(App *app) {
  SolveResult r;
  if (!app->worker) return false;
  bool changed = App_unstick(app) | SweepView_poll(app) | NetStatus_poll(app);
  changed |= Staging_poll(app); /* a tiling below M_R done: load and solve it */
  for (int p = 0; p < 2; p++) {
    NetFigures f;
    int *order;
    Status st;
    if (!Worker_takeFigures(App_figWorker(app), p, &f, &order, &st)) continue;
    App_takeFigures(app, p, st, &f, order);
    changed = true;
  }
  for (int p = 0; app->untiled_figworker && p < 2; p++) { /* below M_R: the original's, for the presets */
    NetFigures f;
    int *order;
    Status st;
    if (!Worker_takeFigures(app->untiled_figworker, p, &f, &order, &st)) continue;
    free(order);
    if (st == SP_OK) app->untiled_fig[p] = f; /* else M_R stands for every preset, as App_takeFigures does */
    app->untiled_fig_ok[p] = true;
    changed = true;
  }
  bool ready;
  const NetFigures *pf = app->await_preset ? App_presetFigures(app, app->set.params, &ready) : NULL;
  if (pf && ready) { /* the preset asked for while they were computed */
    app->set.budget = app->await_preset == 'H' ? pf->m_h : pf->m_p;
    app->set.preset = app->await_preset;
    char b[16];
    App_setMessage(app, false, "figures ready: M_%c = %s", app->await_preset, App_bytes(app->set.budget, b, sizeof b));
    app->await_preset = 0;
    App_resolve(app);
  }
  if (app->solving && Worker_progress(app->worker, &app->progress, app->progress_stage, sizeof app->progress_stage))
    app->has_progress = changed = true;
  if (Worker_poll(app->worker, &r)) {
    App_accept(app, &r);
    changed = true;
  }
  if (Lesson_poll(app)) changed = true; /* a lesson stage's search done: the rest of the stage */
  if (LayerView_poll(app)) changed = true;
  return changed;
}

void App_setMessage(App *app, bool warn, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(app->message, sizeof app->message, fmt, ap);
  va_end(ap);
  app->message_warn = warn;
}

const char *App_preset(App *app, int64_t budget, bool params) {
  if (!app->fig_ok[params]) return budget == app->fig[params].m_r ? "M_R" : NULL;
  const NetFigures *f = &app->fig[params];
  if (budget == f->m_r) return "M_R";
  if (budget == f->m_h) return "M_H";
  if (budget == f->m_p) return "M_P";
  return NULL;
}

void App_clampView(App *app) {
  int n = app->plan ? app->plan->nsteps : app->net->nops;
  if (n < 1) n = 1;
  if (app->cursor >= n) app->cursor = n - 1;
  if (app->cursor < 0) app->cursor = 0;
  if (app->tspan > n || app->tspan < 1) app->tspan = n;
  if (app->cursor < app->t0) app->t0 = app->cursor;
  if (app->cursor >= app->t0 + app->tspan) app->t0 = app->cursor - app->tspan + 1;
  if (app->t0 + app->tspan > n) app->t0 = n - app->tspan;
  if (app->t0 < 0) app->t0 = 0;
  int64_t budget = app->plan ? app->plan->budget : app->set.budget;
  if (app->aspan <= 0 || app->aspan >= budget) app->aspan = 0, app->a0 = 0;
  if (app->aspan && app->a0 + app->aspan > budget) app->a0 = budget - app->aspan;
  if (app->a0 < 0) app->a0 = 0;
}

/* The explorer's sizes: the CLI's figure and unit (words.c), compact to 6 columns (the map's axis labels). */
const char *App_bytes(int64_t b, char *buf, int n) { return Words_bytesShort((double)b, 6, buf, (size_t)n); }

const char *App_settingPreset(App *app, const AppSettings *s) {
  if (s->preset) {
    const NetFigures *f = &app->fig[s->params];
    int64_t v = s->preset == 'R' ? f->m_r : s->preset == 'H' ? f->m_h : f->m_p;
    bool known = s->preset == 'R' || app->fig_ok[s->params];
    if (known && v == s->budget) return s->preset == 'R' ? "M_R" : s->preset == 'H' ? "M_H" : "M_P";
  }
  return App_preset(app, s->budget, s->params);
}

const Plan *App_shownPlan(const App *app) { return app->show_pinned && app->pinned ? app->pinned : app->plan; }
const PlanSteps *App_shownSteps(const App *app) {
  return app->show_pinned && app->pinned ? &app->pinned_steps : &app->steps;
}

Status App_openPlan(App *app, const char *path, SpError *err) {
  Plan *p;
  Status st = Plan_load(path, app->net, &p, err);
  if (st) return st;
  ValidateReport rep;
  st = Validate_plan(app->net, p, &rep);
  if (st) {
    if (st == SP_ERR_NOMEM) SpError_set(err, st, "out of memory validating %s", path);
    else
      SpError_set(err, st, "%s does not fit %s: %s%s", path, app->net->name, rep.nlines ? rep.lines[0] : "invalid",
                  rep.count > 1 ? " (and more: spadmap validate lists them)" : "");
    ValidateReport_free(&rep);
    Plan_free(p);
    return st;
  }
  if (rep.metrics_known) p->metrics = rep.metrics;
  ValidateReport_free(&rep);
  AppSettings s = app->set;
  s.params = p->params;
  s.budget = p->budget;
  s.preset = 0;
  const char *names[3] = {p->schedule_policy, p->replacement_policy, p->allocator_policy};
  int *idx[3] = {&s.sched, &s.repl, &s.alloc};
  for (int k = 0; k < 3; k++)
    for (int i = 0; names[k] && i < App_policyCount((PolicyKind)k); i++)
      if (strcmp(App_policy((PolicyKind)k, i)->name, names[k]) == 0) *idx[k] = i;
  if (app->plan != app->pinned) Plan_free(app->plan);
  if (app->trace_plan == app->plan) app->trace_plan = NULL;
  app->plan = p;
  app->set = app->plan_set = s;
  app->error[0] = '\0';
  app->violations = 0;
  PlanSteps_build(&app->steps, p, app->net);
  App_clampView(app);
  char b[16];
  const char *base = strrchr(path, '/');
  App_setMessage(app, false, "opened %s: valid, budget %s (%s/%s/%s); a setting change re-solves", base ? base + 1 : path,
                 App_bytes(p->budget, b, sizeof b), names[0] ? names[0] : "?", names[1] ? names[1] : "?",
                 names[2] ? names[2] : "?");
  return SP_OK;
}

const SimTrace *App_trace(App *app, const Plan *p) {
  if (!p) return NULL;
  if (app->trace_plan == p) return &app->trace;
  SimTrace_free(&app->trace);
  app->trace_plan = NULL;
  const PolicyInfo *rp = Policy_find(POLICY_REPLACEMENT, p->replacement_policy);
  const PolicyInfo *al = Policy_find(POLICY_ALLOCATOR, p->allocator_policy);
  if (!rp || !al || (!rp->evict_score && !rp->window_evict) || !al->place) return NULL;
  Plan *again = NULL;
  SpError err;
  /* the same run again, recording why: a heuristic solve is about a millisecond */
  Status st = Sim_runTraced(app->net, p->params, p->budget, p->order, rp, al, &again, &app->trace, &err);
  Plan_free(again);
  if (st) {
    SimTrace_free(&app->trace);
    return NULL;
  }
  app->trace_plan = p;
  return &app->trace;
}

#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offchip_view.h"
#include "policy.h"
#include "staging.h"
#include "validate.h"
#include "views.h"

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

static void App_askFigures(App *app, int p) {
  if (app->fig_ok[p] || app->fig_asked[p] || !app->worker) return;
  App_provisional(app, p);
  Worker_postFigures(app->worker, p);
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

/* The app around a loaded network (settings and worker kept by the caller). */
static void App_attach(App *app, Net *net, const char *path) {
  app->net = net;
  snprintf(app->path, sizeof app->path, "%s", path);
  app->selected = -1;
  app->violations = -1;
  App_provisional(app, 0);
  App_provisional(app, 1);
  app->set.budget = app->fig[app->set.params].m_r;
  app->tspan = app->net->nops;
}

Status App_init(App *app, const char *path, SpError *err) {
  memset(app, 0, sizeof *app);
  app->selected = -1;
  app->mouse = true;
  Net *net;
  Status st = Net_load(path, &net, err);
  if (st) return st;
  SolveSettings d;
  SolveSettings_init(&d);
  app->set.sched = App_policyIndex(POLICY_SCHEDULE, d.schedule);
  app->set.repl = App_policyIndex(POLICY_REPLACEMENT, d.replacement);
  app->set.alloc = App_policyIndex(POLICY_ALLOCATOR, d.allocator);
  App_attach(app, net, path);
  return SP_OK;
}

static void PlanSteps_free(PlanSteps *ps) {
  free(ps->resident);
  free(ps->spills);
  free(ps->retrievals);
  memset(ps, 0, sizeof *ps);
}

static void PlanSteps_build(PlanSteps *ps, const Plan *p, const Net *net) {
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
static void App_release(App *app) {
  Worker_stop(app->worker);
  app->worker = NULL;
  if (app->pinned != app->plan) Plan_free(app->pinned);
  Plan_free(app->plan);
  app->pinned = app->plan = NULL;
  PlanSteps_free(&app->steps);
  free(app->mp_order[0]);
  free(app->mp_order[1]);
  OffchipView_free(app->offchip);
  app->offchip = NULL;
  Net_free(app->net);
}

void App_free(App *app) {
  App_release(app);
  Picker_close(app);
  memset(app, 0, sizeof *app);
}

Status App_load(App *app, const char *path, SpError *err) {
  Net *net;
  Status st = Net_load(path, &net, err);
  if (st) return st; /* the old network stays */
  bool had_worker = app->worker != NULL;
  App_release(app);
  AppSettings set = app->set;
  bool det = app->deterministic, mouse = app->mouse;
  Picker picker = app->picker;
  Grid *grid = app->grid;
  memset(app, 0, sizeof *app);
  app->set = set;
  app->deterministic = det;
  app->mouse = mouse;
  app->picker = picker;
  app->grid = grid;
  App_attach(app, net, path);
  if (had_worker) {
    app->worker = Worker_start(app->net);
    App_prefetchFigures(app);
  }
  return SP_OK;
}

bool App_cancel(App *app) {
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
    return;
  }
  app->error[0] = '\0';
  if (app->plan != app->pinned) Plan_free(app->plan);
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
  /* mpmf's order depends only on (network, params): reuse the one computed with the figures */
  if (strcmp(job.s.schedule, "mpmf") == 0 && app->fig_ok[app->set.params] && app->fig[app->set.params].m_p_exact &&
      app->mp_order[app->set.params])
    job.s.order = app->mp_order[app->set.params];
  app->solving = true;
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

bool App_poll(App *app) {
  SolveResult r;
  if (!app->worker) return false;
  bool changed = false;
  for (int p = 0; p < 2; p++) {
    NetFigures f;
    int *order;
    Status st;
    if (!Worker_takeFigures(app->worker, p, &f, &order, &st)) continue;
    App_takeFigures(app, p, st, &f, order);
    changed = true;
    if (p == app->set.params && app->await_preset) { /* the preset asked for while they were computed */
      app->set.budget = app->await_preset == 'H' ? app->fig[p].m_h : app->fig[p].m_p;
      char b[16];
      App_setMessage(app, false, "figures ready: M_%c = %s", app->await_preset, App_bytes(app->set.budget, b, sizeof b));
      app->await_preset = 0;
      App_resolve(app);
    }
  }
  if (app->solving && Worker_progress(app->worker, &app->progress, app->progress_stage, sizeof app->progress_stage))
    app->has_progress = changed = true;
  if (Worker_poll(app->worker, &r)) {
    App_accept(app, &r);
    changed = true;
  }
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

const char *App_bytes(int64_t b, char *buf, int n) {
  int64_t a = b < 0 ? -b : b;
  const char *sign = b < 0 ? "-" : "";
  if (a < 1024) snprintf(buf, (size_t)n, "%s%lldB", sign, (long long)a);
  else if (a < 10 * 1024) snprintf(buf, (size_t)n, "%s%.2fK", sign, (double)a / 1024);
  else if (a < 1024 * 1024) snprintf(buf, (size_t)n, "%s%.1fK", sign, (double)a / 1024);
  else if (a < 1024LL * 1024 * 1024) snprintf(buf, (size_t)n, "%s%.2fM", sign, (double)a / 1048576.0);
  else snprintf(buf, (size_t)n, "%s%.2fG", sign, (double)a / 1073741824.0);
  return buf;
}

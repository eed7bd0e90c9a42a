/* lesson_state: showing a stage (a fresh explorer set to the state it declares),
 * the figures a text quotes, and the claims it makes (see lesson.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "find.h"
#include "layer_view.h"
#include "lesson.h"
#include "offchip_view.h"
#include "solve.h"
#include "views.h"
#include "words.h"

/* ---- the figures ----------------------------------------------------------- */

/* Each plan a text may name, and its quantities. */
static const char *const Lesson_planQ[] = {"spills", "retrievals", "traffic", "compulsory", "peak", "footprint",
                                           "budget", "policies", "schedule", "replacement", "allocator", "solver", NULL};
static const char *const Lesson_netQ[] = {"name", "ops", "m_r", "m_h", "m_p", NULL};
static const char *const Lesson_cursorQ[] = {"step", "free", "largest_gap", "fragmentation", "tensor", "next_read", NULL};
static const char *const Lesson_layerQ[] = {"cycles", "energy", "dram", "method", "arch", "op", "steps", "duration",
                                            "group", "rule_macs", "oracle_macs", NULL};
static const char *const Lesson_offchipQ[] = {"taa_peak", "so_peak", "so_method", "lower_bound", "tiles", NULL};
static const struct {
  const char *plan;
  const char *const *q;
} Lesson_plans[] = {{"current", Lesson_planQ}, {"pinned", Lesson_planQ},        {"net", Lesson_netQ},
                    {"cursor", Lesson_cursorQ}, {"layer", Lesson_layerQ},       {"pinned_layer", Lesson_layerQ},
                    {"offchip", Lesson_offchipQ}};
enum { LESSON_NPLANS = sizeof Lesson_plans / sizeof Lesson_plans[0] };

bool Lesson_isFigure(const char *name, char *plan, size_t n) {
  const char *dot = strchr(name, '.');
  if (!dot) return false;
  for (int i = 0; i < LESSON_NPLANS; i++) {
    if (strlen(Lesson_plans[i].plan) != (size_t)(dot - name) || strncmp(Lesson_plans[i].plan, name, (size_t)(dot - name)))
      continue;
    for (int k = 0; Lesson_plans[i].q[k]; k++)
      if (strcmp(Lesson_plans[i].q[k], dot + 1) == 0) {
        snprintf(plan, n, "%s", Lesson_plans[i].plan);
        return true;
      }
  }
  return false;
}

static bool V_bytes(LessonValue *v, int64_t b) {
  App_bytes(b, v->text, (int)sizeof v->text);
  v->num = (double)b;
  v->numeric = true;
  return true;
}
static bool V_count(LessonValue *v, long long c) {
  Words_count((double)c, v->text, sizeof v->text); /* as the views print counts: 752,171 */
  v->num = (double)c;
  v->numeric = true;
  return true;
}
static bool V_text(LessonValue *v, const char *s) {
  snprintf(v->text, sizeof v->text, "%s", s);
  v->numeric = false;
  return true;
}

static bool Lesson_planValue(App *app, const Plan *p, const AppSettings *set, const char *q, LessonValue *v) {
  if (!p) return false;
  const Metrics *m = &p->metrics;
  if (strcmp(q, "spills") == 0) return V_count(v, m->spills);
  if (strcmp(q, "retrievals") == 0) return V_count(v, m->retrievals);
  if (strcmp(q, "traffic") == 0) return V_bytes(v, m->noncompulsory_bytes);
  if (strcmp(q, "compulsory") == 0) return V_bytes(v, m->compulsory_bytes);
  if (strcmp(q, "peak") == 0) return V_bytes(v, m->peak_bytes);
  if (strcmp(q, "footprint") == 0) return V_bytes(v, m->footprint_bytes);
  if (strcmp(q, "budget") == 0) return V_bytes(v, p->budget);
  if (strcmp(q, "policies") == 0) return App_policies(set, v->text, sizeof v->text), v->numeric = false, true;
  if (strcmp(q, "schedule") == 0) return V_text(v, App_policy(POLICY_SCHEDULE, set->sched)->name);
  if (strcmp(q, "replacement") == 0) return V_text(v, App_policy(POLICY_REPLACEMENT, set->repl)->name);
  if (strcmp(q, "allocator") == 0) return V_text(v, App_policy(POLICY_ALLOCATOR, set->alloc)->name);
  if (strcmp(q, "solver") == 0) {
    SolverStatus s = p->solver.status;
    return V_text(v, s == SOLVER_OPTIMAL ? "optimal" : s == SOLVER_HEURISTIC ? "solved" : SolverStatus_names[s]);
  }
  (void)app;
  return false;
}

static bool Lesson_layerValue(const LayerFigures *f, const char *q, LessonValue *v) {
  if (strcmp(q, "method") == 0) return V_text(v, f->method);
  if (strcmp(q, "arch") == 0) return f->mapper && V_text(v, f->arch);
  if (strcmp(q, "op") == 0) return V_text(v, f->op);
  if (f->mapper && strcmp(q, "cycles") == 0) {
    Words_count(f->cycles, v->text, sizeof v->text); /* as the layer view prints them */
    v->num = f->cycles, v->numeric = true;
    return true;
  }
  if (f->mapper && strcmp(q, "energy") == 0) {
    Words_energy(f->energy_pj, v->text, sizeof v->text);
    v->num = f->energy_pj, v->numeric = true;
    return true;
  }
  if (f->mapper && strcmp(q, "dram") == 0) return V_bytes(v, (int64_t)(f->dram_bytes + 0.5));
  if (f->steps && strcmp(q, "steps") == 0) return V_count(v, f->nsteps);
  if (f->steps && strcmp(q, "duration") == 0) return V_count(v, f->duration);
  if (f->steps && strcmp(q, "group") == 0) return V_count(v, f->group);
  if (f->shuttle && (strcmp(q, "rule_macs") == 0 || strcmp(q, "oracle_macs") == 0)) {
    double x = q[0] == 'r' ? f->rule_macs : f->oracle_macs;
    snprintf(v->text, sizeof v->text, "%.1f", x); /* as the SmartShuttle table prints them */
    v->num = x, v->numeric = true;
    return true;
  }
  return false;
}

bool Lesson_value(App *app, const char *name, LessonValue *v) {
  memset(v, 0, sizeof *v);
  char plan[32];
  if (!app->net || !Lesson_isFigure(name, plan, sizeof plan)) return false;
  const char *q = strchr(name, '.') + 1;
  if (strcmp(plan, "current") == 0) return Lesson_planValue(app, app->plan, &app->plan_set, q, v);
  if (strcmp(plan, "pinned") == 0) return Lesson_planValue(app, app->pinned, &app->pinned_set, q, v);
  if (strcmp(plan, "net") == 0) {
    if (strcmp(q, "name") == 0) return V_text(v, app->net->name);
    if (strcmp(q, "ops") == 0) return V_count(v, app->net->nops);
    bool ready;
    const NetFigures *f = App_presetFigures(app, app->set.params, &ready);
    if (!ready && strcmp(q, "m_r") != 0) return false;
    return V_bytes(v, strcmp(q, "m_r") == 0 ? f->m_r : strcmp(q, "m_h") == 0 ? f->m_h : f->m_p);
  }
  if (strcmp(plan, "cursor") == 0) {
    const Plan *p = App_shownPlan(app);
    if (strcmp(q, "step") == 0) return V_count(v, app->cursor);
    if (strcmp(q, "tensor") == 0) return app->selected >= 0 && V_text(v, app->net->tensors[app->selected].name);
    if (strcmp(q, "next_read") == 0) { /* the first step after the cursor whose op reads the selected tensor */
      for (int t = app->cursor + 1; p && app->selected >= 0 && t < p->nsteps; t++) {
        const Op *op = &app->net->ops[p->order[t]];
        for (int i = 0; i < op->ninputs; i++)
          if (op->inputs[i] == app->selected) return V_count(v, t);
      }
      return false;
    }
    if (!p || app->cursor < 0 || app->cursor >= p->nsteps) return false;
    int64_t fb, gap;
    MapView_freeAt(app, p, app->cursor, &fb, &gap); /* the map's own figures */
    if (strcmp(q, "free") == 0) return V_bytes(v, fb);
    if (strcmp(q, "largest_gap") == 0) return V_bytes(v, gap);
    int pct = fb > 0 ? (int)((double)(fb - gap) * 100.0 / (double)fb + 0.5) : 0;
    snprintf(v->text, sizeof v->text, "%d%%", pct);
    v->num = pct, v->numeric = true;
    return true;
  }
  if (strcmp(plan, "layer") == 0) {
    LayerFigures f;
    return LayerView_figures(app, &f) && Lesson_layerValue(&f, q, v);
  }
  if (strcmp(plan, "pinned_layer") == 0) {
    const Lesson *l = app->lesson;
    return l && l->pinned_layer_ok && Lesson_layerValue(&l->pinned_layer, q, v);
  }
  OffchipFigures f; /* offchip */
  if (!OffchipView_figures(app, &f)) return false;
  if (strcmp(q, "taa_peak") == 0) return V_bytes(v, f.taa_peak);
  if (strcmp(q, "so_peak") == 0) return f.so_peak >= 0 && V_bytes(v, f.so_peak);
  if (strcmp(q, "so_method") == 0) return f.so_peak >= 0 && V_text(v, f.so_method);
  if (strcmp(q, "lower_bound") == 0) return V_bytes(v, f.lower_bound);
  return V_count(v, f.tiles);
}

bool Lesson_figure(App *app, const char *name, char *out, size_t n) {
  LessonValue v;
  bool ok = Lesson_value(app, name, &v);
  snprintf(out, n, "%s", ok ? v.text : "");
  return ok;
}

void Lesson_fill(App *app, const char *text, char *out, size_t n) {
  size_t k = 0;
  for (const char *p = text; *p && k + 1 < n;) {
    const char *end = *p == '{' ? strchr(p, '}') : NULL;
    if (!end) {
      out[k++] = *p++;
      continue;
    }
    char name[96], val[128] = "";
    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
    if (strncmp(name, "key:", 4) == 0) Key_name(Actions_keyOf(name + 4), val, sizeof val);
    else if (!Lesson_figure(app, name, val, sizeof val)) snprintf(val, sizeof val, "?");
    int w = snprintf(out + k, n - k, "%s", val);
    k += w > 0 ? (size_t)w : 0;
    if (k >= n) k = n - 1;
    p = end + 1;
  }
  out[k] = '\0';
}

/* ---- claims ------------------------------------------------------------------ */

static const char *const Lesson_opText[] = {"<", "<=", "==", "!=", ">=", ">"};

static void Lesson_say(char *report, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void Lesson_say(char *report, size_t n, const char *fmt, ...) {
  size_t len = strlen(report);
  if (len + 1 >= n) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(report + len, n - len, fmt, ap);
  va_end(ap);
}

int Lesson_check(App *app, char *report, size_t n) {
  const Lesson *l = app->lesson;
  if (!l || l->stage < 0) return 0;
  const LessonStage *s = &l->stages[l->stage];
  int bad = 0;
  if (l->error[0]) {
    Lesson_say(report, n, "%s\n", l->error); /* it names the file and the stage */
    return 1;
  }
  /* every figure quoted has a value */
  for (int i = 0; i < s->ntext; i++)
    for (const char *p = strchr(s->text[i], '{'); p; p = strchr(p + 1, '{')) {
      const char *end = strchr(p, '}');
      char name[96];
      LessonValue v;
      snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
      if (strncmp(name, "key:", 4) == 0 || Lesson_value(app, name, &v)) continue;
      Lesson_say(report, n, "stage %d: text[%d] quotes {%s}, which has no value in this stage\n", l->stage + 1, i, name);
      bad++;
    }
  for (int i = 0; i < s->nclaims; i++) {
    const LessonClaim *c = &s->claims[i];
    LessonValue a, b;
    char bname[160];
    bool ok_a = Lesson_value(app, c->a, &a), ok_b = true;
    if (c->b) {
      ok_b = Lesson_value(app, c->b, &b);
      if (c->scale != 1) snprintf(bname, sizeof bname, "%s*%g", c->b, c->scale);
      else snprintf(bname, sizeof bname, "%s", c->b);
      if (ok_b && c->scale != 1 && b.numeric) {
        b.num *= c->scale;
        snprintf(b.text + strlen(b.text), sizeof b.text - strlen(b.text), " x %g", c->scale);
      }
    }
    else if (c->b_text) {
      memset(&b, 0, sizeof b);
      V_text(&b, c->b_text);
      snprintf(bname, sizeof bname, "\"%s\"", c->b_text);
    } else {
      memset(&b, 0, sizeof b);
      snprintf(b.text, sizeof b.text, "%.15g", c->num);
      b.num = c->num, b.numeric = true;
      snprintf(bname, sizeof bname, "%s", b.text);
    }
    bool holds = false;
    if (ok_a && ok_b) {
      int cmp;
      if (a.numeric && b.numeric) cmp = a.num < b.num ? -1 : a.num > b.num ? 1 : 0;
      else cmp = strcmp(a.text, b.text);
      bool ordered = a.numeric && b.numeric;
      switch (c->op) {
      case CLAIM_LT: holds = ordered && cmp < 0; break;
      case CLAIM_LE: holds = ordered && cmp <= 0; break;
      case CLAIM_EQ: holds = cmp == 0; break;
      case CLAIM_NE: holds = cmp != 0; break;
      case CLAIM_GE: holds = ordered && cmp >= 0; break;
      case CLAIM_GT: holds = ordered && cmp > 0; break;
      }
    }
    char num_a[48] = "", num_b[48] = "", exact[48]; /* the exact number where the text rounds it */
    snprintf(exact, sizeof exact, "%.15g", a.num);
    if (ok_a && a.numeric && strcmp(exact, a.text) != 0) snprintf(num_a, sizeof num_a, " = %s", exact);
    snprintf(exact, sizeof exact, "%.15g", b.num);
    if (ok_b && b.numeric && c->b && strcmp(exact, b.text) != 0) snprintf(num_b, sizeof num_b, " = %s", exact);
    char bshow[200];
    if (c->b) snprintf(bshow, sizeof bshow, "%s (%s%s)", bname, ok_b ? b.text : "no value", num_b);
    else snprintf(bshow, sizeof bshow, "%s", bname);
    Lesson_say(report, n, "stage %d: claim %d%s%s%s: %s (%s%s) %s %s: %s\n", l->stage + 1, i + 1, c->says ? " \"" : "",
               c->says ? c->says : "", c->says ? "\"" : "", c->a, ok_a ? a.text : "no value", num_a, Lesson_opText[c->op],
               bshow, holds ? "holds" : "FALSE");
    bad += !holds;
  }
  return bad;
}

/* ---- showing a stage ------------------------------------------------------------ */

static int Lesson_policyIndex(PolicyKind k, const char *name) {
  for (int i = 0; i < App_policyCount(k); i++)
    if (strcmp(App_policy(k, i)->name, name) == 0) return i;
  return -1;
}

/* The settings of plan spec p (a field it leaves out: base's, then the default). */
static Status Lesson_settings(App *app, const LessonPlan *p, const LessonPlan *base, SpError *err) {
  SolveSettings d;
  SolveSettings_init(&d);
  const char *defaults[POLICY_KIND_COUNT] = {d.schedule, d.replacement, d.allocator};
  int *idx[POLICY_KIND_COUNT] = {&app->set.sched, &app->set.repl, &app->set.alloc};
  for (int k = 0; k < POLICY_KIND_COUNT; k++) {
    const char *name = p->policy[k] ? p->policy[k] : base && base->policy[k] ? base->policy[k] : defaults[k];
    int i = Lesson_policyIndex((PolicyKind)k, name);
    if (i < 0) return SpError_set(err, SP_ERR_ARG, "no %s policy \"%s\"", PolicyKind_name((PolicyKind)k), name);
    *idx[k] = i;
  }
  const char *budget = p->budget ? p->budget : base && base->budget ? base->budget : "M_R";
  bool ready;
  const NetFigures *f = App_presetFigures(app, app->set.params, &ready); /* computed here: no worker now */
  const char *preset = NULL;
  int64_t b;
  Status st = Budget_parse(budget, f, &b, &preset, err);
  if (st) return st;
  app->set.budget = b;
  app->set.preset = preset && preset[0] ? preset[2] : 0;
  app->await_preset = 0;
  return SP_OK;
}

/* Whether the settings in force search (an ILP bounded by the stage's time_limit). */
static bool Lesson_searching(const App *app) {
  return App_policy(POLICY_SCHEDULE, app->set.sched)->searching || App_policy(POLICY_REPLACEMENT, app->set.repl)->searching ||
         App_policy(POLICY_ALLOCATOR, app->set.alloc)->searching;
}

/* A solve of app->set on this thread (a worker, if running, is passed by: heuristics take milliseconds). */
static void Lesson_solveHere(App *app) {
  struct Worker *w = app->worker;
  app->worker = NULL;
  App_resolve(app);
  app->worker = w;
}

/* The solve just done (here or on the worker): its failure is the stage's. */
static Status Lesson_solved(App *app, const char *which, SpError *err) {
  if (app->cancelled) return SpError_set(err, SP_ERR_CANCELLED, "the %s plan's search was cancelled: the stage is not set up", which);
  if (app->error[0] || !app->plan) return SpError_set(err, SP_ERR_SOLVER, "the %s plan: %s", which, app->error[0] ? app->error : "no plan");
  return SP_OK;
}

/* A searching solve in a terminal goes to the worker (the keys keep working, its progress shows):
 * true when posted, the stage then goes on in Lesson_poll at `phase`. */
static bool Lesson_post(App *app, Lesson *l, int phase) {
  if (!l->async || !Lesson_searching(app)) return false;
  if (!app->worker && app->set.budget < App_figures(app)->m_r) return false; /* below M_R: the tiling's own path, here */
  if (l->parked) app->worker = l->parked, l->parked = NULL;
  if (!app->worker) App_startWorkers(app);
  if (!app->worker) return false; /* no thread: here, as without a terminal */
  App_resolve(app);
  if (!app->solving) return false; /* done at once (below M_R: the tiling's own path) */
  l->pending = phase;
  l->want = app->set;
  return true;
}

static int Lesson_tensor(const App *app, const char *name) {
  for (int t = 0; t < app->net->ntensors; t++)
    if (strcmp(app->net->tensors[t].name, name) == 0) return t;
  return -1;
}

/* The cursor (and selection) the stage declares, on the plan the map shows. */
static Status Lesson_cursor(App *app, const LessonStage *s, SpError *err) {
  const Plan *p = App_shownPlan(app);
  if (!p) return SpError_set(err, SP_ERR_ARG, "no plan to put the cursor on");
  switch (s->at) {
  case LESSON_AT_STEP:
    if (s->at_n >= p->nsteps) return SpError_set(err, SP_ERR_ARG, "cursor %d: the plan has %d steps", s->at_n, p->nsteps);
    app->cursor = s->at_n;
    break;
  case LESSON_AT_PEAK: app->cursor = App_shownSteps(app)->peak_step; break;
  case LESSON_AT_TENSOR: {
    int t = Lesson_tensor(app, s->at_name);
    if (t < 0) return SpError_set(err, SP_ERR_ARG, "cursor: no tensor \"%s\" in %s", s->at_name, app->net->name);
    app->selected = t;
    for (int i = 0; i < p->nstays; i++)
      if (p->stays[i].tensor == t) {
        app->cursor = p->stays[i].start < 0 ? 0 : p->stays[i].start;
        break;
      }
    break;
  }
  case LESSON_AT_SPILL:
  case LESSON_AT_SPILL_OF: {
    int *ev, n = Find_spillEvents(p, &ev), t = s->at == LESSON_AT_SPILL_OF ? Lesson_tensor(app, s->at_name) : -1, k = -1;
    if (n < 0) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
    if (s->at == LESSON_AT_SPILL) k = s->at_n <= n ? s->at_n - 1 : -1;
    for (int i = 0; s->at == LESSON_AT_SPILL_OF && i < n && k < 0; i++)
      if (p->stays[ev[i]].tensor == t) k = i;
    if (k >= 0) {
      app->cursor = p->stays[ev[k]].end;
      app->selected = p->stays[ev[k]].tensor;
    }
    free(ev);
    if (k < 0 && s->at == LESSON_AT_SPILL) return SpError_set(err, SP_ERR_ARG, "cursor: spill %d of %d", s->at_n, n);
    if (k < 0) return SpError_set(err, SP_ERR_ARG, "cursor: \"%s\" is never spilled in this plan", s->at_name);
    break;
  }
  }
  App_clampView(app);
  return SP_OK;
}

/* The shown layer: the cursor on the op's step, the view open, the mapping stated. */
static Status Lesson_layer(App *app, Lesson *l, const LessonStage *s, SpError *err) {
  int op = -1;
  for (int i = 0; i < app->net->nops; i++)
    if (strcmp(app->net->ops[i].name, s->layer_op) == 0) op = i;
  if (op < 0) return SpError_set(err, SP_ERR_ARG, "layer: no op \"%s\" in %s", s->layer_op, app->net->name);
  for (int t = 0; app->plan && t < app->plan->nsteps; t++)
    if (app->plan->order[t] == op) app->cursor = t;
  App_clampView(app);
  app->message[0] = '\0';
  LayerView_open(app);
  if (!LayerView_isOpen(app)) return SpError_set(err, SP_ERR_ARG, "layer \"%s\": %s", s->layer_op, app->message);
  Status st = LayerView_set(app, s->layer.method, s->layer.arch, s->layer.group, err);
  if (st) return st;
  LayerFigures f;
  if (!LayerView_figures(app, &f)) return SpError_set(err, SP_ERR_SOLVER, "layer \"%s\": the mapping failed", s->layer_op);
  if (s->has_pinned_layer) {
    st = LayerView_mapOther(app, s->pinned_layer.method, s->pinned_layer.arch, s->pinned_layer.group, &l->pinned_layer,
                            err);
    if (st) return st;
    l->pinned_layer_ok = true;
  }
  return SP_OK;
}

/* The stage's state from `phase` on: 0 from the start, 1 once the pinned plan is solved, 2 once the
 * current one is. Returns with l->pending set when a search was posted to the worker. */
static Status Lesson_apply(App *app, Lesson *l, const LessonStage *s, int phase, SpError *err) {
  Status st = SP_OK;
  if (phase == 0) {
    if (s->time_limit > 0) app->set.time_limit = s->time_limit;
    if (s->has_pinned) {
      st = Lesson_settings(app, &s->pinned, &s->current, err);
      if (!st && Lesson_post(app, l, 1)) return SP_OK;
      if (!st) Lesson_solveHere(app);
    }
    phase = 1;
  }
  if (phase == 1) {
    if (s->has_pinned) {
      if (!st) st = Lesson_solved(app, "pinned", err);
      if (!st) Actions_find("pin")->run(app);
      if (!st && !app->pinned) st = SpError_set(err, SP_ERR_SOLVER, "the pinned plan could not be pinned");
    }
    if (!st) st = Lesson_settings(app, &s->current, NULL, err);
    if (!st && Lesson_post(app, l, 2)) return SP_OK;
    if (!st) Lesson_solveHere(app);
  }
  if (!st) st = Lesson_solved(app, "current", err);
  if (!st && s->has_pinned && !app->pinned) /* a budget below M_R opened the tiled network: the pin went */
    st = SpError_set(err, SP_ERR_ARG, "the pinned plan is of another network than the current one (a budget below M_R?)");
  if (!st && s->flip) app->show_pinned = true;
  if (!st) st = Lesson_cursor(app, s, err);
  if (!st && s->view == LESSON_VIEW_LAYER) st = Lesson_layer(app, l, s, err);
  if (!st && s->view == LESSON_VIEW_OFFCHIP) app->offchip_map = true;
  return st; /* the sweep opens once the workers run again (Lesson_goto): it fills in on its thread */
}

/* A fresh explorer on path, keeping what belongs to the terminal, not to the lesson. */
static Status Lesson_fresh(App *app, const char *path, SpError *err) {
  Lesson *l = app->lesson;
  bool det = app->deterministic, mouse = app->mouse, mono = app->mono, had = app->net != NULL;
  Grid *grid = app->grid;
  if (had) App_free(app);
  Status st = App_initWith(app, path, NULL, err);
  app->lesson = l;
  app->deterministic = det;
  app->grid = grid;
  app->mono = mono;
  if (had) app->mouse = mouse;
  return st;
}

/* The stage set up (or failed): its error said, the workers running again, the sweep opened. */
static Status Lesson_done(App *app, Lesson *l, int k, bool workers, Status st, SpError *err) {
  const LessonStage *s = &l->stages[k];
  l->pending = 0;
  if (st) SpError_set(err, st, "%s: stage %d: %s", l->path, k + 1, err->text);
  snprintf(l->error, sizeof l->error, "%s", st ? err->text : "");
  if (workers) {
    if (!app->worker) App_startWorkers(app);
    App_prefetchFigures(app);
  }
  /* in a terminal the sweep's points come in on its own thread (a large network's
   * sweep never holds the screen); without workers (snapshots, tests) they are
   * all computed here */
  if (!st && s->view == LESSON_VIEW_SWEEP) SweepView_openKey(app);
  return st;
}

Status Lesson_goto(App *app, int k, SpError *err) {
  Lesson *l = app->lesson;
  if (!l || k < 0 || k >= l->nstages) return SpError_set(err, SP_ERR_ARG, "no stage %d", k + 1);
  const LessonStage *s = &l->stages[k];
  bool workers = app->worker != NULL;
  l->pinned_layer_ok = false;
  l->pending = 0;
  Status st = Lesson_fresh(app, s->network, err);
  l->stage = k;
  l->scroll = 0; /* a new stage's text from its start */
  app->legend = app->help = false;
  app->message[0] = '\0';
  if (st) {
    SpError e2;
    if (Lesson_fresh(app, l->network, &e2)) return st; /* nothing to show: the caller says why */
    App_resolve(app);
    return Lesson_done(app, l, k, workers, st, err);
  }
  l->async = workers; /* in a terminal, the stage's searches go to a worker (its heuristics still run here) */
  st = Lesson_apply(app, l, s, 0, err);
  if (!st && l->pending) {
    l->error[0] = '\0';
    return SP_OK;
  }
  return Lesson_done(app, l, k, workers, st, err);
}

bool Lesson_poll(App *app) {
  Lesson *l = app->lesson;
  if (!l || !l->pending || app->solving) return false;
  int k = l->stage;
  SpError err;
  Status st;
  if (memcmp(&app->plan_set, &l->want, sizeof l->want) != 0 && !app->cancelled && !app->error[0])
    st = SpError_set(&err, SP_ERR_ARG, "left before its search ended (a key changed the settings): the stage is not set up");
  else {
    int phase = l->pending;
    l->pending = 0;
    l->parked = app->worker; /* idle: the stage's heuristics and figures run here, as in Lesson_goto */
    app->worker = NULL;
    st = Lesson_apply(app, l, &l->stages[k], phase, &err);
    if (!app->worker) app->worker = l->parked;
    l->parked = NULL;
  }
  if (!st && l->pending) return true; /* the next search posted */
  Lesson_done(app, l, k, true, st, &err);
  return true;
}

Status Lesson_start(App *app, Lesson *l, bool deterministic, SpError *err) {
  memset(app, 0, sizeof *app);
  app->deterministic = deterministic;
  app->lesson = l;
  l->stage = -1;
  return Lesson_goto(app, 0, err);
}

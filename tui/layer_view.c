/* layer_view: see layer_view.h. One solve at a time: a switch while a solve
 * runs cancels it and queues the new request. */
#include "layer_view.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "actions.h"
#include "layer/layer_map.h"
#include "shuttle_pane.h"
#include "words.h"

static const char *const LayerView_archs[] = {"cosa_baseline", "cosa_4xpe", "cosa_sram"};
/* the built-in three, then a file of the user's (--arch F, or O in the view) */
enum { LV_BUILTIN = 3, LV_NARCH = 4 };

typedef struct LayerView {
  Layer layer;
  int method, arch;          /* indices: LayerMap_methods, LayerView_archs */
  int group_size;            /* patches per step of the steps methods (+/-) */
  Arch archs[LV_NARCH];
  int narch;                 /* LV_BUILTIN, or LV_NARCH with the user's file */
  char arch_name[LV_NARCH][64];
  bool arch_ok[LV_NARCH];
  char arch_err[LV_NARCH][SP_ERROR_TEXT];
  /* the solve */
  pthread_t thread;
  bool thread_live;
  pthread_mutex_t lock;
  atomic_int cancel;
  bool busy, fresh;          /* running; a result arrived since the last poll */
  char stage[160];           /* progress (Words_progress), under lock */
  Status st;
  SpError err;
  LayerMapResult res;
  int res_method, res_arch, res_group; /* what res answers */
  ShuttlePaneResult *sres;   /* methods past the engine's table: SmartShuttle, steps (shuttle_pane.c) */
  bool defer, pending;       /* LayerView_defer: switches only mark a solve as wanted */
} LayerView;

/* The engine's mappers, then SmartShuttle and the steps. */
static int LayerView_nmethods(void) { return LayerMap_nmethods + SHUTTLE_PANE_METHODS; }
static const char *LayerView_methodName(int m) {
  return m < LayerMap_nmethods ? LayerMap_methods[m].name : ShuttlePane_methodName(m - LayerMap_nmethods);
}

/* The view is one per app; App has no field for it, so it is keyed by the app. */
static LayerView *LayerView_of(const App *app) { return (LayerView *)app->layer_view; }

/* The progress line in the one vocabulary (words.c): "solving 4.70 s, best
 * 0.8172, bound 0.5463, gap 33.3 %: cosa MIP round 1: branch and bound". */
static void LayerView_progress(const char *stage, double inc, double bound, double gap, double el, void *user) {
  LayerView *v = user;
  char fig[64] = "", b[32] = "";
  bool has_inc = isfinite(inc), has_bound = isfinite(bound) && gap >= 0; /* random, exhaustive: -1 */
  char f1[24], f2[24];
  if (has_bound) snprintf(b, sizeof b, "bound %s", Words_figure(bound, f1, sizeof f1));
  if (has_inc) snprintf(fig, sizeof fig, "best %s%s%s", Words_figure(inc, f2, sizeof f2), b[0] ? ", " : "", b);
  else snprintf(fig, sizeof fig, "%s", b);
  pthread_mutex_lock(&v->lock);
  Words_progress(el, fig, has_inc ? gap : -1, stage, v->stage, sizeof v->stage);
  pthread_mutex_unlock(&v->lock);
}
/* The steps ILP's reports (its exact search and MIP) on the same line. */
static void LayerView_stepsProgress(const IlpProgress *p, void *user) {
  LayerView_progress(p->stage, p->has_incumbent ? p->incumbent : NAN, p->has_bound ? p->bound : NAN, p->gap,
                     p->elapsed, user);
}

static void LayerView_solve(LayerView *v, int method, int arch, int group_size, bool snapshot) {
  LayerMapOptions o;
  LayerMapOptions_init(&o);
  o.time_limit = 10;
  if (snapshot) { /* the MIPs to their end, as the screenshots were made; the work budget decides,
                   * the wall clock only guards a hang (a loaded machine stopped it at 10 s) */
    o.mip_limit = 0;
    o.wall_limit = 600;
  }
  o.cancel = &v->cancel;
  o.progress = LayerView_progress;
  o.user = v;
  LayerMapResult r;
  SpError err = {0};
  ShuttlePaneResult *sres = NULL;
  Status st;
  if (method >= LayerMap_nmethods) {
    sres = ShuttlePane_solve(method - LayerMap_nmethods, &v->layer, group_size, &v->cancel, LayerView_stepsProgress, v,
                             err.text, sizeof err.text);
    st = sres ? SP_OK : SP_ERR_ARG;
  } else
    st = v->arch_ok[arch] ? LayerMap_methods[method].fn(&v->archs[arch], &v->layer, &o, &r, &err)
                          : SpError_set(&err, SP_ERR_IO, "%s", v->arch_err[arch]);
  pthread_mutex_lock(&v->lock);
  ShuttlePaneResult_free(v->sres);
  v->sres = sres;
  v->st = st;
  v->err = err;
  if (!st && !sres) v->res = r;
  v->res_method = method;
  v->res_arch = arch;
  v->res_group = group_size;
  v->busy = false;
  v->fresh = true;
  pthread_mutex_unlock(&v->lock);
}

typedef struct {
  LayerView *v;
  int method, arch, group_size;
} LayerJob;

static void *LayerView_main(void *arg) {
  LayerJob *job = arg;
  LayerView_solve(job->v, job->method, job->arch, job->group_size, false);
  free(job);
  return NULL;
}

static void LayerView_join(LayerView *v) {
  if (!v->thread_live) return;
  atomic_store(&v->cancel, 1);
  pthread_join(v->thread, NULL);
  v->thread_live = false;
  atomic_store(&v->cancel, 0);
}

/* Maps the layer with the view's method and arch: in the calling thread when
 * the app has no worker (snapshots), else in the view's own thread. */
static void LayerView_start(App *app) {
  LayerView *v = LayerView_of(app);
  if (v->defer) { /* a replay presses m several times: only the method it stops at is mapped */
    v->pending = true;
    v->busy = true;
    return;
  }
  v->pending = false;
  LayerView_join(v);
  v->busy = true;
  Words_progress(-1, NULL, -1, LayerView_methodName(v->method), v->stage, sizeof v->stage); /* "solving: cosa" */
  if (!app->worker) {
    LayerView_solve(v, v->method, v->arch, v->group_size, true);
    return;
  }
  LayerJob *job = malloc(sizeof *job);
  if (job) {
    *job = (LayerJob){v, v->method, v->arch, v->group_size};
    if (pthread_create(&v->thread, NULL, LayerView_main, job) == 0) {
      v->thread_live = true;
      return;
    }
    free(job);
  }
  LayerView_solve(v, v->method, v->arch, v->group_size, false); /* no thread: solve here */
}

/* An architecture as the CLI names it: its file's "name" field ("cosa-baseline"), the file's
 * stem ("cosa_baseline") only when the file did not load. */
static const char *LayerView_archLabel(const LayerView *v, int a) {
  return v->arch_ok[a] && v->archs[a].name[0] ? v->archs[a].name : v->arch_name[a];
}

bool LayerView_isOpen(const App *app) { return app->layer_view != NULL; }

/* A user's architecture file becomes the view's fourth (replacing one opened
 * before) and the one shown; a bad file leaves the view as it was. */
static Status LayerView_loadArch(LayerView *v, const char *path, SpError *err) {
  Arch a;
  Status st = Arch_load(path, &a, err);
  if (st) return st;
  v->archs[LV_BUILTIN] = a;
  v->arch_ok[LV_BUILTIN] = true;
  App_stem(path, v->arch_name[LV_BUILTIN], sizeof v->arch_name[LV_BUILTIN]);
  v->narch = LV_NARCH;
  v->arch = LV_BUILTIN;
  return SP_OK;
}

/* An action of the layer view while it is closed (a lesson, a rebinding): say so. */
static bool LayerView_closed(App *app) {
  if (LayerView_of(app)) return false;
  char k[16];
  Key_name(Actions_keyOf("layer"), k, sizeof k);
  App_setMessage(app, true, "the layer view is not open (%s opens it on the op at the cursor)", k);
  return true;
}

int LayerView_openArch(App *app, const char *path) {
  LayerView *v = LayerView_of(app);
  if (LayerView_closed(app)) return ACT_REDRAW;
  if (!path[0]) return ACT_REDRAW;
  SpError e = {0};
  if (LayerView_loadArch(v, path, &e)) {
    App_setMessage(app, true, "%s", e.text);
    return ACT_REDRAW;
  }
  snprintf(app->layer_arch, sizeof app->layer_arch, "%s", path); /* kept for the next layer opened */
  if (v->method >= LayerMap_nmethods) v->method = 0; /* the file is for the mappers */
  App_setMessage(app, false, "architecture %s: %d levels", LayerView_archLabel(v, v->arch), v->archs[v->arch].nlevels);
  LayerView_start(app);
  return ACT_REDRAW;
}

int LayerView_method(App *app, int dir) {
  LayerView *v = LayerView_of(app);
  if (LayerView_closed(app) || dir == 0) return ACT_REDRAW;
  v->method = (v->method + LayerView_nmethods() + dir) % LayerView_nmethods();
  LayerView_start(app);
  return ACT_REDRAW;
}

int LayerView_arch(App *app) {
  LayerView *v = LayerView_of(app);
  if (LayerView_closed(app)) return ACT_REDRAW;
  if (v->method >= LayerMap_nmethods) return 0; /* SmartShuttle and the steps have their own platform */
  v->arch = (v->arch + 1) % v->narch;
  LayerView_start(app);
  return ACT_REDRAW;
}

int LayerView_cancel(App *app) {
  LayerView *v = LayerView_of(app);
  if (LayerView_closed(app)) return ACT_REDRAW;
  atomic_store(&v->cancel, 1);
  return ACT_REDRAW;
}

int LayerView_group(App *app, int d) {
  LayerView *v = LayerView_of(app);
  if (LayerView_closed(app)) return ACT_REDRAW;
  if (v->method <= LayerMap_nmethods + 1) return 0; /* a mapper, SmartShuttle, S1: no G */
  int most = v->layer.P * v->layer.Q < 4096 ? (int)(v->layer.P * v->layer.Q) : 4096;
  int g = v->group_size + d;
  if (g < 1 || g > most) return ACT_REDRAW; /* at a limit: nothing to solve again */
  v->group_size = g;
  LayerView_start(app);
  return ACT_REDRAW;
}

int LayerView_step(App *app, int delta) {
  LayerView *v = LayerView_of(app);
  if (LayerView_closed(app)) return ACT_REDRAW;
  if (v->method <= LayerMap_nmethods) { /* by name (a lesson, a rebinding) on another method */
    char k[16];
    App_setMessage(app, true, "the steps map is not shown (%s to a steps method)",
                   Key_name(Actions_keyOf("layer_method_next"), k, sizeof k));
    return ACT_REDRAW;
  }
  pthread_mutex_lock(&v->lock);
  bool stepped = !v->busy && v->res_method == v->method && ShuttlePane_move(v->sres, delta);
  pthread_mutex_unlock(&v->lock);
  return stepped ? ACT_REDRAW : 0;
}

int LayerView_open(App *app) {
  int op = app->plan && app->cursor < app->plan->nsteps ? app->plan->order[app->cursor] : app->cursor;
  if (op < 0 || op >= app->net->nops) return 0;
  Layer l;
  SpError err = {0};
  if (Layer_fromOp(app->net, op, &l, &err)) {
    const char *what = strstr(err.text, "op \""); /* without the file name */
    App_setMessage(app, true, "layer view: %s", what ? what : err.text);
    return ACT_REDRAW;
  }
  LayerView *v = calloc(1, sizeof *v);
  if (!v) return 0;
  v->layer = l;
  v->group_size = SHUTTLE_PANE_GROUP_SIZE;
  pthread_mutex_init(&v->lock, NULL);
  for (int i = 0; i < LV_BUILTIN; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/arch/%s.json", Data_dir(), LayerView_archs[i]);
    SpError e = {0};
    v->arch_ok[i] = Arch_load(path, &v->archs[i], &e) == SP_OK;
    snprintf(v->arch_err[i], sizeof v->arch_err[i], "%s", e.text);
    snprintf(v->arch_name[i], sizeof v->arch_name[i], "%s", LayerView_archs[i]);
  }
  v->narch = LV_BUILTIN;
  app->layer_view = v;
  if (app->layer_arch[0]) { /* --arch F: the user's file first */
    SpError e = {0};
    if (LayerView_loadArch(v, app->layer_arch, &e)) App_setMessage(app, true, "%s", e.text);
  }
  LayerView_start(app);
  return ACT_REDRAW;
}

void LayerView_free(App *app) {
  LayerView *v = LayerView_of(app);
  if (!v) return;
  LayerView_join(v);
  ShuttlePaneResult_free(v->sres);
  pthread_mutex_destroy(&v->lock);
  free(v);
  app->layer_view = NULL;
}

void LayerView_report(App *app, const char *stage, double inc, double bound, double gap, double el) {
  LayerView *v = LayerView_of(app);
  if (!v) return;
  pthread_mutex_lock(&v->lock);
  v->busy = true;
  pthread_mutex_unlock(&v->lock);
  LayerView_progress(stage, inc, bound, gap, el, v);
}

bool LayerView_poll(App *app) {
  LayerView *v = LayerView_of(app);
  if (!v) return false;
  pthread_mutex_lock(&v->lock);
  bool fresh = v->fresh || v->busy; /* busy: the progress line moves */
  v->fresh = false;
  pthread_mutex_unlock(&v->lock);
  return fresh;
}

int LayerView_key(App *app, int key) {
  LayerView *v = LayerView_of(app);
  /* the steps methods' map takes its own actions first (steps_prev ... as
   * bound: Left/Right there step the map, also at its ends and while a plan is
   * being made; they used to switch the method, throwing away a finished ILP) */
  if (v->method > LayerMap_nmethods) {
    int flags = Actions_keyScoped(app, key, ACT_SCOPE_STEPS);
    if (flags >= 0) return flags;
  }
  if (key == K_ESC || key == Actions_keyOf("quit") || key == Actions_keyOf("layer")) { /* as bound */
    LayerView_free(app);
    return ACT_REDRAW;
  }
  /* the view's own actions (m, M, a, O, C, +, - as bound: tui/actions.c) */
  int flags = Actions_keyScoped(app, key, ACT_SCOPE_LAYER);
  if (flags >= 0) return flags;
  if (key == Actions_keyOf("help") || key == Actions_keyOf("legend")) { /* over the view, about it */
    app->help = key == Actions_keyOf("help");
    app->legend = !app->help;
    app->help_page = 0;
    return ACT_REDRAW;
  }
  return 0;
}

/* A bar of w cells: each held operand's share of the capacity in its own color. */
static void LayerView_bar(Grid *g, int x, int y, int w, const Arch *a, const Cost *c, int level) {
  const ArchLevel *lv = &a->level[level];
  uint32_t full = Grid_glyph(g, 0x2588), empty = Grid_glyph(g, 0x00B7);
  if (!lv->capacity) {
    Grid_text(g, x, y, w, ROLE_DIM, 0, "(unbounded)");
    return;
  }
  Grid_fill(g, x, y, w, 1, empty, ROLE_FREE, 0);
  int at = 0;
  for (int v = 0; v < OPND_COUNT; v++) {
    if (!Arch_holds(a, level, (Operand)v)) continue;
    double share = (double)(c->tile[level][v] * a->precision[v]) / (double)lv->capacity;
    int cells = (int)(share * w + 0.5);
    if (cells < 1 && share > 0) cells = 1;
    for (int k = 0; k < cells && at < w; k++) Grid_put(g, x + at++, y, full, (Role)(ROLE_TENSOR0 + v), 0);
  }
}

/* text over up to maxh lines of w cells, broken at spaces (a solver's message
 * is longer than a line: cut, it lost its end) */
static void LayerView_wrap(Grid *g, int x, int y, int w, int maxh, Role role, const char *text) {
  for (int line = 0; *text && line < maxh && w > 0; line++) {
    if (line == maxh - 1) { /* the last line: what does not fit ends in an ellipsis */
      Grid_text(g, x, y + line, w, role, 0, text);
      break;
    }
    int n = (int)strlen(text);
    if (n > w) {
      n = w;
      while (n > w / 2 && text[n] != ' ') n--; /* the last space that fits, unless far back */
      if (text[n] != ' ') n = w;
    }
    Grid_printf(g, x, y + line, w, role, 0, "%.*s", n, text);
    text += n;
    while (*text == ' ') text++;
  }
}

void LayerView_draw(App *app, Grid *g) {
  LayerView *v = LayerView_of(app);
  if (!v) return;
  int w = g->w - 2, h = g->h - 2, x0 = 1, y0 = 1;
  /* the columns beside the box are blank: a map column left at each edge read as part of the view */
  Grid_fill(g, 0, y0, 1, h, ' ', ROLE_DEFAULT, 0);
  Grid_fill(g, g->w - 1, y0, 1, h, ' ', ROLE_DEFAULT, 0);
  Grid_box(g, x0, y0, w, h);
  char name[64];
  Layer_cosaName(&v->layer, name, sizeof name);
  pthread_mutex_lock(&v->lock);
  Grid_printf(g, x0 + 2, y0, w - 4, ROLE_TITLE, ATTR_BOLD, " layer %s = %s  (R%lld S%lld P%lld Q%lld C%lld K%lld N%lld g%d) ",
              v->layer.name, name, (long long)v->layer.R, (long long)v->layer.S, (long long)v->layer.P,
              (long long)v->layer.Q, (long long)v->layer.C, (long long)v->layer.K, (long long)v->layer.N,
              v->layer.groups);
  const Arch *a = &v->archs[v->arch];
  Grid_printf(g, x0 + 2, y0 + 1, w - 4, ROLE_DEFAULT, 0, "method %-10s arch %s", LayerView_methodName(v->method),
              v->method < LayerMap_nmethods ? LayerView_archLabel(v, v->arch) : v->method == LayerMap_nmethods ? "smartshuttle" : "(steps)");
  if (v->busy) /* the progress on a line of its own (the result's note goes there): whole at 80 columns */
    LayerView_wrap(g, x0 + 2, y0 + 2, w - 4, 2, ROLE_DEFAULT, v->stage);
  bool shown = !v->busy && v->res_method == v->method && v->res_arch == v->arch && v->res_group == v->group_size;
  if (shown && !v->st && v->method >= LayerMap_nmethods) {
    ShuttlePane_draw(g, x0 + 2, y0 + 3, w - 4, h - 5, v->sres);
  } else if (shown && v->st) {
    LayerView_wrap(g, x0 + 2, y0 + 3, w - 4, h - 5, ROLE_WARN, v->err.text);
  } else if (shown) {
    const LayerMapResult *r = &v->res;
    const Cost *c = &r->cost;
    LayerView_wrap(g, x0 + 2, y0 + 2, w - 4, 2, ROLE_DIM, r->note); /* the line below the note is free */
    /* the loop nest, left */
    char nest[8192];
    LayerMap_nestText(a, &r->map, nest, sizeof nest);
    int nw = w / 2 - 2, y = y0 + 4, left = 0;
    for (const char *q = nest; *q; q++) left += *q == '\n';
    for (char *line = nest; *line && y < y0 + h - 2; y++, left--) {
      char *end = strchr(line, '\n');
      if (end) *end = 0;
      if (y == y0 + h - 3 && left > 1) { /* the nest goes on below: say so, and where to read it whole */
        Grid_printf(g, x0 + 2, y, nw, ROLE_DIM, 0, "%s %d more lines: spadmap layer",
                    g->unicode ? "\u2193" : "v", left);
        break;
      }
      bool comment = strstr(line, "//") != NULL;
      Grid_text(g, x0 + 2, y, nw, comment ? ROLE_TITLE : ROLE_DEFAULT, 0, line);
      if (!end) break;
      line = end + 1;
    }
    /* levels, right: a bar per level (W I O shares of the capacity) */
    int rx = x0 + w / 2, rw = w - w / 2 - 2, ry = y0 + 4;
    Grid_text(g, rx, ry++, rw, ROLE_TITLE, ATTR_BOLD, "tiles vs capacity (W I O)");
    for (int i = a->nlevels - 1; i >= 0 && ry < y0 + h - 9; i--, ry++) {
      char used[32], u1[16], u2[16];
      snprintf(used, sizeof used, "%s/%s", App_bytes(c->used[i], u1, sizeof u1),
               App_bytes(a->level[i].capacity, u2, sizeof u2));
      Grid_printf(g, rx, ry, 10, c->bound_by == i ? ROLE_WARN : ROLE_DEFAULT, 0, "%-10s", a->level[i].name);
      int bw = rw - 10 - 18;
      if (bw > 4) LayerView_bar(g, rx + 10, ry, bw, a, c, i);
      Grid_printf(g, rx + rw - 17, ry, 17, ROLE_DIM, 0, "%s", a->level[i].capacity ? used : "");
    }
    ry++;
    /* counts in groups of three, energy in its unit, bytes as everywhere else: a teacher reads them aloud */
    char f1[48], f2[48];
    Grid_printf(g, rx, ry++, rw, ROLE_DEFAULT, ATTR_BOLD, "latency %s cycles (%s-bound)",
                Words_count(c->latency, f1, sizeof f1), c->bound_by < 0 ? "compute" : a->level[c->bound_by].name);
    Grid_printf(g, rx, ry++, rw, ROLE_DEFAULT, 0, "compute %s cycles, %.0f%% of %s MACs",
                Words_count(c->compute_cycles, f1, sizeof f1), 100 * c->utilization, Words_count((double)a->macs, f2, sizeof f2));
    Grid_printf(g, rx, ry++, rw, ROLE_DEFAULT, 0, "energy %s (%.2f pJ/MAC)", Words_energy(c->energy_pj, f1, sizeof f1),
                c->energy_pj / c->macs);
    Grid_printf(g, rx, ry++, rw, ROLE_DEFAULT, 0, "DRAM traffic %s", App_bytes((int64_t)(c->dram_bytes + 0.5), f2, sizeof f2));
  }
  pthread_mutex_unlock(&v->lock);
  bool stepping = v->method > LayerMap_nmethods; /* the steps map has the cursor keys */
  bool grouping = v->method > LayerMap_nmethods + 1; /* row, zigzag, ilp: G patches per step */
  char close[16]; /* the layer key as bound, not a hard-coded letter */
  Key_name(Actions_keyOf("layer"), close, sizeof close);
  char quit[16]; /* the quit key closes this view (the hint did not say so) */
  Key_name(Actions_keyOf("quit"), quit, sizeof quit);
  /* the step keys as bound (steps_prev ... in actions.c): "arrows" while Left/Right */
  char kp[16], kn[16], kpu[16], kpd[16], kh[16], ke[16], pair[40], steps_long[96], steps_short[80];
  Key_name(Actions_keyOf("steps_prev"), kp, sizeof kp);
  Key_name(Actions_keyOf("steps_next"), kn, sizeof kn);
  if (Actions_keyOf("steps_prev") == K_LEFT && Actions_keyOf("steps_next") == K_RIGHT) snprintf(pair, sizeof pair, "arrows");
  else snprintf(pair, sizeof pair, "%s/%s", kp, kn);
  Key_name(Actions_keyOf("steps_page_prev"), kpu, sizeof kpu);
  Key_name(Actions_keyOf("steps_page_next"), kpd, sizeof kpd);
  Key_name(Actions_keyOf("steps_first"), kh, sizeof kh);
  Key_name(Actions_keyOf("steps_last"), ke, sizeof ke);
  snprintf(steps_long, sizeof steps_long, "%s/%s/%s/%s/%s step  ", pair, kpu, kpd, kh, ke);
  snprintf(steps_short, sizeof steps_short, "%s/%s/%s step  ", pair, kh, ke);
  char hint[240];
  snprintf(hint, sizeof hint, " %s  %s%sC cancel  Esc/%s/%s close ", stepping ? "m/M method" : "m/M/Left/Right method",
           grouping ? "+/- G  " : "", stepping ? steps_long : v->method < LayerMap_nmethods ? "a arch  " : "",
           close, quit);
  if ((int)strlen(hint) > w - 4) /* narrow: the step keys say less */
    snprintf(hint, sizeof hint, " %s  %s%sC cancel  Esc/%s/%s close ", stepping ? "m/M method" : "m/M/Left/Right method",
             grouping ? "+/- G  " : "", stepping ? steps_short : v->method < LayerMap_nmethods ? "a arch  " : "",
             close, quit);
  Grid_text(g, x0 + 2, y0 + h - 1, w - 4, ROLE_DIM, 0, hint);
}

void LayerView_defer(App *app, bool on) {
  LayerView *v = LayerView_of(app);
  if (!v) return;
  v->defer = on;
  if (!on && v->pending) LayerView_start(app);
}

bool LayerView_figure(App *app, const char *name, char *out, size_t n) {
  LayerView *v = LayerView_of(app);
  out[0] = '\0';
  if (!v) return false;
  if (strcmp(name, "layer_method") == 0) return snprintf(out, n, "%s", LayerView_methodName(v->method)), true;
  if (strcmp(name, "arch") == 0) return snprintf(out, n, "%s", LayerView_archLabel(v, v->arch)), true;
  pthread_mutex_lock(&v->lock);
  bool shown = !v->busy && !v->st && v->res_method == v->method && v->res_arch == v->arch && v->method < LayerMap_nmethods;
  const Cost *c = &v->res.cost;
  /* the figures as the view prints them */
  if (shown && strcmp(name, "latency") == 0) Words_count(c->latency, out, n);
  else if (shown && strcmp(name, "energy") == 0) Words_energy(c->energy_pj, out, n);
  else if (shown && strcmp(name, "dram") == 0) App_bytes((int64_t)(c->dram_bytes + 0.5), out, (int)n);
  pthread_mutex_unlock(&v->lock);
  return out[0] != '\0';
}

const char *LayerView_methodShown(const App *app) {
  const LayerView *v = LayerView_of(app);
  return v ? LayerView_methodName(v->method) : "";
}

/* ---- lessons: a stated mapping, and its figures ---------------------------- */

static int LayerView_methodIndex(const char *name) {
  for (int m = 0; m < LayerView_nmethods(); m++)
    if (strcmp(LayerView_methodName(m), name) == 0) return m;
  return -1;
}

static int LayerView_archIndex(const LayerView *v, const char *name) {
  for (int a = 0; a < v->narch; a++)
    if (strcmp(v->arch_name[a], name) == 0 || strcmp(LayerView_archLabel(v, a), name) == 0) return a; /* file stem or name */
  return -1;
}

/* method, arch, group resolved against the view: -1 / SP_ERR_ARG naming the choices. */
static Status LayerView_resolve(const LayerView *v, const char *method, const char *arch, int group, int *m, int *a,
                                int *gs, SpError *err) {
  *m = method ? LayerView_methodIndex(method) : v->method;
  *a = arch ? LayerView_archIndex(v, arch) : v->arch;
  *gs = group > 0 ? group : v->group_size;
  if (*m < 0) {
    char list[512] = "";
    for (int i = 0; i < LayerView_nmethods(); i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", LayerView_methodName(i));
    return SpError_set(err, SP_ERR_ARG, "no layer method \"%s\" (%s)", method, list);
  }
  if (*a < 0) return SpError_set(err, SP_ERR_ARG, "no architecture \"%s\" (cosa_baseline, cosa_4xpe, cosa_sram)", arch);
  if (arch && *m >= LayerMap_nmethods)
    return SpError_set(err, SP_ERR_ARG, "%s has its own platform: an architecture is for the mappers", LayerView_methodName(*m));
  return SP_OK;
}

Status LayerView_set(App *app, const char *method, const char *arch, int group, SpError *err) {
  LayerView *v = LayerView_of(app);
  if (!v) return SpError_set(err, SP_ERR_ARG, "the layer view is not open");
  int m, a, gs;
  Status st = LayerView_resolve(v, method, arch, group, &m, &a, &gs, err);
  if (st) return st;
  v->method = m, v->arch = a, v->group_size = gs;
  LayerView_start(app);
  return SP_OK;
}

static void LayerView_fill(LayerFigures *f, const LayerView *v, int m, int a, const LayerMapResult *r,
                           const ShuttlePaneResult *s) {
  memset(f, 0, sizeof *f);
  snprintf(f->method, sizeof f->method, "%s", LayerView_methodName(m));
  snprintf(f->arch, sizeof f->arch, "%s", m < LayerMap_nmethods ? LayerView_archLabel(v, a) : "");
  snprintf(f->op, sizeof f->op, "%s", v->layer.name);
  if (m < LayerMap_nmethods) {
    f->mapper = true;
    f->cycles = r->cost.latency;
    f->energy_pj = r->cost.energy_pj;
    f->dram_bytes = r->cost.dram_bytes;
  } else if (s) {
    f->steps = ShuttlePane_figures(s, &f->nsteps, &f->duration, &f->group, &f->rule_macs, &f->oracle_macs);
    f->shuttle = !f->steps;
  }
}

bool LayerView_figures(App *app, LayerFigures *f) {
  LayerView *v = LayerView_of(app);
  if (!v) return false;
  pthread_mutex_lock(&v->lock);
  bool shown = !v->busy && !v->st && v->res_method == v->method && (v->method >= LayerMap_nmethods || v->res_arch == v->arch) &&
               (v->method < LayerMap_nmethods || v->sres);
  if (shown) LayerView_fill(f, v, v->method, v->arch, &v->res, v->sres);
  pthread_mutex_unlock(&v->lock);
  return shown;
}

Status LayerView_mapOther(App *app, const char *method, const char *arch, int group, LayerFigures *f, SpError *err) {
  LayerView *v = LayerView_of(app);
  if (!v) return SpError_set(err, SP_ERR_ARG, "the layer view is not open");
  int m, a, gs;
  Status st = LayerView_resolve(v, method, arch, group, &m, &a, &gs, err);
  if (st) return st;
  atomic_int cancel = 0;
  if (m >= LayerMap_nmethods) {
    ShuttlePaneResult *s = ShuttlePane_solve(m - LayerMap_nmethods, &v->layer, gs, &cancel, NULL, NULL, err->text,
                                             (int)sizeof err->text);
    if (!s) return err->code = SP_ERR_ARG;
    LayerView_fill(f, v, m, a, NULL, s);
    ShuttlePaneResult_free(s);
    return SP_OK;
  }
  if (!v->arch_ok[a]) return SpError_set(err, SP_ERR_IO, "%s", v->arch_err[a]);
  LayerMapOptions o; /* as LayerView_solve maps without a worker (snapshots) */
  LayerMapOptions_init(&o);
  o.time_limit = 10;
  o.mip_limit = 0;
  o.wall_limit = 600; /* the work budget decides the figure; the wall clock guards a hang */
  o.cancel = &cancel;
  LayerMapResult r;
  st = LayerMap_methods[m].fn(&v->archs[a], &v->layer, &o, &r, err);
  if (!st) LayerView_fill(f, v, m, a, &r, NULL);
  return st;
}

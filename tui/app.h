/* app: the explorer's state (network, figures, settings, the plan on screen, the
 * view) and the one place results and settings change. Views read it; actions
 * (actions.c) change it; the loop (term.c or snapshot.c) drives it. */
#ifndef SPADMAP_APP_H
#define SPADMAP_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "figures.h"
#include "grid.h"
#include "import.h"
#include "net.h"
#include "plan.h"
#include "policy.h"
#include "sim.h"
#include "worker.h"

typedef struct {
  bool params;
  int64_t budget;
  int sched, repl, alloc; /* indices into the policy table (Policy_at) */
  char preset;            /* 'R' / 'H' / 'P': the budget was asked for by that name (M_R may equal M_P) */
  double time_limit;      /* seconds for the searching (ILP) policies; <= 0: none */
} AppSettings;

/* What the bottom line is reading (app->prompt is true while one is open). */
typedef enum { PROMPT_BUDGET, PROMPT_SAVE, PROMPT_OVERWRITE, PROMPT_SEARCH, PROMPT_GOTO, PROMPT_TIME, PROMPT_ARCH } PromptKind;

/* What the shown plan implies per step, computed once per plan. */
typedef struct {
  int64_t *resident;      /* bytes resident at each step */
  int *spills, *retrievals; /* events at each step (spill at a stay's end, retrieve at its start) */
  int peak_step;
} PlanSteps;

/* Where the map was last drawn, so a click maps back to a step and an address
 * through the same axes (map_view.c fills it, MapView_hit reads it). */
typedef struct {
  bool valid;
  int x, y, cols, rows;   /* the block area: columns [x, x + cols), rows [y, y + rows) */
  int axis_y;             /* the step-number row below the blocks (clicks there move the cursor) */
  int t0, span, colw, mw; /* the time axis (map_view.c's TimeAxis) */
  int sub;                /* address bands per row (2 with half blocks) */
  int64_t a0;
  double bps;             /* bytes per band */
} MapGeom;

/* Where the panel's schedule rows were last drawn. */
typedef struct {
  bool valid;
  int x, w, y, rows, first; /* row i (at y + i) shows step first + i */
} SchedGeom;

/* Where the tensor panel's stay rows were last drawn (a click selects one). */
typedef struct {
  bool valid;
  int x, w, y, rows;
  int stay[64];           /* row i shows plan stay stay[i] */
} StayGeom;

/* The file picker overlay (picker.c). */
typedef struct {
  bool open;
  char **paths, **labels; /* every *.json found, sorted by label */
  int n;
  int *shown, nshown;     /* indices matching the filter */
  int sel, top;           /* selected row of shown, first visible row */
  char filter[512];       /* typed: a filter, or a path (with a '/') */
  char dir[1024];         /* the folder browsed ("" until one is) */
  char dirs[8][1024];     /* the folders of networks opened this session (kept across opens) */
  int ndirs;
} Picker;

/* The policy menu overlay (menu.c): one column per policy kind. */
typedef struct {
  bool open;
  int col;                /* the focused column (PolicyKind) */
  int sel[POLICY_KIND_COUNT]; /* the highlighted policy of each column */
} PolicyMenu;

typedef struct SweepView SweepView; /* sweep_view.c */
typedef struct NetStatus NetStatus; /* netcost_status.c */

typedef struct App {
  Net *net;
  SharedNet *shared;      /* net, shared with the workers (an abandoned one keeps it alive) */
  char path[1024];        /* the network file */
  char stem[128];         /* the file's name without folder and .json, safe as a file name */
  NetFigures fig[2];      /* [params]; until fig_ok, only m_r is real (the others equal it) */
  int *mp_order[2];       /* the exact M_P order per params setting (the mpmf schedule) */
  bool fig_ok[2];
  bool fig_asked[2];      /* posted to the worker, not arrived yet */
  char await_preset;      /* 'H' / 'P': apply this preset (and solve) when the figures arrive */

  AppSettings set;        /* what the user asked for */
  Plan *plan;             /* the last good plan (may lag set while solving) */
  AppSettings plan_set;
  PlanSteps steps;
  int violations;         /* the validator's count for plan, -1: not checked */
  Plan *pinned;           /* for compare; owned separately from plan */
  AppSettings pinned_set;
  PlanSteps pinned_steps;

  Worker *worker;         /* NULL: solve synchronously (snapshot mode) */
  Worker *figworker;      /* computes the figures beside the solves (NULL: worker does) */
  long seq;
  double solve_t0;        /* when the running solve was posted (the elapsed timer) */
  bool solving;
  bool has_progress;      /* a searching policy reported (progress, progress_stage) */
  SolveProgress progress;
  char progress_stage[64];
  char error[SP_ERROR_TEXT]; /* the last solve's error, "" if it succeeded */
  bool cancel_asked;      /* the user cancelled the running solve */
  bool cancelled;         /* the last solve was cancelled by the user */
  bool deterministic;     /* hide wall-clock times (snapshots) */

  /* view */
  int cursor;             /* step */
  int t0, tspan;          /* visible steps [t0, t0 + tspan) */
  int64_t a0, aspan;      /* visible addresses [a0, a0 + aspan); aspan 0: whole budget */
  int selected;           /* tensor or -1 */
  bool help;
  int help_page;
  bool prompt;            /* typing into the bottom line (prompt_kind says what) */
  PromptKind prompt_kind;
  char prompt_buf[512];
  char search[64];        /* the last search (n / N repeat it) */
  char save_path[512];    /* the path Save asks to overwrite */
  bool legend;            /* the legend overlay */
  SweepView *sweep;       /* the budget sweep (kept while the network and params stay) */
  NetStatus *netstatus;   /* the network's cycles on layer_arch for the status line (netcost_status.c) */
  bool netstatus_on;      /* --arch F given: the status line gives the network's cycles on it */
  bool sweep_open;
  bool show_pinned;       /* the map shows the pinned plan (flip) */
  char message[256];      /* one-line feedback ("saved ...") */
  bool message_warn;
  Grid *grid;             /* the last drawn screen (for P) */
  MapGeom map_geom;
  SchedGeom sched_geom;
  StayGeom stay_geom;
  SimTrace trace;         /* the simulator's evictions for trace_plan (explains spills) */
  const Plan *trace_plan;
  Picker picker;
  PolicyMenu menu;
  bool mouse;             /* report mouse clicks (term.c follows it) */
  void *layer_view;       /* the layer view (layer_view.c), NULL when closed */
  ImportOptions import;   /* --dtype/--fold/--dim/--value: every model opened in this session */
  bool mono;              /* no colours: the map tells blocks apart by their fills */
  bool offchip_map;       /* the off-chip (DRAM) map instead of the on-chip one (offchip_view.c) */
  struct OffchipView *offchip; /* its model and allocation, rebuilt when the network or budget change */
  bool staging;            /* Staging_apply is running (it solves through App_resolve) */
  char *tiled_text;        /* the tiled network's JSON (its file was temporary): saved beside a plan */
  char untiled_path[1024]; /* a tiled network is shown (staging.c): the original, "" if not */
  int64_t untiled_mr;     /* the original's M_R: at or above it, the original comes back */
  int64_t untiled_capacity; /* the on-chip bytes its tiling aimed at (offchip_view.c tiles it the same) */
  NetFigures untiled_fig[2]; /* the original's figures (r/h/p keep meaning its presets) */
  bool untiled_fig_ok[2];
  Worker *untiled_figworker; /* still computing the original's figures (staging.c took it over), or NULL */
  char layer_arch[1024];  /* the layer view's architecture file (--arch F, or opened there), "" for the built-ins */
  struct Lesson *lesson;   /* the lesson shown in the narrative pane (lesson.c; owned by its command), or NULL */
} App;

/* Every policy of a kind, searching (ILP) ones included: the menus cycle these. */
int App_policyCount(PolicyKind kind);
const PolicyInfo *App_policy(PolicyKind kind, int i);
/* "schedule/replacement/allocator", or "cosma (joint)" for a whole-plan schedule policy. */
const char *App_policies(const AppSettings *s, char *buf, size_t n);

/* Loads the network and its figures; prints nothing. */
Status App_init(App *app, const char *path, SpError *err);
/* The same with import options for models (ONNX: --dtype, --fold, --dim), kept for
 * every network the session opens; NULL: the defaults. */
Status App_initWith(App *app, const char *path, const ImportOptions *import, SpError *err);
void App_free(App *app);
/* Figures for set.params. With a worker they are computed there (asked once per
 * setting; until they arrive only m_r is real, see App_figuresReady); without
 * one, here, once per setting. */
const NetFigures *App_figures(App *app);
bool App_figuresReady(App *app);
/* The figures of the network the user opened, whatever is shown: below M_R the
 * tiled network is shown (staging.c) but r/h/p, "b M_P" and the status line keep
 * meaning the original's. *ready: false while they are being computed. */
const NetFigures *App_presetFigures(App *app, bool params, bool *ready);
/* Asks the worker for both params settings' figures now (no-op without one). */
void App_prefetchFigures(App *app);
/* Loads another network in place (settings kept, budget M_R, view reset); on
 * failure the old one stays and err says why. */
Status App_load(App *app, const char *path, SpError *err);
/* The file name stem of path (no folder, no ".json" or ".onnx", only [A-Za-z0-9._-], no
 * leading '.'): what the explorer names its files after. */
void App_stem(const char *path, char *out, size_t n);
/* Starts the terminal session's workers (solves, and figures beside them). */
void App_startWorkers(App *app);
/* Opens a saved plan for this network: validated first, and refused (err says
 * the validator's reason) when it does not match; the settings become the plan's. */
Status App_openPlan(App *app, const char *path, SpError *err);
/* Cancels the running solve (worker only); false if nothing was running. */
bool App_cancel(App *app);
/* Starts a solve of app->set (worker or synchronous). */
void App_resolve(App *app);
/* Takes a finished result from the worker, if any; true when the screen changed. */
bool App_poll(App *app);
void App_setMessage(App *app, bool warn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The preset name budget equals ("M_R", ...), or NULL. */
const char *App_preset(App *app, int64_t budget, bool params);
/* The preset of a setting: the name it was asked by while that still holds, else App_preset. */
const char *App_settingPreset(App *app, const AppSettings *s);
/* The plan the map shows (the pinned one while flipped) and its per-step figures. */
const Plan *App_shownPlan(const App *app);
const PlanSteps *App_shownSteps(const App *app);
void PlanSteps_build(PlanSteps *ps, const Plan *p, const Net *net);
void PlanSteps_free(PlanSteps *ps);
/* The simulator's eviction records for plan p (re-simulated once per plan; NULL
 * when p came from a policy that does not simulate, e.g. an ILP). */
const SimTrace *App_trace(App *app, const Plan *p);
/* Keeps the cursor inside the plan and the visible window. */
void App_clampView(App *app);
/* A size as the CLI writes it, compact to 6 columns: "512B", "10.0K", "2.30M" (Words_bytesShort). */
const char *App_bytes(int64_t b, char *buf, int n);

#endif

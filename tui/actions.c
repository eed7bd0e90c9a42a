#include "words.h"
#include "actions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "find.h"
#include "fileio.h"
#include "lesson.h"
#include "offchip_view.h"
#include "policy.h"
#include "snapshot.h"
#include "solve.h"
#include "layer_view.h"
#include "views.h"

static int Act_quit(App *app) {
  (void)app;
  return ACT_QUIT;
}

static int Act_help(App *app) {
  app->help = true;
  app->help_page = 0;
  return ACT_REDRAW;
}

static int Act_legend(App *app) {
  app->legend = !app->legend;
  return ACT_REDRAW;
}

/* preset: 'R' / 'H' / 'P' when asked for by name (kept even where M_R = M_P), 0 for a size */
static int Act_setBudget(App *app, int64_t b, char preset) {
  app->set.budget = b;
  app->set.preset = preset;
  app->message[0] = '\0';
  return ACT_REDRAW | ACT_RESOLVE;
}
/* Presets always mean the network the user opened (App_presetFigures): below
 * M_R its tiled network is shown, but r/h/p, "b M_P" and +/- keep its M_R, M_H, M_P. */
static int Act_budgetMR(App *app) {
  app->await_preset = 0;
  bool ready;
  return Act_setBudget(app, App_presetFigures(app, app->set.params, &ready)->m_r, 'R');
}
/* M_H and M_P need the figures: while the worker computes them, the preset waits
 * for them (App_poll applies it and solves). */
static int Act_budgetPreset(App *app, char which) {
  bool ready;
  const NetFigures *f = App_presetFigures(app, app->set.params, &ready);
  if (!ready) {
    app->await_preset = which;
    App_setMessage(app, false, "computing figures... M_%c follows when they arrive", which);
    return ACT_REDRAW;
  }
  app->await_preset = 0;
  return Act_setBudget(app, which == 'H' ? f->m_h : f->m_p, which);
}
static int Act_budgetMH(App *app) { return Act_budgetPreset(app, 'H'); }
static int Act_budgetMP(App *app) { return Act_budgetPreset(app, 'P'); }

/* Steps of M_R / 16: fine enough to walk from M_R to M_P on every shipped network. */
static int64_t Act_budgetStep(App *app) {
  bool ready;
  int64_t s = App_presetFigures(app, app->set.params, &ready)->m_r / 16;
  return s > 0 ? s : 1;
}
static int Act_budgetUp(App *app) {
  app->await_preset = 0;
  return Act_setBudget(app, app->set.budget + Act_budgetStep(app), 0); }
static int Act_budgetDown(App *app) {
  app->await_preset = 0;
  int64_t b = app->set.budget - Act_budgetStep(app);
  /* below M_R the network runs tile by tile (staging.c); a budget no tiling
   * reaches fails like a typed one, with the reason, and the last plan stays */
  if (b < 1) {
    App_setMessage(app, true, "the budget cannot go lower");
    return ACT_REDRAW;
  }
  return Act_setBudget(app, b, 0);
}

static int Act_prompt(App *app, PromptKind kind, const char *initial) {
  app->prompt = true;
  app->prompt_kind = kind;
  snprintf(app->prompt_buf, sizeof app->prompt_buf, "%s", initial);
  return ACT_REDRAW;
}
static int Act_budgetType(App *app) { return Act_prompt(app, PROMPT_BUDGET, ""); }
static int Act_timeLimit(App *app) { return Act_prompt(app, PROMPT_TIME, ""); }
static int Act_search(App *app) { return Act_prompt(app, PROMPT_SEARCH, ""); }
static int Act_goto(App *app) { return Act_prompt(app, PROMPT_GOTO, ""); }
static int Act_searchNext(App *app) { return Find_search(app, 1); }
static int Act_searchPrev(App *app) { return Find_search(app, -1); }
static int Act_peak(App *app) { return Find_peak(app); }
static int Act_tensorNext(App *app) { return Find_tensorEvent(app, 1); }
static int Act_tensorPrev(App *app) { return Find_tensorEvent(app, -1); }

/* The keys cycle the fast policies only: an ILP search of minutes is chosen in
 * the menu (m), never started by surprise. */
static int Act_cycle(App *app, int *idx, PolicyKind k) {
  int n = App_policyCount(k);
  for (int step = 1; step <= n; step++) {
    int i = (*idx + step) % n;
    if (App_policy(k, i)->searching) continue;
    *idx = i;
    break;
  }
  App_setMessage(app, false, "%s policy: %s (the menu m has the ILP ones)", PolicyKind_name(k),
                 App_policy(k, *idx)->name);
  return ACT_REDRAW | ACT_RESOLVE;
}
static int Act_menu(App *app) {
  Menu_open(app);
  return ACT_REDRAW;
}
static int Act_schedule(App *app) { return Act_cycle(app, &app->set.sched, POLICY_SCHEDULE); }
static int Act_replacement(App *app) { return Act_cycle(app, &app->set.repl, POLICY_REPLACEMENT); }
static int Act_allocator(App *app) { return Act_cycle(app, &app->set.alloc, POLICY_ALLOCATOR); }

static int Act_params(App *app) {
  /* a preset budget follows the setting (M_R stays M_R); a plain size stays put */
  const char *preset = App_settingPreset(app, &app->set);
  if (app->await_preset) preset = app->await_preset == 'H' ? "M_H" : "M_P";
  app->set.params = !app->set.params;
  bool ready;
  const NetFigures *f = App_presetFigures(app, app->set.params, &ready);
  const char *what = app->set.params ? "params held on chip" : "activations only";
  app->await_preset = 0;
  if (preset && preset[2] != 'R' && !ready) { /* never wait here: the worker computes them */
    app->await_preset = preset[2];
    App_setMessage(app, false, "%s; computing figures... %s follows", what, preset);
    return ACT_REDRAW;
  }
  if (preset) app->set.budget = preset[2] == 'R' ? f->m_r : preset[2] == 'H' ? f->m_h : f->m_p;
  app->set.preset = preset ? preset[2] : 0;
  App_setMessage(app, false, "%s", what);
  return ACT_REDRAW | ACT_RESOLVE;
}

static int Act_moveCursor(App *app, int d) {
  app->cursor += d;
  App_clampView(app);
  return ACT_REDRAW;
}
static int Act_left(App *app) { return Act_moveCursor(app, -1); }
static int Act_right(App *app) { return Act_moveCursor(app, 1); }
static int Act_home(App *app) { return Act_moveCursor(app, -app->cursor); }
static int Act_end(App *app) { return Act_moveCursor(app, 1 << 30); }

static int Act_nsteps(App *app) { return app->plan ? app->plan->nsteps : app->net->nops; }

/* Zoom keeps the cursor at the same place in the window. */
static int Act_zoomTime(App *app, bool in) {
  int n = Act_nsteps(app), old = app->tspan;
  int span = in ? old / 2 : old * 2;
  if (span < 4) span = n < 4 ? n : 4;
  if (span > n) span = n;
  double rel = old > 0 ? (double)(app->cursor - app->t0) / old : 0;
  app->tspan = span;
  app->t0 = app->cursor - (int)(rel * span);
  App_clampView(app);
  return ACT_REDRAW;
}
static int Act_zoomIn(App *app) { return Act_zoomTime(app, true); }
static int Act_zoomOut(App *app) { return Act_zoomTime(app, false); }

static int Act_pan(App *app, int d) {
  app->t0 += d;
  app->cursor += d;
  App_clampView(app);
  return ACT_REDRAW;
}
static int Act_panLeft(App *app) { return Act_pan(app, -(app->tspan / 4 > 0 ? app->tspan / 4 : 1)); }
static int Act_panRight(App *app) { return Act_pan(app, app->tspan / 4 > 0 ? app->tspan / 4 : 1); }
static int Act_pageLeft(App *app) { return Act_pan(app, -app->tspan); }
static int Act_pageRight(App *app) { return Act_pan(app, app->tspan); }

static int64_t Act_budgetShown(App *app) { return app->plan ? app->plan->budget : app->set.budget; }

static int Act_zoomAddr(App *app, bool in) {
  int64_t budget = Act_budgetShown(app), span = app->aspan ? app->aspan : budget;
  int64_t mid = app->a0 + span / 2;
  span = in ? span / 2 : span * 2;
  if (span < 64) span = 64;
  if (span >= budget) span = 0;
  app->aspan = span;
  app->a0 = span ? mid - span / 2 : 0;
  App_clampView(app);
  return ACT_REDRAW;
}
static int Act_addrIn(App *app) { return Act_zoomAddr(app, true); }
static int Act_addrOut(App *app) { return Act_zoomAddr(app, false); }
static int Act_addrPan(App *app, int dir) {
  if (!app->aspan) return 0;
  app->a0 += dir * (app->aspan / 4 > 0 ? app->aspan / 4 : 1);
  App_clampView(app);
  return ACT_REDRAW;
}
static int Act_addrUp(App *app) { return Act_addrPan(app, 1); }
static int Act_addrDown(App *app) { return Act_addrPan(app, -1); }

static int Act_resetView(App *app) {
  app->t0 = 0;
  app->tspan = 0;
  app->aspan = 0;
  App_clampView(app);
  return ACT_REDRAW;
}

/* Tensors resident at the cursor, by address: Tab walks them bottom to top. */
static int Act_selectLive(App *app, int dir) {
  if (app->offchip_map) return OffchipView_selectLive(app, dir);
  if (!app->plan) return 0;
  const Plan *p = app->plan;
  int n = 0, *live = malloc(sizeof(int) * (size_t)(p->nstays + 1));
  if (!live) return 0;
  for (int i = 0; i < p->nstays; i++)
    if (p->stays[i].start <= app->cursor && app->cursor <= p->stays[i].end) {
      int j = n++; /* insertion by offset */
      while (j > 0 && p->stays[live[j - 1]].offset > p->stays[i].offset) live[j] = live[j - 1], j--;
      live[j] = i;
    }
  if (n == 0) {
    App_setMessage(app, false, "no tensor is resident at step %d", app->cursor);
    free(live);
    return ACT_REDRAW;
  }
  int at = -1;
  for (int k = 0; k < n; k++)
    if (p->stays[live[k]].tensor == app->selected) at = k;
  at = at < 0 ? (dir > 0 ? 0 : n - 1) : (at + dir + n) % n;
  app->selected = p->stays[live[at]].tensor;
  free(live);
  app->message[0] = '\0';
  return ACT_REDRAW;
}
static int Act_nextTensor(App *app) { return Act_selectLive(app, 1); }
static int Act_prevTensor(App *app) { return Act_selectLive(app, -1); }
static int Act_unselect(App *app) {
  app->selected = -1;
  return ACT_REDRAW;
}

static int Act_nextSpill(App *app) { return Find_spill(app, 1); }
static int Act_prevSpill(App *app) { return Find_spill(app, -1); }

static int Act_pin(App *app) {
  if (app->pinned) {
    if (app->trace_plan == app->pinned && app->pinned != app->plan) app->trace_plan = NULL;
    if (app->pinned != app->plan) Plan_free(app->pinned);
    app->pinned = NULL;
    app->show_pinned = false;
    PlanSteps_free(&app->pinned_steps);
    App_setMessage(app, false, "unpinned");
    return ACT_REDRAW;
  }
  if (!app->plan) return 0;
  app->pinned = app->plan;
  app->pinned_set = app->plan_set;
  PlanSteps_build(&app->pinned_steps, app->pinned, app->net);
  App_setMessage(app, false, "pinned this plan: change settings to compare, c again to unpin");
  return ACT_REDRAW;
}

static int Act_firstDifference(App *app) { return Find_firstDifference(app); }

static int Act_flip(App *app) {
  if (!app->pinned) {
    App_setMessage(app, false, "pin a plan first (c), then change a setting: v flips between the two");
    return ACT_REDRAW;
  }
  app->show_pinned = !app->show_pinned;
  App_clampView(app);
  App_setMessage(app, false, "the map shows the %s plan", app->show_pinned ? "PINNED" : "current");
  return ACT_REDRAW;
}

/* Save asks where (default NAME.plan.json after the file's own name), never
 * overwrites without a yes, and saves the plan the map shows. */
static int Act_save(App *app) {
  if (app->offchip_map) { /* the off-chip view saves its own (TAA) plan, of the network opened */
    char def[256], stem[sizeof app->stem];
    snprintf(stem, sizeof stem, "%s", app->stem);
    size_t n = strlen(stem);
    if (app->untiled_path[0] && n > 6 && strcmp(stem + n - 6, ".tiled") == 0) stem[n - 6] = '\0';
    snprintf(def, sizeof def, "%s.offchip.json", stem);
    return Act_prompt(app, PROMPT_SAVE, def);
  }
  if (!App_shownPlan(app)) {
    App_setMessage(app, true, "no plan to save yet");
    return ACT_REDRAW;
  }
  char def[256];
  snprintf(def, sizeof def, "%s.plan.json", app->stem);
  return Act_prompt(app, PROMPT_SAVE, def);
}

/* Below M_R the plan's ops are tiles: their network is saved beside the plan,
 * as NAME.net.json for NAME.plan.json (else PATH.net.json). False when the plan
 * shown needs no network of its own. */
static bool Act_tiledNetPath(const App *app, const char *path, char *net, size_t n) {
  if (app->offchip_map || !app->tiled_text) return false;
  size_t len = strlen(path);
  if (len > 10 && strcmp(path + len - 10, ".plan.json") == 0) snprintf(net, n, "%.*s.net.json", (int)(len - 10), path);
  else snprintf(net, n, "%s.net.json", path);
  return true;
}

static void Act_writePlan(App *app, const char *path) {
  const Plan *p = App_shownPlan(app);
  SpError err;
  char b[16], pol[96];
  if (app->offchip_map) {
    char msg[sizeof app->message];
    if (OffchipView_save(app, path, msg, sizeof msg, &err)) App_setMessage(app, true, "%s", err.text);
    else App_setMessage(app, false, "%s", msg);
    return;
  }
  if (Plan_write(p, app->net, path, &err)) {
    App_setMessage(app, true, "%s", err.text);
    return;
  }
  char net[600];
  if (Act_tiledNetPath(app, path, net, sizeof net)) { /* below M_R: the plan's ops are tiles; their network goes beside it */
    bool ok = FileIO_write(net, app->tiled_text, strlen(app->tiled_text), &err) == SP_OK; /* as --out: whole or not at all */
    if (!ok) App_setMessage(app, true, "saved the plan to %s, but cannot write its tiled network %s", path, net);
    else App_setMessage(app, false, "saved the plan to %s and its tiled network to %s", path, net);
    return;
  }
  App_setMessage(app, false, "saved the %s plan (%s, %s) to %s", app->show_pinned ? "pinned" : "shown",
                 App_bytes(p->budget, b, sizeof b),
                 App_policies(app->show_pinned ? &app->pinned_set : &app->plan_set, pol, sizeof pol), path);
}

/* P: the screen as SVG and text, in every view (snapshot.c) */
static int Act_screen(App *app) { return Snapshot_saveScreen(app); }

static int Act_cancel(App *app) {
  if (App_cancel(app)) {
    if (!app->cancelled) App_setMessage(app, false, "cancelling the solve..."); /* a tiling said it let go */
  }
  else App_setMessage(app, false, "no solve is running");
  return ACT_REDRAW;
}

static int Act_open(App *app) {
  Picker_open(app);
  return ACT_REDRAW;
}

static int Act_layer(App *app) { return LayerView_open(app); }
static int Act_sweep(App *app) { return SweepView_openKey(app); }

static int Act_mouse(App *app) {
  app->mouse = !app->mouse;
  App_setMessage(app, false, "mouse %s", app->mouse ? "on: click the map or the schedule" : "off (the terminal selects text)");
  return ACT_REDRAW;
}

static int Act_offchip(App *app) {
  app->offchip_map = !app->offchip_map;
  App_setMessage(app, false, "%s map", app->offchip_map ? "off-chip (DRAM, TAA)" : "on-chip");
  return ACT_REDRAW;
}

/* The lesson's stages (lesson.c): on, and back (a replay from the start). */
static int Act_lessonStep(App *app, int d) {
  if (!app->lesson) {
    App_setMessage(app, false, "no lesson is open (spadmap lesson lists them)");
    return ACT_REDRAW;
  }
  int k = app->lesson->stage + d;
  if (k < 0 || k >= app->lesson->nstages) {
    App_setMessage(app, false, d > 0 ? "the last stage: keep exploring, or quit" : "the first stage");
    return ACT_REDRAW;
  }
  SpError err;
  app->message[0] = '\0';
  if (Lesson_goto(app, k, &err)) App_setMessage(app, true, "%s", err.text);
  LessonView_freeze(app); /* the text's figures: this state's, whatever is pressed next */
  return ACT_REDRAW;
}
static int Act_lessonNext(App *app) { return Act_lessonStep(app, 1); }
static int Act_lessonPrev(App *app) { return Act_lessonStep(app, -1); }
static int Act_lessonDown(App *app) { return LessonView_scroll(app, 1); }
static int Act_lessonUp(App *app) { return LessonView_scroll(app, -1); }
static int Act_lessonPane(App *app) { return LessonView_toggle(app); }

/* The layer view's own keys (scope ACT_SCOPE_LAYER): they act while it is open. */
static int Act_layerMethodNext(App *app) { return LayerView_method(app, 1); }
static int Act_layerMethodPrev(App *app) { return LayerView_method(app, -1); }
static int Act_layerArch(App *app) { return LayerView_arch(app); }
static int Act_layerArchFile(App *app) {
  if (!LayerView_isOpen(app)) return LayerView_method(app, 0); /* says to open it first */
  return Act_prompt(app, PROMPT_ARCH, "");
}
static int Act_layerCancel(App *app) { return LayerView_cancel(app); }
static int Act_layerGroupUp(App *app) { return LayerView_group(app, 1); }
static int Act_layerGroupDown(App *app) { return LayerView_group(app, -1); }
/* The steps map's cursor (scope ACT_SCOPE_STEPS): Home/End go past any end. */
static int Act_stepsPrev(App *app) { return LayerView_step(app, -1); }
static int Act_stepsNext(App *app) { return LayerView_step(app, 1); }
static int Act_stepsPagePrev(App *app) { return LayerView_step(app, -10); }
static int Act_stepsPageNext(App *app) { return LayerView_step(app, 10); }
static int Act_stepsFirst(App *app) { return LayerView_step(app, -(1 << 30)); }
static int Act_stepsLast(App *app) { return LayerView_step(app, 1 << 30); }

/* A key bound to nothing says so (j, u ... did nothing and said nothing). */
static int Act_unknown(App *app, int key) {
  char kn[16], hk[16];
  App_setMessage(app, false, "no action on %s (%s for help)", Key_name(key, kn, sizeof kn),
                 Key_name(Actions_keyOf("help"), hk, sizeof hk));
  return ACT_REDRAW;
}

static Action Actions_table[] = {
  {"quit", 'q', K_F10, "quit", Act_quit},
  {"help", '?', K_F1, "show this help", Act_help},
  {"legend", 'l', 0, "what the colours and marks mean", Act_legend},
  {"budget_mr", 'r', 0, "budget = M_R (largest op)", Act_budgetMR},
  {"budget_mh", 'h', 0, "budget = M_H", Act_budgetMH},
  {"budget_mp", 'p', 0, "budget = M_P (minimum peak)", Act_budgetMP},
  {"budget_up", '+', '=', "budget + M_R/16", Act_budgetUp},
  {"budget_down", '-', '_', "budget - M_R/16", Act_budgetDown},
  {"budget_type", 'b', 0, "type a budget (512K, 2.5M, 1,026,880, M_P*1.1)", Act_budgetType},
  {"time_limit", 'L', 0, "type the ILP policies' time limit (seconds)", Act_timeLimit},
  {"policies", 'm', 0, "choose the policies from a menu", Act_menu},
  {"schedule", 's', 0, "next fast schedule policy (ILP ones: menu)", Act_schedule},
  {"replacement", 'e', 0, "next fast replacement policy", Act_replacement},
  {"allocator", 'a', 0, "next fast allocator", Act_allocator},
  {"params", 'w', 0, "toggle params (weights) on chip", Act_params},
  {"step_left", K_LEFT, 0, "cursor one step back", Act_left},
  {"step_right", K_RIGHT, 0, "cursor one step on", Act_right},
  {"first_step", K_HOME, 0, "cursor to the first step", Act_home},
  {"last_step", K_END, 0, "cursor to the last step", Act_end},
  {"goto_step", 'g', 0, "go to a step number", Act_goto},
  {"peak", 'k', 0, "go to the peak step", Act_peak},
  {"search", '/', 0, "search tensor and op names", Act_search},
  {"search_next", 'n', 0, "next match of the search", Act_searchNext},
  {"search_prev", 'N', 0, "previous match of the search", Act_searchPrev},
  {"zoom_in", '>', 'z', "zoom in (time)", Act_zoomIn},
  {"zoom_out", '<', 'Z', "zoom out (time)", Act_zoomOut},
  {"pan_left", '[', 0, "pan a quarter window back", Act_panLeft},
  {"pan_right", ']', 0, "pan a quarter window on", Act_panRight},
  {"page_left", K_PGUP, 0, "pan a window back", Act_pageLeft},
  {"page_right", K_PGDN, 0, "pan a window on", Act_pageRight},
  {"addr_in", 'i', 0, "zoom in (addresses)", Act_addrIn},
  {"addr_out", 'o', 0, "zoom out (addresses)", Act_addrOut},
  {"addr_up", K_UP, 0, "pan to higher addresses", Act_addrUp},
  {"addr_down", K_DOWN, 0, "pan to lower addresses", Act_addrDown},
  {"reset_view", '0', 0, "show the whole plan", Act_resetView},
  {"next_tensor", K_TAB, 0, "select the next tensor at the cursor", Act_nextTensor},
  {"prev_tensor", K_BTAB, 0, "select the previous tensor", Act_prevTensor},
  {"unselect", K_ESC, 0, "clear the selection", Act_unselect},
  {"next_spill", 'x', 0, "next spill event (each spilled tensor)", Act_nextSpill},
  {"prev_spill", 'X', 0, "previous spill event", Act_prevSpill},
  {"tensor_next", 't', 0, "the selected tensor's next event", Act_tensorNext},
  {"tensor_prev", 'T', 0, "the selected tensor's previous event", Act_tensorPrev},
  {"sweep", 'W', 0, "budget sweep: every fast combination from M_R to past M_P (b in it: from M_R/16, tiled below M_R)", Act_sweep},
  {"pin", 'c', 0, "pin this plan to compare (again: unpin)", Act_pin},
  {"flip", 'v', 0, "map: flip between this plan and the pinned", Act_flip},
  {"first_difference", 'd', 0, "the first step where this plan and the pinned part", Act_firstDifference},
  {"save_plan", 'S', 0, "save the plan shown (asks where; off-chip view: its TAA plan)", Act_save},
  {"screen_dump", 'P', 0, "write the screen as NAME.screen.svg and .txt (any view)", Act_screen},
  {"cancel", 'C', 0, "cancel the running solve (ILP)", Act_cancel},
  {"open", 'O', 0, "open another network (file picker)", Act_open},
  {"mouse", 'M', 0, "mouse clicks on/off (click: step, tensor)", Act_mouse},
  {"layer", 'I', 0, "the op at the cursor as a layer: loop nest, tiles, costs (CoSA)", Act_layer},
  {"offchip", 'D', 0, "toggle the on-chip / off-chip (DRAM) map", Act_offchip},
  {"lesson_next", '.', K_ENTER, "lesson: the next stage (spadmap lesson NAME)", Act_lessonNext},
  {"lesson_prev", ',', 0, "lesson: the stage before", Act_lessonPrev},
  {"lesson_down", ' ', '}', "lesson: its text a page down", Act_lessonDown},
  {"lesson_up", '{', 0, "lesson: its text a page up", Act_lessonUp},
  {"lesson_pane", 'f', 0, "lesson: hide / show its text (full map)", Act_lessonPane},
  /* the layer view's (I) keys: the same letters mean other things there */
  {"layer_method_next", 'm', K_RIGHT, "layer view: the next method (mappers, SmartShuttle, steps)", Act_layerMethodNext},
  {"layer_method_prev", 'M', K_LEFT, "layer view: the method before", Act_layerMethodPrev},
  {"layer_arch", 'a', 0, "layer view: the next built-in architecture (mappers)", Act_layerArch},
  {"layer_arch_file", 'O', 0, "layer view: open an architecture file (as --arch F)", Act_layerArchFile},
  {"layer_cancel", 'C', 0, "layer view: cancel the running solve", Act_layerCancel},
  {"layer_group_up", '+', '=', "layer view: one patch more per step (G, Row/ZigZag/ILP)", Act_layerGroupUp},
  {"layer_group_down", '-', '_', "layer view: one patch fewer per step", Act_layerGroupDown},
  /* the steps map's (steps methods of the layer view): they come first there */
  {"steps_prev", K_LEFT, 0, "steps map: the step before", Act_stepsPrev},
  {"steps_next", K_RIGHT, 0, "steps map: the next step", Act_stepsNext},
  {"steps_page_prev", K_PGUP, 0, "steps map: ten steps back", Act_stepsPagePrev},
  {"steps_page_next", K_PGDN, 0, "steps map: ten steps on", Act_stepsPageNext},
  {"steps_first", K_HOME, 0, "steps map: the first step", Act_stepsFirst},
  {"steps_last", K_END, 0, "steps map: the last step", Act_stepsLast},
};
enum { ACTIONS_N = sizeof Actions_table / sizeof Actions_table[0] };

int Actions_count(void) { return ACTIONS_N; }
int Action_scope(const Action *a) {
  return strncmp(a->name, "layer_", 6) == 0   ? ACT_SCOPE_LAYER
         : strncmp(a->name, "steps_", 6) == 0 ? ACT_SCOPE_STEPS
                                              : ACT_SCOPE_MAIN;
}
const Action *Actions_find(const char *name) {
  for (int i = 0; i < ACTIONS_N; i++)
    if (strcmp(Actions_table[i].name, name) == 0) return &Actions_table[i];
  return NULL;
}
int Actions_keyScoped(App *app, int key, int scope) {
  for (int i = 0; i < ACTIONS_N; i++)
    if (Action_scope(&Actions_table[i]) == scope &&
        (Actions_table[i].key == key || (Actions_table[i].key2 && Actions_table[i].key2 == key)))
      return Actions_table[i].run(app);
  return -1;
}
/* The lesson_* action bound to key while a lesson's pane shows under the sweep
 * or the layer view, unless that view uses the key itself (Enter picks a sweep
 * point; a layer view key as bound). NULL if none. */
static const Action *Actions_lessonKey(App *app, int key) {
  if (!app->lesson || app->prompt || app->menu.open || app->help || app->legend) return NULL;
  if (app->sweep_open && (key == K_ENTER || key == '\r' || key == K_ESC || key == K_TAB || key == K_LEFT ||
                          key == K_RIGHT || key == K_UP || key == K_DOWN || key == K_HOME || key == K_END))
    return NULL;
  if (LayerView_isOpen(app))
    for (int i = 0; i < ACTIONS_N; i++)
      if (Action_scope(&Actions_table[i]) == ACT_SCOPE_LAYER && (Actions_table[i].key == key || Actions_table[i].key2 == key))
        return NULL;
  for (int i = 0; i < ACTIONS_N; i++)
    if (strncmp(Actions_table[i].name, "lesson_", 7) == 0 &&
        (Actions_table[i].key == key || (Actions_table[i].key2 && Actions_table[i].key2 == key)))
      return &Actions_table[i];
  return NULL;
}
const Action *Actions_at(int i) { return i >= 0 && i < ACTIONS_N ? &Actions_table[i] : NULL; }

static int Actions_enter(App *app) {
  char *text = app->prompt_buf;
  app->prompt = false;
  switch (app->prompt_kind) {
  case PROMPT_BUDGET: {
    int64_t b;
    SpError err;
    const char *preset = NULL;
    bool ready;
    const NetFigures *pf = App_presetFigures(app, app->set.params, &ready); /* the opened network's, tiled or not */
    if (strstr(text, "M_") && strncasecmp(text, "M_R", 3) != 0 && !ready) {
      App_setMessage(app, true, "computing figures... type %s again in a moment", text);
      return ACT_REDRAW;
    }
    if (Budget_parse(text, pf, &b, &preset, &err)) {
      App_setMessage(app, true, "%s", err.text);
      return ACT_REDRAW;
    }
    app->await_preset = 0;
    return Act_setBudget(app, b, preset && preset[0] ? preset[2] : 0);
  }
  case PROMPT_TIME: {
    char *end;
    double v = strtod(text, &end);
    while (*end == ' ' || *end == 's') end++;
    if (strcasecmp(text, "none") == 0) v = 0, end = text + strlen(text);
    if (end == text || *end || v < 0 || v != v) {
      App_setMessage(app, true, "time limit: expected seconds (e.g. 10, 0.5) or \"none\" (got \"%s\")", text);
      return ACT_REDRAW;
    }
    app->set.time_limit = v;
    char tl[24];
    if (v > 0) App_setMessage(app, false, "ILP time limit: %s s", Words_figure(v, tl, sizeof tl));
    else App_setMessage(app, false, "ILP time limit: none (C cancels)");
    /* only a searching policy uses it: re-solve then */
    const AppSettings *s = &app->set;
    bool searching = App_policy(POLICY_SCHEDULE, s->sched)->searching ||
                     App_policy(POLICY_REPLACEMENT, s->repl)->searching ||
                     App_policy(POLICY_ALLOCATOR, s->alloc)->searching;
    return ACT_REDRAW | (searching ? ACT_RESOLVE : 0);
  }
  case PROMPT_SEARCH:
    if (!text[0]) return ACT_REDRAW;
    snprintf(app->search, sizeof app->search, "%.63s", text);
    return Find_search(app, 1);
  case PROMPT_GOTO: return Find_goto(app, text);
  case PROMPT_ARCH: return LayerView_openArch(app, text);
  case PROMPT_SAVE: {
    if (!text[0]) {
      App_setMessage(app, false, "not saved");
      return ACT_REDRAW;
    }
    /* never overwrite without a yes: the plan, nor (below M_R) the tiled network saved beside it */
    char net[600];
    bool has_net = Act_tiledNetPath(app, text, net, sizeof net);
    bool plan_exists = access(text, F_OK) == 0, net_exists = has_net && access(net, F_OK) == 0;
    if (plan_exists || net_exists) {
      snprintf(app->save_path, sizeof app->save_path, "%s", text);
      App_setMessage(app, false, "%s%s%s exist%s", plan_exists ? text : "", plan_exists && net_exists ? " and " : "",
                     net_exists ? net : "", plan_exists && net_exists ? "" : "s");
      return Act_prompt(app, PROMPT_OVERWRITE, "");
    }
    Act_writePlan(app, text);
    return ACT_REDRAW;
  }
  case PROMPT_OVERWRITE:
    if (text[0] == 'y' || text[0] == 'Y') Act_writePlan(app, app->save_path);
    else App_setMessage(app, false, "not saved (the files stay as they were)");
    return ACT_REDRAW;
  }
  return ACT_REDRAW;
}

static int Actions_prompt(App *app, int key) {
  size_t len = strlen(app->prompt_buf);
  if (key == K_ESC) {
    app->prompt = false;
    return ACT_REDRAW;
  }
  if (key == K_BACKSPACE || key == 8) {
    if (len) app->prompt_buf[len - 1] = '\0';
    return ACT_REDRAW;
  }
  if (key == K_ENTER || key == '\r') return Actions_enter(app);
  if (app->prompt_kind == PROMPT_OVERWRITE) { /* one key answers */
    app->prompt_buf[0] = (char)(key == 'y' || key == 'Y' ? 'y' : 'n');
    app->prompt_buf[1] = '\0';
    return Actions_enter(app);
  }
  if (key >= 0x20 && key < 0x7F && len + 1 < sizeof app->prompt_buf) {
    app->prompt_buf[len] = (char)key;
    app->prompt_buf[len + 1] = '\0';
  }
  return ACT_REDRAW;
}

int Actions_keyOf(const char *name) {
  for (int i = 0; i < ACTIONS_N; i++)
    if (strcmp(Actions_table[i].name, name) == 0) return Actions_table[i].key;
  return 0;
}

int Actions_key(App *app, int key) {
  if (key == K_RESIZE) return ACT_REDRAW;
  if (Key_isClick(key)) {
    if ((app->help || app->legend) && !app->prompt && !app->picker.open && !app->menu.open && !LayerView_isOpen(app)) {
      app->help = app->legend = false; /* a click closes them like any key */
      return ACT_REDRAW;
    }
    if (app->help || app->prompt || app->picker.open || app->menu.open || LayerView_isOpen(app)) return 0; /* overlays take keys only */
    if (app->grid) View_draw(app, app->grid); /* the geometry of what the state shows now */
    return View_click(app, Key_clickX(key), Key_clickY(key)) ? ACT_REDRAW : 0;
  }
  if (app->picker.open) return Picker_key(app, key);
  /* a lesson stage setting up its search (lesson_state.c): Esc cancels it, as the pane says */
  if (key == K_ESC && app->lesson && app->lesson->pending && !app->prompt && !app->menu.open) return Act_cancel(app);
  if (key == Actions_keyOf("screen_dump") && !app->prompt) return Act_screen(app); /* every view: the sweep, the layer view */
  if (app->legend && !app->help && !app->prompt && !app->menu.open && app->lesson) { /* a stage invites l: its stage keys go on over the legend (any view) */
    const Action *next = Actions_find("lesson_next"), *prev = Actions_find("lesson_prev");
    for (int i = 0; i < 2; i++) {
      const Action *a = i ? prev : next;
      if (a && (key == a->key || (a->key2 && key == a->key2))) {
        app->legend = false;
        return a->run(app);
      }
    }
  }
  if (app->sweep_open || LayerView_isOpen(app)) { /* lessons open these: the pane's keys work over them too */
    const Action *a = Actions_lessonKey(app, key);
    if (a) return a->run(app);
  }
  if (app->sweep_open && app->sweep && !app->prompt && !app->help) return SweepView_key(app, key);
  if (app->menu.open) return Menu_key(app, key);
  if (app->prompt) return Actions_prompt(app, key);
  if (LayerView_isOpen(app) && !app->help && !app->legend) return LayerView_key(app, key);
  if (app->help && app->grid && (key == K_PGDN || key == K_PGUP || key == ' ')) {
    Grid above = *app->grid; /* the help is drawn above a lesson's pane: its pages there */
    above.h -= LessonView_height(app, app->grid);
    int pages = HelpView_pages(&above); /* on one page these close it, as any key */
    if (pages > 1) {
      app->help_page = (app->help_page + (key == K_PGUP ? pages - 1 : 1)) % pages;
      return ACT_REDRAW;
    }
  }
  if (app->help && key == Actions_keyOf("legend")) { /* the help's title offers it */
    app->help = false;
    app->legend = true;
    return ACT_REDRAW;
  }
  if (app->help || app->legend) { /* any key closes them; the quit key (as bound) still quits */
    app->help = app->legend = false;
    return key == Actions_keyOf("quit") ? ACT_QUIT : ACT_REDRAW;
  }
  int flags = Actions_keyScoped(app, key, ACT_SCOPE_MAIN);
  return flags < 0 ? Act_unknown(app, key) : flags;
}

static const struct {
  const char *name;
  int key;
} Key_names[] = {
  {"Left", K_LEFT}, {"Right", K_RIGHT}, {"Up", K_UP}, {"Down", K_DOWN}, {"Tab", K_TAB}, {"S-Tab", K_BTAB},
  {"BTab", K_BTAB}, {"Enter", K_ENTER}, {"CR", '\r'}, {"Esc", K_ESC}, {"BS", K_BACKSPACE},
  {"PgUp", K_PGUP}, {"PgDn", K_PGDN}, {"Home", K_HOME}, {"End", K_END}, {"Space", ' '}, {"lt", '<'},
  {"gt", '>'}, {"Resize", K_RESIZE}, {"F1", K_F1}, {"F10", K_F10},
};
enum { KEY_NAMES_N = sizeof Key_names / sizeof Key_names[0] };

const char *Key_name(int key, char *buf, int n) {
  for (int i = 0; i < KEY_NAMES_N; i++)
    if (Key_names[i].key == key && key != '<' && key != '>') {
      snprintf(buf, (size_t)n, "%s", Key_names[i].name);
      return buf;
    }
  char u[5] = {0};
  Grid_utf8((uint32_t)key, u);
  snprintf(buf, (size_t)n, "%s", u);
  return buf;
}

int Key_click(int x, int y) {
  if (x < 0) x = 0;
  if (y < 0) y = 0;
  return K_CLICK | ((y < 1023 ? y : 1023) << 10) | (x < 1023 ? x : 1023);
}
bool Key_isClick(int key) { return (key & ~0xFFFFF) == K_CLICK; }
int Key_clickX(int key) { return key & 1023; }
int Key_clickY(int key) { return (key >> 10) & 1023; }

int Key_parse(const char *s, int *key) {
  if (!*s) return 0;
  int cx, cy, used = 0;
  if (strncasecmp(s, "<Click:", 7) == 0 && sscanf(s + 7, "%d,%d>%n", &cx, &cy, &used) == 2 && used > 0 && cx >= 0 &&
      cy >= 0 && cx < 1024 && cy < 1024) {
    *key = Key_click(cx, cy);
    return 7 + used;
  }
  if (*s == '<') {
    const char *end = strchr(s, '>');
    if (end && end > s + 1) {
      size_t len = (size_t)(end - s - 1);
      for (int i = 0; i < KEY_NAMES_N; i++)
        if (strlen(Key_names[i].name) == len && strncasecmp(Key_names[i].name, s + 1, len) == 0) {
          *key = Key_names[i].key;
          return (int)(len + 2);
        }
      return -1;
    }
  }
  /* one UTF-8 character */
  const unsigned char *p = (const unsigned char *)s;
  int n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : 4;
  uint32_t c = n == 1 ? p[0] : p[0] & (0x3Fu >> (n - 1));
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return -1;
    c = (c << 6) | (p[i] & 0x3F);
  }
  *key = (int)c;
  return n;
}

/* The keys that work over the layer view and its steps map (LayerView_key,
 * Actions_key): a key of those views must not take them. */
static bool Actions_overViews(const Action *a) {
  static const char *const names[] = {"quit", "help", "legend", "layer", "screen_dump"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (strcmp(a->name, names[k]) == 0) return true;
  return false;
}

/* Would binding key to a hide b (or be hidden by it)? Within a scope, any of
 * b's keys; between the layer view and its steps map, b's first key (the steps
 * map's Left/Right are the method keys' alternatives, shadowed there on purpose),
 * and the explorer's keys that work over those views. */
static bool Actions_clash(const Action *a, const Action *b, int key) {
  int sa = Action_scope(a), sb = Action_scope(b);
  if (sa == sb) return b->key == key || (b->key2 && b->key2 == key);
  if (sa != ACT_SCOPE_MAIN && sb != ACT_SCOPE_MAIN) return b->key == key;
  if ((sa != ACT_SCOPE_MAIN && Actions_overViews(b)) || (sb != ACT_SCOPE_MAIN && Actions_overViews(a)))
    return b->key == key || (b->key2 && b->key2 == key);
  return false;
}

const char *Actions_configure(const char *spec) {
  static char why[128];
  const char *p = spec;
  while (*p) {
    while (*p == ',' || *p == ' ' || *p == '\n') p++;
    if (!*p) break;
    const char *eq = strchr(p, '=');
    if (!eq) {
      snprintf(why, sizeof why, "expected action=key at \"%.20s\"", p);
      return why;
    }
    int i = 0;
    for (; i < ACTIONS_N; i++)
      if (strlen(Actions_table[i].name) == (size_t)(eq - p) && strncmp(Actions_table[i].name, p, (size_t)(eq - p)) == 0)
        break;
    int key, used = Key_parse(eq + 1, &key);
    if (i == ACTIONS_N || used <= 0 || (eq[1 + used] && eq[1 + used] != ',' && eq[1 + used] != '\n')) {
      snprintf(why, sizeof why, "unknown action or key in \"%.*s\"", (int)strcspn(p, ",\n"), p);
      return why;
    }
    for (int j = 0; j < ACTIONS_N; j++) /* a key does one thing in a view: refuse one that would hide another action */
      if (j != i && Actions_clash(&Actions_table[i], &Actions_table[j], key)) {
        char kn[16];
        snprintf(why, sizeof why, "key %s is already bound to %s (rebind that first)", Key_name(key, kn, sizeof kn),
                 Actions_table[j].name);
        return why;
      }
    Actions_table[i].key = key;
    Actions_table[i].key2 = 0;
    p = eq + 1 + used;
  }
  return "";
}

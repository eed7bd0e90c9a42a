/* status_view: the top line (network, budget and its preset, policies, params,
 * solve state) and the bottom line (prompt, error, message or key hints). */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "clock.h"
#include "policy.h"
#include "staging.h"
#include "netcost_status.h"
#include "views.h"
#include "words.h"

/* Does any policy in force search (an ILP bounded by the time limit)? */
static bool Status_searching(const AppSettings *s) {
  return App_policy(POLICY_SCHEDULE, s->sched)->searching || App_policy(POLICY_REPLACEMENT, s->repl)->searching ||
         App_policy(POLICY_ALLOCATOR, s->alloc)->searching;
}

/* The result of the plan on screen in words (words.c, the CLI's vocabulary):
 * "✓ solved in 1.20 ms" (heuristic), "✓ optimal in 2.10 s", and for a search
 * stopped early "not proven (time limit), gap 12.5 % in 15.00 s" (never "solved"). */
void StatusView_result(const App *app, const Plan *p, bool unicode, char *out, size_t n) {
  const SolverInfo *si = &p->solver;
  char w[160];
  Words_result(si, app->deterministic ? -1 : si->seconds, app->plan_set.time_limit, w, sizeof w);
  bool proven = si->status == SOLVER_OPTIMAL || si->status == SOLVER_HEURISTIC;
  if (proven) snprintf(out, n, "%s %s", unicode ? "\u2713" : "+", w);
  else snprintf(out, n, "%s", w);
}

void StatusView_drawTop(App *app, Grid *g, int y) {
  Grid_fill(g, 0, y, g->w, 1, ' ', ROLE_STATUS, 0);
  char b[16], state[192], el[24] = "";
  TilesProgress tiling;
  const AppSettings *s = &app->set;
  /* tiled (staging.c): the budget is below the original's M_R; the tiled
   * network's own presets are no presets of the network the user opened */
  bool tiled = app->untiled_path[0] != '\0';
  char tiled_preset[48], mrb[16];
  if (tiled) snprintf(tiled_preset, sizeof tiled_preset, "< M_R %s, tiled", App_bytes(app->untiled_mr, mrb, sizeof mrb));
  const char *preset = tiled ? tiled_preset : App_settingPreset(app, s);
  /* the elapsed time counts here, between the solver's own reports */
  char sec[24];
  if (app->solving && !app->deterministic) snprintf(el, sizeof el, " %s", Words_seconds(Clock_now() - app->solve_t0, sec, sizeof sec));
  if (app->solving && app->has_progress) {
    const SolveProgress *pr = &app->progress;
    char inc[40] = "", b1[16], b2[16], stage[41];
    if (pr->has_incumbent || pr->has_bound)
      snprintf(inc, sizeof inc, "%s/%s", pr->has_incumbent ? App_bytes((int64_t)pr->incumbent, b1, sizeof b1) : "-",
               pr->has_bound ? App_bytes((int64_t)pr->bound, b2, sizeof b2) : "-");
    double since = app->deterministic ? 0 : Clock_now() - app->solve_t0;
    snprintf(stage, sizeof stage, "%s", pr->stage ? pr->stage : ""); /* the panel has it all */
    Words_progress(pr->elapsed > since ? pr->elapsed : since, inc, pr->gap, stage, state, sizeof state);
  } else if (app->solving && app->cancel_asked) snprintf(state, sizeof state, "cancelling...");
  else if (app->solving && Staging_figure(app, &tiling)) { /* below M_R: the tiler's figure (a pass
                                                             after the first: a tile came out over the budget) */
    if (tiling.pass < 1 || tiling.total < 1) snprintf(state, sizeof state, "tiling%s...", el);
    else if (tiling.pass == 1)
      snprintf(state, sizeof state, "tiling%s: %d %%", el, (int)(tiling.done * 100 / tiling.total));
    else
      snprintf(state, sizeof state, "tiling%s: %d %% of pass %d%s", el, (int)(tiling.done * 100 / tiling.total),
               tiling.pass, g->w >= 110 ? " (aiming lower)" : "");
  } else if (app->solving) snprintf(state, sizeof state, "solving%s...", el);
  else if (app->cancelled)
    snprintf(state, sizeof state, "cancelled: %s", app->plan && app->plan->solver.status == SOLVER_CANCELLED ? "best plan so far" : "showing the last plan");
  else if (app->error[0]) {
    char pb[16];
    if (app->plan)
      snprintf(state, sizeof state, "%s failed: showing the last good plan (%s)", g->unicode ? "\u2717" : "x",
               App_bytes(app->plan->budget, pb, sizeof pb));
    else snprintf(state, sizeof state, "%s failed: no plan", g->unicode ? "\u2717" : "x");
  } else if (app->plan) StatusView_result(app, app->plan, g->unicode, state, sizeof state);
  else snprintf(state, sizeof state, "no plan");
  if (!App_figuresReady(app) && !(app->solving && app->has_progress)) {
    size_t n = strlen(state);
    snprintf(state + n, sizeof state - n, " (computing figures)");
  }
  const char *sep = g->unicode ? " \u2502 " : " | ";
  char line[640], ops[32] = "", lim[32] = "";
  /* narrow screens drop the words, never the values */
  bool wide = g->w >= 110;
  if (wide) snprintf(ops, sizeof ops, " (%d ops)", app->net->nops);
  if (Status_searching(s)) { /* the limit is in force for searching policies only */
    {
      char tl[24];
      if (s->time_limit > 0) snprintf(lim, sizeof lim, "%slimit %ss", sep, Words_figure(s->time_limit, tl, sizeof tl));
      else snprintf(lim, sizeof lim, "%sno limit", sep);
    }
  }
  char pol[96];
  /* a tiled network's name ends in "@BYTES" (engine/tiles): the budget beside it already says so, in K/M */
  const char *at = tiled ? strrchr(app->net->name, '@') : NULL;
  int namelen = at ? (int)(at - app->net->name) : (int)strlen(app->net->name);
  snprintf(line, sizeof line, " %.*s%s%s%s%s%s%s%s%s%s%s%s%s%s", namelen, app->net->name, ops, sep, wide ? "budget " : "",
           App_bytes(s->budget, b, sizeof b), preset ? (tiled ? " " : " = ") : "", preset ? preset : "", sep,
           App_policies(s, pol, sizeof pol), sep, s->params ? "params on" : "params off", lim, sep, state);
  char cyc[160];
  NetStatus_text(app, cyc, sizeof cyc); /* with --arch: the network's cycles on it */
  if (cyc[0]) {
    size_t n = strlen(line);
    snprintf(line + n, sizeof line - n, "%s%s", sep, cyc);
  }
  Grid_text(g, 0, y, g->w, ROLE_STATUS, 0, line);
}

static const char *Status_promptLabel(PromptKind k) {
  switch (k) {
  case PROMPT_BUDGET: return "budget (512K, 2.5M, 1,026,880, M_P, M_P*1.1; Enter, Esc)";
  case PROMPT_SAVE: return "save the plan shown to (Enter, Esc)";
  case PROMPT_OVERWRITE: return "file exists: overwrite? (y/n)";
  case PROMPT_SEARCH: return "search names (Enter; n/N next/previous)";
  case PROMPT_GOTO: return "go to step";
  case PROMPT_TIME: return "ILP time limit, seconds (none: no limit)";
  case PROMPT_ARCH: return "architecture file for the layer view (data/arch/*.json; Enter, Esc)";
  }
  return "";
}

/* The key hints, from the action table as bound now. */
static void Status_hints(Grid *g, int y, bool solving) {
  static const struct {
    const char *action, *label;
  } all[] = {{"quit", "quit"}, {"help", "help"}, {"legend", "legend"}, {"open", "open"}, {"budget_mr", "M_R"},
             {"budget_mp", "M_P"}, {"budget_type", "budget"}, {"policies", "policies"}, {"search", "find"},
             {"next_spill", "spill"}, {"peak", "peak"}, {"pin", "pin"}, {"save_plan", "save"}},
    search[] = {{"cancel", "cancel the solve (the plan on screen stays)"}, {"help", "help"}, {"quit", "quit"}};
  int n = solving ? (int)(sizeof search / sizeof search[0]) : (int)(sizeof all / sizeof all[0]);
  int x = 1;
  for (int i = 0; i < n; i++) {
    const char *action = solving ? search[i].action : all[i].action, *label = solving ? search[i].label : all[i].label;
    char k[16], item[80];
    Key_name(Actions_keyOf(action), k, sizeof k);
    int len = snprintf(item, sizeof item, "%s %s", k, label);
    if (x + len > g->w) break;
    Grid_text(g, x, y, len, ROLE_DIM, 0, item);
    x += len + 2;
  }
}

void StatusView_drawBottom(App *app, Grid *g, int y) {
  if (app->prompt) {
    Grid_fill(g, 0, y, g->w, 1, ' ', ROLE_PROMPT, 0);
    const char *label = Status_promptLabel(app->prompt_kind), *text = app->prompt_buf;
    int room = g->w - (int)strlen(label) - 5;
    size_t len = strlen(text);
    if (room > 0 && (int)len > room) text += len - (size_t)room; /* long paths: keep the end being typed */
    int n = Grid_printf(g, 0, y, g->w, ROLE_PROMPT, 0, " %s: %s", label, text);
    Grid_put(g, n, y, g->unicode ? 0x2588 : '_', ROLE_PROMPT, 0);
    return;
  }
  Grid_fill(g, 0, y, g->w, 1, ' ', ROLE_DEFAULT, 0); /* the line is its own: no other view's text shows after it */
  if (app->message[0]) {
    Grid_printf(g, 0, y, g->w, app->message_warn ? ROLE_WARN : ROLE_OK, 0, " %s", app->message);
    return;
  }
  if (app->error[0]) {
    Grid_printf(g, 0, y, g->w, ROLE_WARN, ATTR_BOLD, " %s", app->error);
    return;
  }
  Status_hints(g, y, app->solving && app->has_progress); /* a search (fast solves would only flicker it) */
}

/* status_view: the top line (network, budget and its preset, policies, params,
 * solve state) and the bottom line (prompt, error, message or key hints). */
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "views.h"

void StatusView_drawTop(App *app, Grid *g, int y) {
  Grid_fill(g, 0, y, g->w, 1, ' ', ROLE_STATUS, 0);
  char b[16], state[192];
  const AppSettings *s = &app->set;
  const char *preset = App_preset(app, s->budget, s->params);
  if (app->solving && app->has_progress) {
    const SolveProgress *pr = &app->progress;
    char gap[24] = "", inc[40] = "", b1[16], b2[16];
    if (pr->gap >= 0) snprintf(gap, sizeof gap, ", gap %.1f%%", pr->gap * 100);
    if (pr->has_incumbent || pr->has_bound)
      snprintf(inc, sizeof inc, ", %s/%s", pr->has_incumbent ? App_bytes((int64_t)pr->incumbent, b1, sizeof b1) : "-",
               pr->has_bound ? App_bytes((int64_t)pr->bound, b2, sizeof b2) : "-");
    snprintf(state, sizeof state, "solving %.1f s%s%s: %.40s", pr->elapsed, inc, gap, pr->stage); /* the panel has it all */
  } else if (app->solving && app->cancel_asked) snprintf(state, sizeof state, "cancelling...");
  else if (app->solving) snprintf(state, sizeof state, "solving...");
  else if (app->cancelled)
    snprintf(state, sizeof state, "cancelled: %s", app->plan && app->plan->solver.status == SOLVER_CANCELLED ? "best plan so far" : "showing the last plan");
  else if (app->error[0]) snprintf(state, sizeof state, "%s failed: showing the last plan", g->unicode ? "\u2717" : "x");
  else if (app->plan && app->deterministic) snprintf(state, sizeof state, "%s solved", g->unicode ? "\u2713" : "+");
  else if (app->plan)
    snprintf(state, sizeof state, "%s solved in %.2f ms", g->unicode ? "\u2713" : "+", app->plan->solver.seconds * 1e3);
  else snprintf(state, sizeof state, "no plan");
  if (!App_figuresReady(app) && !(app->solving && app->has_progress)) snprintf(state, sizeof state, "computing figures...");
  const char *sep = g->unicode ? " \u2502 " : " | ";
  char line[512], ops[32] = "";
  /* narrow screens drop the words, never the values */
  bool wide = g->w >= 110;
  if (wide) snprintf(ops, sizeof ops, " (%d ops)", app->net->nops);
  char pol[96];
  snprintf(line, sizeof line, " %s%s%s%s%s%s%s%s%s%s%s%s%s", app->net->name, ops, sep, wide ? "budget " : "",
           App_bytes(s->budget, b, sizeof b), preset ? " = " : "", preset ? preset : "", sep,
           App_policies(s, pol, sizeof pol), sep, s->params ? "params on" : "params off", sep, state);
  Grid_text(g, 0, y, g->w, ROLE_STATUS, 0, line);
}

void StatusView_drawBottom(App *app, Grid *g, int y) {
  if (app->prompt) {
    Grid_fill(g, 0, y, g->w, 1, ' ', ROLE_PROMPT, 0);
    int n = Grid_printf(g, 0, y, g->w, ROLE_PROMPT, 0, " budget (512K, 2M, M_P; Enter, Esc): %s", app->prompt_buf);
    Grid_put(g, n, y, g->unicode ? 0x2588 : '_', ROLE_PROMPT, 0);
    return;
  }
  if (app->error[0]) {
    Grid_printf(g, 0, y, g->w, ROLE_WARN, ATTR_BOLD, " %s", app->error);
    return;
  }
  if (app->message[0]) {
    Grid_printf(g, 0, y, g->w, app->message_warn ? ROLE_WARN : ROLE_OK, 0, " %s", app->message);
    return;
  }
  if (app->solving && app->has_progress) { /* a search (fast solves would only flicker it) */
    Grid_text(g, 0, y, g->w, ROLE_DIM, 0, " C cancel the solve (the plan on screen stays)  ? help  q quit");
    return;
  }
  Grid_text(g, 0, y, g->w, ROLE_DIM, 0,
            " q quit  ? help  O open  r/h/p M_R/M_H/M_P  +/- budget  b type  s/e/a policies  w params  "
            "arrows step  Tab tensor  x spill  c pin");
}

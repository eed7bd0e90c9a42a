/* panel_view: the side panel. Totals of the plan (beside a pinned plan's, with
 * the difference), the schedule around the cursor, and the selected tensor. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "policy.h"
#include "views.h"
#include "words.h"

static void Panel_title(Grid *g, int x, int y, int w, const char *title) {
  Grid_fill(g, x, y, w, 1, 0x2500, ROLE_DIM, 0);
  Grid_printf(g, x + 1, y, w - 1, ROLE_TITLE, ATTR_BOLD, " %s ", title);
}

typedef struct {
  const char *label;
  int64_t now, pinned;
  bool bytes;
} PanelRow;

static void Panel_value(char *buf, size_t n, int64_t v, bool bytes, bool sign) {
  char tmp[32];
  if (bytes) App_bytes(v, tmp, sizeof tmp);
  else snprintf(tmp, sizeof tmp, "%lld", (long long)(v < 0 ? -v : v));
  snprintf(buf, n, "%s%.30s", sign && v > 0 ? "+" : sign && v < 0 && !bytes ? "-" : "", tmp);
}

/* A searching policy's live report: stage, incumbent, bound, gap, nodes, time. */
static int Panel_search(App *app, Grid *g, int x, int y, int w) {
  const SolveProgress *pr = &app->progress;
  char b1[16], b2[16], gap[16] = "-", t[24] = "";
  int y0 = y;
  Panel_title(g, x, y++, w, "search");
  Grid_printf(g, x + 1, y++, w - 1, ROLE_CURSOR, ATTR_BOLD, "%s", pr->stage && pr->stage[0] ? pr->stage : "running");
  if (pr->gap >= 0) Words_gap(pr->gap, gap, sizeof gap);
  if (!app->deterministic) {
    char e[24];
    snprintf(t, sizeof t, "  %s", Words_seconds(pr->elapsed, e, sizeof e));
  }
  Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "incumbent %-8s bound %s",
              pr->has_incumbent ? App_bytes((int64_t)pr->incumbent, b1, sizeof b1) : "-",
              pr->has_bound ? App_bytes((int64_t)pr->bound, b2, sizeof b2) : "-");
  Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "gap %-8s nodes %ld%s", gap, pr->nodes, t);
  Grid_text(g, x + 1, y++, w - 1, ROLE_DIM, 0, "C cancels (keeps the best plan so far)");
  return y - y0;
}

static int Panel_totals(App *app, Grid *g, int x, int y, int w) {
  const Plan *p = app->plan, *q = app->pinned;
  int y0 = y;
  if (app->solving && app->has_progress) y += Panel_search(app, g, x, y, w);
  Panel_title(g, x, y++, w, "totals");
  if (!p) {
    Grid_text(g, x + 1, y++, w - 1, ROLE_DIM, 0, "no plan yet");
    return y - y0;
  }
  const Metrics *m = &p->metrics;
  PanelRow rows[] = {
    {"non-compulsory", m->noncompulsory_bytes, q ? q->metrics.noncompulsory_bytes : 0, true},
    {"compulsory", m->compulsory_bytes, q ? q->metrics.compulsory_bytes : 0, true},
    {"spills", m->spills, q ? q->metrics.spills : 0, false},
    {"retrievals", m->retrievals, q ? q->metrics.retrievals : 0, false},
    {"peak", m->peak_bytes, q ? q->metrics.peak_bytes : 0, true},
    {"footprint", m->footprint_bytes, q ? q->metrics.footprint_bytes : 0, true},
  };
  int lw = w - 1 - (q ? 24 : 12);
  if (q) Grid_printf(g, x + 1 + lw, y++, 24, ROLE_DIM, 0, "%8s%8s%8s", "now", "pinned", "diff");
  for (int i = 0; i < (int)(sizeof rows / sizeof rows[0]); i++, y++) {
    char a[32], b[32], d[32];
    Grid_printf(g, x + 1, y, lw, ROLE_DEFAULT, 0, "%s", q && i == 0 ? "non-comp." : rows[i].label);
    Panel_value(a, sizeof a, rows[i].now, rows[i].bytes, false);
    if (!q) {
      Grid_printf(g, x + 1 + lw, y, 12, ROLE_DEFAULT, ATTR_BOLD, "%12s", a);
      continue;
    }
    Panel_value(b, sizeof b, rows[i].pinned, rows[i].bytes, false);
    int64_t diff = rows[i].now - rows[i].pinned;
    Panel_value(d, sizeof d, diff, rows[i].bytes, true);
    Grid_printf(g, x + 1 + lw, y, 16, ROLE_DEFAULT, ATTR_BOLD, "%8s%8s", a, b);
    /* less traffic, fewer events, lower peak: all better */
    Grid_printf(g, x + 1 + lw + 16, y, 8, diff < 0 ? ROLE_OK : diff > 0 ? ROLE_WARN : ROLE_DIM, 0, "%8s",
                diff ? d : "=");
  }
  char res[160];
  Words_result(&p->solver, app->deterministic ? -1 : p->solver.seconds, app->plan_set.time_limit, res, sizeof res);
  Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "solver: %s", res);
  /* a search that stopped without a proof says why and where its bound comes
   * from (COSMA's note: "stopped: ...; bound from ..."); wrapped, never cut */
  SolverStatus ss = p->solver.status;
  if (p->solver.note[0] && (ss == SOLVER_FEASIBLE || ss == SOLVER_TIMEOUT || ss == SOLVER_CANCELLED)) {
    char why[240];
    snprintf(why, sizeof why, "why: %s", p->solver.note);
    y += View_wrap(g, x + 1, y, w - 1, ROLE_DIM, why);
  }
  if (app->violations == 0) Grid_text(g, x + 1, y++, w - 1, ROLE_OK, 0, "validator: valid");
  else Grid_printf(g, x + 1, y++, w - 1, ROLE_WARN, ATTR_BOLD, "validator: %d violation(s)", app->violations);
  if (q) {
    char bb[16], pol[96];
    Grid_printf(g, x + 1, y++, w - 1, ROLE_DIM, 0, "pinned %s%s %s", App_bytes(q->budget, bb, sizeof bb),
                app->pinned_set.params ? " +params" : "", App_policies(&app->pinned_set, pol, sizeof pol));
  }
  return y - y0;
}

static int64_t Panel_sum(const Net *net, const int *ts, int n) {
  int64_t s = 0;
  for (int i = 0; i < n; i++) {
    bool dup = false;
    for (int j = 0; j < i; j++) dup |= ts[j] == ts[i];
    if (!dup) s += net->tensors[ts[i]].bytes;
  }
  return s;
}

static void Panel_schedule(App *app, Grid *g, int x, int y, int w, int rows) {
  Panel_title(g, x, y, w, "schedule");
  const Plan *p = App_shownPlan(app);
  const PlanSteps *ps = App_shownSteps(app);
  app->sched_geom.valid = false;
  if (!p || rows < 1) return;
  int first = app->cursor - rows / 2;
  if (first + rows > p->nsteps) first = p->nsteps - rows;
  if (first < 0) first = 0;
  app->sched_geom = (SchedGeom){true, x, w, y + 1, rows < p->nsteps - first ? rows : p->nsteps - first, first};
  int namew = w - 1 - 2 - 5 - 14 - 1;
  for (int i = 0; i < rows && first + i < p->nsteps; i++) {
    int t = first + i, op = p->order[t];
    const Op *o = &app->net->ops[op];
    bool cur = t == app->cursor;
    char in[16], out[16];
    App_bytes(Panel_sum(app->net, o->inputs, o->ninputs), in, sizeof in);
    App_bytes(Panel_sum(app->net, o->outputs, o->noutputs), out, sizeof out);
    int yy = y + 1 + i;
    if (cur) Grid_put(g, x + 1, yy, 0x25B6, ROLE_CURSOR, ATTR_BOLD);
    Grid_printf(g, x + 2, yy, 5, cur ? ROLE_CURSOR : ROLE_AXIS, cur ? ATTR_BOLD : 0, "%4d", t);
    char name[256];
    snprintf(name, sizeof name, "%s %s", o->name, o->type);
    Grid_tail(g, x + 7, yy, namew, cur ? ROLE_CURSOR : ROLE_DEFAULT, cur ? ATTR_BOLD : 0, name);
    if (ps->spills && (ps->spills[t] || ps->retrievals[t]))
      Grid_put(g, x + 7 + namew, yy, ps->spills[t] && ps->retrievals[t] ? 0x2195 : ps->spills[t] ? 0x25BC : 0x25B2,
               ps->spills[t] && ps->retrievals[t] ? ROLE_WARN : ps->spills[t] ? ROLE_SPILL : ROLE_RETRIEVE, ATTR_BOLD);
    Grid_printf(g, x + 8 + namew, yy, 14, ROLE_DIM, 0, "%6s %s%-6s", in, g->unicode ? "\u2192" : ">", out);
  }
}

/* Text wrapped at w columns from (x, y), at most `rows` lines (the last one cut
 * with an ellipsis when more was left): a number is never cut to another
 * ("next read at step 14" showed "step 1" at the panel's edge). Returns the lines. */
static int Panel_wrap(Grid *g, int x, int y, int w, int rows, Role role, int attr, const char *text) {
  int lines = 0, indent = text[0] == ' ' ? 2 : 0; /* an indented text's next lines indent more */
  const char *p = text;
  if (w < 8 || rows < 1) return 0;
  while (*p && lines < rows) {
    int lw = lines ? w - indent : w, len = (int)strlen(p), cut = len;
    if (len > lw) {
      cut = lw;
      while (cut > 0 && p[cut] != ' ') cut--;
      if (cut == 0) cut = lw;
    }
    if (lines == rows - 1 && len > cut) cut = len; /* the last row: Grid_text marks the cut */
    Grid_printf(g, lines ? x + indent : x, y + lines, lw, role, attr, "%.*s", cut, p);
    lines++;
    p += cut;
    while (*p == ' ') p++;
  }
  return lines;
}

/* Why the selected tensor left the chip at the cursor: the simulator's record
 * of that eviction (the block that needed room, its size, the largest gap, the
 * others evicted for it, what the policy weighed), wrapped, never cut. Returns
 * the rows used. */
static int Panel_why(App *app, Grid *g, int x, int y, int w, int rows, const Plan *p, const Stay *st) {
  int used = 0;
  char b1[16], b2[16], b3[16], line[512];
  const Net *net = app->net;
  if (rows < 2) return 0;
  const SimTrace *tr = App_trace(app, p);
  if (!tr) {
    snprintf(line, sizeof line, "why: %s chose it as a whole plan", p->replacement_policy);
    return Panel_wrap(g, x + 1, y, w - 1, rows, ROLE_DIM, 0, line);
  }
  const SimEviction *e = NULL;
  for (int k = 0; k < tr->n && !e; k++)
    if (tr->ev[k].tensor == st->tensor && tr->ev[k].step == st->end + 1) e = &tr->ev[k];
  if (!e) return 0;
  Grid_printf(g, x + 1, y + used++, w - 1, ROLE_WARN, ATTR_BOLD, "why it left after step %d:", st->end);
  if (used < rows) {
    if (e->for_tensor >= 0) {
      Grid_printf(g, x + 1, y + used++, w - 1, ROLE_DEFAULT, 0, " step %d needed %s for", e->step,
                  App_bytes(e->need, b1, sizeof b1));
      if (used < rows) Grid_tail(g, x + 3, y + used++, w - 3, ROLE_DEFAULT, 0, net->tensors[e->for_tensor].name);
    } else {
      snprintf(line, sizeof line, " step %d re-placed its inputs: no gap fit", e->step);
      used += Panel_wrap(g, x + 1, y + used, w - 1, rows - used, ROLE_DEFAULT, 0, line);
    }
  }
  if (used < rows) { /* what the policy weighed (before the details: a small panel keeps it) */
    const char *pol = p->replacement_policy;
    char nu[32];
    if (e->next_use == INT32_MAX) snprintf(nu, sizeof nu, "never read again");
    else snprintf(nu, sizeof nu, "next read at step %d", e->next_use);
    if (e->window)
      snprintf(line, sizeof line, " %s: the cheapest window, cost %s; %s", pol, App_bytes((int64_t)e->weight, b1, sizeof b1),
               nu);
    else if (e->for_tensor < 0) snprintf(line, sizeof line, " (a step input; %s)", nu);
    else if (strcmp(pol, "belady") == 0) snprintf(line, sizeof line, " %s: %s, the furthest", pol, nu);
    else if (strcmp(pol, "lru") == 0)
      snprintf(line, sizeof line, " %s: least recently used (step %.0f); %s", pol, -e->weight, nu);
    else {
      char sc[24];
      snprintf(line, sizeof line, " %s: highest score %s; %s", pol, Words_figure(e->weight, sc, sizeof sc), nu);
    }
    used += Panel_wrap(g, x + 1, y + used, w - 1, rows - used, ROLE_DIM, 0, line);
  }
  if (used < rows) {
    snprintf(line, sizeof line, " largest gap %s of %s free", App_bytes(e->largest_gap, b2, sizeof b2),
             App_bytes(e->free_bytes, b3, sizeof b3));
    used += Panel_wrap(g, x + 1, y + used, w - 1, rows - used, ROLE_DEFAULT, 0, line);
  }
  if (used < rows) { /* the others evicted at that step for the same block */
    char list[160] = "";
    int n = 0;
    for (int k = 0; k < tr->n; k++) {
      const SimEviction *o = &tr->ev[k];
      if (o == e || o->step != e->step || o->for_tensor != e->for_tensor) continue;
      size_t len = strlen(list);
      if (len < sizeof list - 2) snprintf(list + len, sizeof list - len, "%s%s", n ? ", " : "", net->tensors[o->tensor].name);
      n++;
    }
    if (n) {
      snprintf(line, sizeof line, " with it: %s", list);
      used += Panel_wrap(g, x + 1, y + used, w - 1, rows - used, ROLE_DEFAULT, 0, line);
    }
  }
  return used;
}

/* The selected tensor's stay that spills after the cursor's step (explained), or NULL. */
static const Stay *Panel_spillHere(const App *app, const Plan *p) {
  const Stay *st = NULL;
  for (int i = 0; p && app->selected >= 0 && i < p->nstays; i++)
    if (p->stays[i].tensor == app->selected && p->stays[i].end == app->cursor && p->stays[i].out == STAY_SPILL)
      st = &p->stays[i];
  return st;
}

static void Panel_tensor(App *app, Grid *g, int x, int y, int w, int rows) {
  app->stay_geom.valid = false;
  if (rows < 0) return; /* no room left under the schedule: nothing past the panel's last row */
  Panel_title(g, x, y, w, "tensor");
  if (rows == 0) return;
  const Plan *p = App_shownPlan(app);
  int t = app->selected, yy = y + 1, end = y + 1 + rows;
  app->stay_geom.valid = false;
  if (!p || t < 0 || t >= app->net->ntensors) {
    char k1[16], k2[16], k3[16];
    /* within the section's rows only: with no row left it ran onto the message line below the panel
     * ("... (the menu m has the ILP ones)ect a tensor at the cursor") */
    if (yy < end)
      Grid_printf(g, x + 1, yy, w - 1, ROLE_DIM, 0, "%s: select a tensor at the cursor",
                  Key_name(Actions_keyOf("next_tensor"), k1, sizeof k1));
    if (yy + 1 < end)
      Grid_printf(g, x + 1, yy + 1, w - 1, ROLE_DIM, 0, "%s: the next spill, %s: search names",
                Key_name(Actions_keyOf("next_spill"), k2, sizeof k2), Key_name(Actions_keyOf("search"), k3, sizeof k3));
    return;
  }
  const Tensor *ts = &app->net->tensors[t];
  char b[16], shape[128] = "";
  Grid_tail(g, x + 1, yy++, w - 1, ROLE_SELECT, ATTR_BOLD, ts->name);
  const Stay *spill_here = Panel_spillHere(app, p);
  /* a small panel (80x24) explains a spill before the tensor's details: "why it left" was gone */
  bool brief = spill_here && rows < 14;
  int n = 0;
  for (int i = 0; i < ts->rank && n < (int)sizeof shape - 24; i++)
    n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%lld", i ? "x" : "", (long long)ts->shape[i]);
  if (brief) {
    yy += Panel_why(app, g, x, yy, w, end - yy, p, spill_here);
    spill_here = NULL;
  }
  if (yy < end)
    Grid_printf(g, x + 1, yy++, w - 1, ROLE_DEFAULT, 0, "%s %s %s %s", App_bytes(ts->bytes, b, sizeof b),
                TensorKind_name(ts->kind), ts->rank ? shape : "scalar", ts->dtype);
  if (yy < end) { /* the maker's name last: a long one keeps its distinctive end */
    int used = Grid_printf(g, x + 1, yy, w - 1, ROLE_DIM, 0, "read by %d op(s), made by ", ts->nconsumers);
    Grid_tail(g, x + 1 + used, yy++, w - 1 - used, ROLE_DIM, 0,
               ts->producer >= 0 ? app->net->ops[ts->producer].name : "(host)");
  }
  int64_t cost = 0;
  int nst = 0, live = -1;
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    if (s->tensor != t) continue;
    if (s->start <= app->cursor && app->cursor <= s->end) live = nst;
    nst++;
    if (s->in == STAY_RETRIEVE) cost += ts->bytes;
    if (s->out == STAY_SPILL && ts->kind != TK_OUTPUT) cost += ts->bytes;
  }
  if (yy < end)
    Grid_printf(g, x + 1, yy++, w - 1, cost ? ROLE_WARN : ROLE_DEFAULT, 0, "%d stay(s), spill+retrieve %s", nst,
                App_bytes(cost, b, sizeof b));
  /* the stays, scrolled so the one at the cursor shows; a click selects one */
  int room = end - yy, first = 0;
  if (spill_here && room > 6) { /* the explanation first, the stays below */
    int used = Panel_why(app, g, x, yy, w, room - 2, p, spill_here);
    yy += used, room -= used;
  }
  if (room > 0 && nst > room && live >= 0) first = live - room / 2;
  if (first > nst - room) first = nst - room;
  if (first < 0) first = 0;
  app->stay_geom = (StayGeom){true, x, w, yy, 0, {0}};
  for (int i = 0, k = 0; i < p->nstays && yy < end; i++) {
    const Stay *s = &p->stays[i];
    if (s->tensor != t) continue;
    if (k++ < first) continue;
    if (first > 0 && yy == app->stay_geom.y) { /* say there is more above */
      Grid_printf(g, x + 1, yy++, w - 1, ROLE_DIM, 0, " ... %d more above", first);
      if (yy >= end) break;
    }
    bool on = s->start <= app->cursor && app->cursor <= s->end;
    if (yy - app->stay_geom.y < 64) app->stay_geom.stay[yy - app->stay_geom.y] = i;
    app->stay_geom.rows = yy - app->stay_geom.y + 1;
    Grid_printf(g, x + 1, yy++, w - 1, on ? ROLE_CURSOR : ROLE_DEFAULT, 0, " @%-7s %3d-%-3d %s %s %s",
                App_bytes(s->offset, b, sizeof b), s->start, s->end, StayIn_name(s->in),
                g->unicode ? "\u2192" : ">", StayOut_name(s->out));
  }
  if (first > 0 && app->stay_geom.rows > 0) app->stay_geom.stay[0] = -1; /* the "more above" row */
}

void PanelView_draw(App *app, Grid *g, int x, int y, int w, int h) {
  for (int j = y; j < y + h; j++) Grid_put(g, x, j, 0x2502, ROLE_DIM, 0);
  x += 1, w -= 1;
  int used = Panel_totals(app, g, x, y, w);
  int left = h - used;
  int sched = left >= 20 ? (left - 2) / 2 : left / 2 - 1;
  if (left < 20 && Panel_spillHere(app, App_shownPlan(app))) sched = 2; /* room for "why it left" */
  if (sched < 1) sched = 1;
  Panel_schedule(app, g, x, y + used, w, sched);
  Panel_tensor(app, g, x, y + used + 1 + sched, w, h - used - 2 - sched);
}

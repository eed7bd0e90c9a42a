/* The explorer's "why it left" explanations, read off the screen, against the
 * plan's own events: for every fast replacement policy, at several budgets, on
 * several bundled networks, every spill's explanation names the step it left
 * after, the step that needed room, and the tensor's real next read (the step
 * of the next op in the plan's order that reads it, where its next stay starts
 * with a retrieve). At the panel's edge "next read at step 14" was cut to
 * "step 1" (issue 26). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "app.h"
#include "test.h"
#include "views.h"

/* Row y of g from column x to the end, as UTF-8. */
static void Row_text(const Grid *g, int x, int y, char *out, size_t n) {
  size_t k = 0;
  for (int i = x; i < g->w && k + 5 < n; i++) k += (size_t)Grid_utf8(g->cells[y * g->w + i].ch, out + k);
  while (k > 0 && out[k - 1] == ' ') k--;
  out[k] = '\0';
}

/* The first step after `after` whose op reads t, or -1. */
static int Plan_nextRead(const Plan *p, const Net *net, int t, int after) {
  for (int s = after + 1; s < p->nsteps; s++) {
    const Op *op = &net->ops[p->order[s]];
    for (int i = 0; i < op->ninputs; i++)
      if (op->inputs[i] == t) return s;
  }
  return -1;
}

/* Checks the explanation on screen for every spill of the shown plan; returns
 * how many were checked. */
static int Check_explanations(App *app, Grid *g, const char *what) {
  const Plan *p = app->plan;
  int checked = 0;
  for (int i = 0; i < p->nstays; i++) {
    const Stay *st = &p->stays[i];
    if (st->out != STAY_SPILL) continue;
    app->cursor = st->end;
    app->selected = st->tensor;
    App_clampView(app);
    View_draw(app, g);
    /* the explanation's block: from "why it left" to the stay rows (" @...") */
    char row[1024], text[4096] = "";
    int y = 0, x = -1;
    for (; y < g->h && x < 0; y++)
      for (int c = 0; c + 4 < g->w; c++) {
        Row_text(g, c, y, row, sizeof row);
        if (strncmp(row, "why it left after step ", 23) == 0) {
          x = c;
          break;
        }
      }
    if (x < 0) {
      printf("  %s: spill of %s after step %d has no explanation on screen\n", what, app->net->tensors[st->tensor].name,
             st->end);
      test_failures_in_case++;
      continue;
    }
    Row_text(g, x, y - 1, text, sizeof text);
    for (; y < g->h; y++) {
      Row_text(g, x, y, row, sizeof row);
      if (row[0] != ' ' || strncmp(row, " @", 2) == 0 || strncmp(row, " ...", 4) == 0) break;
      size_t len = strlen(text);
      snprintf(text + len, sizeof text - len, " %s", row);
    }
    for (char *r = text, *w = text;; r++) { /* wrapped rows joined: one space between words */
      if (*r == ' ' && w > text && w[-1] == ' ') continue;
      if (!(*w++ = *r)) break;
    }
    int after = -1, needed = -1, next = -2;
    const char *q;
    CHECK(sscanf(text, "why it left after step %d:", &after) == 1);
    CHECK_EQ(after, st->end);
    if ((q = strchr(text, ':')) && (q = strstr(q, " step ")) && sscanf(q, " step %d", &needed) == 1) CHECK_EQ(needed, st->end + 1);
    else CHECK(!"the explanation names the step that needed room");
    int used = 0;
    bool cut = false; /* the number whole: not "step 1…" for 14 */
    if ((q = strstr(text, "next read at step ")) && sscanf(q, "next read at step %d%n", &next, &used) == 1)
      cut = strncmp(q + used, "\xe2\x80\xa6", 3) == 0;
    else if (strstr(text, "never read again")) next = -1;
    int real = Plan_nextRead(p, app->net, st->tensor, st->end);
    if (next != real || cut) {
      printf("  %s: %s left after step %d, next read %d; the screen says \"%s\"\n", what,
             app->net->tensors[st->tensor].name, st->end, real, text);
      test_failures_in_case++;
    }
    if (real >= 0) { /* the plan's own event: its next stay is a retrieve at that step */
      const Stay *nx = NULL;
      for (int k = 0; k < p->nstays; k++)
        if (p->stays[k].tensor == st->tensor && p->stays[k].start > st->end && (!nx || p->stays[k].start < nx->start))
          nx = &p->stays[k];
      CHECK(nx && nx->start == real && nx->in == STAY_RETRIEVE);
    }
    checked++;
  }
  return checked;
}

TEST(every_policy_explains_every_spill_with_the_plans_own_next_read) {
  static const char *nets[] = {"diamond", "nasnet_a", "resnet50", "squeezenet1_0", "inception_v3"};
  static const int sizes[][2] = {{150, 45}, {120, 40}, {80, 24}}; /* 80x24 too: the explanation stays */
  int total = 0;
  for (size_t n = 0; n < sizeof nets / sizeof nets[0]; n++) {
    char path[512];
    snprintf(path, sizeof path, SPADMAP_DATA_DIR "/networks/%s.json", nets[n]);
    App app;
    SpError err;
    CHECK_EQ(App_init(&app, path, &err), SP_OK);
    app.deterministic = true;
    const NetFigures *f = App_figures(&app);
    int64_t budgets[3] = {f->m_r, f->m_r + f->m_r / 8, (f->m_r + f->m_p) / 2};
    for (int r = 0; r < App_policyCount(POLICY_REPLACEMENT); r++) {
      const PolicyInfo *pi = App_policy(POLICY_REPLACEMENT, r);
      if (pi->searching) continue; /* an ILP plan says it chose as a whole */
      for (int b = 0; b < 3; b++) {
        app.set.repl = r;
        app.set.budget = budgets[b];
        app.set.preset = 0;
        App_resolve(&app);
        CHECK(app.plan && app.violations == 0);
        if (!app.plan) continue;
        Grid *g = Grid_new(sizes[b][0], sizes[b][1], true);
        char what[128];
        snprintf(what, sizeof what, "%s %s budget %lld", nets[n], pi->name, (long long)budgets[b]);
        total += Check_explanations(&app, g, what);
        Grid_free(g);
      }
    }
    App_free(&app);
  }
  printf("  %d explanations checked\n", total);
  CHECK(total > 100);
}

TEST_MAIN("tui_explain", T(every_policy_explains_every_spill_with_the_plans_own_next_read))

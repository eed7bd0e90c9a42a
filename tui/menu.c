/* menu: the policy menu overlay. Three columns (schedule, replacement, allocator)
 * list every policy, searching (ILP) ones included, with the focused policy's
 * help below; the choice applies only on Enter, so browsing never re-solves. */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "views.h"

static int *Menu_setting(App *app, int kind) {
  return kind == POLICY_SCHEDULE ? &app->set.sched : kind == POLICY_REPLACEMENT ? &app->set.repl : &app->set.alloc;
}

void Menu_open(App *app) {
  app->menu.open = true;
  app->menu.col = POLICY_SCHEDULE;
  for (int k = 0; k < POLICY_KIND_COUNT; k++) app->menu.sel[k] = *Menu_setting(app, k);
}

int Menu_key(App *app, int key) {
  PolicyMenu *m = &app->menu;
  int n = App_policyCount((PolicyKind)m->col);
  switch (key) {
  case K_ESC:
  case 'q':
  case 'm':
    m->open = false;
    return ACT_REDRAW;
  case K_LEFT: m->col = (m->col + POLICY_KIND_COUNT - 1) % POLICY_KIND_COUNT; break;
  case K_RIGHT:
  case K_TAB: m->col = (m->col + 1) % POLICY_KIND_COUNT; break;
  case K_UP: m->sel[m->col] = (m->sel[m->col] + n - 1) % n; break;
  case K_DOWN: m->sel[m->col] = (m->sel[m->col] + 1) % n; break;
  case K_ENTER:
  case '\r': {
    m->open = false;
    bool changed = false;
    for (int k = 0; k < POLICY_KIND_COUNT; k++) {
      changed |= *Menu_setting(app, k) != m->sel[k];
      *Menu_setting(app, k) = m->sel[k];
    }
    char pol[96];
    if (!changed && !app->cancelled) { /* the plan on screen is these policies' already */
      App_setMessage(app, false, "policies unchanged: %s", App_policies(&app->set, pol, sizeof pol));
      return ACT_REDRAW;
    }
    /* after C the same choice runs the search again (it did nothing) */
    App_setMessage(app, false, "%s%s", changed ? "policies: " : "running the cancelled search again: ",
                   App_policies(&app->set, pol, sizeof pol));
    return ACT_REDRAW | ACT_RESOLVE;
  }
  default: break;
  }
  return ACT_REDRAW;
}

void MenuView_draw(App *app, Grid *g) {
  const PolicyMenu *m = &app->menu;
  int most = 0;
  for (int k = 0; k < POLICY_KIND_COUNT; k++)
    if (App_policyCount((PolicyKind)k) > most) most = App_policyCount((PolicyKind)k);
  const PolicyInfo *focused = App_policy((PolicyKind)m->col, m->sel[m->col]);
  char help[512];
  snprintf(help, sizeof help, "%s%s", focused->help,
           focused->searching ? " (an ILP: bounded by the time limit, C cancels)" : "");
  int w = g->w - 4 < 100 ? g->w - 4 : 100, lines = View_wrap(NULL, 0, 0, w - 4, ROLE_DIM, help);
  int h = most + 6 + lines; /* the whole help line, wrapped */
  if (h > g->h) h = g->h;
  int x0 = (g->w - w) / 2, y0 = (g->h - h) / 2, cw = (w - 2) / POLICY_KIND_COUNT;
  Grid_box(g, x0, y0, w, h);
  Grid_text(g, x0 + 2, y0, w - 4, ROLE_TITLE, ATTR_BOLD, " policies ");
  for (int k = 0; k < POLICY_KIND_COUNT; k++) {
    int x = x0 + 1 + k * cw;
    bool focus = k == m->col;
    Grid_printf(g, x + 1, y0 + 1, cw - 2, ROLE_TITLE, focus ? ATTR_BOLD : 0, "%s", PolicyKind_name((PolicyKind)k));
    for (int i = 0; i < App_policyCount((PolicyKind)k) && 3 + i < h - 3 - lines; i++) {
      const PolicyInfo *p = App_policy((PolicyKind)k, i);
      bool sel = i == m->sel[k], current = i == *Menu_setting(app, k);
      int attr = sel && focus ? ATTR_REVERSE | ATTR_BOLD : sel ? ATTR_BOLD : 0;
      if (sel && focus) Grid_fill(g, x, y0 + 3 + i, cw - 1, 1, ' ', ROLE_CURSOR, ATTR_REVERSE);
      Grid_printf(g, x + 1, y0 + 3 + i, cw - 2, sel && focus ? ROLE_CURSOR : ROLE_DEFAULT, attr, "%s %s%s",
                  sel ? ">" : " ", p->name, current ? " *" : "");
    }
  }
  View_wrap(g, x0 + 2, y0 + h - 2 - lines, w - 4, ROLE_DIM, help);
  Grid_text(g, x0 + 2, y0 + h - 1, w - 4, ROLE_DIM, 0, " Left/Right kind, Up/Down policy, Enter applies, Esc ");
}

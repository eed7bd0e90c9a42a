/* map_view: the memory map. Steps run across, scratchpad addresses up; every
 * stay of a tensor is a block in its tensor's color, two address bands per cell
 * with half blocks where Unicode is on. Spills (▼) and retrievals (▲) are marked
 * where they happen; the budget line is on top, free gaps below a column's
 * highest block are dotted, the peak step and the cursor are marked on the axis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views.h"

enum { MAP_LABEL_W = 7 };

/* Which columns show which steps. colw > 0: each step is colw columns wide;
 * colw == 0: steps outnumber columns and each column shows one or more. */
typedef struct {
  int t0, span, cols, colw;
} TimeAxis;

static TimeAxis Map_axis(int t0, int span, int cols) {
  TimeAxis a = {t0, span > 0 ? span : 1, cols, 0};
  if (a.span <= cols) a.colw = cols / a.span;
  return a;
}

static int Map_colOf(const TimeAxis *a, int step) {
  if (a->colw) return (step - a->t0) * a->colw;
  return (int)((int64_t)(step - a->t0) * a->cols / a->span);
}

static int Map_colEnd(const TimeAxis *a, int step) {
  int c = a->colw ? (step - a->t0 + 1) * a->colw - 1 : (int)((int64_t)(step - a->t0 + 1) * a->cols / a->span) - 1;
  int first = Map_colOf(a, step);
  return c < first ? first : c;
}

/* The role of a stay's cells. */
static Role Map_role(const App *app, const Stay *s) {
  return s->tensor == app->selected ? ROLE_SELECT : Role_tensor(s->tensor);
}

/* Without colour (or Unicode) blocks differ by their fill: neighbours in the
 * palette alternate solid and shaded, the selection is a light shade. */
static uint32_t Map_fill(const App *app, const Grid *g, const Stay *s) {
  bool sel = s->tensor == app->selected, odd = (Role_tensor(s->tensor) - ROLE_TENSOR0) % 2;
  if (!g->unicode) return sel ? '@' : odd ? '=' : '#';
  return sel ? 0x2592 : odd ? 0x2593 : 0x2588;
}

/* A round address as a short label with its unit: "512K", "1.5M", "1.375M";
 * false when it would not fit in n - 1 columns (the label is then left out,
 * never shown without its unit). */
bool MapView_tickLabel(int64_t v, char *buf, int n) {
  static const char units[] = "BKMG";
  int u = 0;
  double x = (double)v;
  while (u < 3 && x >= 1024) x /= 1024, u++;
  int len = snprintf(buf, (size_t)n, "%.3f", x);
  while (len > 0 && buf[len - 1] == '0') buf[--len] = '\0';
  if (len > 0 && buf[len - 1] == '.') buf[--len] = '\0';
  len += snprintf(buf + len, (size_t)(n - len > 0 ? n - len : 0), "%c", units[u]);
  return len < n && len <= MAP_LABEL_W - 1;
}

/* Ticks at round multiples (a power of two bytes) at least 3 rows apart. */
static void Map_labels(Grid *g, int x, int y, int mh, int sub, int64_t a0, double bps) {
  char buf[16];
  double rows_per_byte = 1.0 / (bps * sub);
  int64_t step = 1;
  while ((double)step * rows_per_byte < 3 && step < ((int64_t)1 << 60)) step *= 2;
  int last = -100;
  for (int64_t v = (a0 + step - 1) / step * step; ; v += step) {
    int r = (int)((double)(v - a0) * rows_per_byte); /* rows up from the bottom */
    if (r >= mh - 1) break; /* the budget's own label is just above */
    if (r - last < 2 || !MapView_tickLabel(v, buf, sizeof buf)) continue;
    Grid_printf(g, x, y + mh - 1 - r, MAP_LABEL_W - 1, ROLE_AXIS, 0, "%6s", buf);
    last = r;
  }
}

/* The address bands [*lo, *hi] a stay covers (0 = the bottom band of the view);
 * false when it is outside the view. The drawing and the click test share it. */
static bool Map_bands(const App *app, const Stay *s, int64_t a0, double bps, int sr, int *lo_out, int *hi_out) {
  int64_t bytes = app->net->tensors[s->tensor].bytes;
  int lo = (int)((double)(s->offset - a0) / bps), hi = (int)(((double)(s->offset + bytes - a0) / bps) + 0.999999) - 1;
  if (hi < lo) hi = lo;
  if (hi < 0 || lo >= sr) return false;
  *lo_out = lo < 0 ? 0 : lo;
  *hi_out = hi >= sr ? sr - 1 : hi;
  return true;
}

bool MapView_hit(const App *app, int x, int y, int *step, int *stay) {
  const MapGeom *m = &app->map_geom;
  const Plan *p = App_shownPlan(app);
  *stay = -1;
  if (!m->valid || !p || x < m->x || x >= m->x + m->cols || y < m->y - 1 || y > m->axis_y + 1) return false;
  TimeAxis ax = Map_axis(m->t0, m->span, m->mw);
  int c = x - m->x, t;
  if (ax.colw) t = ax.t0 + c / ax.colw;
  else { /* several steps a column: the first whose columns reach c */
    t = ax.t0 + (int)((int64_t)c * ax.span / ax.cols);
    while (t > ax.t0 && Map_colEnd(&ax, t - 1) >= c) t--;
    while (t + 1 < ax.t0 + ax.span && Map_colEnd(&ax, t) < c) t++;
  }
  if (t >= ax.t0 + ax.span) t = ax.t0 + ax.span - 1;
  if (t >= p->nsteps) t = p->nsteps - 1;
  *step = t;
  if (y < m->y || y >= m->y + m->rows) return true;
  int sr = m->rows * m->sub, up = sr - 1 - (y - m->y) * m->sub, low = up - (m->sub - 1), best = -1;
  for (int i = 0; i < p->nstays; i++) { /* the stays drawn in column c, as MapView_draw places them */
    const Stay *s = &p->stays[i];
    int lo, hi;
    if (s->end < ax.t0 || s->start >= ax.t0 + ax.span) continue;
    int first = s->start < ax.t0 ? ax.t0 : s->start, last = s->end >= ax.t0 + ax.span ? ax.t0 + ax.span - 1 : s->end;
    if (c < Map_colOf(&ax, first) || c > Map_colEnd(&ax, last)) continue;
    if (!Map_bands(app, s, m->a0, m->bps, sr, &lo, &hi) || hi < low || lo > up) continue;
    int top = hi < up ? hi : up; /* the band it shows highest in this cell; later stays are drawn over earlier */
    if (top >= best) best = top, *stay = i;
  }
  if (*stay >= 0) { /* several steps a column: one where the tensor is resident */
    const Stay *s = &p->stays[*stay];
    if (*step < s->start) *step = s->start;
    if (*step > s->end) *step = s->end;
  }
  return true;
}

/* Free bytes at step t of plan p, the largest free gap, and the tensors there. */
void MapView_freeAt(const App *app, const Plan *p, int t, int64_t *free_bytes, int64_t *gap) {
  int64_t used = 0, best = 0, at = 0;
  int n = 0, *live = malloc(sizeof(int) * (size_t)(p->nstays + 1));
  *free_bytes = *gap = 0;
  if (!live) return;
  for (int i = 0; i < p->nstays; i++)
    if (p->stays[i].start <= t && t <= p->stays[i].end) {
      int j = n++;
      while (j > 0 && p->stays[live[j - 1]].offset > p->stays[i].offset) live[j] = live[j - 1], j--;
      live[j] = i;
    }
  for (int k = 0; k < n; k++) {
    const Stay *s = &p->stays[live[k]];
    int64_t b = app->net->tensors[s->tensor].bytes;
    if (s->offset - at > best) best = s->offset - at;
    if (s->offset + b > at) at = s->offset + b;
    used += b;
  }
  if (p->budget - at > best) best = p->budget - at;
  *free_bytes = p->budget - used;
  *gap = best;
  free(live);
}

void MapView_draw(App *app, Grid *g, int x, int y, int w, int h) {
  const Plan *p = App_shownPlan(app);
  const PlanSteps *ps = App_shownSteps(app);
  int mw = w - MAP_LABEL_W - 1, mh = h - 7, mx = x + MAP_LABEL_W;
  app->map_geom.valid = false;
  /* a failed solve leaves the last good plan on screen: the title says so */
  bool stale = !app->show_pinned && app->error[0] && app->plan;
  int tw = Grid_text(g, x, y, w, app->show_pinned || stale ? ROLE_WARN : ROLE_TITLE, ATTR_BOLD,
                     app->show_pinned ? "PINNED plan (v: back)" : stale ? "LAST GOOD plan" : "memory map");
  if (!p || mw < 4 || mh < 2) {
    Grid_text(g, x + 2, y + 2, w - 2, ROLE_DIM, 0, app->solving ? "solving..." : "no plan (see the status line)");
    return;
  }
  App_clampView(app);
  TimeAxis ax = Map_axis(app->t0, app->tspan, mw);
  int used_cols = ax.colw ? ax.span * ax.colw : mw;
  int64_t a0 = app->a0, aspan = app->aspan ? app->aspan : p->budget;
  if (aspan < 1) aspan = 1;
  int sub = g->unicode && !app->mono ? 2 : 1, sr = mh * sub;
  double bps = (double)aspan / sr; /* bytes per sub-row */
  Grid_printf(g, x + tw + 1, y, w - tw - 2, ROLE_DIM, 0, "address %s, steps %d-%d of %d %s%s",
              g->unicode ? "\u2191" : "up", ax.t0, ax.t0 + ax.span - 1, p->nsteps, g->unicode ? "\u2192" : "across",
              app->aspan ? ", addresses zoomed" : "");

  /* occupancy: the stay seen in each (column, sub-row), -1 for free */
  int *occ = malloc(sizeof(int) * (size_t)mw * (size_t)sr), *top = calloc((size_t)mw, sizeof(int));
  if (!occ || !top) {
    free(occ);
    free(top);
    return;
  }
  for (int i = 0; i < mw * sr; i++) occ[i] = -1;
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    if (s->end < ax.t0 || s->start >= ax.t0 + ax.span) continue;
    int lo, hi;
    if (!Map_bands(app, s, a0, bps, sr, &lo, &hi)) continue;
    int c0 = Map_colOf(&ax, s->start < ax.t0 ? ax.t0 : s->start);
    int c1 = Map_colEnd(&ax, s->end >= ax.t0 + ax.span ? ax.t0 + ax.span - 1 : s->end);
    for (int c = c0; c <= c1 && c < mw; c++) {
      for (int r = lo; r <= hi; r++) occ[c * sr + r] = i;
      if (hi + 1 > top[c]) top[c] = hi + 1;
    }
  }

  /* budget line (dashed when the view does not reach the budget) */
  bool at_budget = a0 + aspan >= p->budget;
  char buf[32];
  Grid_fill(g, mx, y + 1, used_cols, 1, at_budget ? 0x2500 : 0x254C, at_budget ? ROLE_BUDGET : ROLE_DIM, 0);
  Grid_printf(g, x, y + 1, MAP_LABEL_W - 1, at_budget ? ROLE_BUDGET : ROLE_AXIS, 0, "%6s",
              App_bytes(a0 + aspan, buf, sizeof buf));
  int cur0 = -1, cur1 = -1, peak = ps->peak_step;
  if (at_budget) { /* the label goes at the end away from the peak mark */
    int pc = peak >= ax.t0 && peak < ax.t0 + ax.span ? Map_colOf(&ax, peak) : -1;
    int lx = pc >= 0 && pc < 10 ? used_cols - 9 : 1;
    Grid_text(g, mx + lx, y + 1, used_cols - lx, ROLE_BUDGET, 0, " budget ");
  }
  if (app->cursor >= ax.t0 && app->cursor < ax.t0 + ax.span)
    cur0 = Map_colOf(&ax, app->cursor), cur1 = Map_colEnd(&ax, app->cursor);
  int curmid = (cur0 + cur1) / 2;

  /* the blocks */
  for (int row = 0; row < mh; row++) {
    int up = sr - 1 - row * sub, low = up - (sub - 1);
    for (int c = 0; c < used_cols && c < mw; c++) {
      int su = occ[c * sr + up], sl = occ[c * sr + low];
      Cell *cell = Grid_at(g, mx + c, y + 2 + row);
      if (!cell) continue;
      bool oncur = c >= cur0 && c <= cur1;
      if (su < 0 && sl < 0) {
        if (c == curmid && cur0 >= 0) *cell = (Cell){Grid_glyph(g, 0x2502), ROLE_CURSOR, ROLE_DEFAULT, 0};
        else if (low < top[c]) *cell = (Cell){Grid_glyph(g, 0x00B7), ROLE_FREE, ROLE_DEFAULT, 0};
        continue;
      }
      int attr = oncur ? ATTR_BOLD : 0;
      const Stay *s0 = &p->stays[su >= 0 ? su : sl];
      bool sel = (su >= 0 && p->stays[su].tensor == app->selected) || (sl >= 0 && p->stays[sl].tensor == app->selected);
      if (sub == 1 || sel) { /* one band a cell: fills tell blocks apart; the selection is shaded */
        const Stay *s = sel ? (su >= 0 && p->stays[su].tensor == app->selected ? &p->stays[su] : &p->stays[sl]) : s0;
        *cell = (Cell){Map_fill(app, g, s), Map_role(app, s), ROLE_DEFAULT, (uint8_t)(attr | (sel ? ATTR_BOLD : 0))};
      } else if (su >= 0 && sl >= 0 && p->stays[su].tensor == p->stays[sl].tensor) {
        *cell = (Cell){0x2588, Map_role(app, &p->stays[su]), ROLE_DEFAULT, (uint8_t)attr};
      } else if (sl < 0) {
        *cell = (Cell){0x2580, Map_role(app, &p->stays[su]), ROLE_DEFAULT, (uint8_t)attr};
      } else if (su < 0) {
        *cell = (Cell){0x2584, Map_role(app, &p->stays[sl]), ROLE_DEFAULT, (uint8_t)attr};
      } else {
        *cell = (Cell){0x2580, Map_role(app, &p->stays[su]), Map_role(app, &p->stays[sl]), (uint8_t)attr};
      }
    }
  }

  /* spill and retrieve marks on the blocks, at the cell of the block's top */
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    bool sp = s->out == STAY_SPILL && s->end >= ax.t0 && s->end < ax.t0 + ax.span;
    bool rt = s->in == STAY_RETRIEVE && s->start >= ax.t0 && s->start < ax.t0 + ax.span;
    if (!sp && !rt) continue;
    int64_t bytes = app->net->tensors[s->tensor].bytes;
    int hi = (int)(((double)(s->offset + bytes - a0) / bps) + 0.999999) - 1;
    if (hi < 0 || (int)((double)(s->offset - a0) / bps) >= sr) continue;
    if (hi >= sr) hi = sr - 1;
    int row = (sr - 1 - hi) / sub;
    if (sp) Grid_put(g, mx + Map_colEnd(&ax, s->end), y + 2 + row, 0x25BC, ROLE_SPILL, ATTR_BOLD);
    if (rt) Grid_put(g, mx + Map_colOf(&ax, s->start), y + 2 + row, 0x25B2, ROLE_RETRIEVE, ATTR_BOLD);
  }
  Map_labels(g, x, y + 2, mh, sub, a0, bps);

  /* events row, step axis, markers */
  int ey = y + 2 + mh;
  app->map_geom = (MapGeom){true, mx, y + 2, used_cols < mw ? used_cols : mw, mh, ey + 1, ax.t0, ax.span, ax.colw, mw, sub, a0, bps};
  Grid_text(g, x, ey, MAP_LABEL_W - 1, ROLE_AXIS, 0, "spill");
  Grid_text(g, x, ey + 1, MAP_LABEL_W - 1, ROLE_AXIS, 0, "  step");
  for (int t = ax.t0; t < ax.t0 + ax.span; t++) {
    int nsp = ps->spills ? ps->spills[t] : 0, nrt = ps->retrievals ? ps->retrievals[t] : 0;
    if (!nsp && !nrt) continue;
    int c = Map_colOf(&ax, t);
    Cell *cell = Grid_at(g, mx + c, ey);
    if (cell && cell->ch != ' ') continue; /* several steps in this column: keep the first mark */
    if (nsp && nrt) Grid_put(g, mx + c, ey, 0x2195, ROLE_WARN, ATTR_BOLD); /* ◆ is the peak's */
    else Grid_put(g, mx + c, ey, nsp ? 0x25BC : 0x25B2, nsp ? ROLE_SPILL : ROLE_RETRIEVE, ATTR_BOLD);
  }
  /* step numbers: every k steps, k a round number that leaves room for the labels */
  static const int ks[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};
  int k = 1, lastw = snprintf(buf, sizeof buf, "%d", ax.t0 + ax.span - 1) + 1;
  for (int i = 0; i < (int)(sizeof ks / sizeof ks[0]); i++) {
    k = ks[i];
    if (Map_colOf(&ax, ax.t0 + k) - Map_colOf(&ax, ax.t0) >= lastw + 1) break;
  }
  for (int t = (ax.t0 + k - 1) / k * k; t < ax.t0 + ax.span; t += k) {
    int c = Map_colOf(&ax, t);
    int n = snprintf(buf, sizeof buf, "%d", t);
    if (c + n <= used_cols) Grid_text(g, mx + c, ey + 1, n, ROLE_AXIS, 0, buf);
  }
  if (cur0 >= 0) Grid_put(g, mx + curmid, ey + 2, 0x25B2, ROLE_CURSOR, ATTR_BOLD);
  if (peak >= ax.t0 && peak < ax.t0 + ax.span) {
    int c = Map_colOf(&ax, peak);
    Grid_put(g, mx + c, y + 1, 0x252C, ROLE_PEAK, ATTR_BOLD);
    Grid_put(g, mx + c, ey + 2, 0x25C6, ROLE_PEAK, ATTR_BOLD);
    /* "peak" after the mark, or before it, wherever the cursor mark is not */
    int lx = c + 5 < used_cols && !(curmid > c && curmid <= c + 5) ? c + 1 : c - 5;
    if (lx >= 0 && !(cur0 >= 0 && curmid >= lx && curmid < lx + 4)) Grid_text(g, mx + lx, ey + 2, 4, ROLE_PEAK, 0, "peak");
  }

  /* the cursor's step in words: what runs (first: at 80 columns it was cut off),
   * then what is resident and how the rest is cut up, in the longest form that fits */
  int op = p->order[app->cursor];
  char r1[16], r2[16], r3[16], r4[16], opname[200];
  int64_t res = ps->resident ? ps->resident[app->cursor] : 0, fb, gap;
  int n = Grid_printf(g, x, ey + 3, w - 1, ROLE_CURSOR, ATTR_BOLD, "step %d/%d", app->cursor, p->nsteps - 1);
  snprintf(opname, sizeof opname, "%s (%s)", app->net->ops[op].name, app->net->ops[op].type);
  Grid_tail(g, x + n + 2, ey + 3, w - 1 - n - 2, ROLE_DEFAULT, 0, opname);
  MapView_freeAt(app, p, app->cursor, &fb, &gap);
  /* free is the budget less what is resident, so the line says the budget, not the peak (it read
   * "resident 931.0K of peak 2.30M ... of 1.39M free", and 931.0K + 1.39M is the budget) */
  App_bytes(res, r1, sizeof r1), App_bytes(p->budget, r2, sizeof r2);
  App_bytes(fb, r3, sizeof r3), App_bytes(gap, r4, sizeof r4);
  int frag = fb > 0 ? (int)((double)(fb - gap) * 100.0 / (double)fb + 0.5) : 0;
  /* with a pinned plan, its resident bytes at this step follow (compare): the
   * longest form that leaves room for them, else the longest that fits alone */
  const Plan *other = app->show_pinned ? app->plan : app->pinned;
  const PlanSteps *ops = app->show_pinned ? &app->steps : &app->pinned_steps;
  char diff[64] = "";
  int64_t d = 0;
  if (other && ops->resident && app->cursor < other->nsteps) {
    char r5[16], r6[16];
    d = res - ops->resident[app->cursor];
    snprintf(diff, sizeof diff, "  %s %s, %s%s", app->show_pinned ? "current" : "pinned",
             App_bytes(ops->resident[app->cursor], r5, sizeof r5), d > 0 ? "+" : "", d ? App_bytes(d, r6, sizeof r6) : "same");
  }
  char forms[5][160];
  snprintf(forms[0], sizeof forms[0], "resident %s of the %s budget, free %s, largest gap %s, fragmentation %d%%", r1,
           r2, r3, r4, frag);
  snprintf(forms[1], sizeof forms[1], "resident %s of the %s budget, largest gap %s of %s free", r1, r2, r4, r3);
  snprintf(forms[2], sizeof forms[2], "resident %s of budget %s, largest gap %s of %s free", r1, r2, r4, r3);
  snprintf(forms[3], sizeof forms[3], "%s/%s budget, gap %s/%s free", r1, r2, r4, r3);
  snprintf(forms[4], sizeof forms[4], "%s/%s, gap %s/%s", r1, r2, r4, r3);
  int pick = -1;
  for (int i = 0; i < 5 && pick < 0 && diff[0]; i++)
    if ((int)(strlen(forms[i]) + strlen(diff)) <= w - 1) pick = i;
  if (pick < 0) {
    diff[0] = '\0';
    for (pick = 0; pick < 4 && (int)strlen(forms[pick]) > w - 1; pick++) {}
  }
  n = Grid_text(g, x, ey + 4, w - 1, ROLE_DEFAULT, 0, forms[pick]);
  if (diff[0]) Grid_text(g, x + n, ey + 4, w - 1 - n, d < 0 ? ROLE_OK : d > 0 ? ROLE_WARN : ROLE_DIM, 0, diff);
  free(occ);
  free(top);
}

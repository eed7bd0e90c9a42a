/* offchip_view: the off-chip (DRAM) map and its panel (offchip_view.h). The
 * model is rebuilt only when the network, the budget or the shown schedule
 * change; TAA on the largest bundled network takes well under a frame. */
#include "offchip_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "actions.h"
#include "tiles/tiles.h"
#include "views.h"

enum { OFF_LABEL_W = 7 };

struct OffchipView {
  /* what the model was built for */
  const Net *key_net;     /* app->net when it was built */
  const Net *net;         /* the network modelled: app->net, or the original of a staged one */
  Net *own_net;           /* that original, loaded here (staging.c shows its tiled network) */
  bool staged;            /* steps are the original's sub-steps (the tiled network's ops) */
  int64_t capacity;
  int *order;             /* the schedule it follows (nops), NULL: file order */
  bool built;
  /* the model and its allocation */
  TilesModel *m;
  OffchipResult r;
  int64_t so_best;        /* the best Shared Objects strategy's peak, -1 none */
  OffchipMethod so_method;
  int *model_of;          /* net tensor -> model tensor, -1 for params */
  int *step_of_op;
  char error[SP_ERROR_TEXT];
  /* where the map was last drawn (clicks) */
  bool geom;
  int mx, my, cols, rows, sub, colw;
  int64_t T0, span;       /* ticks shown: [T0, T0 + span) */
  double bps;
};

void OffchipView_free(OffchipView *v) {
  if (!v) return;
  Net_free(v->own_net);
  Tiles_free(v->m);
  OffchipResult_free(&v->r);
  free(v->order);
  free(v->model_of);
  free(v->step_of_op);
  free(v);
}

static void Off_reset(OffchipView *v) {
  Net_free(v->own_net);
  v->own_net = NULL;
  Tiles_free(v->m);
  v->m = NULL;
  OffchipResult_free(&v->r);
  free(v->order);
  free(v->model_of);
  free(v->step_of_op);
  v->order = NULL;
  v->model_of = v->step_of_op = NULL;
  v->built = false;
  v->error[0] = '\0';
}

/* The budget the map is for: the typed one (below M_R too: the ops are tiled). */
static int64_t Off_capacity(const App *app) { return app->set.budget > 0 ? app->set.budget : 1; }

/* The schedule to follow: the shown plan's when it is for this budget. */
static const int *Off_schedule(const App *app) {
  const Plan *p = app->plan;
  return p && p->budget == app->set.budget && p->nsteps == app->net->nops ? p->order : NULL;
}

static OffchipView *Off_get(App *app) {
  if (!app->offchip && !(app->offchip = calloc(1, sizeof *app->offchip))) return NULL;
  OffchipView *v = app->offchip;
  bool staged = app->untiled_path[0] != '\0';
  const int *order = staged ? NULL : Off_schedule(app);
  int64_t cap = staged ? app->untiled_capacity : Off_capacity(app);
  bool same = v->built && v->key_net == app->net && v->staged == staged && v->capacity == cap &&
              (!order) == (!v->order) && (!order || memcmp(order, v->order, sizeof(int) * (size_t)app->net->nops) == 0);
  if (same) return v;
  Off_reset(v);
  v->key_net = app->net;
  v->net = app->net;
  v->staged = staged;
  v->capacity = cap;
  v->built = true;
  v->so_best = -1;
  SpError err;
  if (staged) { /* the original, tiled as staging.c tiled it */
    if (Import_open(app->untiled_path, &app->import, &v->own_net, &err)) { /* any format, as it was opened */
      snprintf(v->error, sizeof v->error, "%s", err.text);
      return v;
    }
    v->net = v->own_net;
  }
  const Net *net = v->net;
  v->model_of = malloc(sizeof(int) * (size_t)(net->ntensors ? net->ntensors : 1));
  v->step_of_op = malloc(sizeof(int) * (size_t)(net->nops ? net->nops : 1));
  if (order && (v->order = malloc(sizeof(int) * (size_t)net->nops)))
    memcpy(v->order, order, sizeof(int) * (size_t)net->nops);
  if (!v->model_of || !v->step_of_op || (order && !v->order)) {
    snprintf(v->error, sizeof v->error, "out of memory");
    return v;
  }
  TilesOptions to;
  TilesOptions_init(&to);
  to.capacity = cap;
  to.order = v->order;
  to.file_tiles_at_least = staged;
  OffchipOptions oo;
  OffchipOptions_init(&oo);
  oo.fallback = false; /* show TAA's own placement; the panel gives the baseline beside it */
  if (Tiles_build(net, &to, &v->m, &err) || Offchip_allocate(v->m, &oo, &v->r, &err)) {
    snprintf(v->error, sizeof v->error, "%s", err.text);
    return v;
  }
  for (int k = OFFCHIP_SO_SIZE; k <= OFFCHIP_SO_IMPROVED; k++) {
    OffchipOptions so;
    OffchipOptions_init(&so);
    so.method = (OffchipMethod)k;
    OffchipResult r;
    if (Offchip_allocate(v->m, &so, &r, &err)) continue;
    if (v->so_best < 0 || r.peak_bytes < v->so_best) v->so_best = r.peak_bytes, v->so_method = (OffchipMethod)k;
    OffchipResult_free(&r);
  }
  for (int t = 0; t < net->ntensors; t++) v->model_of[t] = -1;
  for (int i = 0; i < v->m->ntensors; i++) v->model_of[v->m->tensors[i].net_tensor] = i;
  for (int i = 0; i < net->nops; i++) v->step_of_op[i] = v->m->ops[i].step;
  return v;
}

/* The explorer's steps: ops, or sub-steps when a tiled network is staged. */
static int Off_steps(const OffchipView *v) { return v->staged ? v->m->nsubsteps : v->net->nops; }

/* The op at a step (staged: the op whose tiles hold that sub-step). */
static int Off_opAt(const OffchipView *v, int step) {
  if (!v->staged) return v->order ? v->order[step] : step;
  for (int i = 0; i < v->net->nops; i++)
    if (step >= v->m->ops[i].substep0 && step < v->m->ops[i].substep0 + v->m->ops[i].ntiles) return i;
  return 0;
}

/* The ticks of a step: its first read .. its last write (tick 0 and the last
 * tick go with the first and the last step). */
static void Off_stepTicks(const OffchipView *v, int step, int64_t *a, int64_t *b) {
  if (v->staged) {
    *a = 2 * (int64_t)step + 1;
    *b = *a + 1;
  } else {
    const TilesOp *op = &v->m->ops[Off_opAt(v, step)];
    *a = 2 * (int64_t)op->substep0 + 1;
    *b = 2 * (int64_t)(op->substep0 + op->ntiles - 1) + 2;
  }
  if (step == 0) *a = 0;
  if (step == Off_steps(v) - 1) *b = v->m->nticks - 1;
}

/* A staged network's tensor "t[r0:r1]" is a piece of the original's "t". */
static int Off_original(const OffchipView *v, const App *app, int tensor) {
  if (tensor < 0 || tensor >= app->net->ntensors) return -1;
  if (!v->staged) return tensor;
  const char *name = app->net->tensors[tensor].name, *br = strrchr(name, '[');
  size_t n = strlen(name);
  if (!br || name[n - 1] != ']') return Net_findTensor(v->net, name);
  char base[1024];
  snprintf(base, sizeof base, "%.*s", (int)(br - name), name);
  return Net_findTensor(v->net, base);
}

/* The selected tensor in the model (-1 none). */
static int Off_selected(const OffchipView *v, const App *app) {
  int t = Off_original(v, app, app->selected);
  return t >= 0 ? v->model_of[t] : -1;
}

/* Selects a model tensor in the app's network (staged: its first piece). */
static void Off_select(const OffchipView *v, App *app, int mt) {
  if (mt < 0) {
    app->selected = -1;
    return;
  }
  int t = v->m->tensors[mt].net_tensor;
  if (!v->staged) {
    app->selected = t;
    return;
  }
  app->selected = -1;
  for (int i = 0; i < app->net->ntensors && app->selected < 0; i++)
    if (Off_original(v, app, i) == t) app->selected = i;
}

static int Off_col(const OffchipView *v, int64_t tick) {
  if (v->colw) return (int)(tick - v->T0) * v->colw;
  return (int)((tick - v->T0) * v->cols / v->span);
}
static int Off_colEnd(const OffchipView *v, int64_t tick) {
  int c = v->colw ? (int)(tick - v->T0 + 1) * v->colw - 1 : (int)((tick - v->T0 + 1) * v->cols / v->span) - 1;
  int f = Off_col(v, tick);
  return c < f ? f : c;
}

static Role Off_role(const OffchipView *v, int sel, int tile) {
  int mt = v->m->tiles[tile].tensor;
  return mt == sel ? ROLE_SELECT : Role_tensor(v->m->tensors[mt].net_tensor);
}

/* Address labels at round values (a power of two bytes, at least 3 rows apart),
 * as the on-chip map has them: "512K", "1M", never "124.5K". */
static void Off_labels(Grid *g, int x, int y, int mh, int sub, double bps) {
  char buf[16];
  double rows_per_byte = 1.0 / (bps * sub);
  int64_t step = 1;
  while ((double)step * rows_per_byte < 3 && step < ((int64_t)1 << 60)) step *= 2;
  int last = -100;
  for (int64_t v = 0;; v += step) {
    int r = (int)((double)v * rows_per_byte);
    if (r >= mh - 1) break; /* the peak's own label is just above */
    if (r - last < 2 || !MapView_tickLabel(v, buf, sizeof buf)) continue;
    Grid_printf(g, x, y + mh - 1 - r, OFF_LABEL_W - 1, ROLE_AXIS, 0, "%6s", buf);
    last = r;
  }
}

void OffchipView_draw(App *app, Grid *g, int x, int y, int w, int h) {
  Grid_text(g, x, y, w, ROLE_TITLE, ATTR_BOLD, "off-chip map (DRAM)");
  OffchipView *v = Off_get(app);
  int mw = w - OFF_LABEL_W - 1, mh = h - 6, mx = x + OFF_LABEL_W;
  if (!v || v->error[0] || !v->m || mw < 4 || mh < 2) {
    Grid_text(g, x + 2, y + 2, w - 2, ROLE_WARN, 0, v && v->error[0] ? v->error : "no off-chip plan");
    if (v) v->geom = false;
    return;
  }
  App_clampView(app);
  const TilesModel *m = v->m;
  int nops = Off_steps(v), sel = Off_selected(v, app);
  int t0 = app->t0 < 0 ? 0 : app->t0, t1 = app->t0 + (app->tspan > 0 ? app->tspan : nops) - 1;
  if (t0 >= nops) t0 = nops - 1;
  if (t1 >= nops) t1 = nops - 1;
  if (t1 < t0) t1 = t0;
  int64_t a, b, c0t, c1t;
  Off_stepTicks(v, t0, &v->T0, &b);
  Off_stepTicks(v, t1, &a, &b);
  v->span = b - v->T0 + 1;
  v->cols = mw;
  v->colw = v->span <= mw ? (int)(mw / v->span) : 0;
  int used = v->colw ? (int)v->span * v->colw : mw;
  int64_t peak = v->r.peak_bytes > 0 ? v->r.peak_bytes : 1;
  int sub = g->unicode ? 2 : 1, sr = mh * sub;
  double bps = (double)peak / sr;
  v->mx = mx, v->my = y + 2, v->rows = mh, v->sub = sub, v->bps = bps, v->geom = true;
  if (v->staged)
    Grid_printf(g, x + 21, y, w - 22, ROLE_DIM, 0, "%s tiled: sub-steps %d-%d of %d", v->net->name, t0, t1, nops);
  else
    Grid_printf(g, x + 21, y, w - 22, ROLE_DIM, 0, "steps %d-%d, sub-steps %d-%d of %d", t0, t1,
                m->ops[Off_opAt(v, t0)].substep0,
                m->ops[Off_opAt(v, t1)].substep0 + m->ops[Off_opAt(v, t1)].ntiles - 1, m->nsubsteps);

  int *occ = malloc(sizeof(int) * (size_t)mw * (size_t)sr);
  if (!occ) return;
  for (int i = 0; i < mw * sr; i++) occ[i] = -1;
  /* whole tensors first, their tiles over them: a tile's stripes stay visible */
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < m->ntiles; k++) {
      const TilesTile *tl = &m->tiles[k];
      if ((tl->role == TILES_ROLE_WHOLE) != (pass == 0)) continue;
      if (tl->last < v->T0 || tl->first >= v->T0 + v->span) continue;
      int c0 = Off_col(v, tl->first < v->T0 ? v->T0 : tl->first);
      int c1 = Off_colEnd(v, tl->last >= v->T0 + v->span ? v->T0 + v->span - 1 : tl->last);
      int64_t base = v->r.base[tl->tensor];
      int plo = -1, phi = -1;
      for (int ci = 0; ci < tl->nchunks; ci++) {
        int lo = (int)((double)(base + tl->chunks[ci].offset) / bps);
        int hi = (int)((double)(base + tl->chunks[ci].offset + tl->chunks[ci].size) / bps + 0.999999) - 1;
        if (hi < lo) hi = lo;
        if (hi >= sr) hi = sr - 1;
        if (lo == plo && hi == phi) continue; /* chunks finer than a band: drawn once */
        plo = lo, phi = hi;
        for (int c = c0; c <= c1 && c < mw; c++)
          for (int r = lo; r <= hi; r++) occ[c * sr + r] = k;
      }
    }
  /* the peak line */
  char buf[32];
  Grid_fill(g, mx, y + 1, used, 1, 0x2500, ROLE_PEAK, 0);
  Grid_printf(g, x, y + 1, OFF_LABEL_W - 1, ROLE_PEAK, 0, "%6s", App_bytes(peak, buf, sizeof buf));
  Grid_text(g, mx + 1, y + 1, used - 1, ROLE_PEAK, 0, " peak ");
  int cur0 = -1, cur1 = -1;
  if (app->cursor >= t0 && app->cursor <= t1) {
    Off_stepTicks(v, app->cursor, &c0t, &c1t);
    cur0 = Off_col(v, c0t), cur1 = Off_colEnd(v, c1t);
  }
  for (int row = 0; row < mh; row++) {
    int up = sr - 1 - row * sub, low = up - (sub - 1);
    for (int c = 0; c < used && c < mw; c++) {
      int su = occ[c * sr + up], sl = occ[c * sr + low];
      Cell *cell = Grid_at(g, mx + c, y + 2 + row);
      if (!cell) continue;
      bool oncur = c >= cur0 && c <= cur1;
      if (su < 0 && sl < 0) {
        if (oncur && c == (cur0 + cur1) / 2) *cell = (Cell){Grid_glyph(g, 0x2502), ROLE_CURSOR, ROLE_DEFAULT, 0};
        continue;
      }
      uint8_t attr = oncur ? ATTR_BOLD : 0;
      if (!g->unicode) {
        int k = su >= 0 ? su : sl;
        *cell = (Cell){m->tiles[k].tensor == sel ? '@' : m->tiles[k].role == TILES_ROLE_WHOLE ? '#' : '=',
                       Off_role(v, sel, k), ROLE_DEFAULT, attr};
      } else if (su >= 0 && sl >= 0 && Off_role(v, sel, su) == Off_role(v, sel, sl)) {
        *cell = (Cell){0x2588, Off_role(v, sel, su), ROLE_DEFAULT, attr};
      } else if (sl < 0) {
        *cell = (Cell){0x2580, Off_role(v, sel, su), ROLE_DEFAULT, attr};
      } else if (su < 0) {
        *cell = (Cell){0x2584, Off_role(v, sel, sl), ROLE_DEFAULT, attr};
      } else {
        *cell = (Cell){0x2580, Off_role(v, sel, su), Off_role(v, sel, sl), attr};
      }
    }
  }
  free(occ);
  Off_labels(g, x, y + 2, mh, sub, bps);
  /* the step axis: each step's number at its first column */
  int ey = y + 2 + mh;
  Grid_text(g, x, ey, OFF_LABEL_W - 1, ROLE_AXIS, 0, "  step");
  int next_free = 0;
  for (int s = t0; s <= t1; s++) {
    int64_t sa, sb;
    Off_stepTicks(v, s, &sa, &sb);
    int c = Off_col(v, sa), n = snprintf(buf, sizeof buf, "%d", s);
    if (c < next_free || c + n > used) continue;
    Grid_text(g, mx + c, ey, n, ROLE_AXIS, 0, buf);
    next_free = c + n + 1;
  }
  if (cur0 >= 0) Grid_put(g, mx + (cur0 + cur1) / 2, ey + 1, 0x25B2, ROLE_CURSOR, ATTR_BOLD);
  int op = Off_opAt(v, app->cursor < nops ? app->cursor : nops - 1);
  const TilesOp *to = &m->ops[op];
  int n = Grid_printf(g, x, ey + 2, w - 1, ROLE_CURSOR, ATTR_BOLD, "step %d/%d", app->cursor, nops - 1);
  Grid_printf(g, x + n, ey + 2, w - 1 - n, ROLE_DEFAULT, 0, "  %s (%s): %d tile%s, sub-steps %d-%d, tile %s",
              v->net->ops[op].name, v->net->ops[op].type, to->ntiles, to->ntiles == 1 ? "" : "s", to->substep0,
              to->substep0 + to->ntiles - 1, App_bytes(to->tile_bytes, buf, sizeof buf));
}

static void Off_title(Grid *g, int x, int y, int w, const char *title) {
  Grid_fill(g, x, y, w, 1, 0x2500, ROLE_DIM, 0);
  Grid_printf(g, x + 1, y, w - 1, ROLE_TITLE, ATTR_BOLD, " %s ", title);
}

/* Lifetimes are in ticks: sub-step u reads at 2u+1 and writes at 2u+2. */
void OffchipView_drawPanel(App *app, Grid *g, int x, int y, int w, int h) {
  OffchipView *v = Off_get(app);
  int y1 = y + h;
  Off_title(g, x, y++, w, "off-chip (TAA)");
  if (!v || !v->m || v->error[0]) {
    Grid_text(g, x + 1, y, w - 1, ROLE_WARN, 0, v && v->error[0] ? v->error : "no off-chip plan");
    return;
  }
  const TilesModel *m = v->m;
  char b1[16], b2[16];
  int tiled = 0;
  for (int i = 0; i < v->net->nops; i++) tiled += m->ops[i].ntiles > 1;
  /* the budget in force (a lower one the tiles still fit keeps them: say for which they were cut) */
  int64_t budget = app->set.budget;
  if (budget == v->capacity || budget <= 0)
    Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "on-chip %s: %d op%s tiled", App_bytes(v->capacity, b1, sizeof b1),
                tiled, tiled == 1 ? "" : "s");
  else
    Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "on-chip %s: %d op%s tiled (cut for %s)",
                App_bytes(budget, b1, sizeof b1), tiled, tiled == 1 ? "" : "s", App_bytes(v->capacity, b2, sizeof b2));
  Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "%d sub-steps, %d tiles, %lld chunks", m->nsubsteps, m->ntiles,
              (long long)m->nchunks);
  Grid_printf(g, x + 1, y++, w - 1, ROLE_OK, ATTR_BOLD, "TAA peak      %s", App_bytes(v->r.peak_bytes, b1, sizeof b1));
  if (v->so_best >= 0)
    Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "Shared Obj.   %s (%s)", App_bytes(v->so_best, b2, sizeof b2),
                OffchipMethod_name(v->so_method));
  Grid_printf(g, x + 1, y++, w - 1, ROLE_DIM, 0, "lower bound   %s", App_bytes(v->r.lower_bound, b1, sizeof b1));
  y++;
  int sel = Off_selected(v, app);
  if (sel >= 0) {
    const TilesTensor *tt = &m->tensors[sel];
    Off_title(g, x, y++, w, "tensor");
    Grid_printf(g, x + 1, y++, w - 1, ROLE_SELECT, ATTR_BOLD, "%s", v->net->tensors[tt->net_tensor].name);
    /* the lifetimes below are in ticks, a word used nowhere else: said where it is met */
    y += View_wrap(g, x + 1, y, w - 1, ROLE_DIM, "ticks: sub-step u reads at 2u+1, writes at 2u+2");
    Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "%s at %s, ticks %lld-%lld", App_bytes(tt->bytes, b1, sizeof b1),
                App_bytes(v->r.base[sel], b2, sizeof b2), (long long)tt->first, (long long)tt->last);
    Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "whole over ticks %lld-%lld", (long long)tt->whole_first,
                (long long)tt->whole_last);
    for (int k = tt->tile0; k < tt->tile0 + tt->ntiles && y < y1; k++) {
      const TilesTile *tl = &m->tiles[k];
      Grid_printf(g, x + 1, y++, w - 1, ROLE_DEFAULT, 0, "%-5s %d/%d ticks %lld-%lld, %d chunk%s", TilesRole_name(tl->role),
                  tl->index, tl->count, (long long)tl->first, (long long)tl->last, tl->nchunks,
                  tl->nchunks == 1 ? "" : "s");
    }
    return;
  }
  /* none selected: the tensors in DRAM during the cursor's step, by address */
  int64_t a, b;
  Off_stepTicks(v, app->cursor < Off_steps(v) ? app->cursor : Off_steps(v) - 1, &a, &b);
  Off_title(g, x, y++, w, "in DRAM at the cursor");
  int nw = w - 20 > 4 ? w - 20 : 4;
  for (int i = 0; i < m->ntensors && y < y1; i++) {
    const TilesTensor *tt = &m->tensors[i];
    if (tt->last < a || tt->first > b) continue;
    Grid_tail(g, x + 1, y, nw, Role_tensor(tt->net_tensor), 0, v->net->tensors[tt->net_tensor].name);
    Grid_printf(g, x + 1 + nw, y++, w - 1 - nw, Role_tensor(tt->net_tensor), 0, " %6s @%s",
                App_bytes(tt->bytes, b1, sizeof b1), App_bytes(v->r.base[i], b2, sizeof b2));
  }
}

bool OffchipView_click(App *app, int x, int y) {
  OffchipView *v = app->offchip;
  if (!v || !v->geom || !v->m || x < v->mx || x >= v->mx + v->cols || y < v->my - 1 || y > v->my + v->rows) return false;
  int c = x - v->mx;
  int64_t tick = v->colw ? v->T0 + c / v->colw : v->T0 + (int64_t)c * v->span / v->cols;
  /* the step whose ticks hold it */
  int step = 0;
  for (int s = 0; s < Off_steps(v); s++) {
    int64_t a, b;
    Off_stepTicks(v, s, &a, &b);
    if (tick >= a && tick <= b) {
      step = s;
      break;
    }
  }
  app->cursor = step;
  if (y >= v->my && y < v->my + v->rows) {
    int sr = v->rows * v->sub, band = sr - 1 - (y - v->my) * v->sub;
    int64_t lo = (int64_t)(band * v->bps), hi = (int64_t)((band + v->sub) * v->bps);
    int best = -1;
    for (int k = 0; k < v->m->ntiles && best < 0; k++) {
      const TilesTile *tl = &v->m->tiles[k];
      if (tick < tl->first || tick > tl->last) continue;
      int64_t base = v->r.base[tl->tensor];
      for (int ci = 0; ci < tl->nchunks; ci++)
        if (base + tl->chunks[ci].offset < hi && base + tl->chunks[ci].offset + tl->chunks[ci].size > lo) {
          best = tl->tensor;
          break;
        }
    }
    Off_select(v, app, best);
  }
  App_clampView(app);
  app->message[0] = '\0';
  return true;
}

int OffchipView_selectLive(App *app, int dir) {
  OffchipView *v = Off_get(app);
  if (!v || !v->m) return 0;
  int64_t a, b;
  Off_stepTicks(v, app->cursor < Off_steps(v) ? app->cursor : Off_steps(v) - 1, &a, &b);
  int n = 0, *live = malloc(sizeof(int) * (size_t)(v->m->ntensors + 1));
  if (!live) return 0;
  for (int i = 0; i < v->m->ntensors; i++) {
    if (v->m->tensors[i].last < a || v->m->tensors[i].first > b) continue;
    int j = n++;
    while (j > 0 && v->r.base[live[j - 1]] > v->r.base[i]) live[j] = live[j - 1], j--;
    live[j] = i;
  }
  if (n == 0) {
    free(live);
    App_setMessage(app, false, "no tensor is in DRAM at step %d", app->cursor);
    return ACT_REDRAW;
  }
  int at = -1, sel = Off_selected(v, app);
  for (int k = 0; k < n; k++)
    if (live[k] == sel) at = k;
  at = at < 0 ? (dir > 0 ? 0 : n - 1) : (at + dir + n) % n;
  Off_select(v, app, live[at]);
  free(live);
  app->message[0] = '\0';
  return ACT_REDRAW;
}

Status OffchipView_save(App *app, const char *path, char *msg, size_t n, SpError *err) {
  OffchipView *v = Off_get(app);
  if (!v || !v->m) return SpError_set(err, SP_ERR_ARG, "no off-chip plan to save");
  if (v->error[0]) return SpError_set(err, SP_ERR_ARG, "no off-chip plan to save: %s", v->error);
  OffchipOptions oo;
  OffchipOptions_init(&oo);
  oo.fallback = false; /* the placement shown: TAA's own */
  OffchipPlan *plan = NULL;
  char *json = NULL;
  Status st = OffchipPlan_fromModel(v->m, &v->r, &oo, &plan, err);
  if (!st) st = OffchipPlan_toJson(plan, &json, err);
  /* checked before it is written, as the command line does: against the network
   * when the tiles follow its file order (the validator re-tiles in that order) */
  SpError verr;
  bool with_net = true;
  for (int i = 0; v->order && i < v->net->nops; i++) with_net &= v->order[i] == i;
  if (!st && OffchipPlan_validate(plan, with_net ? v->net : NULL, &verr)) {
    st = SpError_set(err, SP_ERR_FORMAT, "the off-chip plan does not validate: %s", verr.text);
  }
  if (!st) {
    st = FileIO_write(path, json, strlen(json), err); /* as --out: whole or not at all, every error said */
  }
  if (!st) {
    char b1[16], b2[16];
    snprintf(msg, n, "saved the off-chip (TAA) plan (on-chip %s, DRAM peak %s, %s) to %s",
             App_bytes(v->capacity, b1, sizeof b1), App_bytes(v->r.peak_bytes, b2, sizeof b2),
             with_net ? "validated" : "validated alone: not in file order", path);
  }
  free(json);
  OffchipPlan_free(plan);
  return st;
}

bool OffchipView_figures(App *app, OffchipFigures *f) {
  OffchipView *v = Off_get(app);
  if (!v || !v->m || v->error[0]) return false;
  f->taa_peak = v->r.peak_bytes;
  f->so_peak = v->so_best;
  f->so_method = v->so_best >= 0 ? OffchipMethod_name(v->so_method) : "";
  f->lower_bound = v->r.lower_bound;
  f->tiles = v->m->ntiles;
  return true;
}

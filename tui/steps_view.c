/* steps_view: the step map. Steps run across (one column each, scrolled to keep
 * the cursor in view), on-chip addresses up: the kernels at the bottom, then the
 * input slots (Cin elements each), then the outputs of the step. A slot loaded in
 * the step is marked ▲, one freed in the step ▼ (it is empty afterwards). */
#include "steps_view.h"
#include "words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"

bool StepsView_move(StepsViewState *s, const StepsPlan *p, int delta) {
  int64_t c = (int64_t)s->cursor + delta, last = p->nsteps - 1;
  if (c > last) c = last;
  if (c < 0) c = 0;
  bool moved = c != s->cursor;
  s->cursor = (int)c;
  return moved;
}

/* What one address holds at one step. */
enum { CELL_FREE, CELL_KER, CELL_KEPT, CELL_LOADED, CELL_FREED, CELL_OUT };

static void Steps_cell(Grid *g, int x, int y, int kind, bool cursor) {
  static const uint32_t uni[] = {0x00B7, 'k', 0x2588, 0x25B2, 0x25BC, 'o'};
  static const Role roles[] = {ROLE_FREE, ROLE_TENSOR0 + 2, ROLE_TENSOR0 + 1, ROLE_RETRIEVE, ROLE_SPILL,
                               ROLE_TENSOR0 + 4};
  Grid_put(g, x, y, Grid_glyph(g, uni[kind]), roles[kind], cursor ? ATTR_BOLD : 0);
  if (cursor && kind == CELL_FREE) Grid_put(g, x, y, Grid_glyph(g, 0x2502), ROLE_CURSOR, 0);
}

/* The patch grid: # done, @ this step, . to do (rows of output positions). */
static int Steps_patches(Grid *g, int x, int y, int w, int h, const StepsPlan *p, int cursor) {
  char *state = calloc((size_t)p->hout * (size_t)p->wout, 1);
  if (!state) return 0;
  for (int k = 0; k <= cursor && k < p->nsteps; k++)
    for (int q = 0; q < p->steps[k].npatches; q++) state[p->steps[k].patches[q]] = k == cursor ? 2 : 1;
  int rows = p->hout < h ? p->hout : h, cols = p->wout * 2 < w ? p->wout : w / 2;
  /* a grid larger than the space scrolls to keep the step's first patch in view
   * (it showed the top-left corner: the step could be off the grid) */
  int r0 = 0, c0 = 0;
  if (cursor >= 0 && cursor < p->nsteps && p->steps[cursor].npatches > 0) {
    int at = p->steps[cursor].patches[0], pi = at / p->wout, pj = at % p->wout;
    r0 = pi - rows / 2, c0 = pj - cols / 2;
    if (r0 > p->hout - rows) r0 = p->hout - rows;
    if (c0 > p->wout - cols) c0 = p->wout - cols;
    if (r0 < 0) r0 = 0;
    if (c0 < 0) c0 = 0;
  }
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      char st = state[(size_t)(r0 + i) * (size_t)p->wout + (size_t)(c0 + j)];
      Grid_put(g, x + 2 * j, y + i, st == 2 ? '@' : st == 1 ? '#' : '.',
               st == 2 ? ROLE_CURSOR : st == 1 ? ROLE_OK : ROLE_DIM, st == 2 ? ATTR_BOLD : 0);
    }
  free(state);
  return rows;
}

/* An address in at most 6 cells: 999999, then 2.36M, 12.5G (printed whole, a
 * 7-digit address lost its last digit). */
static const char *Steps_axisLabel(int64_t a, char *buf) {
  if (a < 1000000) {
    snprintf(buf, 16, "%lld", (long long)a);
    return buf;
  }
  static const char unit[] = "MGTPE";
  double v = (double)a / 1e6;
  int u = 0;
  while (v >= 999.5 && u < 4) v /= 1000, u++;
  snprintf(buf, 16, "%.*f%c", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, unit[u]);
  return buf;
}

void StepsView_draw(Grid *g, int x, int y, int w, int h, const StepsPlan *p, const StepsViewState *s) {
  if (!p || p->nsteps < 1 || w < 40 || h < 8) return;
  int cursor = s->cursor < 0 ? 0 : s->cursor >= p->nsteps ? p->nsteps - 1 : s->cursor;
  const Step *cs = &p->steps[cursor];
  char dur[32], pk[32];
  Grid_printf(g, x, y, w, ROLE_TITLE, ATTR_BOLD, "Offloading steps (%s): G = %d, %d steps, duration %s cycles, peak %s elements",
              Steps_strategyName(p->strategy), p->group_size, p->nsteps, Words_count((double)p->duration, dur, sizeof dur),
              Words_count((double)p->peak, pk, sizeof pk));
  /* the right side: the cursor step and the patch grid */
  int side_w = 30, mx = x + 7, mw = w - 7 - side_w - 1, my = y + 2, mh = h - 4;
  if (mw < 10) mw = 10;
  int sx = mx + mw + 1;
  Grid_printf(g, sx, y + 2, side_w, ROLE_DEFAULT, ATTR_BOLD, "step %d of %d", cursor + 1, p->nsteps);
  Grid_printf(g, sx, y + 3, side_w, ROLE_RETRIEVE, 0, "loaded  %lld", (long long)(cs->load_in + cs->load_ker));
  Grid_printf(g, sx, y + 4, side_w, ROLE_SPILL, 0, "freed   %lld", (long long)cs->free_in);
  Grid_printf(g, sx, y + 5, side_w, ROLE_DEFAULT, 0, "written %lld", (long long)cs->write_out);
  Grid_printf(g, sx, y + 6, side_w, ROLE_DEFAULT, 0, "on chip %lld (in %lld)", (long long)cs->footprint,
              (long long)cs->foot_in);
  Grid_printf(g, sx, y + 7, side_w, ROLE_DEFAULT, 0, "duration %s cycles", Words_count((double)cs->duration, dur, sizeof dur));
  Steps_patches(g, sx, y + 9, side_w, h - 10, p, cursor);
  /* the address axis: kernels, input slots, outputs (in elements) */
  int max_out = 0;
  for (int k = 0; k < p->nsteps; k++)
    if (p->steps[k].npatches > max_out) max_out = p->steps[k].npatches;
  int64_t ker = (int64_t)p->cout * p->cin * p->hk * p->wk, in0 = ker;
  int64_t out0 = in0 + (int64_t)p->input_slots * p->cin;
  int64_t nin = (int64_t)p->input_slots * p->cin, nout = (int64_t)max_out * p->cout;
  /* Three bands, each linear in its own elements: kernels (at most a fifth of
   * the rows: they are loaded once and would hide the rest), input slots,
   * outputs. band_rows[b] rows show band_len[b] elements from band_base[b]. */
  int64_t band_len[3] = {ker, nin, nout}, band_base[3] = {0, in0, out0};
  int band_rows[3];
  int64_t total = ker + nin + nout;
  band_rows[0] = (int)((double)ker / (double)total * mh);
  if (band_rows[0] > mh / 5) band_rows[0] = mh / 5;
  if (band_rows[0] < 1) band_rows[0] = 1;
  int rest = mh - band_rows[0];
  band_rows[2] = (int)((double)nout / (double)(nin + nout) * rest + 0.5);
  if (band_rows[2] < 1) band_rows[2] = 1;
  band_rows[1] = rest - band_rows[2];
  int rows = mh;
  char label[16];
  for (int b = 0, r0 = 0; b < 3; r0 += band_rows[b++])
    if (band_rows[b] > 0)
      Grid_printf(g, x, my + mh - 1 - r0, 6, ROLE_AXIS, 0, "%6s", Steps_axisLabel(band_base[b], label));
  /* the window of steps: up to 4 columns a step when they fit, else one */
  int colw = mw / p->nsteps;
  if (colw > 4) colw = 4;
  if (colw < 1) colw = 1;
  int fit = mw / colw;
  int first = cursor - fit / 2;
  if (first > p->nsteps - fit) first = p->nsteps - fit;
  if (first < 0) first = 0;
  int ncols = p->nsteps - first < fit ? p->nsteps - first : fit;
  /* replay slot owners up to the last drawn step */
  int nslots = p->input_slots > 0 ? p->input_slots : 1;
  int *owner = malloc(sizeof(int) * (size_t)nslots);
  char *mark = malloc((size_t)nslots);
  if (!owner || !mark) {
    free(owner);
    free(mark);
    return;
  }
  for (int i = 0; i < nslots; i++) owner[i] = -1;
  int *slot_of = calloc((size_t)p->hin * (size_t)p->win, sizeof(int));
  if (!slot_of) {
    free(owner);
    free(mark);
    return;
  }
  for (int k = 0; k < first + ncols; k++) {
    const Step *st = &p->steps[k];
    memset(mark, 0, (size_t)nslots);
    for (int f = 0; f < st->nfreed; f++) {
      int sl = slot_of[st->freed[f]] - 1;
      if (sl >= 0) owner[sl] = -1, mark[sl] = CELL_FREED;
      slot_of[st->freed[f]] = 0;
    }
    for (int a = 0; a < st->nloaded; a++) {
      owner[st->loaded_slot[a]] = st->loaded[a];
      slot_of[st->loaded[a]] = st->loaded_slot[a] + 1;
      mark[st->loaded_slot[a]] = CELL_LOADED;
    }
    if (k < first) continue;
    int col = mx + (k - first) * colw;
    for (int r = 0; r < rows; r++) {
      int b = r < band_rows[0] ? 0 : r < band_rows[0] + band_rows[1] ? 1 : 2;
      int rb = r - (b > 0 ? band_rows[0] : 0) - (b > 1 ? band_rows[1] : 0);
      double per = (double)band_len[b] / band_rows[b];
      int64_t lo = band_base[b] + (int64_t)(rb * per), hi = band_base[b] + (int64_t)((rb + 1) * per); /* [lo, hi) */
      if (hi <= lo) hi = lo + 1;
      if (hi > band_base[b] + band_len[b]) hi = band_base[b] + band_len[b];
      if (lo >= band_base[b] + band_len[b]) { /* past the band's elements */
        Steps_cell(g, col, my + mh - 1 - r, CELL_FREE, k == cursor);
        continue;
      }
      int kind = CELL_FREE;
      if (lo < ker) kind = CELL_KER;
      else if (lo < out0) {
        int s0 = (int)((lo - in0) / p->cin), s1 = (int)((hi - 1 - in0) / p->cin);
        if (s1 >= p->input_slots) s1 = p->input_slots - 1;
        for (int sl = s0; sl <= s1; sl++) {
          int kd = mark[sl] == CELL_LOADED ? CELL_LOADED
                   : owner[sl] >= 0       ? CELL_KEPT
                   : mark[sl] == CELL_FREED ? CELL_FREED
                                            : CELL_FREE;
          if (kd == CELL_LOADED || (kd == CELL_KEPT && kind != CELL_LOADED) ||
              (kd == CELL_FREED && kind == CELL_FREE))
            kind = kd;
        }
      } else if (lo < out0 + (int64_t)st->npatches * p->cout) kind = CELL_OUT;
      for (int c = 0; c < colw - (colw > 1); c++) Steps_cell(g, col + c, my + mh - 1 - r, kind, k == cursor);
    }
    if (k == cursor) Grid_put(g, col, my + mh, '^', ROLE_CURSOR, ATTR_BOLD);
    else if (colw > 2) Grid_printf(g, col, my + mh, colw, ROLE_AXIS, 0, "%d", k + 1);
  }
  free(owner);
  free(mark);
  free(slot_of);
  Grid_printf(g, mx, my + mh + 1, mw, ROLE_AXIS, 0, "steps %d..%d; addresses (elements) in 3 bands: kernels, inputs, outputs", first + 1,
              first + ncols);
  /* the legend, in the same glyphs */
  static const struct {
    int kind;
    const char *label;
  } legend[] = {{CELL_KER, "kernels"}, {CELL_KEPT, "input kept"}, {CELL_LOADED, "loaded"},
                {CELL_FREED, "freed"},   {CELL_OUT, "outputs"},    {CELL_FREE, "free"}};
  int lx = x;
  for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
    Steps_cell(g, lx, y + 1, legend[i].kind, false);
    lx += 2 + Grid_text(g, lx + 2, y + 1, w - (lx + 2 - x), ROLE_DIM, 0, legend[i].label) + 1;
  }
  char k1[16], k2[16], keys[48]; /* the step keys as bound (actions.c) */
  snprintf(keys, sizeof keys, " %s/%s: step", Key_name(Actions_keyOf("steps_prev"), k1, sizeof k1),
           Key_name(Actions_keyOf("steps_next"), k2, sizeof k2));
  Grid_text(g, lx, y + 1, w - (lx - x), ROLE_DIM, 0, keys);
}

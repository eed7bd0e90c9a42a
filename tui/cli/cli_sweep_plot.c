/* spadmap sweep --plot F.svg: the sweep as a chart for a slide. Budget across on
 * a log scale (below M_R the budgets halve); with --arch two panels, the
 * network's latency in cycles over its energy in mJ, else the non-compulsory
 * traffic in bytes; one line per
 * replacement policy (each point the best schedule x allocator with it; a joint
 * schedule is its own line), M_R and M_P marked, the tiled region shaded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_sweep.h"
#include "fileio.h"
#include "words.h"

enum { PLOT_W = 960, PLOT_H = 560, PLOT_L = 116, PLOT_R = 230, PLOT_T = 60, PLOT_B = 80, PLOT_MAX_SERIES = 16 };

static const char *const Plot_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                          "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

/* XML text: & < > " escaped. */
static void Plot_text(StrBuf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': StrBuf_printf(b, "&amp;"); break;
    case '<': StrBuf_printf(b, "&lt;"); break;
    case '>': StrBuf_printf(b, "&gt;"); break;
    case '"': StrBuf_printf(b, "&quot;"); break;
    default:
      if ((unsigned char)*s >= 0x20) StrBuf_printf(b, "%c", *s);
    }
  }
}

/* A tick label in the one vocabulary (words.c): bytes "1M", "512K", "2.5K"; cycles
 * grouped, "20,000,000"; mJ "0.5", "1,250". */
static const char *Plot_tick(double v, int metric, char *buf, size_t n) {
  if (metric == 0) return v == 0 ? Words_count(0, buf, n) : Words_bytesTick(v, buf, n); /* the origin: "0" */
  if (metric == 1) return Words_count(v, buf, n);
  return Words_figure(v, buf, n);
}

static double Plot_niceStep(double range) {
  double raw = range / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

typedef struct {
  const Sweep *sw;
  const NetFigures *f;
  int ns;                /* series */
  const char *const *names;
  const int *of;         /* combination -> series */
  double x0, x1;         /* log2 of the budget range */
  double pw;             /* the panels' width */
} Plot;

/* One panel at top (pixels), ph high: metric 0 traffic (bytes), 1 latency (cycles),
 * 2 energy (mJ); per series the best point of each budget; the x axis's tick labels
 * when labels. */
static Status Plot_panel(StrBuf *b, const Plot *pl, int metric, double top, double ph, bool labels, double *val) {
  const Sweep *sw = pl->sw;
  int nb = sw->nbudgets;
  double ymax = 0;
  for (int i = 0; i < pl->ns * nb; i++) val[i] = -1;
  for (int k = 0; k < nb; k++)
    for (int c = 0; c < sw->ncombos; c++) {
      const SweepPoint *p = &sw->points[c * nb + k];
      if (p->status || pl->of[c] < 0) continue;
      double v = metric == 0 ? (double)p->traffic : metric == 1 ? (double)p->latency_cycles : p->energy_pj / 1e9;
      double *slot = &val[pl->of[c] * nb + k];
      if (*slot < 0 || v < *slot) *slot = v;
      if (v > ymax) ymax = v;
    }
  if (ymax <= 0) ymax = 1;
  double unit = 1; /* bytes step in round KiB or MiB ("10K", "20K"), not decimal ones that print "9.77K" */
  if (metric == 0)
    while (ymax / unit >= 1024) unit *= 1024;
  double step = Plot_niceStep(ymax / unit) * unit, ytop = ceil(ymax * 1.05 / step) * step;
  const double x0 = pl->x0, x1 = pl->x1, pw = pl->pw;
#define PX(bytes) (PLOT_L + (log2((double)(bytes)) - x0) / (x1 - x0) * pw)
#define PY(v) (top + ph - (v) / ytop * ph)
  char s1[32], s2[32];
  if (sw->budgets[0] < pl->f->m_r) { /* the tiled region: budgets below M_R */
    double xm = pl->f->m_r < sw->budgets[nb - 1] ? PX(pl->f->m_r) : PLOT_L + pw;
    StrBuf_printf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f2f2f2\"/>\n", PLOT_L, top,
                  xm - PLOT_L, ph);
    StrBuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\">below M_R: the tiled network</text>\n", PLOT_L + 8.0,
                  top + 18);
  }
  for (double v = 0; v <= ytop + step / 2; v += step) { /* y grid and ticks */
    double y = PY(v);
    StrBuf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", PLOT_L, y, PLOT_L + pw, y);
    Plot_tick(v, metric, s1, sizeof s1);
    StrBuf_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PLOT_L - 8, y + 4, s1);
  }
  double tstep = x1 - x0 < 2.5 ? 0.5 : 1; /* x ticks: powers of two (and halfway ones when the range is short) */
  for (double e = ceil(x0 / tstep) * tstep; e <= x1 + 1e-9; e += tstep) {
    double x = PLOT_L + (e - x0) / (x1 - x0) * pw;
    StrBuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", x, top + ph, x,
                  top + ph + 6);
    if (labels)
      StrBuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, top + ph + 22,
                    Words_bytesTick(pow(2, e), s1, sizeof s1));
  }
  StrBuf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>\n", PLOT_L, top, PLOT_L, top + ph);
  StrBuf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", PLOT_L, top + ph,
                PLOT_L + pw, top + ph);
  static const char *const ylabel[] = {"non-compulsory traffic (bytes; K = KiB, M = MiB)", "network latency (cycles)",
                                       "network energy (mJ)"};
  StrBuf_printf(b, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
                top + ph / 2, ylabel[metric]);
  int64_t marks[2] = {pl->f->m_r, pl->f->m_p};
  for (int m = 0; m < 2; m++) { /* M_R and M_P */
    if (m == 1 && pl->f->m_p == pl->f->m_r) continue;
    if (marks[m] < sw->budgets[0] || marks[m] > sw->budgets[nb - 1]) continue;
    double x = PX(marks[m]);
    StrBuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"5 4\"/>\n",
                  x, top, x, top + ph);
    StrBuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333\">%s %s</text>\n", x, top - 6,
                  m == 0 ? (pl->f->m_p == pl->f->m_r ? "M_R = M_P" : "M_R") : "M_P",
                  Words_bytesTick((double)marks[m], s2, sizeof s2));
  }
  for (int k = 0; k < pl->ns; k++) { /* the lines */
    const char *col = Plot_colors[k % (int)(sizeof Plot_colors / sizeof Plot_colors[0])];
    StrBuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (int i = 0; i < nb; i++)
      if (val[k * nb + i] >= 0) StrBuf_printf(b, "%.1f,%.1f ", PX(sw->budgets[i]), PY(val[k * nb + i]));
    StrBuf_printf(b, "\"/>\n");
    for (int i = 0; i < nb; i++)
      if (val[k * nb + i] >= 0)
        StrBuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(sw->budgets[i]), PY(val[k * nb + i]),
                      col);
  }
#undef PX
#undef PY
  return SP_OK;
}

Status SweepPlot_write(const char *path, const Net *net, const NetFigures *f, Sweep *sw, const NetCostMapper *mapper,
                       SpError *err) {
  bool cost = mapper != NULL;
  /* the series: replacement policies (a joint schedule by its name) */
  const char *names[PLOT_MAX_SERIES];
  int ns = 0, *of = malloc(sizeof(int) * (size_t)sw->ncombos);
  double *val = malloc(sizeof(double) * (size_t)PLOT_MAX_SERIES * (size_t)sw->nbudgets);
  if (!of || !val) {
    free(of), free(val);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  for (int c = 0; c < sw->ncombos; c++) {
    const char *n = strcmp(sw->combos[c].replacement, "-") == 0 ? sw->combos[c].schedule : sw->combos[c].replacement;
    int k = 0;
    while (k < ns && strcmp(names[k], n) != 0) k++;
    if (k == ns && ns < PLOT_MAX_SERIES) names[ns++] = n;
    of[c] = k < ns ? k : -1;
  }
  Plot pl = {.sw = sw, .f = f, .ns = ns, .names = names, .of = of, .pw = PLOT_W - PLOT_L - PLOT_R};
  pl.x0 = log2((double)sw->budgets[0]);
  pl.x1 = log2((double)sw->budgets[sw->nbudgets - 1]);
  if (pl.x1 - pl.x0 < 1e-9) pl.x0 -= 0.5, pl.x1 += 0.5;
  /* with an arch two panels, latency over energy; else the traffic */
  const double ph = PLOT_H - PLOT_T - PLOT_B, gap = 50;
  int height = cost ? (int)(PLOT_T + 2 * ph + gap + PLOT_B) : PLOT_H;
  StrBuf b = {0};
  StrBuf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                    "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n",
                PLOT_W, height, PLOT_W, height);
  StrBuf_printf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", PLOT_W, height);
  StrBuf_printf(&b, "<text x=\"%d\" y=\"28\" font-size=\"17\" font-weight=\"bold\">", PLOT_L);
  Plot_text(&b, net->name);
  if (cost) {
    StrBuf_printf(&b, ": latency and energy on ");
    Plot_text(&b, NetCostMapper_arch(mapper)->name);
    StrBuf_printf(&b, " (layers by %s) against the scratchpad", NetCostMapper_method(mapper));
  } else StrBuf_printf(&b, ": non-compulsory traffic against the scratchpad");
  StrBuf_printf(&b, "</text>\n");
  if (cost) {
    Plot_panel(&b, &pl, 1, PLOT_T, ph, false, val);
    Plot_panel(&b, &pl, 2, PLOT_T + ph + gap, ph, true, val);
  } else Plot_panel(&b, &pl, 0, PLOT_T, ph, true, val);
  StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">scratchpad budget (bytes, log scale; K = KiB, M = MiB)</text>\n",
                PLOT_L + pl.pw / 2, height - 25);
  for (int k = 0; k < ns; k++) { /* the legend */
    const char *col = Plot_colors[k % (int)(sizeof Plot_colors / sizeof Plot_colors[0])];
    double ly = PLOT_T + 10 + 22.0 * k;
    StrBuf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                  PLOT_L + pl.pw + 20, ly, PLOT_L + pl.pw + 46, ly, col);
    StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\">", PLOT_L + pl.pw + 54, ly + 4);
    Plot_text(&b, names[k]);
    StrBuf_printf(&b, "</text>\n");
  }
  static const char *const note[] = {"each point: the best schedule x", "allocator with that replacement",
                                     "policy; lines that coincide are", "drawn over each other"};
  for (int i = 0; i < 4; i++)
    StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\" font-size=\"11\">%s</text>\n", PLOT_L + pl.pw + 20,
                  PLOT_T + 16 + 22.0 * ns + 14.0 * i, note[i]);
  StrBuf_printf(&b, "</svg>\n");
  free(of);
  free(val);
  Status st = SP_OK;
  if (b.nomem) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
  else st = FileIO_write(path, b.s, b.len, err);
  free(b.s);
  return st;
}

/* spadmap sweep --plot F.svg: the sweep as a chart for a slide. Budget across on
 * a log scale (below M_R the budgets halve), the network's latency in cycles
 * (with --arch) or the non-compulsory traffic in bytes up; one line per
 * replacement policy (each point the best schedule x allocator with it; a joint
 * schedule is its own line), M_R and M_P marked, the tiled region shaded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_sweep.h"
#include "fileio.h"

enum { PLOT_W = 960, PLOT_H = 560, PLOT_L = 100, PLOT_R = 230, PLOT_T = 60, PLOT_B = 80, PLOT_MAX_SERIES = 16 };

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

/* 1536 -> "1.5K" (binary: bytes) or 1500 -> "1.5k" (decimal: cycles). */
static const char *Plot_short(double v, bool binary, char *buf, size_t n) {
  double base = binary ? 1024 : 1000;
  const char *units = binary ? " KMGT" : " kMGT";
  int u = 0;
  while (fabs(v) >= base && u < 4) v /= base, u++;
  if (u == 0) snprintf(buf, n, "%.4g", v);
  else snprintf(buf, n, "%.3g%c", v, units[u]);
  return buf;
}

static double Plot_niceStep(double range) {
  double raw = range / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

Status SweepPlot_write(const char *path, const Net *net, const NetFigures *f, Sweep *sw, const NetCostMapper *mapper,
                       SpError *err) {
  bool cycles = mapper != NULL;
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
  double ymax = 0;
  for (int i = 0; i < ns * sw->nbudgets; i++) val[i] = -1;
  for (int b = 0; b < sw->nbudgets; b++)
    for (int c = 0; c < sw->ncombos; c++) {
      const SweepPoint *p = Sweep_at(sw, c, b);
      if (p->status || of[c] < 0) continue;
      double v = cycles ? (double)p->latency_cycles : (double)p->traffic;
      double *slot = &val[of[c] * sw->nbudgets + b];
      if (*slot < 0 || v < *slot) *slot = v;
      if (v > ymax) ymax = v;
    }
  if (ymax <= 0) ymax = 1;
  double step = Plot_niceStep(ymax), ytop = ceil(ymax * 1.05 / step) * step;
  double x0 = log2((double)sw->budgets[0]), x1 = log2((double)sw->budgets[sw->nbudgets - 1]);
  if (x1 - x0 < 1e-9) x0 -= 0.5, x1 += 0.5;
  const double pw = PLOT_W - PLOT_L - PLOT_R, ph = PLOT_H - PLOT_T - PLOT_B;
#define PX(bytes) (PLOT_L + (log2((double)(bytes)) - x0) / (x1 - x0) * pw)
#define PY(v) (PLOT_T + ph - (v) / ytop * ph)
  StrBuf b = {0};
  char s1[32], s2[32];
  StrBuf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                    "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n",
                PLOT_W, PLOT_H, PLOT_W, PLOT_H);
  StrBuf_printf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", PLOT_W, PLOT_H);
  StrBuf_printf(&b, "<text x=\"%d\" y=\"28\" font-size=\"17\" font-weight=\"bold\">", PLOT_L);
  Plot_text(&b, net->name);
  if (cycles) {
    StrBuf_printf(&b, ": network latency on ");
    Plot_text(&b, NetCostMapper_arch(mapper)->name);
    StrBuf_printf(&b, " (layers by %s) against the scratchpad", NetCostMapper_method(mapper));
  } else StrBuf_printf(&b, ": non-compulsory traffic against the scratchpad");
  StrBuf_printf(&b, "</text>\n");
  /* the tiled region: budgets below M_R */
  if (sw->budgets[0] < f->m_r) {
    double xm = f->m_r < sw->budgets[sw->nbudgets - 1] ? PX(f->m_r) : PLOT_L + pw;
    StrBuf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"#f2f2f2\"/>\n", PLOT_L, PLOT_T,
                  xm - PLOT_L, ph);
    StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%d\" fill=\"#666\">below M_R: the tiled network</text>\n", PLOT_L + 8.0,
                  PLOT_T + 18);
  }
  /* y grid and ticks */
  for (double v = 0; v <= ytop + step / 2; v += step) {
    double y = PY(v);
    StrBuf_printf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", PLOT_L, y, PLOT_L + pw, y);
    StrBuf_printf(&b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PLOT_L - 8, y + 4,
                  Plot_short(v, !cycles, s1, sizeof s1));
  }
  /* x ticks: powers of two (and halfway ones when the range is short) */
  double tstep = x1 - x0 < 2.5 ? 0.5 : 1;
  for (double e = ceil(x0 / tstep) * tstep; e <= x1 + 1e-9; e += tstep) {
    double x = PLOT_L + (e - x0) / (x1 - x0) * pw;
    StrBuf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", x, PLOT_T + ph, x,
                  PLOT_T + ph + 6);
    StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, PLOT_T + ph + 22,
                  Plot_short(pow(2, e), true, s1, sizeof s1));
  }
  /* axes and their labels, with units */
  StrBuf_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>\n", PLOT_L, PLOT_T, PLOT_L,
                PLOT_T + ph);
  StrBuf_printf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", PLOT_L, PLOT_T + ph,
                PLOT_L + pw, PLOT_T + ph);
  StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">scratchpad budget (bytes, log scale; K = 1024)</text>\n",
                PLOT_L + pw / 2, PLOT_H - 25);
  StrBuf_printf(&b, "<text transform=\"translate(24 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
                PLOT_T + ph / 2,
                cycles ? "network latency (cycles; k = 1000)" : "non-compulsory traffic (bytes; K = 1024)");
  /* M_R and M_P */
  int64_t marks[2] = {f->m_r, f->m_p};
  for (int m = 0; m < 2; m++) {
    if (m == 1 && f->m_p == f->m_r) continue;
    if (marks[m] < sw->budgets[0] || marks[m] > sw->budgets[sw->nbudgets - 1]) continue;
    double x = PX(marks[m]);
    StrBuf_printf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"5 4\"/>\n",
                  x, PLOT_T, x, PLOT_T + ph);
    StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%s %s</text>\n", x, PLOT_T - 6,
                  m == 0 ? (f->m_p == f->m_r ? "M_R = M_P" : "M_R") : "M_P", Plot_short((double)marks[m], true, s2, sizeof s2));
  }
  /* the lines, then the legend */
  for (int k = 0; k < ns; k++) {
    const char *col = Plot_colors[k % (int)(sizeof Plot_colors / sizeof Plot_colors[0])];
    StrBuf_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (int i = 0; i < sw->nbudgets; i++)
      if (val[k * sw->nbudgets + i] >= 0)
        StrBuf_printf(&b, "%.1f,%.1f ", PX(sw->budgets[i]), PY(val[k * sw->nbudgets + i]));
    StrBuf_printf(&b, "\"/>\n");
    for (int i = 0; i < sw->nbudgets; i++)
      if (val[k * sw->nbudgets + i] >= 0)
        StrBuf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(sw->budgets[i]),
                      PY(val[k * sw->nbudgets + i]), col);
    double ly = PLOT_T + 10 + 22.0 * k;
    StrBuf_printf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                  PLOT_L + pw + 20, ly, PLOT_L + pw + 46, ly, col);
    StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\">", PLOT_L + pw + 54, ly + 4);
    Plot_text(&b, names[k]);
    StrBuf_printf(&b, "</text>\n");
  }
  StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\" font-size=\"11\">each point: the best schedule x</text>\n",
                PLOT_L + pw + 20, PLOT_T + 16 + 22.0 * ns);
  StrBuf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\" font-size=\"11\">allocator with that replacement</text>\n",
                PLOT_L + pw + 20, PLOT_T + 30 + 22.0 * ns);
  StrBuf_printf(&b, "</svg>\n");
#undef PX
#undef PY
  free(of);
  free(val);
  Status st = SP_OK;
  if (b.nomem) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
  else st = FileIO_write(path, b.s, b.len, err);
  free(b.s);
  return st;
}

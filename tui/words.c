#include "words.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *Words_seconds(double s, char *buf, size_t n) {
  if (s >= 1) snprintf(buf, n, "%.2f s", s);
  else if (s >= 0.1) snprintf(buf, n, "%.0f ms", s * 1e3);
  else if (s >= 0.01) snprintf(buf, n, "%.1f ms", s * 1e3);
  else snprintf(buf, n, "%.2f ms", s * 1e3);
  return buf;
}

const char *Words_gap(double gap, char *buf, size_t n) {
  double pct = gap * 100;
  if (pct >= 99.95) snprintf(buf, n, "100 %%");
  else if (pct > 0 && pct < 1) snprintf(buf, n, "%.2f %%", pct); /* 0.84 %, not 0.8 % */
  else snprintf(buf, n, "%.1f %%", pct);
  return buf;
}

double Words_gapOf(const SolverInfo *si) {
  if (!si->has_objective || !si->has_bound || si->objective <= 0) return -1;
  double g = (si->objective - si->bound) / si->objective;
  return g < 0 ? 0 : g > 1 ? 1 : g;
}

const char *Words_result(const SolverInfo *si, double seconds, double limit, char *buf, size_t n) {
  char t[48] = "", g[24];
  if (seconds >= 0) {
    char s[24];
    snprintf(t, sizeof t, " in %s", Words_seconds(seconds, s, sizeof s));
  }
  switch (si->status) {
  case SOLVER_OPTIMAL: snprintf(buf, n, "optimal%s", t); return buf;
  case SOLVER_HEURISTIC: snprintf(buf, n, "solved%s", t); return buf; /* a heuristic plan: no proof claimed */
  case SOLVER_INFEASIBLE: snprintf(buf, n, "infeasible%s", t); return buf;
  case SOLVER_NONE: snprintf(buf, n, "no result"); return buf;
  default: break;
  }
  const char *why = si->status == SOLVER_TIMEOUT     ? "time limit"
                    : si->status == SOLVER_CANCELLED ? "cancelled"
                                                     : "the search stopped";
  double gap = Words_gapOf(si);
  char gaps[48] = "";
  if (gap >= 1) snprintf(gaps, sizeof gaps, ", no bound yet");
  else if (gap >= 0) snprintf(gaps, sizeof gaps, ", gap %s", Words_gap(gap, g, sizeof g));
  /* the same words however long it took (issue 32: a stage stops at its share of the limit
   * in work, the same on any machine, so whether that came before the limit in seconds
   * depends on the machine; the words must not) */
  if (si->status == SOLVER_TIMEOUT && seconds >= 0 && limit > 0) {
    char s[24], l[24];
    snprintf(buf, n, "not proven (time limit)%s in %s of the %s limit", gaps, Words_seconds(seconds, s, sizeof s),
             Words_seconds(limit, l, sizeof l));
    return buf;
  }
  snprintf(buf, n, "not proven (%s)%s%s", why, gaps, t);
  return buf;
}

const char *Words_progress(double seconds, const char *figures, double gap, const char *stage, char *buf, size_t n) {
  char t[32] = "", s[24], g[32] = "", gp[24];
  if (seconds >= 0) snprintf(t, sizeof t, " %s", Words_seconds(seconds, s, sizeof s));
  if (gap >= 0) snprintf(g, sizeof g, ", gap %s", Words_gap(gap, gp, sizeof gp));
  bool fig = figures && figures[0], st = stage && stage[0];
  snprintf(buf, n, "solving%s%s%s%s%s%s", t, fig ? ", " : "", fig ? figures : "", g, st ? ": " : "", st ? stage : "");
  return buf;
}

const char *Words_count(double v, char *buf, size_t n) {
  char digits[48];
  snprintf(digits, sizeof digits, "%.0f", v < 0 ? -v : v);
  size_t len = strlen(digits), o = 0;
  char out[72];
  if (v <= -0.5) out[o++] = '-';
  for (size_t i = 0; i < len; i++) {
    if (i && (len - i) % 3 == 0) out[o++] = ',';
    out[o++] = digits[i];
  }
  out[o] = '\0';
  snprintf(buf, n, "%s", out);
  return buf;
}

const char *Words_energy(double pj, char *buf, size_t n) {
  static const char *const unit[] = {"pJ", "nJ", "\u00b5J", "mJ", "J"};
  int u = 0;
  while (u < 4 && (pj >= 999.95 || pj <= -999.95)) pj /= 1000, u++;
  snprintf(buf, n, "%.1f %s", pj, unit[u]);
  return buf;
}

/* The unit a size is written in and its decimals: bytes whole, one decimal in KiB, two in MiB and
 * GiB. The next unit starts where the rounded figure would read 1024 ("1.00 MiB", never "1024.0 KiB"). */
static int Words_unit(double a, int *decimals, double *scale) {
  static const double k = 1024.0;
  if (a < 1023.5) return *decimals = 0, *scale = 1, 0;
  if (a < k * 1023.95) return *decimals = 1, *scale = k, 1;
  if (a < k * k * 1023.995) return *decimals = 2, *scale = k * k, 2;
  return *decimals = 2, *scale = k * k * k, 3;
}

const char *Words_bytes(double b, char *buf, size_t n) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
  int d;
  double scale;
  int u = Words_unit(b < 0 ? -b : b, &d, &scale);
  snprintf(buf, n, "%.*f %s", d, b / scale, unit[u]);
  return buf;
}

const char *Words_bytesExact(double b, char *buf, size_t n) {
  char exact[40], sized[32];
  snprintf(buf, n, "%s bytes (%s)", Words_count(b, exact, sizeof exact), Words_bytes(b, sized, sizeof sized));
  return buf;
}

const char *Words_bytesShort(double b, int width, char *buf, size_t n) {
  static const char unit[] = "BKMG";
  int d;
  double scale;
  int u = Words_unit(b < 0 ? -b : b, &d, &scale);
  for (;; d--) { /* fewer decimals only where the width needs it: the same figure, rounded further */
    snprintf(buf, n, "%.*f%c", d, b / scale, unit[u]);
    if (d == 0 || width <= 0 || (int)strlen(buf) - (b < 0) <= width) break; /* a sign is outside the width */
  }
  return buf;
}

const char *Words_bytesTick(double b, char *buf, size_t n) {
  Words_bytesShort(b, 0, buf, n);
  size_t len = strlen(buf);
  if (len < 2 || !strchr(buf, '.')) return buf;
  char unit = buf[len - 1];
  size_t end = len - 1; /* trailing zeros, then the point, dropped: "1.00M" -> "1M", "2.50K" -> "2.5K" */
  while (end > 0 && buf[end - 1] == '0') end--;
  if (end > 0 && buf[end - 1] == '.') end--;
  buf[end] = unit, buf[end + 1] = '\0';
  return buf;
}

const char *Words_figure(double v, char *buf, size_t n) {
  if (v != v) return snprintf(buf, n, "-"), buf;
  if (v >= 999.5 || v <= -999.5) return Words_count(v, buf, n);
  double a = v < 0 ? -v : v;
  int decimals = a == 0 ? 0 : a >= 99.995 ? 1 : a >= 9.9995 ? 2 : a >= 0.99995 ? 3 : 4;
  if (a > 0 && a < 0.00005) decimals = 8; /* a tiny weight keeps a digit instead of reading 0 */
  snprintf(buf, n, "%.*f", decimals, v);
  if (decimals && strchr(buf, '.')) { /* "0.500" -> "0.5", "15.0" -> "15" */
    char *e = buf + strlen(buf) - 1;
    while (*e == '0') *e-- = '\0';
    if (*e == '.') *e = '\0';
  }
  return buf;
}

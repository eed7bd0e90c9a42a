/* Budget text (solve.h): the one parser the CLI's --budget and the explorer's
 * typed budgets share. It takes the forms the tool itself prints: "2.30M",
 * "1,026,880", "10.0K", "1.23 MiB", and presets with a factor or a divisor,
 * "M_P*1.1", "M_R/16" (a budget below M_R: the tiled network's, docs/tiles.md). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "solve.h"

static const char *Budget_skip(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

/* "K", "KB", "KiB" (any case) and the like: binary units. 1 for "" and "B"; 0 if unknown. */
static int64_t Budget_unit(const char *u) {
  size_t n = strlen(u);
  while (n > 0 && (u[n - 1] == ' ' || u[n - 1] == '\t')) n--;
  if (n == 0 || (n == 1 && toupper((unsigned char)u[0]) == 'B')) return 1;
  char c = (char)toupper((unsigned char)u[0]);
  int64_t scale = c == 'K' ? 1024 : c == 'M' ? 1024 * 1024 : c == 'G' ? 1024LL * 1024 * 1024 : 0;
  if (!scale || n == 1) return scale;
  if (n == 2 && toupper((unsigned char)u[1]) == 'B') return scale;
  if (n == 3 && u[1] == 'i' && toupper((unsigned char)u[2]) == 'B') return scale;
  return 0;
}

static Status Budget_expected(const char *text, SpError *err) {
  return SpError_set(err, SP_ERR_ARG,
                     "budget \"%s\": expected M_R, M_H, M_P (or M_P*1.1, M_R/16) or a size like 524288, 1,026,880, 512K, 2.5M",
                     text);
}

Status Budget_parse(const char *text, const NetFigures *f, int64_t *bytes, const char **preset, SpError *err) {
  static const char *const names[] = {"M_R", "M_H", "M_P"};
  if (preset) *preset = "";
  const char *p = Budget_skip(text ? text : "");
  for (int i = 0; i < 3; i++) {
    if (strncasecmp(p, names[i], 3) != 0) continue;
    if (!f) return SpError_set(err, SP_ERR_ARG, "budget %s needs the network's figures", names[i]);
    int64_t base = i == 0 ? f->m_r : i == 1 ? f->m_h : f->m_p;
    const char *rest = Budget_skip(p + 3);
    if (!*rest) {
      *bytes = base;
      if (preset) *preset = names[i];
      return SP_OK;
    }
    if (*rest != '*' && *rest != '/') return Budget_expected(p, err);
    bool divide = *rest == '/';
    char *end;
    double factor = strtod(rest + 1, &end);
    if (end == rest + 1 || *Budget_skip(end) || !(factor > 0) || !isfinite(factor))
      return SpError_set(err, SP_ERR_ARG, "budget \"%s\": expected a positive %s after '%c', e.g. %s%s", p,
                         divide ? "divisor" : "factor", *rest, names[i], divide ? "/16" : "*1.1");
    double v = divide ? (double)base / factor : (double)base * factor;
    if (divide && v < 1)
      return SpError_set(err, SP_ERR_ARG, "budget \"%s\" is below one byte (%s is %lld bytes)", p, names[i],
                         (long long)base);
    if (v >= 9.2e18) return SpError_set(err, SP_ERR_ARG, "budget \"%s\" is too large", p);
    *bytes = (int64_t)llround(v);
    return SP_OK;
  }
  if (!isdigit((unsigned char)*p)) return Budget_expected(p, err);
  /* digits, commas between digit groups, an optional fraction */
  uint64_t whole = 0;
  const char *q = p;
  bool overflow = false;
  for (; isdigit((unsigned char)*q) || (*q == ',' && isdigit((unsigned char)q[1]) && q > p); q++) {
    if (*q == ',') continue;
    if (whole > (UINT64_MAX - 9) / 10) overflow = true;
    else whole = whole * 10 + (uint64_t)(*q - '0');
  }
  double frac = 0;
  bool has_frac = false;
  if (*q == '.') {
    double w = 0.1;
    for (q++; isdigit((unsigned char)*q); q++, w /= 10) frac += (*q - '0') * w, has_frac = true;
  }
  const char *unit = Budget_skip(q);
  int64_t scale = Budget_unit(unit);
  if (!scale)
    return SpError_set(err, SP_ERR_ARG, "budget \"%s\": unknown unit \"%s\" (expected K, M or G: binary units)", p,
                       unit);
  if (has_frac && scale == 1)
    return SpError_set(err, SP_ERR_ARG, "budget \"%s\": a byte count is whole (a fraction needs K, M or G)", p);
  if (overflow || whole > (uint64_t)(INT64_MAX / scale) - 1)
    return SpError_set(err, SP_ERR_ARG, "budget \"%s\" is too large", p);
  *bytes = (int64_t)whole * scale + (int64_t)llround(frac * (double)scale);
  return SP_OK;
}

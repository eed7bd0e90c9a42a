/* layer_text: a mapping as text (the engine formats, the CLI and TUI present). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "layer_map.h"

typedef struct {
  char *buf;
  size_t n, len;
} TextBuf;

static void Text_add(TextBuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void Text_add(TextBuf *t, const char *fmt, ...) {
  if (t->len >= t->n) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(t->buf + t->len, t->n - t->len, fmt, ap);
  va_end(ap);
  if (w > 0) t->len = t->len + (size_t)w < t->n ? t->len + (size_t)w : t->n - 1;
}

/* The loop nest as in CoSA's Listing 1: levels outermost first, each level's
 * temporal loops (outermost first) then its spatial_for loops; loop variables
 * are numbered per dimension from the innermost level (q0, q1, q2). */
size_t LayerMap_nestText(const Arch *a, const Mapping *m, char *buf, size_t n) {
  TextBuf t = {buf, n, 0};
  if (n) buf[0] = 0;
  int idx[ARCH_MAX_LEVELS][2][DIM_COUNT];
  int count[DIM_COUNT] = {0};
  for (int i = 0; i < m->nlevels; i++)
    for (int k = 0; k < DIM_COUNT; k++) {
      int d = m->order[i][k];
      if (m->s[i][d] > 1) idx[i][1][d] = count[d]++;
      if (m->t[i][d] > 1) idx[i][0][d] = count[d]++;
    }
  int depth = 0;
  for (int i = m->nlevels - 1; i >= 0; i--) {
    Text_add(&t, "%*s// %s level\n", 2 * depth, "", a->level[i].name);
    for (int k = DIM_COUNT - 1; k >= 0; k--) {
      int d = m->order[i][k];
      if (m->t[i][d] <= 1) continue;
      Text_add(&t, "%*sfor %s%d = [0 : %lld) :\n", 2 * depth, "", Dim_lower((Dim)d), idx[i][0][d],
               (long long)m->t[i][d]);
      depth++;
    }
    for (int d = 0; d < DIM_COUNT; d++) {
      if (m->s[i][d] <= 1) continue;
      Text_add(&t, "%*sspatial_for %s%d = [0 : %lld) :\n", 2 * depth, "", Dim_lower((Dim)d), idx[i][1][d],
               (long long)m->s[i][d]);
      depth++;
    }
  }
  Text_add(&t, "%*sMAC\n", 2 * depth, "");
  return t.len;
}

/* pack_gen: tight benchmark instances (a full time x address rectangle cut into
 * buffers), for tests and `spadmap bench pack`: guillotine cuts, optionally
 * mixed with pinwheel cuts (which no guillotine packing reproduces). */
#include <stdlib.h>

#include "pack.h"

static uint64_t Gen_next(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

bool Pack_generateTight(uint64_t seed, int n, int64_t duration, int64_t height, PackBuffer *b) {
  return Pack_generateTightPinwheel(seed, n, duration, height, 0, b);
}

/* A pinwheel cut of p into five: a centre and four arms turning around it, no
 * straight cut through the whole rectangle. */
static void Gen_pinwheel(uint64_t *s, PackBuffer *p, PackBuffer *arms) {
  int64_t t0 = p->lower, t1 = p->upper, len = t1 - t0, a1 = p->size;
  int64_t tx1 = t0 + 1 + (int64_t)(Gen_next(s) % (uint64_t)(len - 2));
  int64_t tx2 = tx1 + 1 + (int64_t)(Gen_next(s) % (uint64_t)(t1 - tx1 - 1));
  int64_t ay1 = 1 + (int64_t)(Gen_next(s) % (uint64_t)(a1 - 2));
  int64_t ay2 = ay1 + 1 + (int64_t)(Gen_next(s) % (uint64_t)(a1 - ay1 - 1));
  /* addresses are implicit (a buffer has a size, not an offset): bottom arm
   * [0, ay1) over [t0, tx2), right arm [0, ay2) over [tx2, t1), top arm
   * [ay2, a1) over [tx1, t1), left arm [ay1, a1) over [t0, tx1), centre
   * [ay1, ay2) over [tx1, tx2) */
  *p = (PackBuffer){tx1, tx2, ay2 - ay1, 0};
  arms[0] = (PackBuffer){t0, tx2, ay1, 0};
  arms[1] = (PackBuffer){tx2, t1, ay2, 0};
  arms[2] = (PackBuffer){tx1, t1, a1 - ay2, 0};
  arms[3] = (PackBuffer){t0, tx1, a1 - ay1, 0};
}

bool Pack_generateTightPinwheel(uint64_t seed, int n, int64_t duration, int64_t height, int pinwheel_percent,
                                PackBuffer *b) {
  if (n <= 0 || duration <= 0 || height <= 0) return false;
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  /* a rectangle per buffer: time [lower, upper), address [offset, offset + size) */
  b[0] = (PackBuffer){0, duration, height, 0};
  for (int k = 1; k < n; k++) {
    /* cut a big rectangle (the largest of a few random picks keeps sizes varied) */
    int pick = -1;
    for (int tries = 0; tries < 4 * k + 8; tries++) {
      int r = (int)(Gen_next(&s) % (uint64_t)k);
      bool cuttable = b[r].upper - b[r].lower > 1 || b[r].size > 1;
      if (!cuttable) continue;
      if (pick < 0 || (b[r].upper - b[r].lower) * (double)b[r].size > (b[pick].upper - b[pick].lower) * (double)b[pick].size)
        pick = r;
      if (tries >= 3 && pick >= 0) break;
    }
    if (pick < 0)
      for (int r = 0; r < k && pick < 0; r++)
        if (b[r].upper - b[r].lower > 1 || b[r].size > 1) pick = r;
    if (pick < 0) return false;
    PackBuffer *p = &b[pick];
    int64_t len = p->upper - p->lower;
    /* no extra draw at 0 %: the guillotine instances stay the same */
    if (pinwheel_percent > 0 && k + 3 <= n - 1 && len >= 3 && p->size >= 3 &&
        (int)(Gen_next(&s) % 100) < pinwheel_percent) {
      Gen_pinwheel(&s, p, &b[k]);
      k += 3;
      continue;
    }
    /* cut across the longer side relative to the whole (time vs address) */
    bool cut_time = len > 1 && (p->size <= 1 || (double)len / (double)duration > (double)p->size / (double)height ||
                                Gen_next(&s) % 4 == 0);
    if (cut_time) {
      int64_t at = p->lower + 1 + (int64_t)(Gen_next(&s) % (uint64_t)(len - 1));
      b[k] = (PackBuffer){at, p->upper, p->size, 0};
      p->upper = at;
    } else {
      int64_t at = 1 + (int64_t)(Gen_next(&s) % (uint64_t)(p->size - 1));
      b[k] = (PackBuffer){p->lower, p->upper, p->size - at, 0};
      p->size = at;
    }
  }
  /* shuffle so the index order tells nothing */
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(Gen_next(&s) % (uint64_t)(i + 1));
    PackBuffer t = b[i];
    b[i] = b[j];
    b[j] = t;
  }
  return true;
}

/* ---- instances like an allocator's ----------------------------------------- */

typedef struct {
  int64_t off, size, end;
} GenLive;

static int GenLive_cmpOff(const void *pa, const void *pb) {
  const GenLive *a = pa, *b = pb;
  return (a->off > b->off) - (a->off < b->off);
}

/* Steps through time as an allocator would: at each step the buffers whose
 * lifetime is over free their addresses, and new buffers are cut out of the
 * free gaps (each gap split into one to three pieces of whole quanta, 1/256
 * of the capacity). At a
 * "peak" step every gap is filled, elsewhere each gap only with probability
 * 1 - slack, so the load reaches the capacity at the peaks and leaves room in
 * between. Lifetimes are short mostly, with some long ones (skip connections).
 * The buffers were placed, so a packing under `capacity` exists; it was made
 * by filling holes over time, not by cutting a rectangle, so it has no
 * guillotine structure. */
bool Pack_generateLive(uint64_t seed, int n, int64_t capacity, int slack_percent, PackBuffer *b, int64_t *offsets) {
  if (n <= 0 || capacity < 64 || slack_percent < 0 || slack_percent > 100) return false;
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
  int64_t quantum = capacity / 256 > 0 ? capacity / 256 : 1;
  GenLive *live = malloc(sizeof *live * (size_t)(n + 1));
  if (!live) return false;
  int nl = 0, k = 0;
  for (int64_t t = 0; k < n; t++) {
    int w = 0; /* free what ends now */
    for (int x = 0; x < nl; x++)
      if (live[x].end > t) live[w++] = live[x];
    nl = w;
    qsort(live, (size_t)nl, sizeof *live, GenLive_cmpOff);
    bool peak = Gen_next(&s) % 12 == 0;
    int64_t cursor = 0;
    int gaps_end = nl; /* new buffers go after the live ones, sorted again next step */
    for (int x = 0; x <= gaps_end && k < n; x++) {
      int64_t gap_end = x < gaps_end ? live[x].off : capacity;
      int64_t gap = gap_end - cursor;
      if (gap >= quantum && (peak || (int)(Gen_next(&s) % 100) >= slack_percent)) {
        int64_t units = gap / quantum, at = cursor;
        int pieces = 1 + (int)(Gen_next(&s) % 3);
        for (int p = 0; p < pieces && units > 0 && k < n; p++) {
          int64_t u = p == pieces - 1 ? units : 1 + (int64_t)(Gen_next(&s) % (uint64_t)units);
          int64_t size = u * quantum;
          uint64_t r = Gen_next(&s) % 100;
          int64_t len = r < 70 ? 1 + (int64_t)(Gen_next(&s) % 4) : r < 95 ? 4 + (int64_t)(Gen_next(&s) % 12)
                                                                  : 16 + (int64_t)(Gen_next(&s) % 48);
          if (offsets) offsets[k] = at;
          b[k++] = (PackBuffer){t, t + len, size, 0};
          live[nl++] = (GenLive){at, size, t + len};
          at += size;
          units -= u;
        }
      }
      if (x < gaps_end) cursor = live[x].off + live[x].size;
    }
  }
  free(live);
  for (int i = n - 1; i > 0; i--) { /* the index order tells nothing */
    int j = (int)(Gen_next(&s) % (uint64_t)(i + 1));
    PackBuffer t = b[i];
    b[i] = b[j];
    b[j] = t;
    if (offsets) {
      int64_t o = offsets[i];
      offsets[i] = offsets[j];
      offsets[j] = o;
    }
  }
  return true;
}

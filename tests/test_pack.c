/* test_pack: fixed-lifetime packing (engine/pack). The exact search against a
 * brute force on small instances, infeasibility proofs checked by an independent
 * count, every heuristic through Pack_check, tight generated instances, limits,
 * and the CSV reader's errors. */
#include "bundled.h"
#include "figures.h"
#include "pack/pack.h"
#include "pack/pack_internal.h"
#include "solve.h"
#include "test.h"
#include "validate.h"

static uint64_t rng_state = 12345;
static int64_t Rand(int64_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (int64_t)((rng_state >> 33) % (uint64_t)n);
}

static void RandomInstance(PackBuffer *b, int n, int64_t horizon, int64_t maxsize) {
  for (int i = 0; i < n; i++) {
    int64_t lo = Rand(horizon), len = 1 + Rand(horizon / 2 + 1);
    b[i] = (PackBuffer){lo, lo + len, 1 + Rand(maxsize), 0};
  }
}

/* Brute force: is there any placement with every offset in [0, cap - size]?
 * Tries every offset of every buffer (independent of the search's canonical
 * placements). */
static bool Brute_fits(const PackBuffer *b, int n, int64_t cap, int64_t *off, int k) {
  if (k == n) return true;
  for (int64_t o = 0; o + b[k].size <= cap; o++) {
    if (b[k].align > 1 && o % b[k].align) continue;
    bool ok = true;
    for (int j = 0; j < k && ok; j++)
      if (b[j].lower < b[k].upper && b[k].lower < b[j].upper && o < off[j] + b[j].size && off[j] < o + b[k].size)
        ok = false;
    if (!ok) continue;
    off[k] = o;
    if (Brute_fits(b, n, cap, off, k + 1)) return true;
  }
  return false;
}

static int64_t Brute_minHeight(const PackBuffer *b, int n) {
  int64_t off[16];
  for (int64_t cap = 1;; cap++)
    if (Brute_fits(b, n, cap, off, 0)) return cap;
}

/* The load at time t, counted directly. */
static int64_t LoadAt(const PackBuffer *b, int n, int64_t t) {
  int64_t s = 0;
  for (int i = 0; i < n; i++)
    if (b[i].lower <= t && t < b[i].upper) s += b[i].size;
  return s;
}

static int64_t HeightOf(const PackBuffer *b, int n, const int64_t *off) {
  int64_t h = 0;
  for (int i = 0; i < n; i++)
    if (off[i] + b[i].size > h) h = off[i] + b[i].size;
  return h;
}

TEST(names_round_trip) {
  for (int m = 0; m < PACK_METHOD_COUNT; m++) {
    PackMethod back;
    CHECK(PackMethod_parse(PackMethod_name((PackMethod)m), &back));
    CHECK_EQ(back, m);
  }
  PackMethod x;
  CHECK(!PackMethod_parse("nope", &x));
  CHECK(!PackMethod_parse(NULL, &x));
  CHECK_HAS(PackResultStatus_name(PACK_INFEASIBLE), "infeasible");
}

TEST(max_load_counts_half_open_lifetimes) {
  PackBuffer b[] = {{0, 2, 5, 0}, {2, 4, 7, 0}, {1, 3, 1, 0}};
  CHECK_EQ(Pack_maxLoad(b, 3), 8); /* at t=2: 7 + 1, the first has ended */
  CHECK_EQ(Pack_maxLoad(b, 0), 0);
}

TEST(check_finds_collisions_alignment_and_capacity) {
  PackBuffer b[] = {{0, 2, 4, 0}, {1, 3, 4, 4}, {2, 4, 4, 0}};
  SpError err;
  int64_t ok[] = {0, 4, 0};
  CHECK_EQ(Pack_check(b, 3, ok, 8, &err), SP_OK);
  int64_t clash[] = {0, 4, 2};
  CHECK_EQ(Pack_check(b, 3, clash, 0, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "buffers 1");
  CHECK_HAS(err.text, "and 2");
  int64_t misaligned[] = {0, 5, 0};
  CHECK_EQ(Pack_check(b, 3, misaligned, 0, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "alignment");
  CHECK_EQ(Pack_check(b, 3, ok, 7, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "capacity");
  PackBuffer bad[] = {{3, 3, 1, 0}};
  int64_t z[] = {0};
  CHECK_EQ(Pack_check(bad, 1, z, 0, &err), SP_ERR_ARG);
}

TEST(every_heuristic_is_valid_on_random_instances) {
  PackBuffer b[60];
  for (int round = 0; round < 40; round++) {
    int n = 1 + (int)Rand(60);
    RandomInstance(b, n, 30, 100);
    if (round % 3 == 0)
      for (int i = 0; i < n; i++) b[i].align = (int64_t)1 << Rand(4);
    int64_t lb = Pack_maxLoad(b, n), best = -1;
    for (int m = PACK_SO_SIZE; m <= PACK_BEST_HEURISTIC; m++) {
      PackOptions o;
      PackOptions_init(&o);
      o.method = (PackMethod)m;
      PackResult r;
      SpError err;
      CHECK_EQ(Pack_solve(b, n, 0, &o, &r, &err), SP_OK);
      CHECK(r.status == PACK_FOUND || r.status == PACK_OPTIMAL);
      CHECK(r.offsets != NULL);
      if (!r.offsets) continue;
      CHECK_EQ(Pack_check(b, n, r.offsets, 0, &err), SP_OK);
      CHECK_EQ(r.height, HeightOf(b, n, r.offsets));
      CHECK(r.height >= lb);
      if (m < PACK_BEST_HEURISTIC && (best < 0 || r.height < best)) best = r.height;
      if (m == PACK_BEST_HEURISTIC) CHECK_EQ(r.height, best);
      PackResult_free(&r);
    }
  }
}

/* Minimum height (capacity 0): the bound and the height equal the brute force,
 * on sizes that share a factor (the search rounds its bound up to the step every
 * height is a multiple of: the brute force does not know that); under node
 * limits the bound stays at or below the brute force's height, the packing
 * checks at its height, and the same limit gives the same answer twice. */
TEST(min_height_matches_brute_force) {
  PackBuffer b[40];
  int checked = 0, above_load = 0, sandwiched = 0, open = 0;
  /* every instance above its load, one in 64 of the rest (most random
   * instances pack at the load, which proves nothing about the bound) */
  for (int round = 0; round < 40000 && checked < 120; round++) {
    int n = 3 + (int)Rand(4);
    int64_t grain = 1 + Rand(2);
    RandomInstance(b, n, 5, 3);
    for (int i = 0; i < n; i++) {
      b[i].size *= grain;
      if (round % 5 == 0) b[i].align = grain * (1 + Rand(2));
    }
    int64_t want = Brute_minHeight(b, n), off[16];
    if (want == Pack_maxLoad(b, n) && round % 64) continue;
    PackOptions o;
    PackOptions_init(&o);
    PackResult r;
    SpError err;
    CHECK_EQ(Pack_solve(b, n, 0, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_OPTIMAL);
    CHECK_EQ(r.height, want);
    CHECK_EQ(r.lower_bound, want);
    CHECK(r.offsets && Pack_check(b, n, r.offsets, want, &err) == SP_OK);
    CHECK(!Brute_fits(b, n, r.lower_bound - 1, off, 0));
    PackResult_free(&r);
    checked++;
    above_load += want > Pack_maxLoad(b, n);
  }
  /* two parts apart in time with different steps (sizes 2x and 3x, or 1x and 4x):
   * the later part's bound must not be rounded past the height the first forces */
  int parts = 0;
  for (int round = 0; round < 300; round++) {
    int na = 2 + (int)Rand(4), nb = 2 + (int)Rand(4);
    int64_t ga = round % 2 ? 2 : 1, gb = round % 2 ? 3 : 4;
    RandomInstance(b, na, 5, 3);
    RandomInstance(b + na, nb, 5, 2);
    for (int i = 0; i < na; i++) b[i].size *= ga;
    for (int i = na; i < na + nb; i++) b[i].size *= gb, b[i].lower += 100, b[i].upper += 100;
    int64_t ha = Brute_minHeight(b, na), hb = Brute_minHeight(b + na, nb), want = ha > hb ? ha : hb;
    PackOptions o;
    PackOptions_init(&o);
    PackResult r;
    SpError err;
    CHECK_EQ(Pack_solve(b, na + nb, 0, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_OPTIMAL);
    CHECK_EQ(r.height, want);
    CHECK_EQ(r.lower_bound, want);
    CHECK(r.offsets && Pack_check(b, na + nb, r.offsets, want, &err) == SP_OK);
    PackResult_free(&r);
    parts++;
  }
  /* allocator-like instances: packed at their capacity when generated, and
   * their load reaches it, so the optimum is the load */
  for (int round = 0; round < 40; round++) {
    int n = 20 + (int)Rand(13);
    if (!Pack_generateLive((uint64_t)(900 + round), n, 4096, 30, b, NULL)) {
      CHECK(false);
      continue;
    }
    int64_t want = Pack_maxLoad(b, n);
    CHECK_EQ(want, 4096);
    PackOptions o;
    PackOptions_init(&o);
    o.node_limit = 256;
    PackResult r, again;
    SpError err;
    CHECK_EQ(Pack_solve(b, n, 0, &o, &r, &err), SP_OK);
    CHECK_EQ(Pack_solve(b, n, 0, &o, &again, &err), SP_OK);
    CHECK(r.status == PACK_OPTIMAL || r.status == PACK_FOUND);
    CHECK(r.offsets && Pack_check(b, n, r.offsets, r.height, &err) == SP_OK);
    CHECK(r.lower_bound <= want && want <= r.height);
    CHECK_EQ(r.status == PACK_OPTIMAL, r.height == r.lower_bound);
    CHECK_EQ(again.height, r.height);
    CHECK_EQ(again.lower_bound, r.lower_bound);
    CHECK_EQ(again.nodes, r.nodes);
    sandwiched++;
    open += r.status != PACK_OPTIMAL;
    PackResult_free(&r);
    PackResult_free(&again);
  }
  printf("  min height: %d against the brute force (%d above the load), %d in two parts, %d under a node limit "
         "(%d left open)\n", checked, above_load, parts, sandwiched, open);
  CHECK(above_load >= 40);
  CHECK(open > 0);
}

TEST(exact_matches_brute_force) {
  PackBuffer b[7];
  int checked = 0, above_load = 0;
  for (int round = 0; round < 150; round++) {
    int n = 2 + (int)Rand(5);
    RandomInstance(b, n, 8, 5);
    if (round % 4 == 0)
      for (int i = 0; i < n; i++) b[i].align = 1 + Rand(3);
    int64_t want = Brute_minHeight(b, n);
    PackOptions o;
    PackOptions_init(&o);
    PackResult r;
    SpError err;
    CHECK_EQ(Pack_solve(b, n, 0, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_OPTIMAL);
    CHECK_EQ(r.height, want);
    if (r.offsets) CHECK_EQ(Pack_check(b, n, r.offsets, want, &err), SP_OK);
    PackResult_free(&r);
    /* decision at the optimum: found; one below: a proof */
    CHECK_EQ(Pack_solve(b, n, want, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_FOUND);
    if (r.offsets) CHECK_EQ(Pack_check(b, n, r.offsets, want, &err), SP_OK);
    PackResult_free(&r);
    if (want > 1) {
      CHECK_EQ(Pack_solve(b, n, want - 1, &o, &r, &err), SP_OK);
      CHECK_EQ(r.status, PACK_INFEASIBLE);
      CHECK(r.offsets == NULL);
      PackResult_free(&r);
    }
    checked++;
    above_load += want > Pack_maxLoad(b, n);
  }
  CHECK_EQ(checked, 150);
  CHECK(above_load > 5); /* the brute force saw instances where the load bound is not enough */
}

/* ---- the heuristics against their quadratic definitions ------------------- */

/* The orders and choices as the heuristics' papers define them, written the
 * direct way (every buffer against every other): what pack_heuristics.c must
 * reproduce, offset for offset, now that it uses an overlap index. */
static bool Ref_overlap(const PackBuffer *a, const PackBuffer *b) { return a->lower < b->upper && b->lower < a->upper; }

static void Ref_sortDesc(int64_t (*key)[3], int n, int *order) { /* by key0, key1 descending, then index */
  for (int i = 0; i < n; i++) order[i] = i;
  for (int x = 1; x < n; x++)
    for (int y = x; y > 0; y--) {
      int p = order[y - 1], q = order[y];
      bool after = key[p][0] != key[q][0] ? key[p][0] < key[q][0] : key[p][1] != key[q][1] ? key[p][1] < key[q][1] : p > q;
      if (!after) break;
      order[y - 1] = q, order[y] = p;
    }
}

static void Ref_sizeOrder(const PackBuffer *b, int n, int *order) {
  int64_t key[48][3];
  for (int i = 0; i < n; i++) key[i][0] = b[i].size, key[i][1] = b[i].upper - b[i].lower;
  Ref_sortDesc(key, n, order);
}

static void Ref_breadthOrder(const PackBuffer *b, int n, int *order) {
  int64_t tk[48][3];
  int times[48];
  bool seen[48] = {false};
  for (int i = 0; i < n; i++) {
    tk[i][0] = 0, tk[i][1] = -b[i].lower;
    for (int j = 0; j < n; j++)
      if (b[j].lower <= b[i].lower && b[i].lower < b[j].upper) tk[i][0] += b[j].size;
  }
  Ref_sortDesc(tk, n, times);
  int k = 0;
  for (int x = 0; x < n; x++) {
    int64_t t = b[times[x]].lower, lk[48][3];
    int live[48], nl = 0, idx[48];
    for (int j = 0; j < n; j++)
      if (!seen[j] && b[j].lower <= t && t < b[j].upper) idx[nl] = j, lk[nl][0] = b[j].size, lk[nl][1] = b[j].upper - b[j].lower, nl++;
    Ref_sortDesc(lk, nl, live);
    for (int y = 0; y < nl; y++) seen[idx[live[y]]] = true, order[k++] = idx[live[y]];
  }
}

static int64_t Ref_sharedObjects(const PackBuffer *b, int n, const int *order, bool nearest, int64_t *off) {
  int object[48], nobj = 0;
  int64_t osize[48];
  for (int i = 0; i < n; i++) object[i] = -1;
  for (int k = 0; k < n; k++) {
    int i = order[k], fit = -1, grow = -1;
    int64_t fit_key = INT64_MAX;
    for (int o = 0; o < nobj; o++) {
      bool free_ = true;
      int64_t dist = INT64_MAX;
      for (int j = 0; j < n; j++)
        if (object[j] == o) {
          if (Ref_overlap(&b[i], &b[j])) free_ = false;
          int64_t d = b[j].upper <= b[i].lower ? b[i].lower - b[j].upper : b[j].lower - b[i].upper;
          if (d < dist) dist = d;
        }
      if (!free_) continue;
      if (osize[o] >= b[i].size) {
        int64_t key = nearest ? dist : osize[o];
        if (key < fit_key) fit_key = key, fit = o;
      } else if (grow < 0 || osize[o] > osize[grow]) {
        grow = o;
      }
    }
    int o = fit >= 0 ? fit : grow;
    if (o < 0) o = nobj++, osize[o] = 0;
    if (osize[o] < b[i].size) osize[o] = b[i].size;
    object[i] = o;
  }
  int64_t top = 0, base[48];
  for (int o = 0; o < nobj; o++) { /* unaligned instances: objects stacked in order */
    base[o] = top;
    top += osize[o];
  }
  for (int i = 0; i < n; i++) off[i] = base[object[i]];
  return top;
}

static int64_t Ref_offsets(const PackBuffer *b, int n, const int *order, bool best_fit, int64_t *off) {
  bool placed[48] = {false};
  int64_t h = 0;
  for (int k = 0; k < n; k++) {
    int i = order[k];
    int64_t best = -1, best_gap = INT64_MAX, at = 0;
    /* every offset that rests on 0 or on a placed neighbour's top, lowest first */
    for (int c = -1; c < n; c++) {
      if (c >= 0 && !(placed[c] && Ref_overlap(&b[i], &b[c]))) continue;
      int64_t o = c < 0 ? 0 : off[c] + b[c].size, ceil_ = INT64_MAX;
      bool ok = true;
      for (int j = 0; j < n && ok; j++) {
        if (!placed[j] || !Ref_overlap(&b[i], &b[j])) continue;
        if (off[j] < o + b[i].size && o < off[j] + b[j].size) ok = false;
        else if (off[j] >= o + b[i].size && off[j] < ceil_) ceil_ = off[j];
      }
      if (!ok) continue;
      if (ceil_ == INT64_MAX) { /* on top of everything: only when no gap fits */
        if (best < 0 && (at == 0 || o > at)) at = o;
        continue;
      }
      int64_t gap = ceil_ - o;
      if (!best_fit) {
        if (best < 0 || o < best) best = o;
      } else if (gap < best_gap || (gap == best_gap && o < best)) {
        best_gap = gap, best = o;
      }
    }
    if (best < 0) { /* the top of the neighbours */
      at = 0;
      for (int j = 0; j < n; j++)
        if (placed[j] && Ref_overlap(&b[i], &b[j]) && off[j] + b[j].size > at) at = off[j] + b[j].size;
      best = at;
    }
    off[i] = best;
    placed[i] = true;
    if (off[i] + b[i].size > h) h = off[i] + b[i].size;
  }
  return h;
}

TEST(heuristics_match_their_quadratic_definitions) {
  PackBuffer b[48];
  int64_t ref[48];
  int order[48], compared = 0, rounds = Test_underValgrind() ? 40 : 200;
  for (int round = 0; round < rounds; round++) {
    int n = 2 + (int)Rand(40);
    RandomInstance(b, n, 30, 20);
    for (int m = PACK_SO_SIZE; m <= PACK_CONFLICT; m++) {
      int64_t want;
      if (m == PACK_SO_SIZE || m == PACK_SO_IMPROVED) Ref_sizeOrder(b, n, order);
      if (m == PACK_SO_BREADTH || m == PACK_OFFSET_BREADTH) Ref_breadthOrder(b, n, order);
      if (m == PACK_OFFSET_SIZE) Ref_sizeOrder(b, n, order);
      if (m == PACK_CONFLICT) {
        int64_t key[48][3];
        for (int i = 0; i < n; i++) {
          key[i][0] = 0, key[i][1] = b[i].size;
          for (int j = 0; j < n; j++) key[i][0] += j != i && Ref_overlap(&b[i], &b[j]);
        }
        Ref_sortDesc(key, n, order);
      }
      if (m <= PACK_SO_IMPROVED) want = Ref_sharedObjects(b, n, order, m == PACK_SO_IMPROVED, ref);
      else want = Ref_offsets(b, n, order, m != PACK_CONFLICT, ref);
      PackOptions o;
      PackOptions_init(&o);
      o.method = (PackMethod)m;
      PackResult r;
      SpError err;
      CHECK_EQ(Pack_solve(b, n, 0, &o, &r, &err), SP_OK);
      CHECK_EQ(r.height, want);
      if (r.offsets && r.height == want) {
        bool same = true;
        for (int i = 0; i < n; i++) same &= r.offsets[i] == ref[i];
        if (!same) printf("  %s differs from its definition at n=%d (round %d)\n", PackMethod_name((PackMethod)m), n, round);
        CHECK(same);
      }
      PackResult_free(&r);
      compared++;
    }
  }
  CHECK_EQ(compared, rounds * 6);
}

/* The minimalloc-style search (pack_canon.c) on its own, every preorder, at
 * the optimum and one below, against the brute force: found means a packing
 * that checks, exhausted means the brute force finds none either. Instances
 * with slack (random lifetimes), up to 8 buffers, some aligned. */
TEST(canonical_search_matches_brute_force) {
  static const char *const heuristics[] = {"WAT", "TAW", "TWA", "L", "Z"};
  PackBuffer b[8];
  int64_t off[8], boff[16];
  int decided = 0, proofs = 0, rounds = Test_underValgrind() ? 30 : 120;
  for (int round = 0; round < rounds; round++) {
    int n = 3 + (int)Rand(round % 3 == 0 ? 6 : 5); /* 8 buffers: the brute force's limit here */
    RandomInstance(b, n, 10, 6);
    if (round % 5 == 0)
      for (int i = 0; i < n; i++) b[i].align = 1 + Rand(2);
    int64_t want = Brute_minHeight(b, n);
    PackCanon *c = PackCanon_new(b, n, 1000);
    CHECK(c != NULL);
    for (int h = 0; h < 5; h++)
      for (int64_t cap = want - 1; cap <= want; cap++) {
        if (cap <= 0) continue;
        long nodes;
        int r = PackCanon_run(c, cap, heuristics[h], 0, NULL, NULL, off, &nodes);
        bool fits = Brute_fits(b, n, cap, boff, 0);
        CHECK_EQ(r, fits ? PACK_CANON_FOUND : PACK_CANON_INFEASIBLE);
        if (r == PACK_CANON_FOUND) {
          SpError err;
          CHECK_EQ(Pack_check(b, n, off, cap, &err), SP_OK);
        }
        /* a budget of a few nodes stops it or decides it the same way */
        int rb = PackCanon_run(c, cap, heuristics[h], 3, NULL, NULL, off, &nodes);
        CHECK(rb == r || rb == PACK_CANON_BUDGET);
        decided++;
        proofs += r == PACK_CANON_INFEASIBLE;
      }
    PackCanon_free(c);
  }
  CHECK(decided > rounds * 8);
  CHECK(proofs > rounds * 2); /* one below the optimum is a proof each time */
}

/* The same search with some buffers fixed where a packing put them
 * (PackCanon_runFixed, what large-neighbourhood re-packing asks): against a
 * brute force that tries every offset of the free buffers only. Found means a
 * packing that checks and keeps the fixed offsets; exhausted means the brute
 * force finds none either. */
static bool Brute_fitsFixed(const PackBuffer *b, int n, int64_t cap, const int64_t *fix, int64_t *off, int k) {
  if (k == n) return true;
  for (int64_t o = fix[k] >= 0 ? fix[k] : 0; o + b[k].size <= cap; o++) {
    if (b[k].align > 1 && o % b[k].align) continue;
    bool ok = true;
    for (int j = 0; j < k && ok; j++)
      if (b[j].lower < b[k].upper && b[k].lower < b[j].upper && o < off[j] + b[j].size && off[j] < o + b[k].size)
        ok = false;
    if (ok) {
      off[k] = o;
      if (Brute_fitsFixed(b, n, cap, fix, off, k + 1)) return true;
    }
    if (fix[k] >= 0) break;
  }
  return false;
}

TEST(canonical_search_with_fixed_buffers_matches_brute_force) {
  static const char *const heuristics[] = {"WAT", "TAW", "TWA"};
  PackBuffer b[8];
  int64_t off[8], boff[16], fix[8];
  int found = 0, proofs = 0, rounds = Test_underValgrind() ? 30 : 150;
  for (int round = 0; round < rounds; round++) {
    int n = 3 + (int)Rand(6);
    RandomInstance(b, n, 10, 6);
    if (round % 5 == 0)
      for (int i = 0; i < n; i++) b[i].align = 1 + Rand(2);
    int64_t want = Brute_minHeight(b, n), room = want + Rand(3);
    CHECK(Brute_fits(b, n, room, boff, 0)); /* a packing to fix some of */
    for (int i = 0; i < n; i++) fix[i] = Rand(2) ? boff[i] : -1;
    PackCanon *c = PackCanon_new(b, n, 1000);
    CHECK(c != NULL);
    for (int h = 0; h < 3; h++)
      for (int64_t cap = want - 1; cap <= room; cap++) {
        long nodes;
        int r = PackCanon_runFixed(c, cap, fix, heuristics[h], 0, NULL, NULL, off, &nodes);
        bool fits = Brute_fitsFixed(b, n, cap, fix, boff, 0);
        CHECK_EQ(r, fits ? PACK_CANON_FOUND : PACK_CANON_INFEASIBLE);
        if (r == PACK_CANON_FOUND) {
          SpError err;
          CHECK_EQ(Pack_check(b, n, off, cap, &err), SP_OK);
          for (int i = 0; i < n; i++)
            if (fix[i] >= 0) CHECK_EQ(off[i], fix[i]);
          found++;
        }
        proofs += r == PACK_CANON_INFEASIBLE;
      }
    PackCanon_free(c);
  }
  CHECK(found > rounds); /* at room, the packing the fixed ones came from fits */
  CHECK(proofs > rounds);
  printf("  fixed buffers: %d found, %d proven not (brute force)\n", found, proofs);
}

/* Allocator-like instances carry their own packing: the generator's offsets
 * check under the capacity (with the load reaching it at the peaks), and on a
 * small one the exact search finds a packing too. */
TEST(allocator_like_instances_fit_their_capacity) {
  PackBuffer b[300];
  int64_t off[300];
  int full = 0, seeds = Test_underValgrind() ? 3 : 10;
  for (int seed = 0; seed < seeds; seed++) {
    SpError err;
    CHECK(Pack_generateLive((uint64_t)seed, 300, 1 << 20, 30, b, off));
    CHECK_EQ(Pack_check(b, 300, off, 1 << 20, &err), SP_OK);
    full += Pack_maxLoad(b, 300) == 1 << 20;
    CHECK(Pack_generateLive((uint64_t)seed, 12, 1 << 16, 30, b, NULL));
    PackOptions o;
    PackOptions_init(&o);
    PackResult r;
    CHECK_EQ(Pack_solve(b, 12, 1 << 16, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_FOUND);
    if (r.offsets) CHECK_EQ(Pack_check(b, 12, r.offsets, 1 << 16, &err), SP_OK);
    PackResult_free(&r);
  }
  CHECK(full >= seeds - 2); /* the peaks fill the capacity to the last byte */
  CHECK(!Pack_generateLive(1, 10, 10, 30, b, NULL)); /* a capacity too small to cut in quanta */
}

TEST(load_proof_names_a_time_over_capacity) {
  PackBuffer b[40];
  for (int round = 0; round < 30; round++) {
    int n = 5 + (int)Rand(35);
    RandomInstance(b, n, 20, 50);
    int64_t lb = Pack_maxLoad(b, n);
    PackOptions o;
    PackOptions_init(&o);
    PackResult r;
    SpError err;
    CHECK_EQ(Pack_solve(b, n, lb - 1, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_INFEASIBLE);
    CHECK(LoadAt(b, n, r.infeasible_at) > lb - 1); /* independent count at the named time */
    PackResult_free(&r);
  }
}

TEST(tight_instances_are_packed_to_their_rectangle) {
  PackBuffer b[120];
  for (int round = 0; round < 5; round++) {
    int n = 40 + 16 * round;
    CHECK(Pack_generateTight(77 + (uint64_t)round, n, 200, 1000, b));
    CHECK_EQ(Pack_maxLoad(b, n), 1000);
    for (int t = 0; t < 200; t++) CHECK_EQ(LoadAt(b, n, t), 1000); /* full rectangle */
    PackOptions o;
    PackOptions_init(&o);
    o.time_limit = 5;
    PackResult r;
    SpError err;
    CHECK_EQ(Pack_solve(b, n, 1000, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_FOUND);
    if (r.offsets) CHECK_EQ(Pack_check(b, n, r.offsets, 1000, &err), SP_OK);
    PackResult_free(&r);
    CHECK_EQ(Pack_solve(b, n, 0, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_OPTIMAL);
    CHECK_EQ(r.height, 1000);
    PackResult_free(&r);
  }
}

/* Perfect loads (the load equals the capacity at every time: the search
 * branches on who fills each place, Search_perfect): random buffers topped up
 * by one-step fillers to a full rectangle, decided against the brute force;
 * and a hand-made fragmentation case that no placement fits. */
TEST(perfect_loads_match_brute_force) {
  /* a [0,2) 2, b [0,3) 2, c [2,4) 1, d [2,5) 1, e [3,5) 1, filler [3,4) 1,
   * f [4,7) 2, g [5,7) 2: full 4 at every time, and no packing (d and e end
   * up in different halves where f needs one free) */
  PackBuffer frag[] = {{0, 2, 2, 0}, {0, 3, 2, 0}, {2, 4, 1, 0}, {2, 5, 1, 0},
                       {3, 5, 1, 0}, {3, 4, 1, 0}, {4, 7, 2, 0}, {5, 7, 2, 0}};
  int64_t off[32];
  for (int t = 0; t < 7; t++) CHECK_EQ(LoadAt(frag, 8, t), 4);
  CHECK(!Brute_fits(frag, 8, 4, off, 0));
  PackOptions o;
  PackOptions_init(&o);
  o.time_limit = 5;
  PackResult r;
  SpError err;
  CHECK_EQ(Pack_solve(frag, 8, 4, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, PACK_INFEASIBLE);
  PackResult_free(&r);
  int infeasible = 0, feasible = 0;
  for (int round = 0; round < 300; round++) {
    PackBuffer b[32];
    int n = 4 + (int)Rand(4);
    RandomInstance(b, n, 6, 3);
    int64_t cap = Pack_maxLoad(b, n), horizon = 0;
    for (int i = 0; i < n; i++)
      if (b[i].upper > horizon) horizon = b[i].upper;
    int m = n;
    for (int64_t t = 0; t < horizon; t++) {
      int64_t load = LoadAt(b, n, t);
      if (load < cap) b[m++] = (PackBuffer){t, t + 1, cap - load, 0};
    }
    bool fits = Brute_fits(b, m, cap, off, 0);
    CHECK_EQ(Pack_solve(b, m, cap, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, fits ? PACK_FOUND : PACK_INFEASIBLE);
    if (r.offsets) CHECK_EQ(Pack_check(b, m, r.offsets, cap, &err), SP_OK);
    PackResult_free(&r);
    fits ? feasible++ : infeasible++;
  }
  printf("  perfect loads: %d packable, %d not (brute force)\n", feasible, infeasible);
  CHECK(infeasible > 0 && feasible > 0);
}

/* A random perfect instance: random buffers (some aligned to 2 when
 * `aligned`) topped up by one-step fillers to a full rectangle; its count. */
static int PerfectInstance(PackBuffer *b, int n, bool aligned, int64_t *cap) {
  RandomInstance(b, n, 6, 3);
  for (int i = 0; i < n && aligned; i++) b[i].align = Rand(3) == 0 ? 2 : 0;
  *cap = Pack_maxLoad(b, n);
  int64_t horizon = 0;
  for (int i = 0; i < n; i++)
    if (b[i].upper > horizon) horizon = b[i].upper;
  int m = n;
  for (int64_t t = 0; t < horizon; t++) {
    int64_t load = LoadAt(b, n, t);
    if (load < *cap) b[m++] = (PackBuffer){t, t + 1, *cap - load, 0};
  }
  return m;
}

/* The sweep's configurations: everything on, and each pruning off (the
 * failed-state table, the symmetry rules, the look-ahead, the region checks),
 * backwards, and a tiny region budget. */
enum { SWEEP_CONFIGS = 7 };
static void SweepConfig(PackSweepOptions *o, int c) {
  PackSweepOptions_init(o);
  if (c == 1) o->table = false;
  if (c == 2) o->symmetry = false;
  if (c == 3) o->lookahead = false;
  if (c == 4) o->region_nodes = 0;
  if (c == 5) o->reverse = true;
  if (c == 6) o->table = o->symmetry = o->lookahead = false, o->region_nodes = 3;
}

/* The time sweep for perfect parts (pack_sweep.c) against the brute force:
 * every configuration gives the brute force's verdict, every packing passes
 * Pack_check, so neither the failed-state table nor the symmetry rules nor
 * the look-ahead lose a packing. */
TEST(sweep_matches_brute_force_on_perfect_loads) {
  rng_state = 2026;
  int feasible = 0, infeasible = 0;
  for (int round = 0; round < 400; round++) {
    PackBuffer b[32];
    int64_t cap, off[32], bo[32];
    int m = PerfectInstance(b, 4 + (int)Rand(4), round % 2 == 1, &cap);
    bool fits = Brute_fits(b, m, cap, bo, 0);
    fits ? feasible++ : infeasible++;
    for (int c = 0; c < SWEEP_CONFIGS; c++) {
      PackSweepOptions o;
      SweepConfig(&o, c);
      long nodes;
      int r = PackSweep_decide(b, m, cap, &o, off, &nodes);
      CHECK_EQ(r, fits ? PACK_SWEEP_FOUND : PACK_SWEEP_INFEASIBLE);
      SpError err;
      if (r == PACK_SWEEP_FOUND) CHECK_EQ(Pack_check(b, m, off, cap, &err), SP_OK);
    }
    /* runs cut short by their budget leave nothing behind: the next run, in
     * another order and with the table they filled, gives the same verdict */
    int status;
    PackSweep *w = PackSweep_new(b, m, cap, NULL, &status);
    CHECK(w != NULL);
    if (!w) continue;
    long nodes;
    for (long budget = 1; budget < 64; budget *= 3) {
      int r = PackSweep_run(w, (uint64_t)budget, budget, off, &nodes);
      CHECK(r == PACK_SWEEP_BUDGET || r == (fits ? PACK_SWEEP_FOUND : PACK_SWEEP_INFEASIBLE));
    }
    CHECK_EQ(PackSweep_run(w, 99, 0, off, &nodes), fits ? PACK_SWEEP_FOUND : PACK_SWEEP_INFEASIBLE);
    PackSweep_free(w);
  }
  printf("  sweep: %d packable, %d not (brute force)\n", feasible, infeasible);
  CHECK(feasible > 50 && infeasible > 5);
  /* the hand-made fragmentation case of perfect_loads_match_brute_force */
  PackBuffer frag[] = {{0, 2, 2, 0}, {0, 3, 2, 0}, {2, 4, 1, 0}, {2, 5, 1, 0},
                       {3, 5, 1, 0}, {3, 4, 1, 0}, {4, 7, 2, 0}, {5, 7, 2, 0}};
  int64_t off[8];
  long nodes;
  for (int c = 0; c < SWEEP_CONFIGS; c++) {
    PackSweepOptions o;
    SweepConfig(&o, c);
    CHECK_EQ(PackSweep_decide(frag, 8, 4, &o, off, &nodes), PACK_SWEEP_INFEASIBLE);
  }
  /* not perfect: the load is below the capacity somewhere */
  CHECK_EQ(PackSweep_decide(frag, 8, 5, NULL, off, &nodes), PACK_SWEEP_NOT_PERFECT);
}

/* Tight generated instances (feasible by construction) in every
 * configuration, and the table's and the rules' effect on the node count. */
TEST(sweep_packs_tight_instances) {
  PackBuffer b[60];
  int64_t off[60];
  long with_all = 0, without = 0;
  for (int round = 0; round < 6; round++) {
    int n = 20 + 8 * round;
    CHECK(Pack_generateTight(500 + (uint64_t)round, n, 2 * n, 1000, b));
    for (int c = 0; c < SWEEP_CONFIGS; c++) {
      PackSweepOptions o;
      SweepConfig(&o, c);
      long nodes;
      SpError err;
      CHECK_EQ(PackSweep_decide(b, n, 1000, &o, off, &nodes), PACK_SWEEP_FOUND);
      CHECK_EQ(Pack_check(b, n, off, 1000, &err), SP_OK);
      if (c == 0) with_all += nodes;
      if (c == 6) without += nodes;
    }
    /* one unit less: proven at once (the load is over the capacity) */
    long nodes;
    CHECK_EQ(PackSweep_decide(b, n, 999, NULL, off, &nodes), PACK_SWEEP_NOT_PERFECT);
  }
  printf("  sweep on tight instances: %ld nodes, %ld with no table, rules or look-ahead\n", with_all, without);
  /* budgets and restarts: a run out of budget says so; the table is kept,
   * so a later run still finds a packing */
  CHECK(Pack_generateTight(42, 60, 120, 1000, b));
  int status;
  PackSweep *w = PackSweep_new(b, 60, 1000, NULL, &status);
  CHECK(w != NULL);
  if (w) {
    long nodes;
    CHECK_EQ(PackSweep_run(w, 0, 1, off, &nodes), PACK_SWEEP_BUDGET);
    int r = PackSweep_run(w, 7, 0, off, &nodes);
    CHECK_EQ(r, PACK_SWEEP_FOUND);
    SpError err;
    if (r == PACK_SWEEP_FOUND) CHECK_EQ(Pack_check(b, 60, off, 1000, &err), SP_OK);
    PackSweep_free(w);
  }
}

/* The load of b at every time of [0, duration): the whole height everywhere. */
static bool LoadIsFlat(const PackBuffer *b, int n, int64_t duration, int64_t height) {
  for (int64_t t = 0; t < duration; t++) {
    int64_t load = 0;
    for (int i = 0; i < n; i++) load += b[i].lower <= t && t < b[i].upper ? b[i].size : 0;
    if (load != height) return false;
  }
  return true;
}

/* The guillotine search packs every guillotine instance to its rectangle; a
 * pinwheel (no straight cut) is "none" without the sweep, which is no proof:
 * the complete search packs it, and so does the guillotine search once its
 * sweep may take the part no cut splits. */
TEST(guillotine_packs_cut_instances) {
  enum { N = 300 };
  PackBuffer *b = malloc(sizeof *b * N);
  int64_t *off = malloc(sizeof *off * N);
  CHECK(b && off);
  if (!b || !off) {
    free(b);
    free(off);
    return;
  }
  for (int round = 0; round < 8; round++) {
    int n = 40 + 37 * round;
    CHECK(Pack_generateTight(900 + (uint64_t)round, n, 2 * n, 1000000, b));
    CHECK(LoadIsFlat(b, n, 2 * n, 1000000));
    long nodes;
    SpError err;
    CHECK_EQ(PackGuillotine_find(b, n, 1000000, NULL, off, &nodes), PACK_GUIL_FOUND);
    CHECK_EQ(Pack_check(b, n, off, 1000000, &err), SP_OK);
    CHECK_EQ(PackGuillotine_find(b, n, 999999, NULL, off, &nodes), PACK_GUIL_NONE); /* no constant load */
  }
  /* the pinwheel: centre [1, 2) x [1, 2) (time x address), arms turning round it */
  PackBuffer pin[5] = {{1, 2, 1, 0}, {0, 2, 1, 0}, {2, 3, 2, 0}, {1, 3, 1, 0}, {0, 1, 2, 0}};
  CHECK(LoadIsFlat(pin, 5, 3, 3));
  long nodes;
  SpError err;
  CHECK_EQ(PackGuillotine_find(pin, 5, 3, NULL, off, &nodes), PACK_GUIL_NONE);
  PackGuillotineOptions go = {NULL, NULL, 0, 1000};
  CHECK_EQ(PackGuillotine_find(pin, 5, 3, &go, off, &nodes), PACK_GUIL_FOUND);
  CHECK_EQ(Pack_check(pin, 5, off, 3, &err), SP_OK);
  int64_t bf[5];
  CHECK(Brute_fits(pin, 5, 3, bf, 0)); /* the brute force agrees it fits */
  PackOptions o;
  PackOptions_init(&o);
  PackResult r;
  CHECK_EQ(Pack_solve(pin, 5, 3, &o, &r, &err), SP_OK);
  CHECK_EQ(r.status, PACK_FOUND);
  PackResult_free(&r);
  /* pinwheel-cut instances: flat load, packed to the rectangle by Pack_solve */
  for (int round = 0; round < 4; round++) {
    int n = 30 + 10 * round;
    CHECK(Pack_generateTightPinwheel(700 + (uint64_t)round, n, 2 * n, 100000, 30, b));
    CHECK(LoadIsFlat(b, n, 2 * n, 100000));
    CHECK_EQ(Pack_solve(b, n, 0, &o, &r, &err), SP_OK);
    CHECK_EQ(r.status, PACK_OPTIMAL);
    CHECK_EQ(r.height, 100000);
    if (r.offsets) CHECK_EQ(Pack_check(b, n, r.offsets, 100000, &err), SP_OK);
    PackResult_free(&r);
  }
  /* 0 % pinwheels: the same instances as Pack_generateTight */
  PackBuffer *c = malloc(sizeof *c * N);
  CHECK(c != NULL);
  if (c) {
    CHECK(Pack_generateTight(5, 100, 200, 1000, b));
    CHECK(Pack_generateTightPinwheel(5, 100, 200, 1000, 0, c));
    CHECK(memcmp(b, c, sizeof *b * 100) == 0);
    free(c);
  }
  free(b);
  free(off);
}

/* The core is a subset, proven infeasible by the brute force, and minimal in the
 * sense that the deletion filter left nothing the proof does not need. */
TEST(infeasible_core_is_a_proven_subset) {
  PackBuffer b[7], sub[7];
  int cores = 0;
  rng_state = 4242;
  for (int round = 0; round < 200; round++) {
    int n = 3 + (int)Rand(4);
    RandomInstance(b, n, 8, 5);
    int64_t want = Brute_minHeight(b, n);
    bool core[7], found;
    SpError err;
    CHECK_EQ(Pack_infeasibleCore(b, n, want, NULL, NULL, core, &found, &err), SP_OK);
    CHECK(!found); /* it fits at the optimum */
    CHECK_EQ(Pack_infeasibleCore(b, n, want - 1, NULL, NULL, core, &found, &err), SP_OK);
    if (want <= 1) continue;
    CHECK(found);
    int m = 0;
    for (int i = 0; i < n; i++)
      if (core[i]) sub[m++] = b[i];
    int64_t off[7];
    CHECK(m > 0 && !Brute_fits(sub, m, want - 1, off, 0));
    /* each member is needed: without it the rest fits */
    for (int drop = 0; drop < m; drop++) {
      PackBuffer rest[7];
      int r = 0;
      for (int i = 0; i < m; i++)
        if (i != drop) rest[r++] = sub[i];
      CHECK(Brute_fits(rest, r, want - 1, off, 0));
    }
    cores++;
  }
  CHECK(cores > 50);
}

static void CountProgress(const PackProgress *p, void *user) {
  (*(int *)user)++;
  (void)p;
}

TEST(limits_and_cancel_stop_the_search) {
  /* many equal-ish random buffers: a hard decision at the load bound */
  PackBuffer b[200];
  rng_state = 99;
  RandomInstance(b, 200, 100, 1000);
  int64_t lb = Pack_maxLoad(b, 200);
  PackOptions o;
  PackOptions_init(&o);
  o.node_limit = 300;
  PackResult r;
  SpError err;
  CHECK_EQ(Pack_solve(b, 200, lb, &o, &r, &err), SP_OK);
  CHECK(r.status == PACK_UNKNOWN || r.status == PACK_FOUND || r.status == PACK_INFEASIBLE);
  CHECK(r.nodes <= 300 + 256);
  if (r.offsets) CHECK_EQ(Pack_check(b, 200, r.offsets, lb, &err), SP_OK);
  PackResult_free(&r);
  atomic_int cancel = 1;
  int calls = 0;
  PackOptions_init(&o);
  o.cancel = &cancel;
  o.progress = CountProgress;
  o.user = &calls;
  CHECK_EQ(Pack_solve(b, 200, lb, &o, &r, &err), SP_OK);
  CHECK(r.status == PACK_CANCELLED || r.status == PACK_FOUND); /* the heuristic may already fit */
  CHECK(calls >= 1);
  PackResult_free(&r);
  /* minimising under a cancel still returns valid offsets */
  CHECK_EQ(Pack_solve(b, 200, 0, &o, &r, &err), SP_OK);
  CHECK(r.status == PACK_FOUND || r.status == PACK_OPTIMAL);
  if (r.offsets) CHECK_EQ(Pack_check(b, 200, r.offsets, 0, &err), SP_OK);
  CHECK(r.lower_bound >= lb && r.lower_bound <= r.height);
  PackResult_free(&r);
}

TEST(bad_buffers_are_rejected) {
  PackBuffer b[] = {{0, 2, 4, 0}, {3, 3, 1, 0}};
  PackResult r;
  SpError err;
  CHECK_EQ(Pack_solve(b, 2, 0, NULL, &r, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "buffer 1");
  PackBuffer neg[] = {{0, 2, -4, 0}};
  CHECK_EQ(Pack_solve(neg, 1, 0, NULL, &r, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "size");
  CHECK_EQ(Pack_solve(b, 0, 0, NULL, &r, &err), SP_OK); /* nothing to pack */
  CHECK_EQ(r.height, 0);
  PackResult_free(&r);
}

static Plan *SolveWith(const Net *net, const char *allocator, int64_t budget, bool params) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.allocator = allocator;
  s.budget = budget;
  s.params = params;
  Plan *plan = NULL;
  SpError err;
  if (Solve_run(net, &s, &plan, &err)) printf("  %s: %s\n", allocator, err.text);
  return plan;
}

/* The pack allocator: valid plans; zero traffic wherever the schedule's peak fits
 * and the packer finds the offsets (densenet121 at its default peak, where linear
 * spills); never worse than linear (its fallback). */
TEST(pack_allocator_against_linear_on_bundled_networks) {
  static const char *const nets[] = {"densenet121", "resnet50", "mobilenet_v2", "squeezenet1_1", "inception_v3",
                                     "diamond", "fig1", "transformer"};
  int zero_where_linear_spills = 0;
  for (int i = 0; i < (int)(sizeof nets / sizeof nets[0]); i++) {
    Net *net = Bundled_load(nets[i]);
    if (!net) continue;
    for (int params = 0; params < 2; params++) {
      int *order = malloc(sizeof(int) * (size_t)net->nops);
      for (int k = 0; k < net->nops; k++) order[k] = k;
      int64_t peak = Figures_peak(net, params, order, NULL), m_r = Figures_minRequired(net, params);
      free(order);
      int64_t budgets[3] = {m_r, (m_r + peak) / 2, peak};
      for (int k = 0; k < 3; k++) {
        Plan *pack = SolveWith(net, "pack", budgets[k], params), *lin = SolveWith(net, "linear", budgets[k], params);
        CHECK(pack != NULL && lin != NULL);
        if (pack && lin) {
          ValidateReport rep;
          CHECK_EQ(Validate_plan(net, pack, &rep), SP_OK);
          if (rep.nlines) printf("  %s: %s\n", nets[i], rep.lines[0]);
          ValidateReport_free(&rep);
          CHECK(pack->metrics.noncompulsory_bytes <= lin->metrics.noncompulsory_bytes);
          if (k == 2) CHECK_EQ(pack->metrics.noncompulsory_bytes, 0);
          if (k == 2 && lin->metrics.noncompulsory_bytes > 0) zero_where_linear_spills++;
        }
        Plan_free(pack);
        Plan_free(lin);
      }
    }
    Net_free(net);
  }
  CHECK(zero_where_linear_spills >= 1); /* densenet121 at least */
}

static Status Parse(const char *text, PackInstance *inst, SpError *err) {
  return PackInstance_parseCsv("t.csv", text, inst, err);
}

TEST(csv_reads_minimalloc_files) {
  PackInstance in;
  SpError err;
  CHECK_EQ(Parse("id,lower,upper,size\nb0,0,3,4\n b1 ,2,5,8\r\n\n", &in, &err), SP_OK);
  CHECK_EQ(in.n, 2);
  if (in.n == 2) {
    CHECK(strcmp(in.ids[1], "b1") == 0);
    CHECK_EQ(in.buffers[1].size, 8);
    CHECK(in.offsets == NULL);
  }
  PackInstance_free(&in);
  CHECK_EQ(Parse("size,upper,lower,id,offset\n4,3,0,x,16\n", &in, &err), SP_OK);
  CHECK_EQ(in.n, 1);
  if (in.n == 1) {
    CHECK_EQ(in.buffers[0].upper, 3);
    CHECK_EQ(in.offsets[0], 16);
  }
  PackInstance_free(&in);
  /* a spreadsheet's UTF-8 byte order mark before the header (it was "no 'id' column") */
  CHECK_EQ(Parse("\xEF\xBB\xBFid,lower,upper,size\nb0,0,3,4\n", &in, &err), SP_OK);
  CHECK_EQ(in.n, 1);
  PackInstance_free(&in);
  /* a BOM anywhere else is no header */
  CHECK_EQ(Parse("id,\xEF\xBB\xBFlower,upper,size\nb0,0,3,4\n", &in, &err), SP_ERR_FORMAT);
}

TEST(csv_errors_name_line_column_and_expectation) {
  PackInstance in;
  SpError err;
  CHECK_EQ(Parse("id,lower,size\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "t.csv:1:1");
  CHECK_HAS(err.text, "no 'upper' column");
  CHECK_EQ(Parse("id,lower,upper,size\nb0,0,3,-4\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "t.csv:2:8");
  CHECK_HAS(err.text, "positive size");
  CHECK_EQ(Parse("id,lower,upper,size\nb0,3,3,4\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "t.csv:2:6");
  CHECK_HAS(err.text, "upper > lower");
  CHECK_EQ(Parse("id,lower,upper,size\nb0,0,3,4\nb1,0,x7,4\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "t.csv:3:6");
  CHECK_HAS(err.text, "integer for 'upper'");
  CHECK_HAS(err.text, "x7");
  CHECK_EQ(Parse("id,lower,upper,size\nb0,0,3\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "t.csv:2:1");
  CHECK_HAS(err.text, "expected 4 fields");
  CHECK_EQ(Parse("id,lower,upper,size\nb0,0,3,4,9\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "more fields");
  CHECK_EQ(Parse("id,lower,upper,size\nb0,0,3,99999999999999999999\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "out of range");
  CHECK_EQ(Parse("id,lower,upper,size,size\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "twice");
  CHECK_EQ(Parse("id,lower,upper,size\n,0,3,4\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "buffer id");
  CHECK_EQ(PackInstance_readCsv("/nonexistent/x.csv", &in, &err), SP_ERR_IO);
  /* a field's text is quoted, never read as a format (%s here crashed the reader) */
  CHECK_EQ(Parse("id,lower,upper,size\nb0,0,2,%s%s%s%s%n%n\n", &in, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "t.csv:2:8: expected an integer for 'size', found \"%s%s%s%s%n%n\"");
}

TEST_MAIN("pack", T(names_round_trip), T(min_height_matches_brute_force), T(canonical_search_matches_brute_force), T(canonical_search_with_fixed_buffers_matches_brute_force), T(heuristics_match_their_quadratic_definitions), T(allocator_like_instances_fit_their_capacity), T(perfect_loads_match_brute_force), T(sweep_matches_brute_force_on_perfect_loads), T(guillotine_packs_cut_instances),
          T(sweep_packs_tight_instances), T(max_load_counts_half_open_lifetimes),
          T(check_finds_collisions_alignment_and_capacity), T(every_heuristic_is_valid_on_random_instances),
          T(exact_matches_brute_force), T(load_proof_names_a_time_over_capacity),
          T(tight_instances_are_packed_to_their_rectangle), T(infeasible_core_is_a_proven_subset), T(limits_and_cancel_stop_the_search), T(bad_buffers_are_rejected), T(pack_allocator_against_linear_on_bundled_networks), T(csv_reads_minimalloc_files),
          T(csv_errors_name_line_column_and_expectation))

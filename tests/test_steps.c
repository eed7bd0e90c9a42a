/* The offloading steps: the paper's Example 2 step by step, the functional check
 * of every strategy on random layers, the ILP against the heuristics and against
 * brute force over all groupings of tiny layers. */
#include "layer/steps.h"
#include "layer/steps_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "testhook.h"
#include "test.h"

static Layer Ts_layer(int cin, int cout, int k, int hout, int wout, int stride) {
  Layer l = {0};
  snprintf(l.name, sizeof l.name, "steps-test");
  l.C = cin; l.K = cout; l.R = l.S = k; l.P = hout; l.Q = wout; l.N = 1;
  l.stride_h = l.stride_w = stride;
  l.groups = 1;
  l.op = -1;
  return l;
}

static bool Ts_has(const int *v, int n, int x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* Example 2: input 2x5x5, two 2x3x3 kernels, stride 1, two patches per step,
 * outputs written back one step later. Step 2 of Row-by-Row computes P02, P10;
 * of ZigZag P02, P12. The paper lists F_inp, I_slice, W for step 2 element by
 * element (I_{c,h,w}); we compare pixel by pixel (both channels move together). */
TEST(example2_row_vs_zigzag) {
  Layer l = Ts_layer(2, 2, 3, 3, 3, 1);
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 2; /* the paper's nb_patches_max_S1 (see below for nbopPE = 120) */
  StepsPlan row, zig;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &row, &err), SP_OK);
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ZIGZAG, &zig, &err), SP_OK);
  const Step *r2 = &row.steps[1], *z2 = &zig.steps[1];
  /* groups */
  CHECK(r2->npatches == 2 && Ts_has(r2->patches, 2, 2) && Ts_has(r2->patches, 2, 3));
  CHECK(z2->npatches == 2 && Ts_has(z2->patches, 2, 2) && Ts_has(z2->patches, 2, 5));
  CHECK(Ts_has(zig.steps[2].patches, 2, 4) && Ts_has(zig.steps[2].patches, 2, 3));
  /* F_inp: Row frees (0,0),(0,1); ZigZag frees (0..2, 0..1) */
  CHECK_EQ(r2->nfreed, 2);
  CHECK(Ts_has(r2->freed, r2->nfreed, 0) && Ts_has(r2->freed, r2->nfreed, 1));
  CHECK_EQ(z2->nfreed, 6);
  for (int h = 0; h < 3; h++)
    for (int w = 0; w < 2; w++) CHECK(Ts_has(z2->freed, z2->nfreed, h * 5 + w));
  CHECK_EQ(r2->free_in, 4);
  CHECK_EQ(z2->free_in, 12);
  /* I_slice: Row loads (0..2, 4) and (3, 0..2); ZigZag (0..2, 4) and (3, 2..4) */
  CHECK_EQ(r2->nloaded, 6);
  CHECK_EQ(z2->nloaded, 6);
  for (int h = 0; h < 3; h++) {
    CHECK(Ts_has(r2->loaded, 6, h * 5 + 4));
    CHECK(Ts_has(z2->loaded, 6, h * 5 + 4));
  }
  for (int w = 0; w < 3; w++) {
    CHECK(Ts_has(r2->loaded, 6, 15 + w));
    CHECK(Ts_has(z2->loaded, 6, 15 + 2 + w));
  }
  CHECK_EQ(r2->load_in, 12); /* 12 elements, as listed */
  CHECK_EQ(r2->load_ker, 0);
  /* W_2: O_{0..1} of P00 and P01: 4 elements = 2 positions */
  CHECK_EQ(r2->write_out, 4);
  CHECK_EQ(z2->write_out, 4);
  /* M_inp_2: Row 32, ZigZag 24 (elements) */
  CHECK_EQ(r2->foot_in, 32);
  CHECK_EQ(z2->foot_in, 24);
  /* delta(s2) = 6 tl + 2 tw + tacc in the paper's pixel count: 6 loaded positions,
   * 2 written positions; in elements 12 tl + 4 tw + tacc */
  CHECK_EQ(r2->nloaded, 6);
  CHECK_EQ(r2->write_out / 2, 2);
  o.tl = 100, o.tw = 10, o.tacc = 1;
  StepsPlan row2;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &row2, &err), SP_OK);
  CHECK_EQ(row2.steps[1].duration, 12 * 100 + 4 * 10 + 1);
  StepsPlan_free(&row2);
  /* both compute the right convolution */
  CHECK_EQ(Steps_execute(&l, &o, &row, 1, &err), SP_OK);
  CHECK_EQ(Steps_execute(&l, &o, &zig, 2, &err), SP_OK);
  StepsPlan_free(&row);
  StepsPlan_free(&zig);
  /* nbopPE = 120 gives floor(120 / (2*3*3*2)) = 3 patches per step, not the
   * paper's 2: the example's figure is kept through group_size */
  o.group_size = 0;
  o.nbop_pe = 120;
  int g = 0;
  CHECK_EQ(Steps_groupSize(&l, &o, &g, &err), SP_OK);
  CHECK_EQ(g, 3);
}

/* Every strategy passes the functional check on random layers (strides, kernel
 * sizes, channels), and the executor catches a broken plan. */
TEST(functional_check_every_strategy) {
  unsigned seed = 7;
  for (int trial = 0; trial < 12; trial++) {
    seed = seed * 1103515245u + 12345u;
    int k = 1 + (int)((seed >> 8) % 3), stride = 1 + (int)((seed >> 11) % 2);
    int hout = 2 + (int)((seed >> 13) % 3), wout = 2 + (int)((seed >> 16) % 3);
    Layer l = Ts_layer(1 + (int)((seed >> 19) % 3), 1 + (int)((seed >> 21) % 3), k, hout, wout, stride);
    StepsOptions o;
    StepsOptions_init(&o);
    o.group_size = 1 + (int)((seed >> 24) % 4);
    o.max_loads = 0;
    o.time_limit = 1; /* a timeout still yields a plan (the MIP start) to check */
    for (int s = 0; s < STEPS_STRATEGIES; s++) {
      StepsPlan p;
      SpError err;
      Status st = Steps_plan(&l, &o, (StepsStrategy)s, &p, &err);
      CHECK_EQ(st, SP_OK);
      if (st != SP_OK) {
        printf("  %s: %s\n", Steps_strategyName(s), err.text);
        continue;
      }
      st = Steps_execute(&l, &o, &p, (uint64_t)trial * 31 + (uint64_t)s, &err);
      if (st != SP_OK) printf("  trial %d %s: %s\n", trial, Steps_strategyName(s), err.text);
      CHECK_EQ(st, SP_OK);
      StepsPlan_free(&p);
    }
  }
}

TEST(executor_catches_a_bad_plan) {
  Layer l = Ts_layer(2, 2, 3, 3, 3, 1);
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 2;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &p, &err), SP_OK);
  /* forget to load one pixel of step 2 */
  p.steps[1].nloaded--;
  CHECK_EQ(Steps_execute(&l, &o, &p, 3, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "not on chip");
  p.steps[1].nloaded++;
  /* a memory too small */
  o.size_mem = p.peak - 1;
  CHECK_EQ(Steps_execute(&l, &o, &p, 3, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "sizeMEM");
  /* a cancel stops the check */
  o.size_mem = 0;
  atomic_int stop = 1;
  o.cancel = &stop;
  CHECK_EQ(Steps_execute(&l, &o, &p, 3, &err), SP_ERR_CANCELLED);
  StepsPlan_free(&p);
}

/* Brute force over every assignment of the patches of a tiny layer (3x3 kernel,
 * stride 1, one channel, hout x wout patches) to n ordered groups of 1..g patches:
 * the least Eq. 15 objective sum |U_k - U_k-1| + n with at most max_loads loads per
 * pixel (0: none). */
static int Ts_bruteForce(int hout, int wout, int g, int n, int max_loads) {
  int np = hout * wout, win = wout + 2, best = 1 << 30;
  long total = 1;
  for (int i = 0; i < np; i++) total *= n;
  for (long code = 0; code < total; code++) {
    uint64_t u[16] = {0};
    int size[16] = {0};
    long c = code;
    for (int i = 0; i < np; i++, c /= n) {
      int k = (int)(c % n), pi = i / wout, pj = i % wout;
      size[k]++;
      for (int h = pi; h < pi + 3; h++)
        for (int w = pj; w < pj + 3; w++) u[k] |= 1ull << (h * win + w);
    }
    bool ok = true;
    for (int k = 0; k < n; k++)
      if (size[k] < 1 || size[k] > g) ok = false;
    if (!ok) continue;
    int cost = n, loads[64] = {0};
    for (int k = 0; k < n && ok; k++) {
      uint64_t fresh = u[k] & ~(k ? u[k - 1] : 0);
      cost += __builtin_popcountll(fresh);
      for (int x = 0; x < 64; x++)
        if (fresh >> x & 1 && ++loads[x] > max_loads && max_loads) ok = false;
    }
    if (ok && cost < best) best = cost;
  }
  return best;
}

/* The ILP's options for the brute-force comparisons: G, Eq. 9's bound, a minute. */
static StepsOptions Ts_ilpOptions(int g, int max_loads) {
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = g;
  o.max_loads = max_loads;
  o.time_limit = 60;
  return o;
}

/* Both ways of proving (the exact search behind the trivial bound, and the paper's
 * MIP alone) reach the optimum that brute force finds, on tiny layers (square and
 * not: the search uses the square's symmetries only on squares), with and without
 * Eq. 9; the plan costs what the solver says, its bound is the optimum and below
 * every heuristic that keeps the same constraints, and it computes the convolution. */
TEST(ilp_matches_brute_force) {
  /* patch rows, columns, G, Eq. 9 bound, run the MIP too (5x5 G = 2 takes GLPK
   * seconds natively, minutes under valgrind: the search alone there) */
  static const int cases[][5] = {{2, 2, 2, 2, 1}, {2, 2, 3, 2, 1}, {3, 3, 3, 2, 1}, {3, 3, 5, 2, 1},
                                 {3, 3, 3, 0, 1}, {3, 3, 2, 2, 0}, {2, 4, 3, 2, 1}, {2, 4, 2, 0, 1},
                                 {3, 3, 2, 0, 0}, {3, 3, 4, 1, 0}, {2, 5, 2, 2, 0}, {2, 5, 3, 0, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int model = STEPS_MODEL_EXACT; model <= (cases[c][4] ? STEPS_MODEL_PAPER : STEPS_MODEL_EXACT); model++) {
      int hout = cases[c][0], wout = cases[c][1], g = cases[c][2], max_loads = cases[c][3];
      int np = hout * wout, n = (np + g - 1) / g;
      int best = Ts_bruteForce(hout, wout, g, n, max_loads);
      Layer l = Ts_layer(1, 1, 3, hout, wout, 1);
      StepsOptions o = Ts_ilpOptions(g, max_loads);
      o.model = (StepsModel)model;
      StepsPlan p;
      SpError err;
      CHECK_EQ(Steps_plan(&l, &o, STEPS_ILP, &p, &err), SP_OK);
      CHECK_EQ(p.ilp_status, ILP_OPTIMAL);
      CHECK(p.proven_by != NULL);
      if (model == STEPS_MODEL_PAPER) CHECK_HAS(p.proven_by, "mip");
      CHECK_EQ(p.objective, best);
      CHECK_EQ((int64_t)(p.ilp_bound + 0.5), best);
      CHECK_EQ(p.nsteps, n);
      if (max_loads) CHECK(p.max_loads <= max_loads);
      CHECK_EQ(Steps_execute(&l, &o, &p, 99, &err), SP_OK);
      /* never worse than a heuristic that satisfies the same constraints */
      for (int s = STEPS_ROW; s <= STEPS_ZIGZAG; s++) {
        StepsPlan h;
        CHECK_EQ(Steps_plan(&l, &o, (StepsStrategy)s, &h, &err), SP_OK);
        if (!max_loads || h.max_loads <= max_loads) {
          CHECK(p.objective <= h.objective);
          CHECK(p.ilp_bound <= (double)h.objective);
        }
        StepsPlan_free(&h);
      }
      StepsPlan_free(&p);
    }
}

/* The exact search itself (its bounds: loads + fresh pixels + stranded ones, the
 * packing and cover bounds, the drops forced by the next groups' room, states
 * seen, the first group canonical, plans taken up to reversal), with no start to
 * prove and no floor to stop at: it finds the brute-force optimum, proves it, and
 * with the optimum + 1 as the start it finds the optimum again. Where no grouping
 * keeps Eq. 9 it proves there is none. */
TEST(exact_search_matches_brute_force) {
  static const int cases[][4] = {{3, 3, 2, 2}, {3, 3, 2, 0}, {3, 3, 2, 1}, {3, 3, 3, 1}, {3, 4, 4, 2},
                                 {3, 4, 4, 1}, {2, 6, 4, 2}, {2, 4, 2, 2}, {2, 4, 2, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int hout = cases[c][0], wout = cases[c][1], g = cases[c][2], np = hout * wout, n = (np + g - 1) / g;
    int best = Ts_bruteForce(hout, wout, g, n, cases[c][3]);
    Layer l = Ts_layer(1, 1, 3, hout, wout, 1);
    StepsOptions o;
    StepsOptions_init(&o);
    o.group_size = g;
    o.max_loads = cases[c][3];
    o.time_limit = 60;
    StepsPlan geo;
    SpError err;
    CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &geo, &err), SP_OK);
    /* one thread, and two (the lanes: at most two threads, whatever is asked), then
     * the same groups on one thread as on two: the lanes' split does not depend on
     * the threads or their timing */
    uint64_t first[2][64][2];
    for (int run = 0; run < 4; run++) {
      int start = run & 1;
      o.threads = run < 2 ? 1 : 3;
      StepsExact x;
      int from = start && best < 1 << 30 ? best - n + 1 : 1 << 30;
      CHECK_EQ(Steps_exact(&geo, &o, g, n, from, 0, &x, &err), SP_OK);
      CHECK(x.proven && !x.skipped);
      CHECK_EQ(x.threads, run < 2 ? 1 : 2);
      if (run < 2) memcpy(first[start], x.groups, sizeof first[start]);
      else CHECK(memcmp(first[start], x.groups, sizeof first[start]) == 0);
      if (best == 1 << 30) {
        CHECK(!x.improved);
        continue;
      }
      CHECK(x.improved);
      CHECK_EQ(x.best_loaded + n, best);
      CHECK_EQ(x.bound_loaded, x.best_loaded);
      /* the groups found are a plan of that cost that keeps Eq. 9 and computes the convolution */
      int order[64], sizes[64], at = 0;
      for (int k = 0; k < n; k++) {
        sizes[k] = 0;
        for (int h = 0; h < 2; h++)
          for (uint64_t b = x.groups[k][h]; b; b &= b - 1) order[at++] = 64 * h + __builtin_ctzll(b), sizes[k]++;
      }
      CHECK_EQ(at, np);
      StepsPlan p;
      CHECK_EQ(Steps_fromGroups(&l, &o, order, sizes, n, &p, &err), SP_OK);
      CHECK_EQ(p.objective, best);
      if (o.max_loads) CHECK(p.max_loads <= o.max_loads);
      CHECK_EQ(Steps_execute(&l, &o, &p, 5, &err), SP_OK);
      StepsPlan_free(&p);
    }
    StepsPlan_free(&geo);
  }
}

/* In the paper's range, where the MIP alone cannot prove anything within 10 s
 * (README: bench steps), the exact search proves a plan that is never worse than
 * the MIP start nor below the trivial bound (every pixel loaded once + n); the plan
 * keeps Eq. 9 and computes the convolution (inputs 6x6, 7x7, 8x8). */
TEST(exact_search_in_the_papers_range) {
  static const int cases[][2] = {{4, 2}, {4, 4}, {5, 3}, {6, 5}}; /* patches per side, G */
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int hout = cases[c][0], g = cases[c][1];
    Layer l = Ts_layer(1, 1, 3, hout, hout, 1);
    StepsOptions o;
    StepsOptions_init(&o);
    o.group_size = g;
    o.time_limit = 60;
    StepsPlan p;
    SpError err;
    CHECK_EQ(Steps_plan(&l, &o, STEPS_ILP, &p, &err), SP_OK);
    CHECK_EQ(p.ilp_status, ILP_OPTIMAL);
    int64_t trivial = (int64_t)(hout + 2) * (hout + 2) + p.nsteps;
    CHECK(p.objective >= trivial);
    CHECK(p.ilp_bound >= (double)trivial && p.ilp_bound <= (double)p.objective);
    CHECK(p.warm_objective < 0 || p.objective <= p.warm_objective);
    CHECK(p.max_loads <= 2);
    CHECK_EQ(Steps_execute(&l, &o, &p, 7, &err), SP_OK);
    /* one thread proves the same optimum as the default (one per processor) */
    StepsOptions o1 = o;
    o1.threads = 1;
    StepsPlan p1;
    CHECK_EQ(Steps_plan(&l, &o1, STEPS_ILP, &p1, &err), SP_OK);
    CHECK_EQ(p1.ilp_status, ILP_OPTIMAL);
    CHECK_EQ(p1.objective, p.objective);
    if (p1.proven_by && strcmp(p1.proven_by, "search") == 0) CHECK_EQ(p1.search_threads, 1);
    StepsPlan_free(&p1);
    for (int s = STEPS_ROW; s <= STEPS_ZIGZAG; s++) {
      StepsPlan h;
      CHECK_EQ(Steps_plan(&l, &o, (StepsStrategy)s, &h, &err), SP_OK);
      if (h.max_loads <= 2) CHECK(p.ilp_bound <= (double)h.objective);
      StepsPlan_free(&h);
    }
    StepsPlan_free(&p);
  }
}

static void Ts_count(const IlpProgress *p, void *user) {
  int *calls = user;
  if (p->has_bound && (!p->has_incumbent || p->bound <= p->incumbent)) ++*calls;
}

/* Stopped by its limit (9x9, G = 3: not proven in 1 nominal second of nodes, or
 * by the wall clock on a slow machine: either way a timeout), the search reports
 * progress (its first checkpoint always does), returns a plan no worse than its start with a bound between the trivial
 * one and the plan, and says it is not proven. */
TEST(exact_search_time_limit) {
  Layer l = Ts_layer(1, 1, 3, 7, 7, 1);
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 3;
  o.time_limit = 1;
  int calls = 0;
  o.progress = Ts_count;
  o.user = &calls;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ILP, &p, &err), SP_OK);
  CHECK_EQ(p.ilp_status, ILP_TIMEOUT);
  CHECK(p.proven_by == NULL);
  CHECK(calls > 0); /* the first checkpoint reports, whatever the machine's speed */
  CHECK(p.warm_objective > 0 && p.objective <= p.warm_objective);
  CHECK(p.ilp_bound >= 81 + p.nsteps && p.ilp_bound < (double)p.objective);
  CHECK(p.max_loads <= 2);
  CHECK_EQ(Steps_execute(&l, &o, &p, 3, &err), SP_OK);
  StepsPlan_free(&p);
}

/* More steps than Kmin (StepsOptions.groups, `--steps`: the paper's Eq. 3 allows up
 * to Kmax; its experiments fix Kmin): the plan has that many steps and brute force's
 * optimum for that n, with and without Eq. 9; the start is the snake orders cut
 * into n near-equal groups. Where no grouping keeps Eq. 9 that is said; a count
 * outside Kmin..patches is refused with the range. */
TEST(ilp_more_steps_than_kmin) {
  /* rows, cols, G, n; the last two are Kmin + 2, where one load per pixel (Eq. 9 at 1)
   * leaves no grouping (brute force) while none or two do */
  static const int cases[][4] = {{2, 3, 2, 4}, {2, 4, 2, 5}, {2, 4, 3, 4}, {3, 3, 3, 4}, {2, 3, 2, 5}, {2, 4, 2, 6}};
  int infeasible = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int max_loads = 0; max_loads <= 2; max_loads++) {
      int hout = cases[c][0], wout = cases[c][1], g = cases[c][2], n = cases[c][3];
      CHECK(n > (hout * wout + g - 1) / g);
      int best = Ts_bruteForce(hout, wout, g, n, max_loads);
      Layer l = Ts_layer(1, 1, 3, hout, wout, 1);
      StepsOptions o = Ts_ilpOptions(g, max_loads);
      o.groups = n;
      StepsPlan p;
      SpError err;
      Status st = Steps_plan(&l, &o, STEPS_ILP, &p, &err);
      if (best == 1 << 30) {
        CHECK_EQ(st, SP_ERR_INFEASIBLE);
        CHECK_HAS(err.text, "no grouping");
        infeasible++;
        continue;
      }
      CHECK_EQ(st, SP_OK);
      CHECK_EQ(p.ilp_status, ILP_OPTIMAL);
      CHECK_EQ(p.nsteps, n);
      CHECK_EQ(p.objective, best);
      CHECK_EQ((int64_t)(p.ilp_bound + 0.5), best);
      if (max_loads) CHECK(p.max_loads <= max_loads);
      CHECK_EQ(Steps_execute(&l, &o, &p, 11, &err), SP_OK);
      StepsPlan_free(&p);
    }
  CHECK_EQ(infeasible, 2); /* the two Kmin + 2 cases at Eq. 9 = 1, and only they */
  Layer l = Ts_layer(1, 1, 3, 3, 3, 1);
  StepsOptions o = Ts_ilpOptions(2, 2);
  StepsPlan p;
  SpError err;
  for (int n = 4; n <= 10; n += 6) {
    o.groups = n;
    CHECK_EQ(Steps_plan(&l, &o, STEPS_ILP, &p, &err), SP_ERR_ARG);
    CHECK_HAS(err.text, "take 5 (Kmin) to 9 steps");
  }
}

/* The MIP start also takes the strips' columns all downwards: on an 11x11 input
 * at G = 5, strips of 5 patch rows (left to right, then back), each column taken
 * top to bottom (built here by hand), give Eq. 15's objective 154, where the best
 * start before (snaking strips) gave 170, and Row-by-Row and ZigZag break Eq. 9
 * (a pixel loaded 3 times). The start is no worse than that order. */
TEST(ilp_start_downward_strips) {
  Layer l = Ts_layer(1, 1, 3, 9, 9, 1);
  StepsOptions o = Ts_ilpOptions(5, 2);
  o.time_limit = 1; /* the start is what is tested */
  int order[81], sizes[17], n = 0;
  for (int s0 = 0; s0 < 9; s0 += 5)
    for (int t = 0; t < 9; t++)
      for (int i = s0; i < s0 + 5 && i < 9; i++) order[n++] = i * 9 + (s0 ? 8 - t : t);
  CHECK_EQ(n, 81);
  for (int k = 0; k < 17; k++) sizes[k] = k < 16 ? 5 : 1;
  StepsPlan by_hand, row, zig, p;
  SpError err;
  CHECK_EQ(Steps_fromGroups(&l, &o, order, sizes, 17, &by_hand, &err), SP_OK);
  CHECK_EQ(by_hand.objective, 154);
  CHECK(by_hand.max_loads <= 2);
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &row, &err), SP_OK);
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ZIGZAG, &zig, &err), SP_OK);
  CHECK(row.max_loads > 2 && zig.max_loads > 2);
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ILP, &p, &err), SP_OK);
  CHECK(p.warm_objective > 0 && p.warm_objective <= by_hand.objective);
  CHECK(p.objective <= p.warm_objective);
  CHECK_EQ(Steps_execute(&l, &o, &p, 5, &err), SP_OK);
  StepsPlan_free(&by_hand);
  StepsPlan_free(&row);
  StepsPlan_free(&zig);
  StepsPlan_free(&p);
}

/* A memory too small for any grouping is reported, not hidden. */
TEST(ilp_infeasible_memory) {
  Layer l = Ts_layer(1, 1, 3, 3, 3, 1);
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 3;
  o.size_mem = 9 + 9 + 1 - 1; /* kernels 9 + one patch 9 + one output: one short */
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ILP, &p, &err), SP_ERR_INFEASIBLE);
  CHECK_HAS(err.text, "no grouping");
}

/* Sets *arg once the check is paused inside its step (the test hook's second
 * poll of steps.check: the first is where step 1 begins); a hang guard of 300 s
 * (then it sets the flag anyway, and the check's message shows where it was). */
static void *Ts_cancelInStep(void *arg) {
  Testhook_waitReached("steps.check", 300);
  atomic_store((atomic_int *)arg, 1);
  return NULL;
}

/* A cancel stops the check within its step: one step of all 9216 patches of a
 * 256-channel layer is 5e9 multiply-adds (seconds), the flag is read about every
 * millisecond. The check read it only between steps, which let this run 3 s.
 * The test hook holds the check at a poll inside the step until the flag is set:
 * no timing (it set the flag 20 ms after the start, and wanted the end in 1 s). */
TEST(executor_cancel_within_a_step) {
  Layer l = Ts_layer(256, 256, 3, 96, 96, 1);
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 96 * 96;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &p, &err), SP_OK);
  CHECK_EQ(p.nsteps, 1);
  atomic_int stop = 1;
  o.cancel = &stop;
  CHECK_EQ(Steps_execute(&l, &o, &p, 3, &err), SP_ERR_CANCELLED); /* set before: at once */
  CHECK_HAS(err.text, "cancelled before step 1 of 1");
  atomic_store(&stop, 0);
  Testhook_arm(TESTHOOK_PAUSE, "steps.check#2");
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, Ts_cancelInStep, &stop), 0);
  CHECK_EQ(Steps_execute(&l, &o, &p, 3, &err), SP_ERR_CANCELLED);
  pthread_join(t, NULL);
  Testhook_arm(TESTHOOK_OFF, NULL);
  CHECK_HAS(err.text, "cancelled at step 1 of 1");
  StepsPlan_free(&p);
}

/* The time limit bounds the check as it bounds the search (the check of this
 * one-step plan, 5e9 multiply-adds, ran for seconds past --time-limit 0.05):
 * it stops within a step and says it was skipped, no verdict on the plan. The
 * test hook makes the deadline pass at a poll inside the step (it wanted the
 * end within 1 s of a 0.05 s limit). */
TEST(executor_time_limit_within_a_step) {
  Layer l = Ts_layer(256, 256, 3, 96, 96, 1);
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 96 * 96;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &p, &err), SP_OK);
  o.time_limit = 1000;
  Testhook_arm(TESTHOOK_DEADLINE, "steps.check#2");
  CHECK_EQ(Steps_execute(&l, &o, &p, 3, &err), SP_ERR_LIMIT);
  CHECK(Testhook_waitReached("steps.check", 0));
  Testhook_arm(TESTHOOK_OFF, NULL);
  CHECK_HAS(err.text, "skipped (the check passed the time limit of 1000 s at step 1 of 1)");
  StepsPlan_free(&p);
}

/* Counts and durations past int64 are refused (a 1024x1024 kernel over 16384
 * channels at 1e9 cycles an element lasted -5e18 cycles); without the cycles the
 * plan is made, and its check is skipped, not attempted (it asked for 2 PiB). */
TEST(overflow_refused_check_skipped) {
  Layer l = Ts_layer(16384, 16384, 1024, 1, 1, 1);
  StepsOptions o;
  StepsOptions_init(&o);
  o.tl = o.tw = o.tacc = 1000000000;
  o.group_size = 4;
  StepsPlan p;
  SpError err;
  for (int s = 0; s < STEPS_STRATEGIES; s++) {
    err.text[0] = '\0';
    CHECK_EQ(Steps_plan(&l, &o, (StepsStrategy)s, &p, &err), SP_ERR_ARG);
    CHECK_HAS(err.text, "more than 2^63 cycles");
  }
  int order[1] = {0}, sizes[1] = {1};
  CHECK_EQ(Steps_fromGroups(&l, &o, order, sizes, 1, &p, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "64-bit overflow");
  o.tl = o.tw = o.tacc = 1;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_S1_BASELINE, &p, &err), SP_OK);
  CHECK_EQ(p.duration, (int64_t)16384 * 1024 * 1024 * (16384 + 1) + 16384 + 1);
  CHECK_EQ(Steps_execute(&l, &o, &p, 1, &err), SP_ERR_LIMIT);
  CHECK_HAS(err.text, "skipped (the layer is too large to simulate");
  StepsPlan_free(&p);
  o.tl = -1;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &p, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "0 or more");
  /* MACs past int64 whatever the cycles: 256 patches of 2^60 (not from the parser,
   * which stops at 2^48 MACs, but the engine takes any Layer) */
  Layer big = Ts_layer(1 << 20, 1 << 20, 1024, 16, 16, 1);
  o.tl = 0, o.tw = 0, o.tacc = 0;
  CHECK_EQ(Steps_plan(&big, &o, STEPS_S1_BASELINE, &p, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "overflow 64 bits");
  /* the largest cycles the CLI takes are fine on an ordinary layer */
  Layer small = Ts_layer(2, 2, 3, 3, 3, 1);
  o.tl = o.tw = o.tacc = 1000000000;
  o.group_size = 2;
  CHECK_EQ(Steps_plan(&small, &o, STEPS_ZIGZAG, &p, &err), SP_OK);
  CHECK_EQ(Steps_execute(&small, &o, &p, 1, &err), SP_OK);
  StepsPlan_free(&p);
}

/* Building a plan of many steps stops on the cancel flag (the explorer's layer
 * view joins its solver thread when the method changes: a 16 M-step S1 plan
 * held the screen for seconds); without the flag the same plan is built. */
TEST(plan_building_cancels) {
  Layer l = Ts_layer(1, 1, 1, 128, 128, 1); /* 16,384 patches: S1 has as many steps */
  StepsOptions o;
  StepsOptions_init(&o);
  atomic_int cancel = 1;
  o.cancel = &cancel;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_S1_BASELINE, &p, &err), SP_ERR_CANCELLED);
  CHECK_HAS(err.text, "step plan cancelled at step 4096 of 16384");
  atomic_store(&cancel, 0);
  CHECK_EQ(Steps_plan(&l, &o, STEPS_S1_BASELINE, &p, &err), SP_OK);
  CHECK_EQ(p.nsteps, 16384);
  StepsPlan_free(&p);
}

TEST_MAIN("steps", T(example2_row_vs_zigzag), T(functional_check_every_strategy), T(executor_catches_a_bad_plan),
          T(ilp_matches_brute_force), T(exact_search_matches_brute_force), T(exact_search_in_the_papers_range),
          T(exact_search_time_limit), T(ilp_more_steps_than_kmin), T(ilp_start_downward_strips),
          T(ilp_infeasible_memory), T(executor_cancel_within_a_step), T(executor_time_limit_within_a_step), T(overflow_refused_check_skipped),
          T(plan_building_cancels))

/* steps_exact: an exact branch and bound for Section 5's grouping problem (the
 * same problem as the MIP in steps_ilp.c: n ordered groups of 1..G patches, at
 * most max_loads loads per pixel, the footprint under sizeMEM; minimise the loaded
 * pixels), for layers of at most 128 patches and 256 pixels.
 *
 * Why: the MIP's LP bound is the trivial one (every pixel loaded once), so GLPK
 * cannot prove anything beyond small inputs. The search uses a bound that is tight
 * in the middle of a plan: after group k with union U, every pixel still needed by
 * the remaining patches R costs one more load unless it is in U, and a pixel of U
 * still needed costs one more load unless the next group covers it ("stranded").
 * So a group is built by covering, pixel by pixel, what the previous group leaves
 * on chip and is still needed (each such pixel: one of the <= HK*WK patches of R
 * holding it, or stranded, which spends one unit of the budget best - 1 - bound),
 * then filled with any other patches. Every group is generated exactly once (the
 * patches tried before for the same pixel are forbidden in the later branches, a
 * stranded pixel forbids every patch holding it). On a square layer each group is
 * taken canonical under the symmetries of the square that fix the groups before it
 * (all 8 for the first group): a plan's image costs the same, and the image that
 * is least group by group passes (Ex_take). While a group is built, two packings
 * prune it: the pixels still to cover that no two allowed patches share (beyond
 * the slots left, they are stranded), and the pixels of its union that stay
 * needed after it, however it is completed (beyond G, the next group strands
 * them). The search runs in EX_LANES lanes that share out the first groups by
 * a fixed rule, each with its own incumbent, table and node budget, on up to as
 * many threads (Ex_pass); nothing a lane does depends on the others' timing, so
 * the answer is the same on any machine and load, on one thread or two. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "steps_internal.h"
#include "testhook.h"

/* EX_LANES: fixed, not the machine's cores: the lanes' split of the work decides
 * what a node budget reaches. EX_NODES_PER_SECOND: the node budget per second of
 * time_limit (all lanes together): what two lanes search in a second on the build
 * machine's two idle cores (about 560,000 nodes per CPU second each, measured on
 * 12x12 G = 5), so the default answers are as good as the 10 s of wall clock gave
 * before on an idle machine (at half that, bench steps lost 12x12 G = 7's proof);
 * on a slower or busier one the clock stops the search first, and the plan says
 * so (StepsPlan.wall_stopped; bench steps: "timeout (wall clock)"). */
enum { EX_PW = 4, EX_QW = 2, EX_LANES = 2 };
#define EX_NODES_PER_SECOND 1.1e6

/* Bits set in x. The build targets plain x86-64 (no popcnt instruction), where
 * __builtin_popcountll is a call into libgcc: about 10 % of the search's time.
 * Inline SWAR counting is no call. */
static inline int Ex_bits(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (int)((x * 0x0101010101010101ull) >> 56);
} /* pixel words: up to 256 pixels; patch words: up to 128 */

/* A set of patches. */
typedef struct {
  uint64_t w[EX_QW];
} PSet;

static PSet PSet_and(PSet a, PSet b) { return (PSet){{a.w[0] & b.w[0], a.w[1] & b.w[1]}}; }
static PSet PSet_or(PSet a, PSet b) { return (PSet){{a.w[0] | b.w[0], a.w[1] | b.w[1]}}; }
static PSet PSet_minus(PSet a, PSet b) { return (PSet){{a.w[0] & ~b.w[0], a.w[1] & ~b.w[1]}}; }
static bool PSet_empty(PSet a) { return !(a.w[0] | a.w[1]); }
static int PSet_count(PSet a) { return Ex_bits(a.w[0]) + Ex_bits(a.w[1]); }
static PSet PSet_one(int p) {
  PSet a = {{0, 0}};
  a.w[p / 64] = 1ull << (p % 64);
  return a;
}
/* The lowest patch (the set is not empty). */
static int PSet_first(PSet a) { return a.w[0] ? __builtin_ctzll(a.w[0]) : 64 + __builtin_ctzll(a.w[1]); }
/* The patches above p. */
static PSet PSet_above(PSet a, int p) {
  if (p >= 64) return (PSet){{0, p == 127 ? 0 : a.w[1] & ~((2ull << (p - 64)) - 1)}};
  return (PSet){{p == 63 ? 0 : a.w[0] & ~((2ull << p) - 1), a.w[1]}};
}
static bool PSet_less(PSet a, PSet b) { return a.w[1] != b.w[1] ? a.w[1] < b.w[1] : a.w[0] < b.w[0]; }
#define PSET_EACH(p, set) for (PSet it_ = (set); !PSet_empty(it_) && ((p) = PSet_first(it_), 1); it_ = PSet_minus(it_, PSet_one(p)))

typedef struct {
  uint64_t w[EX_PW];
} Pix;

/* States seen (transpositions): what can still happen depends only on the group
 * index, the patches left, which of their pixels are on chip and which may not be
 * loaded again (Eq. 9); a state no better than one explored (Ex_covers) is not
 * explored again. */
typedef struct {
  PSet rem;
  Pix on, maxed;
  int k1;   /* k + 1 */
  int pass; /* the search pass that stored it; an entry of another pass is empty */
  int loaded;
} ExSeen;

/* A cache, not a complete record: buckets of EX_WAYS entries; a full bucket gives
 * up its deepest state (the cheapest to search again). Forgetting a state only
 * costs time. Up to 2^19 entries (46 MB), fewer on small layers. */
enum { EX_SEEN_BITS = 19, EX_WAYS = 4 };

/* What the lanes of one pass share: the outer stop (time limit, cancel), the
 * lowest task in which a plan meeting the floor was found (no later task can do
 * better: a tie goes to the lower task; the earlier ones are still searched to the
 * end), progress figures; and, after the pass, its merged result. */
typedef struct {
  atomic_int incumbent; /* best plan known (progress reports only) */
  atomic_long done_task; /* the lowest task with a plan at the floor; LONG_MAX: none */
  atomic_bool stopped;  /* the time limit or cancel */
  atomic_long nodes;    /* approximate, for progress reports */
  /* the pass's result (Ex_pass, after the lanes) */
  int best;             /* fewest loads found (the target when none) */
  bool improved;        /* a lane found a plan below the target */
  bool incomplete;      /* a lane ran out of nodes, or the outer stop: nothing proven */
  PSet best_path[64];
} ExShared;

typedef struct {
  int np, npix, n, g, max_loads, nsym;
  unsigned stab[65]; /* stab[k]: the symmetries (bit t: sym[t]) mapping each of groups 0..k-1 onto itself */
  int64_t cin, cout, ker, size_mem;
  uint64_t pm[64 * EX_QW][EX_PW]; /* pixels of each patch */
  PSet pp[64 * EX_PW];     /* patches holding each pixel */
  int sym[8][64 * EX_QW];  /* patch images under the square's symmetries */
  PSet ends;               /* the corner patches the symmetries map onto each other */
  int loads[64 * EX_PW];
  int holders[64 * EX_PW]; /* patches left holding each pixel */
  PSet path[64];
  int best;                /* fewest loaded pixels known; the search looks for fewer */
  int floor;               /* pixels some patch holds: no plan loads fewer */
  bool stopped, done; /* stopped: time, cancel or the lane's node budget; done: optimum found early */
  bool exhausted;     /* the node budget stopped this lane in this pass */
  long nodes;
  long node_end;      /* nodes at which this pass's budget ends (0: none) */
  double deadline;
  atomic_int *cancel;
  void (*progress)(const IlpProgress *p, void *user);
  void *user;
  double t0, last_report, fixed; /* fixed: n * tacc of the objective */
  int64_t unit;                  /* tl * Cin: the objective of one loaded pixel */
  int lo;                        /* no plan loads fewer (proven so far; reported as the bound) */
  ExSeen *seen; /* nseen entries (a power of 2); NULL: no table */
  size_t nseen;
  int pass;     /* entries of this pass only are live (bumped when the bound changes) */
  int target;     /* the pass's first target: what levels up to task_level prune against */
  int task_level; /* a task: the group chosen at this level and those before it */
  ExShared *sh;
  bool reports;              /* lane 0: it alone calls progress */
  int lane;                  /* this lane: it searches tasks lane, lane + EX_LANES, ... */
  long task_seq;             /* tasks met in this pass */
  long cur_task;             /* the task being searched */
  bool improved;             /* this pass: a plan below the target (path in best_path) */
  long best_task;            /* the task best_path was found in */
  long exhausted_task;       /* the task the node budget stopped in */
  PSet best_path[64];
  /* this pass's tasks (in order) and the nodes at their start: the work done in
   * tasks past the pass's done_task depends on when the lane noticed, so it is
   * taken back after the pass (the node count decides budgets and checkpoints) */
  long *log_task, *log_nodes;
  int nlog, caplog;
  bool nomem;
} Ex;

/* The bound a node of level k must stay below: up to the task level, the pass's
 * first target (see Ex_pass). */
static inline int Ex_bar(const Ex *e, int k) { return k <= e->task_level ? e->target : e->best; }

static int Ex_count(const Pix *a) {
  int c = 0;
  for (int i = 0; i < EX_PW; i++) c += Ex_bits(a->w[i]);
  return c;
}

static Pix Ex_union(const Ex *e, PSet set) {
  Pix u = {{0}};
  int p;
  PSET_EACH(p, set)
  for (int i = 0; i < EX_PW; i++) u.w[i] |= e->pm[p][i];
  return u;
}

static void Ex_level(Ex *e, int k, PSet rem, const Pix *need, const Pix *u, int loaded);

/* Hashed on the group index and the patches left only: the states of one bucket are
 * then compared by dominance (Ex_covers). */
static uint64_t Ex_hash(const ExSeen *a) {
  uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)a->k1;
  for (int i = 0; i < EX_QW; i++) h = (h ^ a->rem.w[i]) * 0xff51afd7ed558ccdull, h ^= h >> 32;
  return h;
}

static bool Ex_sameRest(const ExSeen *a, const ExSeen *b) {
  return a->k1 == b->k1 && !memcmp(&a->rem, &b->rem, sizeof a->rem);
}

/* Whether a, with the same patches left as b, is at least as good: every pixel b
 * has on chip is on chip in a, every pixel a may not load again b may not either,
 * and a loaded no more. (With the same patches left, a pixel's load count is fixed
 * by whether it is maxed; memory after a step holds only the step's union, so a
 * pixel more on chip costs nothing. Any completion of b then does for a with no
 * more loads per pixel.) */
static bool Ex_covers(const ExSeen *a, const ExSeen *b) {
  if (a->loaded > b->loaded) return false;
  for (int i = 0; i < EX_PW; i++)
    if ((b->on.w[i] & ~a->on.w[i]) || (a->maxed.w[i] & ~b->maxed.w[i])) return false;
  return true;
}

/* Patches of `allowed`, at most smax of them, each covering |its pixels & todo|,
 * cover at most the smax largest of those: the rest of todo is stranded. */
static int Ex_strandedAtLeast(const Ex *e, PSet allowed, const Pix *todo, int smax) {
  PSet cand = {{0, 0}};
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = todo->w[i]; b; b &= b - 1) cand = PSet_or(cand, e->pp[i * 64 + __builtin_ctzll(b)]);
  int top[64] = {0}, ntop = smax < 64 ? smax : 64; /* descending */
  int p;
  PSET_EACH(p, PSet_and(cand, allowed)) {
    int c = 0;
    for (int i = 0; i < EX_PW; i++) c += Ex_bits(e->pm[p][i] & todo->w[i]);
    for (int t = 0; t < ntop; t++)
      if (c > top[t]) {
        int x = top[t];
        top[t] = c, c = x;
      }
  }
  int left = Ex_count(todo);
  for (int t = 0; t < ntop; t++) left -= top[t];
  return left > 0 ? left : 0;
}

/* Pixels left on chip and still needed (todo) that must be dropped and loaded
 * again, at least. A pixel p of todo with r remaining patches stays on chip only
 * while every group computes one of them, so if it is never dropped all r are
 * computed within the next r groups. Hence for every t, the patches of the
 * pixels with r <= t that are never dropped fit in the next t groups (at most
 * cap_t patches); dropping a pixel takes at most its r patches off that set, so
 * the fewest drops is at least the fewest r values (largest first) summing to
 * the excess. (The next group alone is the packing bound's business.) */
static int Ex_dropsAtLeast(const Ex *e, PSet rem, const Pix *todo, int left) {
  enum { RMAX = 64 };
  PSet byr[RMAX + 1];
  int nr[RMAX + 1] = {0}, maxr = 0;
  for (int r = 0; r <= RMAX; r++) byr[r] = (PSet){{0, 0}};
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = todo->w[i]; b; b &= b - 1) {
      PSet q = PSet_and(e->pp[i * 64 + __builtin_ctzll(b)], rem);
      int r = PSet_count(q);
      if (r > RMAX || r >= left) continue; /* within the groups left anyway */
      byr[r] = PSet_or(byr[r], q), nr[r]++;
      if (r > maxr) maxr = r;
    }
  int best = 0, nrem = PSet_count(rem);
  PSet due = {{0, 0}};
  for (int t = 1; t <= maxr; t++) {
    due = PSet_or(due, byr[t]);
    int cap = t * e->g < nrem - (left - t) ? t * e->g : nrem - (left - t);
    int excess = PSet_count(due) - cap, drops = 0;
    for (int r = t; r >= 1 && excess > 0; r--)
      for (int c = 0; c < nr[r] && excess > 0; c++) excess -= r, drops++;
    if (excess <= 0 && drops > best) best = drops;
  }
  return best;
}

/* Whether a state at least as good as key's was explored before; else records key
 * (in place of a state it is at least as good as, if any). */
static bool Ex_seenBefore(Ex *e, const ExSeen *key) {
  ExSeen *bucket = &e->seen[Ex_hash(key) & (e->nseen - EX_WAYS)], *victim = bucket;
  for (int w = 0; w < EX_WAYS; w++) {
    ExSeen *x = &bucket[w];
    bool live = x->pass == e->pass;
    if (live && Ex_sameRest(x, key)) {
      if (Ex_covers(x, key)) return true;
      if (Ex_covers(key, x)) {
        *x = *key;
        return false;
      }
    }
    if (victim->pass == e->pass && (!live || x->k1 > victim->k1)) victim = x;
  }
  *victim = *key;
  return false;
}

/* A complete group s after union u at level k: its cost, Eq. 9, Eq. 12, then on. */
static void Ex_take(Ex *e, int k, PSet rem, const Pix *need, const Pix *u, int loaded, PSet s) {
  /* Canonical under the symmetries t that fix every group before it: t maps the
   * state onto itself, so a plan through t(s) costs what one through s does; of a
   * plan's images the one least group by group is kept (each of its groups is not
   * above its image under those t). The state table stays sound: a state explored
   * this way is t-invariant, so its best completion was searched up to symmetry. */
  e->stab[k + 1] = 1; /* the identity */
  if (e->stab[k] > 1) {
    for (int t = 1; t < e->nsym; t++) {
      if (!(e->stab[k] >> t & 1)) continue;
      PSet img = {{0, 0}};
      int p;
      PSET_EACH(p, s) img = PSet_or(img, PSet_one(e->sym[t][p]));
      if (PSet_less(img, s)) return;
      if (!PSet_less(s, img)) e->stab[k + 1] |= 1u << t;
    }
  }
  if (k == e->task_level) {
    long t = e->task_seq++;
    if (t % EX_LANES != e->lane) return; /* another lane's task */
    if (atomic_load(&e->sh->done_task) < t) { /* a plan at the floor in an earlier task */
      e->done = true;
      return;
    }
    if (e->nlog == e->caplog) {
      int nc = e->caplog ? 2 * e->caplog : 64;
      long *a = realloc(e->log_task, sizeof(long) * (size_t)nc), *b = realloc(e->log_nodes, sizeof(long) * (size_t)nc);
      if (a) e->log_task = a;
      if (b) e->log_nodes = b;
      if (!a || !b) {
        e->nomem = e->stopped = e->exhausted = true, e->exhausted_task = t;
        return;
      }
      e->caplog = nc;
    }
    e->log_task[e->nlog] = t, e->log_nodes[e->nlog++] = e->nodes;
    e->cur_task = t;
  }
  Pix us = Ex_union(e, s), fresh;
  for (int i = 0; i < EX_PW; i++) fresh.w[i] = us.w[i] & ~u->w[i];
  int nnew = Ex_count(&fresh);
  if (loaded + nnew >= Ex_bar(e, k)) return;
  if (e->size_mem > 0 &&
      e->cin * Ex_count(&us) + e->ker + e->cout * PSet_count(s) > e->size_mem)
    return;
  if (e->max_loads > 0)
    for (int i = 0; i < EX_PW; i++)
      for (uint64_t b = fresh.w[i]; b; b &= b - 1)
        if (e->loads[i * 64 + __builtin_ctzll(b)] >= e->max_loads) return;
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = fresh.w[i]; b; b &= b - 1) e->loads[i * 64 + __builtin_ctzll(b)]++;
  e->path[k] = s;
  /* the pixels still needed after s: those some patch left holds (kept as counts,
   * far cheaper than the union of the patches left) */
  Pix left = *need;
  int p;
  PSET_EACH(p, s)
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = e->pm[p][i]; b; b &= b - 1)
      if (--e->holders[i * 64 + __builtin_ctzll(b)] == 0) left.w[i] &= ~(b & -b);
  Ex_level(e, k + 1, PSet_minus(rem, s), &left, &us, loaded + nnew);
  PSET_EACH(p, s)
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = e->pm[p][i]; b; b &= b - 1) e->holders[i * 64 + __builtin_ctzll(b)]++;
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = fresh.w[i]; b; b &= b - 1) e->loads[i * 64 + __builtin_ctzll(b)]--;
}

typedef struct {
  int k, smin, smax, base, loaded; /* base: the bound before stranding */
  PSet rem;
  const Pix *u, *need; /* need: pixels some patch of rem holds */
} ExGroup;

/* Ex_fill's start: the packing of the pixels of us (s's union) held by more
 * patches outside s than the slots left; false if it already costs too much. */
static bool Ex_fillStart(const Ex *e, const ExGroup *gr, PSet s, const Pix *us, int size, int stranded, PSet *taken,
                         int *packed) {
  PSet out = PSet_minus(gr->rem, s);
  int slots = gr->smax - size;
  *taken = (PSet){{0, 0}}, *packed = 0;
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = us->w[i]; b; b &= b - 1) {
      PSet q = PSet_and(e->pp[i * 64 + __builtin_ctzll(b)], out);
      if (PSet_count(q) > slots && PSet_empty(PSet_and(q, *taken))) *taken = PSet_or(*taken, q), ++*packed;
    }
  return *packed <= e->g || gr->base + stranded + *packed - e->g < Ex_bar(e, gr->k);
}

/* Adds patches of avail above index `from` to s (any number within the sizes); us
 * is the union of s, stranded the pixels the cover left. A pixel a fill patch
 * brings, held by more patches outside s than the slots left, is on chip and
 * needed after the group however it is completed; such pixels no two of which
 * share a patch outside s (packed of them, their patches `taken`) need a patch
 * each of the next group (<= G). That stays true as s grows (a pixel loses at
 * most one holder per slot; the patch sets only shrink). */
static void Ex_fill(Ex *e, const ExGroup *gr, PSet s, const Pix *us, int stranded, PSet avail, PSet taken,
                    int packed) {
  int size = PSet_count(s), bar = Ex_bar(e, gr->k);
  if (gr->base + stranded >= bar) return; /* an improvement found meanwhile */
  if (size >= gr->smin) Ex_take(e, gr->k, gr->rem, gr->need, gr->u, gr->loaded, s);
  if (size >= gr->smax || e->stopped || e->done) return;
  int p, slots = gr->smax - size - 1;
  PSET_EACH(p, avail) {
    PSet s2 = PSet_or(s, PSet_one(p)), out = PSet_minus(gr->rem, s2), t2 = taken;
    int packed2 = packed;
    Pix up;
    for (int i = 0; i < EX_PW; i++) {
      up.w[i] = us->w[i] | e->pm[p][i];
      for (uint64_t b = e->pm[p][i] & ~us->w[i]; b; b &= b - 1) {
        PSet q = PSet_and(e->pp[i * 64 + __builtin_ctzll(b)], out);
        if (PSet_count(q) > slots && PSet_empty(PSet_and(q, t2))) t2 = PSet_or(t2, q), packed2++;
      }
    }
    if (packed2 <= e->g || gr->base + stranded + packed2 - e->g < bar)
      Ex_fill(e, gr, s2, &up, stranded, PSet_above(avail, p), t2, packed2);
    if (e->stopped || e->done) return;
  }
}

/* The cover done (s, its union us, stranded pixels): fills s with patches not
 * forbidden, if the packing of what stays needed allows. */
static void Ex_fillFrom(Ex *e, const ExGroup *gr, PSet s, const Pix *us, int size, PSet forbid, int stranded) {
  PSet taken;
  int packed;
  if (Ex_fillStart(e, gr, s, us, size, stranded, &taken, &packed))
    Ex_fill(e, gr, s, us, stranded, PSet_minus(PSet_minus(gr->rem, s), forbid), taken, packed);
}

/* Covers the pixels of todo (left on chip, still needed) one by one or strands them;
 * us is the union of s (kept along), size its patch count. */
static void Ex_cover(Ex *e, const ExGroup *gr, PSet s, const Pix *us, int size, PSet forbid, Pix todo,
                     int stranded) {
  if (gr->base + stranded >= Ex_bar(e, gr->k)) return;
  int j = -1;
  for (int i = 0; i < EX_PW && j < 0; i++) {
    uint64_t b = todo.w[i] & ~us->w[i];
    if (b) j = i * 64 + __builtin_ctzll(b);
  }
  if (j < 0) {
    Ex_fillFrom(e, gr, s, us, size, forbid, stranded);
    return;
  }
  if (size == gr->smax) { /* no room left: every pixel still open is stranded */
    int open = 0;
    for (int i = 0; i < EX_PW; i++)
      for (uint64_t b = todo.w[i] & ~us->w[i]; b; b &= b - 1, open++)
        if (e->max_loads > 0 && e->loads[i * 64 + __builtin_ctzll(b)] >= e->max_loads) return;
    if (gr->base + stranded + open < Ex_bar(e, gr->k)) Ex_fillFrom(e, gr, s, us, size, forbid, stranded + open);
    return;
  }
  { /* open pixels no two of which share an allowed patch take a patch each;
       one that no allowed patch holds is stranded */
    PSet allowed = PSet_minus(PSet_minus(gr->rem, s), forbid), taken = {{0, 0}};
    int packed = 0, lost = 0;
    for (int i = 0; i < EX_PW; i++)
      for (uint64_t b = todo.w[i] & ~us->w[i]; b; b &= b - 1) {
        PSet q = PSet_and(e->pp[i * 64 + __builtin_ctzll(b)], allowed);
        if (PSet_empty(q)) lost++;
        else if (PSet_empty(PSet_and(q, taken))) taken = PSet_or(taken, q), packed++;
      }
    int over = packed - (gr->smax - size);
    if (gr->base + stranded + lost + (over > 0 ? over : 0) >= Ex_bar(e, gr->k)) return;
  }
  todo.w[j / 64] &= ~(1ull << (j % 64));
  if (size < gr->smax) {
    PSet f = forbid;
    int p;
    PSET_EACH(p, PSet_minus(PSet_minus(PSet_and(e->pp[j], gr->rem), s), forbid)) {
      Pix up;
      for (int i = 0; i < EX_PW; i++) up.w[i] = us->w[i] | e->pm[p][i];
      Ex_cover(e, gr, PSet_or(s, PSet_one(p)), &up, size + 1, f, todo, stranded);
      if (e->stopped || e->done) return;
      f = PSet_or(f, PSet_one(p));
    }
  }
  if (gr->base + stranded + 1 < Ex_bar(e, gr->k) && (e->max_loads <= 0 || e->loads[j] < e->max_loads))
    Ex_cover(e, gr, s, us, size, PSet_or(forbid, e->pp[j]), todo, stranded + 1);
}

/* A plan of `loaded` loads, fewer than this lane's target. */
static void Ex_found(Ex *e, int loaded) {
  ExShared *sh = e->sh;
  e->best = loaded;
  e->improved = true;
  e->best_task = e->cur_task;
  memcpy(e->best_path, e->path, sizeof e->path);
  for (int inc = atomic_load(&sh->incumbent); loaded < inc && !atomic_compare_exchange_weak(&sh->incumbent, &inc, loaded);)
    ;
  if (loaded <= e->floor) { /* meets the bound: optimal; the later tasks can stop */
    e->done = true;
    for (long d = atomic_load(&sh->done_task);
         e->cur_task < d && !atomic_compare_exchange_weak(&sh->done_task, &d, e->cur_task);)
      ;
  }
}

/* Every 4096 nodes (a count, the same on any machine): the lane's node budget,
 * the time limit, cancel, a lower lane done, and in lane 0 progress. True: stop. */
static bool Ex_checkpoint(Ex *e) {
  ExShared *sh = e->sh;
  atomic_fetch_add(&sh->nodes, 4096);
  Testhook_at("steps.exact", e->cancel);
  double now = Clock_now();
  if (now > e->deadline || (e->cancel && atomic_load(e->cancel))) atomic_store(&sh->stopped, true);
  if (atomic_load(&sh->stopped)) e->stopped = true;
  if (e->node_end > 0 && e->nodes >= e->node_end) e->stopped = e->exhausted = true, e->exhausted_task = e->cur_task;
  if (atomic_load(&sh->done_task) < e->cur_task) e->done = true;
  if (e->stopped || e->done) return true;
  if (e->reports && e->progress && now - e->last_report >= 0.2) { /* as GLPK's solves report */
    e->last_report = now;
    int inc = atomic_load(&sh->incumbent);
    IlpProgress pr = {.has_incumbent = inc < 1 << 30, .has_bound = true, .nodes = atomic_load(&sh->nodes),
                      .elapsed = now - e->t0, .stage = "steps exact search"};
    pr.incumbent = (double)e->unit * inc + e->fixed;
    pr.bound = (double)e->unit * e->lo + e->fixed;
    pr.gap = pr.has_incumbent ? (pr.incumbent - pr.bound) / (pr.incumbent > 1e-9 ? pr.incumbent : 1e-9) : -1;
    e->progress(&pr, e->user);
  }
  return false;
}

static void Ex_level(Ex *e, int k, PSet rem, const Pix *need, const Pix *u, int loaded) {
  if (PSet_empty(rem)) {
    if (k == e->n && loaded < e->best) Ex_found(e, loaded);
    return;
  }
  if (k == e->n || e->stopped || e->done) return;
  /* a plan and its reverse load the same pixels: look only at plans that compute
   * one of the corners `ends` in group (n - 1) / 2 or before (reversing a plan that
   * does not gives one that does; the square's symmetries keep that property, as
   * they map corners onto corners, so the first group can still be canonical) */
  if (k > (e->n - 1) / 2 && PSet_empty(PSet_minus(e->ends, rem))) return;
  if (++e->nodes % 4096 == 0 && Ex_checkpoint(e)) return;
  Pix todo;
  int fresh = 0;
  for (int i = 0; i < EX_PW; i++) {
    fresh += Ex_bits(need->w[i] & ~u->w[i]);
    todo.w[i] = need->w[i] & u->w[i];
  }
  ExGroup gr = {.k = k, .rem = rem, .need = need, .u = u, .loaded = loaded, .base = loaded + fresh};
  int bar = Ex_bar(e, k);
  if (gr.base >= bar) return;
  int r = PSet_count(rem), left = e->n - k;
  gr.smin = r - (left - 1) * e->g;
  if (gr.smin < 1) gr.smin = 1;
  gr.smax = r - (left - 1) < e->g ? r - (left - 1) : e->g;
  if (gr.smin > gr.smax) return;
  /* pixels of todo no two of which share a remaining patch need one patch each:
   * all but smax of them are stranded */
  PSet taken = {{0, 0}};
  int packed = 0;
  for (int i = 0; i < EX_PW; i++)
    for (uint64_t b = todo.w[i]; b; b &= b - 1) {
      PSet q = PSet_and(e->pp[i * 64 + __builtin_ctzll(b)], rem);
      if (PSet_empty(PSet_and(q, taken))) taken = PSet_or(taken, q), packed++;
    }
  if (packed > gr.smax && gr.base + packed - gr.smax >= bar) return;
  if (gr.base + Ex_strandedAtLeast(e, rem, &todo, gr.smax) >= bar) return;
  if (gr.base + Ex_dropsAtLeast(e, rem, &todo, left) >= bar) return;
  if (e->seen && k > e->task_level) {
    ExSeen key = {.rem = rem, .k1 = k + 1, .loaded = loaded, .pass = e->pass};
    key.on = todo;
    for (int i = 0; i < EX_PW; i++)
      for (uint64_t b = need->w[i]; b; b &= b - 1)
        if (e->max_loads > 0 && e->loads[i * 64 + __builtin_ctzll(b)] >= e->max_loads)
          key.maxed.w[i] |= b & -b;
    if (Ex_seenBefore(e, &key)) return;
  }
  PSet none = {{0, 0}};
  Pix empty = {{0}};
  Ex_cover(e, &gr, none, &empty, 0, none, todo, 0);
}

double Steps_exactRate(void) { return EX_NODES_PER_SECOND; }

static bool Ex_cancelled(const Ex *e) { return e->cancel && atomic_load(e->cancel); }

/* The lanes of a search (e[0]: lane 0, which reports progress) and the threads
 * that run them (thread i runs lanes i, i + nthreads, ...). */
typedef struct {
  Ex *e[EX_LANES];
  int nthreads;
  ExShared sh;
} ExTeam;

/* Starts thread state e on a pass looking for fewer than `best` loads, `lo` being a
 * proven bound (reaching it ends the pass); the table's entries are dropped (a new
 * pass number): they hold for the previous pass's bound only. */
static void Ex_reset(Ex *e, int best, int lo, double deadline, int task_level, long nodes) {
  e->best = e->target = best;
  e->floor = lo;
  e->done = e->stopped = e->exhausted = e->improved = false;
  e->nlog = 0;
  e->cur_task = -1;
  e->deadline = deadline;
  e->node_end = nodes > 0 ? e->nodes + nodes : 0;
  e->pass++;
  e->task_seq = 0;
  e->task_level = task_level;
}

/* A search from the start (no group done, nothing on chip), on this lane's tasks. */
static void Ex_root(Ex *e) {
  PSet all = {{0, 0}};
  for (int i = 0; i < e->np; i++) all = PSet_or(all, PSet_one(i));
  Pix none = {{0}}, held = Ex_union(e, all);
  Ex_level(e, 0, all, &held, &none, 0);
}

typedef struct {
  ExTeam *t;
  int first;
} ExRun;

/* A thread's lanes, in order: first, first + nthreads, ... */
static void *Ex_runLanes(void *arg) {
  ExRun *r = arg;
  for (int l = r->first; l < EX_LANES; l += r->t->nthreads) Ex_root(r->t->e[l]);
  return NULL;
}

/* One pass of every lane: a plan of fewer than `best` loads? True if one was
 * found (the team's best and best_path hold it: the fewest loads, on a tie the
 * lowest lane's). sh.incomplete: a lane ran out of its `nodes` (<= 0: no budget)
 * or the time limit / cancel stopped the pass, so its "none" proves nothing.
 *
 * The lanes share out tasks: the first groups (task level 0) or the pairs of
 * first groups (level 1: finer, for passes where one first group holds most of
 * the work), numbered in the order every lane meets them; lane l searches tasks
 * l, l + EX_LANES, ... That order must not depend on the lane, so up to the task
 * level the search prunes against the pass's first target only (not the best
 * plan found since) and keeps no table of states. Level 1 suits passes whose
 * target does not move (deepening: a plan found ends the pass); with a target
 * that drops, pruning the second groups against the first one would cost more
 * than it shares. A lane prunes with its own finds only: what another lane
 * found when is a matter of timing. */
static bool Ex_pass(ExTeam *t, int best, int lo, double deadline, int task_level, long nodes) {
  ExShared *sh = &t->sh;
  atomic_store(&sh->done_task, LONG_MAX);
  atomic_store(&sh->stopped, false);
  for (int i = 0; i < EX_LANES; i++) Ex_reset(t->e[i], best, lo, deadline, task_level, nodes);
  pthread_t tid[EX_LANES];
  ExRun run[EX_LANES];
  bool started[EX_LANES] = {false};
  for (int i = 0; i < t->nthreads; i++) run[i] = (ExRun){t, i};
  for (int i = 1; i < t->nthreads; i++) started[i] = pthread_create(&tid[i], NULL, Ex_runLanes, &run[i]) == 0;
  Ex_runLanes(&run[0]);
  for (int i = 1; i < t->nthreads; i++) {
    if (started[i]) pthread_join(tid[i], NULL);
    else Ex_runLanes(&run[i]); /* a thread that could not start: its lanes here, in turn */
  }
  /* merged: the fewest loads, on a tie the lowest task; what a lane did past
   * done_task is dropped (its plan there cannot win; its nodes are taken back) */
  long done = atomic_load(&sh->done_task), best_task = LONG_MAX;
  sh->best = best, sh->improved = false, sh->incomplete = atomic_load(&sh->stopped);
  for (int i = 0; i < EX_LANES; i++) {
    Ex *e = t->e[i];
    if (e->nomem) sh->incomplete = true;
    if (e->exhausted && e->exhausted_task <= done) sh->incomplete = true;
    for (int k = 0; k < e->nlog; k++)
      if (e->log_task[k] > done) {
        e->nodes = e->log_nodes[k];
        break;
      }
    if (e->improved && (e->best < sh->best || (e->best == sh->best && e->best_task < best_task))) {
      sh->best = e->best, sh->improved = true, best_task = e->best_task;
      memcpy(sh->best_path, e->best_path, sizeof sh->best_path);
    }
  }
  if (done < LONG_MAX) sh->incomplete = false; /* a plan at the floor: the pass's answer */
  return sh->improved;
}

/* One deepening pass: is there a plan of at most `target` loads? */
static bool Ex_deepen(ExTeam *t, int target, double deadline, long nodes) {
  return Ex_pass(t, target + 1, target, deadline, 1, nodes);
}

/* Threads for the lanes: o->threads, or one per online processor (at most EX_LANES). */
static int Ex_threads(const StepsOptions *o) {
  long n = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > EX_LANES ? EX_LANES : (int)n;
}

static long Ex_nodes(const ExTeam *t) {
  long n = 0;
  for (int i = 0; i < EX_LANES; i++) n += t->e[i]->nodes;
  return n;
}

/* Each lane's share of what is left of a phase's node budget (cap: cumulative,
 * all lanes; <= 0: none); at least one checkpoint's worth. */
static long Ex_share(const ExTeam *t, double cap) {
  if (cap <= 0) return 0;
  double left = (cap - (double)Ex_nodes(t)) / EX_LANES;
  return left < 4096 ? 4096 : (long)left;
}

static void Ex_freeTeam(ExTeam *t) {
  for (int i = 0; i < EX_LANES; i++)
    if (t->e[i]) free(t->e[i]->seen), free(t->e[i]->log_task), free(t->e[i]->log_nodes), free(t->e[i]);
  free(t);
}

Status Steps_exact(const StepsPlan *geo, const StepsOptions *o, int g, int n, int best_loaded, int floor_loaded,
                   StepsExact *res, SpError *err) {
  memset(res, 0, sizeof *res);
  const int np = geo->hout * geo->wout, npix = geo->hin * geo->win;
  if (np > 64 * EX_QW || npix > 64 * EX_PW || n > 64) {
    res->skipped = true;
    return SP_OK;
  }
  ExTeam *team = calloc(1, sizeof *team);
  Ex *e = calloc(1, sizeof *e);
  if (!team || !e) {
    free(team), free(e);
    return SpError_set(err, SP_ERR_NOMEM, "steps exact search");
  }
  team->e[0] = e;
  e->sh = &team->sh, e->reports = true;
  atomic_store(&team->sh.incumbent, best_loaded);
  e->np = np, e->npix = npix, e->n = n, e->g = g, e->max_loads = o->max_loads;
  e->cin = geo->cin, e->cout = geo->cout, e->size_mem = o->size_mem;
  e->ker = (int64_t)geo->cout * geo->cin * geo->hk * geo->wk;
  e->best = best_loaded;
  e->floor = floor_loaded;
  e->cancel = o->cancel;
  e->progress = o->progress, e->user = o->user;
  e->unit = o->tl * geo->cin, e->fixed = (double)n * (double)o->tacc;
  e->lo = floor_loaded;
  /* Without the table the search is only slower. It keys pixels at their Eq. 9
   * limit, which tells a pixel's loads apart only for a limit of 1 or 2 (0 or 1
   * load: whether a done patch holds it), so it is not used above 2. */
  team->nthreads = Ex_threads(o);
  int bits = 10 + np / 7 < EX_SEEN_BITS ? 10 + np / 7 : EX_SEEN_BITS;
  e->nseen = (size_t)1 << bits;
  double t0 = Clock_now();
  e->t0 = t0;
  e->last_report = t0 - 1; /* the first checkpoint reports: a caller hears of every search, however fast */
  for (int i = 0; i < np; i++) {
    int pi = i / geo->wout, pj = i % geo->wout;
    for (int h = pi * geo->sh; h < pi * geo->sh + geo->hk; h++)
      for (int x = pj * geo->sw; x < pj * geo->sw + geo->wk; x++) {
        int j = h * geo->win + x;
        e->pm[i][j / 64] |= 1ull << (j % 64);
        e->pp[j] = PSet_or(e->pp[j], PSet_one(i));
        e->holders[j]++;
      }
  }
  /* the square's symmetries act on patches when the geometry is square */
  e->nsym = 1;
  e->stab[0] = 1;
  e->ends = PSet_one(0);
  if (geo->hout == geo->wout && geo->hk == geo->wk && geo->sh == geo->sw) {
    int m = geo->hout;
    e->nsym = 8;
    e->stab[0] = 0xff;
    e->ends = PSet_or(PSet_or(e->ends, PSet_one(m - 1)), PSet_or(PSet_one(np - m), PSet_one(np - 1)));
    for (int t = 0; t < 8; t++)
      for (int i = 0; i < np; i++) {
        int a = i / m, b = i % m;
        if (t & 1) a = m - 1 - a;
        if (t & 2) b = m - 1 - b;
        if (t & 4) {
          int c = a;
          a = b, b = c;
        }
        e->sym[t][i] = a * m + b;
      }
  }
  /* the other lanes start from a copy of this state (tables built, nothing searched) */
  for (int i = 1; i < EX_LANES; i++) {
    Ex *c = malloc(sizeof *c);
    if (!c) {
      Ex_freeTeam(team);
      return SpError_set(err, SP_ERR_NOMEM, "steps exact search");
    }
    *c = *e;
    c->reports = false;
    c->lane = i;
    team->e[i] = c;
  }
  for (int i = 0; i < EX_LANES; i++)
    if (o->max_loads <= 2 && !(team->e[i]->seen = calloc(e->nseen, sizeof *e->seen))) {
      Ex_freeTeam(team);
      return SpError_set(err, SP_ERR_NOMEM, "steps exact search: table of states");
    }
  /* Three phases, on shares of the node budget (time_limit x EX_NODES_PER_SECOND;
   * the time limit itself only stops the search early on a slow machine).
   * (1) A plan of `floor` loads (every pixel once), on up to 80 %
   * of the budget: with no slack the bounds prune hard, so where such a plan exists
   * this finds it far sooner than a search down from a poor start (12x12, G = 7:
   * 6.5 s against over 40), and where none exists it often proves that quickly (8x8, G = 2).
   * (2) Depth first below the incumbent (it improves the incumbent and often
   * exhausts the tree) up to 85 %. (3) Iterative deepening on the loads for the rest: target = the
   * lowest not excluded, then + 1, ...; the first target with a plan is the
   * optimum, every target exhausted a proven bound. */
  double wall = o->wall_limit > 0 ? o->wall_limit : o->time_limit;
  double deadline = wall > 0 ? t0 + wall : 1e300;
  double budget = o->time_limit > 0 ? o->time_limit * EX_NODES_PER_SECOND : 0;
  ExShared *sh = &team->sh;
  int lo = floor_loaded, incumbent = best_loaded; /* lo: no plan loads fewer (proven) */
  bool improved = false, proven = false;
  if (lo < incumbent) {
    if (Ex_deepen(team, lo, deadline, Ex_share(team, 0.8 * budget))) improved = proven = true, incumbent = sh->best;
    else if (!sh->incomplete) e->lo = ++lo;
  }
  if (!proven && lo < incumbent && !Ex_cancelled(e) && !atomic_load(&sh->stopped)) {
    if (Ex_pass(team, incumbent, lo, deadline, 0, Ex_share(team, 0.85 * budget))) improved = true, incumbent = sh->best;
    if (!sh->incomplete) proven = true;
  }
  if (!proven && !Ex_cancelled(e) && !atomic_load(&sh->stopped) && incumbent < 1 << 30) {
    sh->incomplete = false;
    for (int target = lo; target < incumbent && !sh->incomplete; target++) {
      if (Ex_deepen(team, target, deadline, Ex_share(team, budget))) { /* a plan of `target` loads: optimal */
        improved = proven = true;
        incumbent = sh->best;
        break;
      }
      if (!sh->incomplete) e->lo = lo = target + 1;
    }
  }
  if (lo >= incumbent) proven = true; /* every target below the incumbent exhausted */
  res->proven = proven;
  res->bound_loaded = lo;
  res->seconds = Clock_now() - t0;
  res->nodes = Ex_nodes(team);
  res->threads = team->nthreads;
  res->stopped = atomic_load(&sh->stopped);
  res->improved = improved;
  res->best_loaded = incumbent;
  if (res->proven) res->bound_loaded = res->best_loaded;
  res->cancelled = atomic_load(&sh->stopped) && Ex_cancelled(e);
  if (improved)
    for (int k = 0; k < n; k++)
      for (int i = 0; i < EX_QW; i++) res->groups[k][i] = sh->best_path[k].w[i];
  Ex_freeTeam(team);
  return SP_OK;
}

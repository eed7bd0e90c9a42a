/* TAA (Algorithm 1 with the sort orders of Section III.A) and the whole-tensor
 * baselines through engine/pack; Offchip_allocate picks one. */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "tiles_internal.h"
#ifdef SPADMAP_HAVE_PACK
#include "pack/pack.h"
#include "testhook.h"
#endif

static const char *const Taa_orderNames[TAA_ORDER_COUNT] = {"size", "lifetime", "peers"};
static const char *const Offchip_methodNames[OFFCHIP_METHOD_COUNT] = {"taa", "so-size", "so-breadth", "so-improved",
                                                                      "offset-size"};

const char *TaaOrder_name(TaaOrder o) { return (unsigned)o < TAA_ORDER_COUNT ? Taa_orderNames[o] : "?"; }
bool TaaOrder_parse(const char *s, TaaOrder *o) {
  for (int i = 0; i < TAA_ORDER_COUNT; i++)
    if (strcmp(s, Taa_orderNames[i]) == 0) return *o = (TaaOrder)i, true;
  return false;
}
const char *OffchipMethod_name(OffchipMethod m) {
  return (unsigned)m < OFFCHIP_METHOD_COUNT ? Offchip_methodNames[m] : "?";
}
bool OffchipMethod_parse(const char *s, OffchipMethod *m) {
  for (int i = 0; i < OFFCHIP_METHOD_COUNT; i++)
    if (strcmp(s, Offchip_methodNames[i]) == 0) return *m = (OffchipMethod)i, true;
  return false;
}

void OffchipOptions_init(OffchipOptions *o) {
  o->deadline = 0;
  o->method = OFFCHIP_TAA;
  o->order = TAA_ORDER_SIZE;
  o->fallback = true;
}

void OffchipResult_free(OffchipResult *r) {
  free(r->base);
  r->base = NULL;
}

/* ---- the flat view of all tiles ---------------------------------------- */

typedef struct {
  const TaaTensor *t;
  int n;
  int *tile_tensor;          /* flat tile id -> tensor */
  const TilesTile **tile;    /* flat tile id -> tile */
  int ntiles;
  TilesItree tree;           /* over tile lifetimes */
} TaaIndex;

static void TaaIndex_free(TaaIndex *x) {
  free(x->tile_tensor);
  free(x->tile);
  TilesItree_free(&x->tree);
}

static Status TaaIndex_build(TaaIndex *x, const TaaTensor *t, int n, SpError *err) {
  *x = (TaaIndex){.t = t, .n = n};
  int total = 0;
  for (int i = 0; i < n; i++) total += t[i].ntiles;
  x->tile_tensor = malloc(sizeof(int) * (size_t)(total ? total : 1));
  x->tile = malloc(sizeof(TilesTile *) * (size_t)(total ? total : 1));
  int64_t *first = malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
  int64_t *last = malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
  Status st = SP_OK;
  if (!x->tile_tensor || !x->tile || !first || !last) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < t[i].ntiles; j++, k++) {
      x->tile_tensor[k] = i;
      x->tile[k] = &t[i].tiles[j];
      first[k] = t[i].tiles[j].first;
      last[k] = t[i].tiles[j].last;
    }
  x->ntiles = total;
  if (TilesItree_build(&x->tree, first, last, total)) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
out:
  free(first);
  free(last);
  if (st) TaaIndex_free(x);
  return st;
}

/* ---- sort orders ---------------------------------------------------------- */

typedef struct {
  int64_t key, first;
  int index;
} TaaKey;

static int TaaKey_cmp(const void *a, const void *b) {
  const TaaKey *x = a, *y = b;
  if (x->key != y->key) return x->key > y->key ? -1 : 1; /* descending */
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

typedef struct {
  int self, *stamp, stamp_value;
  const int *tile_tensor;
  int64_t count;
} PeerCount;

static void PeerCount_visit(int id, void *user) {
  PeerCount *pc = user;
  if (pc->tile_tensor[id] == pc->self || pc->stamp[id] == pc->stamp_value) return;
  pc->stamp[id] = pc->stamp_value;
  pc->count++;
}

static void Taa_hull(const TaaTensor *t, int64_t *first, int64_t *last) {
  *first = t->whole_first;
  *last = t->whole_last;
  for (int j = 0; j < t->ntiles; j++) {
    if (t->tiles[j].first < *first) *first = t->tiles[j].first;
    if (t->tiles[j].last > *last) *last = t->tiles[j].last;
  }
}

Status Taa_order(const TaaTensor *t, int n, TaaOrder order, int *out, SpError *err) {
  TaaKey *keys = malloc(sizeof *keys * (size_t)(n ? n : 1));
  if (!keys) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  TaaIndex x = {0};
  int *stamp = NULL;
  Status st = SP_OK;
  if (order == TAA_ORDER_PEERS) {
    if ((st = TaaIndex_build(&x, t, n, err))) goto out;
    stamp = calloc((size_t)(x.ntiles ? x.ntiles : 1), sizeof(int));
    if (!stamp) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
      goto out;
    }
  }
  for (int i = 0; i < n; i++) {
    int64_t first, last;
    Taa_hull(&t[i], &first, &last);
    keys[i] = (TaaKey){0, first, i};
    if (order == TAA_ORDER_SIZE) {
      keys[i].key = t[i].bytes;
    } else if (order == TAA_ORDER_LIFETIME) {
      keys[i].key = last - first;
    } else { /* peers: tiles of other tensors whose lifetimes meet one of its tiles */
      PeerCount pc = {i, stamp, i + 1, x.tile_tensor, 0};
      for (int j = 0; j < t[i].ntiles; j++)
        TilesItree_query(&x.tree, t[i].tiles[j].first, t[i].tiles[j].last, PeerCount_visit, &pc);
      keys[i].key = pc.count;
    }
  }
  qsort(keys, (size_t)n, sizeof *keys, TaaKey_cmp);
  for (int i = 0; i < n; i++) out[i] = keys[i].index;
out:
  free(keys);
  free(stamp);
  TaaIndex_free(&x);
  return st;
}

/* ---- Algorithm 1 ------------------------------------------------------------ */

typedef struct {
  int64_t lo, hi;
} Span;

static int Span_cmp(const void *a, const void *b) {
  const Span *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

typedef struct {
  int own;     /* local tile index in the tensor being placed */
  int peer;    /* flat tile id of an allocated peer */
} TaaPair;

typedef struct {
  const TaaIndex *x;
  const bool *placed;
  int self, own;
  TaaPair *pairs;
  int npairs, cap;
  bool nomem;
} PairCollect;

static void PairCollect_visit(int id, void *user) {
  PairCollect *pc = user;
  int owner = pc->x->tile_tensor[id];
  if (owner == pc->self || !pc->placed[owner]) return;
  if (pc->npairs == pc->cap) {
    int cap = pc->cap ? pc->cap * 2 : 64;
    TaaPair *p = realloc(pc->pairs, sizeof *p * (size_t)cap);
    if (!p) {
      pc->nomem = true;
      return;
    }
    pc->pairs = p;
    pc->cap = cap;
  }
  pc->pairs[pc->npairs++] = (TaaPair){pc->own, id};
}

Status Taa_allocate(const TaaTensor *t, int n, const int *order, int64_t *base, long *shifts, SpError *err) {
  return Taa_allocateUntil(t, n, order, 0, base, shifts, NULL, err);
}

Status Taa_allocateUntil(const TaaTensor *t, int n, const int *order, double deadline, int64_t *base, long *shifts,
                         int *nplaced, SpError *err) {
  if (nplaced) *nplaced = 0;
  TaaIndex x;
  Status st = TaaIndex_build(&x, t, n, err);
  if (st) return st;
  bool *placed = calloc((size_t)(n ? n : 1), sizeof(bool));
  Span *spans = malloc(sizeof(Span) * (size_t)(n ? n : 1));
  PairCollect pc = {.x = &x};
  long nshift = 0;
  if (!placed || !spans) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  pc.placed = placed;
  for (int oi = 0; oi < n; oi++) {
    /* line 2's scan is O(n) a tensor: 7.6 s on 50,000 tensors (issue 28) */
    if (oi % 64 == 0) Testhook_at("tiles.taa", NULL);
    if (deadline > 0 && oi % 64 == 0 && Clock_now() > deadline) {
      st = SpError_set(err, SP_ERR_LIMIT, "TAA placed %d of %d tensors when the time limit came", oi, n);
      goto out;
    }
    if (nplaced) *nplaced = oi;
    int i = order[oi];
    const TaaTensor *T = &t[i];
    /* line 2: the first gap of sufficient size among the placed tensors whose
     * whole lifetimes meet T's (the tiles are checked next) */
    int ns = 0;
    for (int k = 0; k < n; k++)
      if (placed[k] && t[k].whole_first <= T->whole_last && T->whole_first <= t[k].whole_last)
        spans[ns++] = (Span){base[k], base[k] + t[k].bytes};
    qsort(spans, (size_t)ns, sizeof *spans, Span_cmp);
    int64_t addr = 0;
    for (int k = 0; k < ns; k++) {
      if (spans[k].lo >= addr + T->bytes) break;
      if (spans[k].hi > addr) addr = spans[k].hi;
    }
    /* the peers: placed tiles whose lifetimes meet one of T's tiles */
    pc.self = i;
    pc.npairs = 0;
    for (int j = 0; j < T->ntiles; j++) {
      pc.own = j;
      TilesItree_query(&x.tree, T->tiles[j].first, T->tiles[j].last, PairCollect_visit, &pc);
    }
    if (pc.nomem) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
      goto out;
    }
    /* lines 3-20: shift T up by each collision's size until none is left.
     * The paper restarts the scan at the first pair after every shift; we go
     * on from the colliding pair, round the list, until a full round is clean.
     * Same address: a shift of CollisionSize(peer, T) only passes addresses
     * where that same chunk pair still overlaps (T's chunk starts below the
     * peer's end and ends above its start all the way), so no order of the
     * checks can step over a free address: both reach the lowest address at
     * or above the start where every pair is clear. */
    int clean = 0;
    for (int k = 0; clean < pc.npairs; ) {
      const TilesTile *own = &T->tiles[pc.pairs[k].own], *peer = x.tile[pc.pairs[k].peer];
      int64_t overlap = Tiles_collisionSize(peer->chunks, peer->nchunks, base[x.tile_tensor[pc.pairs[k].peer]],
                                            own->chunks, own->nchunks, addr);
      if (overlap) {
        addr += overlap;
        nshift++;
        clean = 0; /* this pair again: another of its chunks may meet now */
      } else {
        clean++;
        k = (k + 1) % pc.npairs;
      }
    }
    base[i] = addr;
    placed[i] = true;
  }
  if (nplaced) *nplaced = n;
out:
  if (shifts) *shifts = nshift;
  free(placed);
  free(spans);
  free(pc.pairs);
  TaaIndex_free(&x);
  return st;
}

/* ---- the model-level entry --------------------------------------------------- */

static TaaTensor *Offchip_taaTensors(const TilesModel *m) {
  TaaTensor *t = malloc(sizeof *t * (size_t)(m->ntensors ? m->ntensors : 1));
  if (!t) return NULL;
  for (int i = 0; i < m->ntensors; i++) {
    const TilesTensor *tt = &m->tensors[i];
    t[i] = (TaaTensor){tt->bytes, tt->whole_first, tt->whole_last, m->tiles + tt->tile0, tt->ntiles};
  }
  return t;
}

static int64_t Offchip_height(const TilesModel *m, const int64_t *base) {
  int64_t h = 0;
  for (int i = 0; i < m->ntensors; i++)
    if (base[i] + m->tensors[i].bytes > h) h = base[i] + m->tensors[i].bytes;
  return h;
}

/* The most bytes live at one tick, counting each tensor's live tiles' chunks
 * once (a union per tensor would be exact; the largest live tile is a bound). */
static int64_t Offchip_lowerBound(const TilesModel *m) {
  int64_t *delta = calloc((size_t)m->nticks + 1, sizeof(int64_t));
  if (!delta) return 0;
  /* per tensor and tick, the largest live tile: the whole tensor over its whole
   * range, else its live tiles summed (out tiles or in tiles are disjoint) */
  for (int i = 0; i < m->ntensors; i++) {
    const TilesTensor *tt = &m->tensors[i];
    for (int k = tt->tile0; k < tt->tile0 + tt->ntiles; k++) {
      const TilesTile *tl = &m->tiles[k];
      int64_t bytes = 0;
      for (int c = 0; c < tl->nchunks; c++) bytes += tl->chunks[c].size;
      int64_t a = tl->first, b = tl->last;
      if (tl->role != TILES_ROLE_WHOLE) { /* drop the ticks the whole tile covers */
        if (a >= tt->whole_first && a <= tt->whole_last) a = tt->whole_last + 1;
        if (b >= tt->whole_first && b <= tt->whole_last) b = tt->whole_first - 1;
      }
      if (a > b) continue;
      delta[a] += bytes;
      delta[b + 1] -= bytes;
    }
  }
  int64_t run = 0, best = 0;
  for (int64_t k = 0; k < m->nticks; k++) {
    run += delta[k];
    if (run > best) best = run;
  }
  free(delta);
  return best;
}

#ifdef SPADMAP_HAVE_PACK
static Status Offchip_pack(const TilesModel *m, OffchipMethod method, int64_t *base, SpError *err) {
  static const PackMethod map[OFFCHIP_METHOD_COUNT] = {PACK_SO_SIZE, PACK_SO_SIZE, PACK_SO_BREADTH, PACK_SO_IMPROVED,
                                                       PACK_OFFSET_SIZE};
  PackBuffer *b = malloc(sizeof *b * (size_t)(m->ntensors ? m->ntensors : 1));
  if (!b) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < m->ntensors; i++) /* whole-tensor lifetimes: the hull of its tiles */
    b[i] = (PackBuffer){m->tensors[i].first, m->tensors[i].last + 1, m->tensors[i].bytes, 1};
  PackOptions o;
  PackOptions_init(&o);
  o.method = map[method];
  PackResult r = {0};
  Status st = Pack_solve(b, m->ntensors, 0, &o, &r, err);
  if (!st && r.status != PACK_FOUND && r.status != PACK_OPTIMAL)
    st = SpError_set(err, SP_ERR_SOLVER, "%s gave no offsets (%s)", PackMethod_name(o.method),
                     PackResultStatus_name(r.status));
  if (!st) memcpy(base, r.offsets, sizeof(int64_t) * (size_t)m->ntensors);
  PackResult_free(&r);
  free(b);
  return st;
}
#else
static Status Offchip_pack(const TilesModel *m, OffchipMethod method, int64_t *base, SpError *err) {
  (void)m;
  (void)base;
  return SpError_set(err, SP_ERR_ARG, "method %s needs engine/pack, which this build does not have",
                     OffchipMethod_name(method));
}
#endif

Status Offchip_allocate(const TilesModel *m, const OffchipOptions *o, OffchipResult *r, SpError *err) {
  *r = (OffchipResult){.method = o->method, .taa_peak = -1};
  r->base = calloc((size_t)(m->ntensors ? m->ntensors : 1), sizeof(int64_t));
  if (!r->base) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  if ((unsigned)o->method >= OFFCHIP_METHOD_COUNT || (unsigned)o->order >= TAA_ORDER_COUNT) {
    OffchipResult_free(r);
    return SpError_set(err, SP_ERR_ARG, "unknown off-chip method or order");
  }
  double t0;
  Status st = SP_OK;
  if (o->method == OFFCHIP_TAA) {
    /* the best Shared Objects strategy first (the lowest, the first of equals):
     * a plan in hand if the deadline stops TAA */
    int64_t *so = NULL, so_peak = -1;
    OffchipMethod so_method = OFFCHIP_SO_SIZE;
    if (o->fallback) {
      int64_t *tmp = malloc(sizeof(int64_t) * (size_t)(m->ntensors ? m->ntensors : 1));
      so = malloc(sizeof(int64_t) * (size_t)(m->ntensors ? m->ntensors : 1));
      if (!tmp || !so) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
      for (int k = OFFCHIP_SO_SIZE; !st && k <= OFFCHIP_SO_IMPROVED; k++) {
        SpError e2;
        if (Offchip_pack(m, (OffchipMethod)k, tmp, &e2)) continue; /* a missing baseline: no fallback */
        int64_t h = Offchip_height(m, tmp);
        if (so_peak < 0 || h < so_peak) {
          memcpy(so, tmp, sizeof(int64_t) * (size_t)m->ntensors);
          so_peak = h;
          so_method = (OffchipMethod)k;
        }
      }
      free(tmp);
    }
    t0 = Clock_now();
    TaaTensor *t = Offchip_taaTensors(m);
    int *order = malloc(sizeof(int) * (size_t)(m->ntensors ? m->ntensors : 1));
    if (!st && (!t || !order)) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    if (!st && !(st = Taa_order(t, m->ntensors, o->order, order, err)))
      st = Taa_allocateUntil(t, m->ntensors, order, o->deadline, r->base, &r->shifts, &r->taa_placed, err);
    free(t);
    free(order);
    r->seconds = Clock_now() - t0; /* TAA's own time: the fallback check is not the allocator */
    if (!st) {
      r->taa_peak = Offchip_height(m, r->base);
      if (so_peak >= 0 && so_peak < r->taa_peak) { /* the best Shared Objects strategy is lower */
        memcpy(r->base, so, sizeof(int64_t) * (size_t)m->ntensors);
        r->method = so_method;
        r->fell_back = true;
      }
    } else if (st == SP_ERR_LIMIT && so_peak >= 0) { /* TAA stopped: the Shared Objects plan stands */
      memcpy(r->base, so, sizeof(int64_t) * (size_t)m->ntensors);
      r->method = so_method;
      r->stopped = true;
      st = SP_OK;
    }
    free(so);
  } else {
    t0 = Clock_now();
    st = Offchip_pack(m, o->method, r->base, err);
    r->seconds = Clock_now() - t0;
  }
  if (st) {
    OffchipResult_free(r);
    return st;
  }
  r->peak_bytes = Offchip_height(m, r->base);
  r->lower_bound = Offchip_lowerBound(m);
  return SP_OK;
}

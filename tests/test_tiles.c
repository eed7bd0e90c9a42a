/* engine/tiles: the TAA paper's worked examples (Section III.C), RenderChunks
 * and TensorAllocate against brute force, the tiling rule and lifetimes, and
 * every bundled network's off-chip plans through the plan's own validator. */
#include <stdlib.h>
#include <string.h>

#include "bundled.h"
#include "figures.h"
#include "solve.h"
#include "validate.h"
#include "test.h"
#include "tiles/tiles.h"

static TilesView View3(int64_t c, int64_t h, int64_t w, int64_t tc, int64_t th, int64_t tw, int64_t oc, int64_t oh,
                       int64_t ow) {
  TilesView v = {.rank = 3, .esize = 1};
  int64_t shape[3] = {c, h, w};
  Tiles_rowMajor(3, shape, v.strides);
  v.shape[0] = tc, v.shape[1] = th, v.shape[2] = tw;
  v.origin[0] = oc, v.origin[1] = oh, v.origin[2] = ow;
  return v;
}

/* III.C.1: a 4x64x128 tile of a 4x128x128 CHW tensor is four chunks of 8192 bytes. */
TEST(paper_render_chunks) {
  TilesView v = View3(4, 128, 128, 4, 64, 128, 0, 0, 0);
  CHECK_EQ(v.strides[0], 16384);
  CHECK_EQ(v.strides[1], 128);
  TilesChunk *c;
  int n;
  CHECK_EQ(Tiles_renderChunks(&v, &c, &n, NULL), SP_OK);
  CHECK_EQ(n, 4);
  const int64_t want[4] = {0, 16384, 32768, 49152};
  for (int i = 0; i < n && i < 4; i++) {
    CHECK_EQ(c[i].offset, want[i]);
    CHECK_EQ(c[i].size, 8192);
  }
  free(c);
}

/* III.C.2: the two tiles at bases 0 and 128 collide by 8064 bytes; called the
 * other way round (allocated first) it is the shift that clears the chunk, and
 * at that shift the two tiles interleave without a collision. */
TEST(paper_collision_size) {
  TilesView v = View3(4, 128, 128, 4, 64, 128, 0, 0, 0);
  TilesChunk *c;
  int n;
  CHECK_EQ(Tiles_renderChunks(&v, &c, &n, NULL), SP_OK);
  CHECK_EQ(Tiles_collisionSize(c, n, 0, c, n, 128), 8064);
  CHECK_EQ(Tiles_collisionSize(c, n, 0, c, n, 8192), 0); /* interleaved */
  CHECK_EQ(Tiles_collisionSize(c, n, 0, c, n, 8191), 1);
  /* lines 1-2: spans apart */
  CHECK_EQ(Tiles_collisionSize(c, n, 0, c, n, 57344), 0);
  CHECK_EQ(Tiles_collisionSize(c, n, 57344, c, n, 0), 0);
  free(c);
}

static TilesChunk *Render(const TilesView *v, int *n) {
  TilesChunk *c = NULL;
  if (Tiles_renderChunks(v, &c, n, NULL)) *n = 0;
  return c;
}

static char *Dup(const char *s) {
  char *d = malloc(strlen(s) + 1);
  if (d) strcpy(d, s);
  return d;
}

/* A placement of explicit tensors (no network) as an off-chip plan, through the
 * plan's own validator: chunks re-rendered from the views, inside their
 * tensors, no two tensors' chunks sharing a byte while both live. */
static Status Taa_validate(const TaaTensor *t, int n, const int64_t *base, SpError *err) {
  OffchipPlan *p = calloc(1, sizeof *p);
  int ntiles = 0;
  for (int i = 0; i < n; i++) ntiles += t[i].ntiles;
  p->network = Dup("synthetic");
  p->method = Dup("taa");
  p->order = Dup("size");
  p->tensors = calloc((size_t)n, sizeof *p->tensors);
  p->tiles = calloc((size_t)ntiles, sizeof *p->tiles);
  p->ntensors = n;
  for (int i = 0; i < n; i++) {
    OffchipPlanTensor *pt = &p->tensors[i];
    char name[32];
    snprintf(name, sizeof name, "t%d", i);
    pt->name = Dup(name);
    pt->base = base[i];
    pt->bytes = t[i].bytes;
    pt->tile0 = p->ntiles;
    pt->ntiles = t[i].ntiles;
    if (base[i] + t[i].bytes > p->peak_bytes) p->peak_bytes = base[i] + t[i].bytes;
    for (int k = 0; k < t[i].ntiles; k++) {
      const TilesTile *tl = &t[i].tiles[k];
      OffchipPlanTile *q = &p->tiles[p->ntiles++];
      q->tensor = i;
      q->role = tl->role;
      q->index = tl->role == TILES_ROLE_WHOLE ? 0 : tl->index;
      q->count = tl->role == TILES_ROLE_WHOLE ? 1 : (tl->count > tl->index ? tl->count : tl->index + 1);
      q->first = tl->first;
      q->last = tl->last;
      q->view = tl->view;
      q->nchunks = tl->nchunks;
      q->chunks = malloc(sizeof(TilesChunk) * (size_t)(tl->nchunks ? tl->nchunks : 1));
      memcpy(q->chunks, tl->chunks, sizeof(TilesChunk) * (size_t)tl->nchunks);
      if (tl->last + 1 > p->nticks) p->nticks = tl->last + 1;
    }
  }
  Status st = OffchipPlan_validate(p, NULL, err);
  OffchipPlan_free(p);
  return st;
}

/* III.C.3 in its self-consistent reading: the text tiles I into "four tiles of
 * size 4x64x128" (a 4x128x128 tensor has two such tiles) and then puts tile i2
 * at offset 16384 "completely to the right of o1", which holds for one-channel
 * tiles 1x128x128. Both readings are run: O is placed at 0 in each. */
static void Paper_allocate(int64_t tc, int64_t th, int k) {
  TilesTile tiles[2][9];
  TilesChunk *owned[18];
  int no = 0;
  memset(tiles, 0, sizeof tiles);
  for (int t = 0; t < 2; t++) {
    for (int j = 0; j < k; j++) {
      TilesTile *tl = &tiles[t][j];
      TilesView v = View3(4, 128, 128, tc, th, 128, tc == 1 ? j : 0, th == 128 ? 0 : j * th, 0);
      tl->view = v;
      tl->tensor = t;
      tl->role = t == 0 ? TILES_ROLE_IN : TILES_ROLE_OUT;
      tl->index = j;
      tl->count = k;
      /* I: i_j lives [0, j+1]; O: o_j lives [j+2, k+1] (the paper: o1 [2,5] for k = 4) */
      tl->first = t == 0 ? 0 : j + 2;
      tl->last = t == 0 ? j + 1 : k + 1;
      owned[no++] = (TilesChunk *)(tl->chunks = Render(&v, &tl->nchunks));
    }
    TilesTile *w = &tiles[t][k]; /* the whole tensor: I [0,0], O [k+1, k+1] */
    w->view = View3(4, 128, 128, 4, 128, 128, 0, 0, 0);
    w->tensor = t;
    w->role = TILES_ROLE_WHOLE;
    w->count = 1;
    w->first = w->last = t == 0 ? 0 : k + 1;
    owned[no++] = (TilesChunk *)(w->chunks = Render(&w->view, &w->nchunks));
  }
  TaaTensor ts[2] = {{65536, 0, 0, tiles[0], k + 1}, {65536, k + 1, k + 1, tiles[1], k + 1}};
  int order[2] = {0, 1};
  int64_t base[2] = {-1, -1};
  long shifts = -1;
  CHECK_EQ(Taa_allocate(ts, 2, order, base, &shifts, NULL), SP_OK);
  CHECK_EQ(base[0], 0);
  CHECK_EQ(base[1], 0); /* O at offset 0 */
  CHECK_EQ(shifts, 0);
  SpError err;
  CHECK_EQ(Taa_validate(ts, 2, base, &err), SP_OK);
  for (int i = 0; i < no; i++) free(owned[i]);
}

TEST(paper_tensor_allocate_channel_tiles) { Paper_allocate(1, 128, 4); }
TEST(paper_tensor_allocate_row_tiles) { Paper_allocate(4, 64, 2); }

/* A collision moves the tensor by CollisionSize: two tensors whose top-half
 * tiles are live together while their whole lifetimes are apart interleave:
 * the second lands at 8192 (the example's 8064 + its base 128). */
TEST(tensor_allocate_shifts) {
  TilesView top = View3(4, 128, 128, 4, 64, 128, 0, 0, 0), all = View3(4, 128, 128, 4, 128, 128, 0, 0, 0);
  TilesTile a[2] = {{0}}, b[2] = {{0}};
  a[0] = (TilesTile){.tensor = 0, .role = TILES_ROLE_IN, .count = 2, .first = 1, .last = 3, .view = top};
  a[1] = (TilesTile){.tensor = 0, .role = TILES_ROLE_WHOLE, .count = 1, .first = 0, .last = 1, .view = all};
  b[0] = (TilesTile){.tensor = 1, .role = TILES_ROLE_OUT, .count = 2, .first = 2, .last = 5, .view = top};
  b[1] = (TilesTile){.tensor = 1, .role = TILES_ROLE_WHOLE, .count = 1, .first = 5, .last = 6, .view = all};
  TilesChunk *own[4];
  own[0] = (TilesChunk *)(a[0].chunks = Render(&top, &a[0].nchunks));
  own[1] = (TilesChunk *)(a[1].chunks = Render(&all, &a[1].nchunks));
  own[2] = (TilesChunk *)(b[0].chunks = Render(&top, &b[0].nchunks));
  own[3] = (TilesChunk *)(b[1].chunks = Render(&all, &b[1].nchunks));
  TaaTensor ts[2] = {{65536, 0, 1, a, 2}, {65536, 5, 6, b, 2}};
  int order[2] = {0, 1};
  int64_t base[2];
  long shifts;
  CHECK_EQ(Taa_allocate(ts, 2, order, base, &shifts, NULL), SP_OK);
  CHECK_EQ(base[0], 0);
  CHECK_EQ(base[1], 8192);
  CHECK_EQ(shifts, 1);
  SpError err;
  CHECK_EQ(Taa_validate(ts, 2, base, &err), SP_OK);
  base[1] = 8191; /* one byte lower the top halves meet while both live */
  CHECK_EQ(Taa_validate(ts, 2, base, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "both live");
  for (int i = 0; i < 4; i++) free(own[i]);
}

/* RenderChunks against brute force: mark every element's bytes, compare with
 * the union of the chunks; chunks ascending, disjoint, not touching. */
TEST(render_chunks_brute_force) {
  unsigned seed = 12345;
  for (int trial = 0; trial < 300; trial++) {
    TilesView v = {.rank = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4};
    int64_t full[4];
    v.esize = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 3;
    for (int d = 0; d < v.rank; d++) {
      full[d] = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 6;
      v.shape[d] = 1 + ((seed = seed * 1103515245u + 12345u) >> 16) % full[d];
      v.origin[d] = ((seed = seed * 1103515245u + 12345u) >> 16) % (full[d] - v.shape[d] + 1);
    }
    if (trial % 3 == 0)
      Tiles_layoutStrides(TILES_LAYOUT_NHWC, v.rank, full, v.strides);
    else
      Tiles_rowMajor(v.rank, full, v.strides);
    int64_t total = v.esize;
    for (int d = 0; d < v.rank; d++) total *= full[d];
    unsigned char *mark = calloc((size_t)total, 1);
    int64_t idx[4] = {0};
    for (;;) {
      int64_t off = 0;
      for (int d = 0; d < v.rank; d++) off += (v.origin[d] + idx[d]) * v.strides[d];
      for (int64_t e = 0; e < v.esize; e++) mark[off * v.esize + e] = 1;
      int d = v.rank - 1;
      while (d >= 0 && ++idx[d] == v.shape[d]) idx[d--] = 0;
      if (d < 0) break;
    }
    int n;
    TilesChunk *c = Render(&v, &n);
    unsigned char *got = calloc((size_t)total, 1);
    for (int i = 0; i < n; i++) {
      CHECK(c[i].offset >= 0 && c[i].offset + c[i].size <= total);
      if (i) CHECK(c[i].offset > c[i - 1].offset + c[i - 1].size); /* merged when touching */
      for (int64_t b = c[i].offset; b < c[i].offset + c[i].size && b < total; b++) got[b] = 1;
    }
    CHECK(memcmp(mark, got, (size_t)total) == 0);
    free(c);
    free(mark);
    free(got);
  }
}

/* Algorithm 1 as printed, naively: the first gap among placed tensors whose
 * whole lifetimes meet, then restart the scan over every (tile, placed peer
 * tile) pair after each shift. */
static void Reference_allocate(const TaaTensor *t, int n, const int *order, int64_t *base) {
  bool placed[16] = {false};
  for (int oi = 0; oi < n; oi++) {
    int i = order[oi];
    int64_t addr = 0;
    for (bool moved = true; moved;) { /* first fit over whole lifetimes */
      moved = false;
      for (int k = 0; k < n; k++)
        if (placed[k] && t[k].whole_first <= t[i].whole_last && t[i].whole_first <= t[k].whole_last &&
            base[k] < addr + t[i].bytes && addr < base[k] + t[k].bytes)
          addr = base[k] + t[k].bytes, moved = true;
    }
    for (int64_t overlap = -1; overlap != 0;) {
      overlap = 0;
      for (int a = 0; a < t[i].ntiles && !overlap; a++)
        for (int k = 0; k < n && !overlap; k++)
          for (int b = 0; placed[k] && k != i && b < t[k].ntiles && !overlap; b++) {
            const TilesTile *x = &t[i].tiles[a], *y = &t[k].tiles[b];
            if (x->last < y->first || y->last < x->first) continue;
            overlap = Tiles_collisionSize(y->chunks, y->nchunks, base[k], x->chunks, x->nchunks, addr);
          }
      addr += overlap;
    }
    base[i] = addr;
    placed[i] = true;
  }
}

/* TensorAllocate on random tensors against brute force: no two tiles of
 * different tensors share a byte while both live; and the same addresses as
 * the paper's loop run naively (the interval tree and the cyclic scan change
 * the work, not the result). The naive first fit above differs from a gap
 * scan only in how it walks; both return the lowest gap, so they agree too. */
TEST(tensor_allocate_brute_force) {
  unsigned seed = 777;
#define RND(n) ((int)(((seed = seed * 1103515245u + 12345u) >> 16) % (unsigned)(n)))
  for (int trial = 0; trial < 200; trial++) {
    enum { NT = 6, MAXK = 4 };
    TilesTile tiles[NT][MAXK + 1];
    TaaTensor ts[NT];
    TilesChunk *own[NT * (MAXK + 1)];
    int no = 0;
    for (int t = 0; t < NT; t++) {
      int64_t full[3] = {1 + RND(4), 2 + RND(6), 1 + RND(5)};
      int k = 1 + RND(MAXK);
      if (k > full[1]) k = (int)full[1];
      int64_t t0 = RND(20);
      for (int j = 0; j <= k; j++) {
        TilesTile *tl = &tiles[t][j];
        memset(tl, 0, sizeof *tl);
        TilesView v = {.rank = 3, .esize = 1};
        Tiles_rowMajor(3, full, v.strides);
        memcpy(v.shape, full, sizeof full);
        if (j < k) {
          v.origin[1] = full[1] * j / k;
          v.shape[1] = full[1] * (j + 1) / k - v.origin[1];
          tl->first = t0 + RND(4);
          tl->last = tl->first + RND(8);
          tl->role = TILES_ROLE_IN;
        } else {
          tl->first = t0;
          tl->last = t0 + RND(3);
          tl->role = TILES_ROLE_WHOLE;
        }
        tl->view = v;
        tl->tensor = t;
        own[no++] = (TilesChunk *)(tl->chunks = Render(&v, &tl->nchunks));
      }
      ts[t] = (TaaTensor){full[0] * full[1] * full[2], tiles[t][k].first, tiles[t][k].last, tiles[t], k + 1};
    }
    int order[NT];
    int64_t base[NT];
    CHECK_EQ(Taa_order(ts, NT, (TaaOrder)(trial % TAA_ORDER_COUNT), order, NULL), SP_OK);
    CHECK_EQ(Taa_allocate(ts, NT, order, base, NULL, NULL), SP_OK);
    int64_t ref[NT];
    Reference_allocate(ts, NT, order, ref);
    for (int i = 0; i < NT; i++) CHECK_EQ(base[i], ref[i]);
    SpError err;
    Status vst = Taa_validate(ts, NT, base, &err);
    if (vst) printf("  trial %d: %s\n", trial, err.text);
    CHECK_EQ(vst, SP_OK);
    for (int a = 0; a < NT; a++)
      for (int b = a + 1; b < NT; b++)
        for (int i = 0; i < ts[a].ntiles; i++)
          for (int j = 0; j < ts[b].ntiles; j++) {
            const TilesTile *x = &ts[a].tiles[i], *y = &ts[b].tiles[j];
            if (x->last < y->first || y->last < x->first) continue;
            for (int p = 0; p < x->nchunks; p++)
              for (int q = 0; q < y->nchunks; q++) {
                int64_t s1 = base[a] + x->chunks[p].offset, e1 = s1 + x->chunks[p].size;
                int64_t s2 = base[b] + y->chunks[q].offset, e2 = s2 + y->chunks[q].size;
                CHECK(e1 <= s2 || e2 <= s1);
              }
          }
    for (int i = 0; i < no; i++) free(own[i]);
  }
#undef RND
}

TEST(tiling_rule) {
  CHECK_EQ(Tiles_opTileCount(100, 0, 10), 1);
  CHECK_EQ(Tiles_opTileCount(100, 100, 10), 1);
  CHECK_EQ(Tiles_opTileCount(101, 100, 10), 2);
  CHECK_EQ(Tiles_opTileCount(1000, 100, 10), 10);
  CHECK_EQ(Tiles_opTileCount(5000, 100, 10), 10); /* capped at the split extent */
  const int64_t nchw[4] = {1, 64, 56, 56}, vec[2] = {1, 1000}, pix[4] = {1, 512, 1, 1}, one[1] = {1};
  CHECK_EQ(Tiles_splitAxis(4, nchw), 2);
  CHECK_EQ(Tiles_splitAxis(2, vec), 1);
  CHECK_EQ(Tiles_splitAxis(4, pix), 1);
  CHECK_EQ(Tiles_splitAxis(1, one), -1);
  int64_t s[4];
  Tiles_layoutStrides(TILES_LAYOUT_NHWC, 4, nchw, s);
  CHECK_EQ(s[0], 56 * 56 * 64);
  CHECK_EQ(s[1], 1);
  CHECK_EQ(s[2], 56 * 64);
  CHECK_EQ(s[3], 64);
}

/* A chain of unary ops with a hand-set tile count: lifetimes follow the
 * header's tick rules exactly. */
static const char Chain_net[] =
    "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"c\", \"tensors\": ["
    "{\"name\": \"x\", \"shape\": [4,128,128], \"kind\": \"input\"},"
    "{\"name\": \"y\", \"shape\": [4,128,128]},"
    "{\"name\": \"z\", \"shape\": [4,128,128], \"kind\": \"output\"}],"
    "\"ops\": [{\"name\": \"a\", \"type\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"tiles\": 2},"
    "{\"name\": \"b\", \"type\": \"relu\", \"inputs\": [\"y\"], \"outputs\": [\"z\"]}]}";

TEST(lifetimes_of_a_tiled_chain) {
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(Chain_net, strlen(Chain_net), "chain", &net, &err), SP_OK);
  if (!net) return;
  TilesOptions o;
  TilesOptions_init(&o);
  o.capacity = 65536 * 2; /* b fits (two tensors); a has its file's 2 tiles */
  TilesModel *m;
  CHECK_EQ(Tiles_build(net, &o, &m, &err), SP_OK);
  CHECK_EQ(m->ops[0].ntiles, 2);
  CHECK(m->ops[0].from_file);
  CHECK_EQ(m->ops[1].ntiles, 1);
  CHECK_EQ(m->nsubsteps, 3);
  CHECK_EQ(m->nticks, 8);
  CHECK_EQ(m->ntensors, 3);
  /* x: whole [0, 1] (a reads its first tile at tick 1), in tiles to ticks 1 and 3 */
  const TilesTensor *x = &m->tensors[0], *y = &m->tensors[1], *z = &m->tensors[2];
  CHECK_EQ(x->whole_first, 0);
  CHECK_EQ(x->whole_last, 1);
  CHECK_EQ(x->ntiles, 3);
  CHECK_EQ(m->tiles[x->tile0 + 1].role, TILES_ROLE_IN);
  CHECK_EQ(m->tiles[x->tile0 + 1].last, 1);
  CHECK_EQ(m->tiles[x->tile0 + 2].last, 3);
  /* y: out tiles written at 2 and 4, whole [4, 5] (b reads at 5) */
  CHECK_EQ(y->ntiles, 3);
  CHECK_EQ(m->tiles[y->tile0].role, TILES_ROLE_OUT);
  CHECK_EQ(m->tiles[y->tile0].first, 2);
  CHECK_EQ(m->tiles[y->tile0 + 1].first, 4);
  CHECK_EQ(y->whole_first, 4);
  CHECK_EQ(y->whole_last, 5);
  /* z: an output, whole from its write (6) to the last tick (7) */
  CHECK_EQ(z->whole_first, 6);
  CHECK_EQ(z->whole_last, 7);
  /* the row tiles of a 4x128x128 tensor are four stripes each */
  CHECK_EQ(m->tiles[y->tile0].nchunks, 4);
  OffchipOptions oo;
  OffchipOptions_init(&oo);
  OffchipResult r;
  CHECK_EQ(Offchip_allocate(m, &oo, &r, &err), SP_OK);
  /* y's first half goes beside x's live second half (same rows, so at the same
   * base), z reuses both: one tensor's bytes, which is also the lower bound */
  CHECK_EQ(r.peak_bytes, 65536);
  CHECK_EQ(r.lower_bound, 65536);
  OffchipPlan *p;
  CHECK_EQ(OffchipPlan_fromModel(m, &r, &oo, &p, &err), SP_OK);
  CHECK_EQ(OffchipPlan_validate(p, net, &err), SP_OK);
  OffchipPlan_free(p);
  OffchipResult_free(&r);
  Tiles_free(m);
  Net_free(net);
}

/* A plan's JSON reads back to the same plan, validates, and a tampered one is
 * caught: a moved base, a changed chunk, a wrong peak. */
TEST(plan_json_round_trip_and_tampering) {
  Net *net = Bundled_load("squeezenet1_0");
  if (!net) {
    CHECK(net);
    return;
  }
  TilesOptions o;
  TilesOptions_init(&o);
  o.capacity = Figures_minRequired(net, false) / 4;
  o.layout = TILES_LAYOUT_NHWC;
  TilesModel *m;
  SpError err;
  CHECK_EQ(Tiles_build(net, &o, &m, &err), SP_OK);
  OffchipOptions oo;
  OffchipOptions_init(&oo);
  oo.fallback = false;
  OffchipResult r;
  CHECK_EQ(Offchip_allocate(m, &oo, &r, &err), SP_OK);
  OffchipPlan *p, *q;
  char *text;
  CHECK_EQ(OffchipPlan_fromModel(m, &r, &oo, &p, &err), SP_OK);
  CHECK_EQ(OffchipPlan_toJson(p, &text, &err), SP_OK);
  CHECK(OffchipPlan_sniff(text, strlen(text)));
  CHECK(!OffchipPlan_sniff("{\"format\": \"spadmap-plan\"}", 26));
  CHECK_EQ(OffchipPlan_parse(text, strlen(text), "rt", &q, &err), SP_OK);
  CHECK_EQ(OffchipPlan_validate(q, net, &err), SP_OK);
  CHECK_EQ(q->ntiles, p->ntiles);
  CHECK_EQ(q->peak_bytes, p->peak_bytes);
  /* move the largest tensor onto a tensor live at its time: a collision */
  int big = 0;
  for (int i = 1; i < q->ntensors; i++)
    if (q->tensors[i].bytes > q->tensors[big].bytes) big = i;
  int64_t saved = q->tensors[big].base, saved_peak = q->peak_bytes;
  int moved = 0;
  for (int i = 0; i < q->ntensors && !moved; i++) {
    if (i == big) continue;
    q->tensors[big].base = q->tensors[i].base;
    q->peak_bytes = 0; /* keep the peak right, so only the collision is wrong */
    for (int k = 0; k < q->ntensors; k++)
      if (q->tensors[k].base + q->tensors[k].bytes > q->peak_bytes) q->peak_bytes = q->tensors[k].base + q->tensors[k].bytes;
    if (OffchipPlan_validate(q, NULL, &err) == SP_ERR_FORMAT && strstr(err.text, "both live")) moved = 1;
  }
  CHECK(moved);
  q->tensors[big].base = saved;
  q->peak_bytes = saved_peak;
  q->tiles[0].chunks[0].size += 1;
  CHECK_EQ(OffchipPlan_validate(q, NULL, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "chunks differ");
  q->tiles[0].chunks[0].size -= 1;
  q->peak_bytes += 1;
  CHECK_EQ(OffchipPlan_validate(q, NULL, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "peak_bytes");
  q->peak_bytes -= 1;
  CHECK_EQ(OffchipPlan_validate(q, NULL, &err), SP_OK);
  /* a tile freed early is not what the network's tiling gives */
  int k = 0;
  while (k < q->ntiles && q->tiles[k].first == q->tiles[k].last) k++;
  CHECK(k < q->ntiles);
  if (k < q->ntiles) {
    q->tiles[k].last--;
    CHECK_EQ(OffchipPlan_validate(q, net, &err), SP_ERR_FORMAT);
    CHECK_HAS(err.text, "the network's tiling gives");
    q->tiles[k].last++;
    CHECK_EQ(OffchipPlan_validate(q, net, &err), SP_OK);
  }
  /* malformed documents name the path */
  const char *bad = "{\"format\": \"spadmap-offchip\", \"version\": 2}";
  OffchipPlan *r2 = NULL;
  CHECK_EQ(OffchipPlan_parse(bad, strlen(bad), "bad", &r2, &err), SP_ERR_FORMAT);
  CHECK(r2 == NULL);
  CHECK_HAS(err.text, "version");
  free(text);
  OffchipPlan_free(p);
  OffchipPlan_free(q);
  OffchipResult_free(&r);
  Tiles_free(m);
  Net_free(net);
}

/* A deadline already past (issue 28): TAA places nothing (SP_ERR_LIMIT alone);
 * with the fallback the best Shared Objects plan stands, marked stopped, valid,
 * as low as the lowest strategy run on its own. */
TEST(taa_deadline_past) {
  Net *net = Bundled_load("squeezenet1_0");
  if (!net) {
    CHECK(net);
    return;
  }
  TilesOptions o;
  TilesOptions_init(&o);
  o.capacity = Figures_minRequired(net, false) / 4;
  TilesModel *m;
  SpError err;
  CHECK_EQ(Tiles_build(net, &o, &m, &err), SP_OK);
  OffchipOptions oo;
  OffchipOptions_init(&oo);
  oo.deadline = 1e-9; /* long past on the monotonic clock */
  oo.fallback = false;
  OffchipResult r;
  CHECK_EQ(Offchip_allocate(m, &oo, &r, &err), SP_ERR_LIMIT);
  CHECK_HAS(err.text, "TAA placed 0 of");
  oo.fallback = true;
  int64_t best = -1;
  for (int k = OFFCHIP_SO_SIZE; k <= OFFCHIP_SO_IMPROVED; k++) {
    OffchipOptions so;
    OffchipOptions_init(&so);
    so.method = (OffchipMethod)k;
    OffchipResult rs;
    if (Offchip_allocate(m, &so, &rs, &err)) continue; /* engine/pack not built */
    if (best < 0 || rs.peak_bytes < best) best = rs.peak_bytes;
    OffchipResult_free(&rs);
  }
  if (best >= 0) {
    CHECK_EQ(Offchip_allocate(m, &oo, &r, &err), SP_OK);
    CHECK(r.stopped);
    CHECK(!r.fell_back);
    CHECK_EQ(r.taa_placed, 0);
    CHECK(r.method != OFFCHIP_TAA);
    CHECK_EQ(r.peak_bytes, best);
    OffchipPlan *p;
    CHECK_EQ(OffchipPlan_fromModel(m, &r, &oo, &p, &err), SP_OK);
    CHECK_EQ(OffchipPlan_validate(p, net, &err), SP_OK);
    OffchipPlan_free(p);
    OffchipResult_free(&r);
  }
  Tiles_free(m);
  Net_free(net);
}

/* The tile shape rule's dimension, by hand: rows cut H whatever the layout;
 * outer cuts the dimension of largest stride (C of NCHW, H of NHWC, the
 * block axis of the paper's Table 3 tensors), skipping extents of 1. */
TEST(tile_shape_axis) {
  int64_t nchw[4] = {1, 32, 55, 55}, s[4];
  Tiles_layoutStrides(TILES_LAYOUT_ROW_MAJOR, 4, nchw, s);
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_ROWS, 4, nchw, s), 2);
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_OUTER, 4, nchw, s), 1);
  Tiles_layoutStrides(TILES_LAYOUT_NHWC, 4, nchw, s);
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_ROWS, 4, nchw, s), 2);
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_OUTER, 4, nchw, s), 2); /* H: stride 55*32 */
  const int64_t t3[4] = {4, 55, 55, 32}, t3s[4] = {96800, 1760, 32, 1}; /* Table 3's fire3/concat */
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_OUTER, 4, t3, t3s), 0);
  int64_t chw[3] = {4, 128, 128};
  Tiles_layoutStrides(TILES_LAYOUT_ROW_MAJOR, 3, chw, s);
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_ROWS, 3, chw, s), 1);
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_OUTER, 3, chw, s), 0);
  int64_t ones[2] = {1, 1};
  Tiles_layoutStrides(TILES_LAYOUT_ROW_MAJOR, 2, ones, s);
  CHECK_EQ(Tiles_tileAxis(TILES_SHAPE_OUTER, 2, ones, s), -1);
  TilesShape sh;
  CHECK(TilesShape_parse("outer", &sh) && sh == TILES_SHAPE_OUTER);
  CHECK(TilesShape_parse("rows", &sh) && sh == TILES_SHAPE_ROWS);
  CHECK(!TilesShape_parse("cols", &sh));
  CHECK_EQ(strcmp(TilesShape_name(TILES_SHAPE_OUTER), "outer"), 0);
}

/* III.C.3's network (one unary op on a 4x128x128 int8 tensor, four tiles) under
 * both rules: the paper's (outer: tile j is plane j, one chunk at 16384*j) and
 * ours (rows: 4x32x128, four chunks of 4096). TAA puts O at 0 in both (peak
 * 65536 = the lower bound); offset-size and Shared Objects, which see I and O
 * live together, need both (131072): all tile-awareness, no offset gain. */
static const char Unary_net[] =
    "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"u\", \"tensors\": ["
    "{\"name\": \"I\", \"shape\": [4,128,128], \"kind\": \"input\"},"
    "{\"name\": \"O\", \"shape\": [4,128,128], \"kind\": \"output\"}],"
    "\"ops\": [{\"name\": \"a\", \"type\": \"relu\", \"inputs\": [\"I\"], \"outputs\": [\"O\"]}]}";

TEST(tile_shape_paper_example) {
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(Unary_net, strlen(Unary_net), "u", &net, &err), SP_OK);
  if (!net) return;
  for (int shape = 0; shape < TILES_SHAPE_COUNT; shape++) {
    TilesOptions o;
    TilesOptions_init(&o);
    o.capacity = 32768; /* 131072 working bytes: four tiles */
    o.shape = (TilesShape)shape;
    TilesModel *m;
    CHECK_EQ(Tiles_build(net, &o, &m, &err), SP_OK);
    CHECK_EQ(m->ops[0].ntiles, 4);
    CHECK_EQ(m->tensors[0].axis, shape == TILES_SHAPE_OUTER ? 0 : 1);
    CHECK_EQ(m->tensors[0].ntiles, 5); /* whole + four in tiles */
    const TilesTile *i1 = &m->tiles[m->tensors[0].tile0 + 2]; /* in tile 1 (after the whole tile) */
    CHECK_EQ(i1->role, TILES_ROLE_IN);
    CHECK_EQ(i1->index, 1);
    if (shape == TILES_SHAPE_OUTER) {
      CHECK_EQ(i1->nchunks, 1);
      CHECK_EQ(i1->chunks[0].offset, 16384); /* "tile i2 has an offset of 16384" */
      CHECK_EQ(i1->chunks[0].size, 16384);
      CHECK_EQ(m->nchunks, 2 + 4 + 4);
    } else {
      CHECK_EQ(i1->nchunks, 4);
      CHECK_EQ(i1->chunks[0].offset, 32 * 128);
      CHECK_EQ(i1->chunks[1].offset, 16384 + 32 * 128);
      CHECK_EQ(i1->chunks[0].size, 4096);
      CHECK_EQ(m->nchunks, 2 + 16 + 16);
    }
    const int64_t want[OFFCHIP_METHOD_COUNT] = {65536, 131072, 131072, 131072, 131072};
    for (int k = 0; k < OFFCHIP_METHOD_COUNT; k++) {
      OffchipOptions oo;
      OffchipOptions_init(&oo);
      oo.method = (OffchipMethod)k;
      oo.fallback = false;
      OffchipResult r;
      if (Offchip_allocate(m, &oo, &r, &err)) { /* engine/pack not built: only TAA runs */
        CHECK(k != OFFCHIP_TAA);
        continue;
      }
      CHECK_EQ(r.peak_bytes, want[k]);
      CHECK_EQ(r.lower_bound, 65536);
      OffchipPlan *p;
      CHECK_EQ(OffchipPlan_fromModel(m, &r, &oo, &p, &err), SP_OK);
      CHECK_EQ(p->shape, (TilesShape)shape);
      CHECK_EQ(OffchipPlan_validate(p, net, &err), SP_OK);
      if (k == OFFCHIP_TAA) { /* the rule travels with the plan: JSON and back, and a plan cut the other way is refused */
        char *text;
        CHECK_EQ(OffchipPlan_toJson(p, &text, &err), SP_OK);
        CHECK_HAS(text, shape == TILES_SHAPE_OUTER ? "\"tile_shape\": \"outer\"" : "\"tile_shape\": \"rows\"");
        OffchipPlan *q;
        CHECK_EQ(OffchipPlan_parse(text, strlen(text), "rt", &q, &err), SP_OK);
        if (q) {
          CHECK_EQ(q->shape, (TilesShape)shape);
          CHECK_EQ(OffchipPlan_validate(q, net, &err), SP_OK);
          q->shape = shape == TILES_SHAPE_OUTER ? TILES_SHAPE_ROWS : TILES_SHAPE_OUTER;
          CHECK_EQ(OffchipPlan_validate(q, net, &err), SP_ERR_FORMAT);
          OffchipPlan_free(q);
        }
        char *bad = strstr(text, shape == TILES_SHAPE_OUTER ? "\"outer\"" : "\"rows\"");
        if (bad) memcpy(bad + 1, "xx", 2);
        CHECK_EQ(OffchipPlan_parse(text, strlen(text), "bad", &q, &err), SP_ERR_FORMAT);
        CHECK_HAS(err.text, "tile_shape");
        free(text);
      }
      OffchipPlan_free(p);
      OffchipResult_free(&r);
    }
    Tiles_free(m);
    /* the tiled network cuts the same dimension: four sub-steps, each a quarter */
    Net *tn;
    CHECK_EQ(Tiles_tiledNet(net, &o, &tn, NULL, &err), SP_OK);
    if (tn) {
      CHECK_EQ(tn->nops, 4);
      CHECK_EQ(tn->ntensors, 8);
      CHECK_EQ(tn->tensors[0].shape[0], shape == TILES_SHAPE_OUTER ? 1 : 4);
      CHECK_EQ(tn->tensors[0].shape[1], shape == TILES_SHAPE_OUTER ? 128 : 32);
      CHECK(Figures_minRequired(tn, false) <= 32768);
      Net_free(tn);
    }
  }
  Net_free(net);
}

/* Keeps the test fast (and under valgrind): a network tiled into more chunks is
 * left to `spadmap bench taa`, which validates every plan it makes. */
enum { TEST_MAX_CHUNKS = 60000 };

/* Every bundled network, two on-chip sizes, both layouts (and the paper's tile
 * shape in NCHW at M_R/16): TAA in all three
 * orders and every baseline give plans the validator accepts; TAA (with its
 * fallback) is never above the best Shared Objects strategy. */
TEST(bundled_networks_validate) {
  static BundledStem stems[BUNDLED_MAX];
  int count = Bundled_stems(stems, BUNDLED_MAX);
  CHECK(count > 0);
  int nets = 0;
  for (int net_k = 0; net_k < count; net_k++) {
    const char *stem = stems[net_k];
    Net *net = Bundled_load(stem);
    CHECK(net);
    if (!net) continue;
    nets++;
    int64_t mr = Figures_minRequired(net, false);
    for (int setting = 0; setting < 5; setting++) {
      TilesOptions o;
      TilesOptions_init(&o);
      o.capacity = setting % 2 ? mr / 4 : mr / 16;
      o.layout = setting / 2 == 1 ? TILES_LAYOUT_NHWC : TILES_LAYOUT_ROW_MAJOR;
      if (setting == 4) o.shape = TILES_SHAPE_OUTER; /* the paper's rule in NCHW: channel tiles, one chunk each */
      TilesModel *m;
      SpError err;
      if (Tiles_build(net, &o, &m, &err)) {
        printf("  %s: %s\n", stem, err.text);
        CHECK(0);
        continue;
      }
      if (m->nchunks > TEST_MAX_CHUNKS) { /* row-major stripes of the largest nets: bench taa checks them */
        Tiles_free(m);
        continue;
      }
      int64_t best_so = INT64_MAX;
      bool have_so = false;
      for (int k = OFFCHIP_SO_SIZE; k < OFFCHIP_METHOD_COUNT; k++) {
        OffchipOptions oo;
        OffchipOptions_init(&oo);
        oo.method = (OffchipMethod)k;
        OffchipResult r;
        if (Offchip_allocate(m, &oo, &r, &err)) continue; /* engine/pack not built */
        OffchipPlan *p;
        CHECK_EQ(OffchipPlan_fromModel(m, &r, &oo, &p, &err), SP_OK);
        if (OffchipPlan_validate(p, net, &err)) {
          printf("  %s %s: %s\n", stem, OffchipMethod_name(oo.method), err.text);
          CHECK(0);
        }
        if (k <= OFFCHIP_SO_IMPROVED && r.peak_bytes < best_so) best_so = r.peak_bytes, have_so = true;
        OffchipPlan_free(p);
        OffchipResult_free(&r);
      }
      for (int ord = 0; ord < TAA_ORDER_COUNT; ord++) {
        OffchipOptions oo;
        OffchipOptions_init(&oo);
        oo.order = (TaaOrder)ord;
        OffchipResult r;
        CHECK_EQ(Offchip_allocate(m, &oo, &r, &err), SP_OK);
        OffchipPlan *p;
        CHECK_EQ(OffchipPlan_fromModel(m, &r, &oo, &p, &err), SP_OK);
        if (OffchipPlan_validate(p, net, &err)) {
          printf("  %s taa/%s: %s\n", stem, TaaOrder_name(oo.order), err.text);
          CHECK(0);
        }
        CHECK(r.peak_bytes >= r.lower_bound);
        if (have_so && r.peak_bytes > best_so) {
          printf("  %s taa/%s: %lld above Shared Objects %lld\n", stem, TaaOrder_name(oo.order),
                 (long long)r.peak_bytes, (long long)best_so);
          CHECK(0);
        }
        OffchipPlan_free(p);
        OffchipResult_free(&r);
      }
      Tiles_free(m);
    }
    Net_free(net);
  }
  CHECK(nets >= 30);
}

/* Below M_R: every bundled network's tiled network at M_R/4 has its M_R within
 * the budget, and the default policies' plan of it at that budget passes the
 * engine's validator (the explorer's staging path). */
TEST(tiled_networks_solve_below_mr) {
  static BundledStem stems[BUNDLED_MAX];
  int count = Bundled_stems(stems, BUNDLED_MAX);
  CHECK(count > 0);
  int nets = 0;
  for (int net_k = 0; net_k < count; net_k++) {
    const char *stem = stems[net_k];
    Net *net = Bundled_load(stem);
    if (!net) {
      CHECK(net);
      continue;
    }
    TilesOptions o;
    TilesOptions_init(&o);
    o.capacity = Figures_minRequired(net, false) / 4;
    Net *tn;
    SpError err;
    if (Tiles_tiledNet(net, &o, &tn, NULL, &err)) {
      printf("  %s: %s\n", stem, err.text);
      CHECK(0);
      Net_free(net);
      continue;
    }
    nets++;
    CHECK(tn->nops >= net->nops);
    CHECK(Figures_minRequired(tn, false) <= o.capacity);
    if (tn->nops <= 1500) { /* the largest are left to the CLI (cli_test.sh solves one) */
      SolveSettings s;
      SolveSettings_init(&s);
      s.budget = o.capacity;
      Plan *plan = NULL;
      if (Solve_run(tn, &s, &plan, &err)) {
        printf("  %s tiled: %s\n", stem, err.text);
        CHECK(0);
      } else {
        ValidateReport r;
        if (Validate_plan(tn, plan, &r) != SP_OK) {
          printf("  %s tiled: %s\n", stem, r.nlines ? r.lines[0] : "invalid");
          CHECK(0);
        }
        ValidateReport_free(&r);
      }
      Plan_free(plan);
    }
    Net_free(tn);
    Net_free(net);
  }
  CHECK(nets >= 30);
}

/* The file's "bytes" and "strides" as formats.md means them: a larger "bytes"
 * is the buffer allocated; a smaller one cannot hold the elements (both were
 * ignored: 65536 either way); a stride of 0 aliases elements (it made a chunk
 * per byte). */
TEST(bytes_override_and_aliasing_strides) {
  static const char *const ys[] = {"\"bytes\": 100000", "\"bytes\": 10", "\"strides\": [0, 128, 1]"};
  for (int c = 0; c < 3; c++) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"c\", \"tensors\": ["
             "{\"name\": \"x\", \"shape\": [4,128,128], \"kind\": \"input\"},"
             "{\"name\": \"y\", \"shape\": [4,128,128], %s},"
             "{\"name\": \"z\", \"shape\": [4,128,128], \"kind\": \"output\"}],"
             "\"ops\": [{\"name\": \"a\", \"type\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
             "{\"name\": \"b\", \"type\": \"relu\", \"inputs\": [\"y\"], \"outputs\": [\"z\"]}]}",
             ys[c]);
    Net *net = NULL;
    SpError err;
    CHECK_EQ(Net_parse(text, strlen(text), "c", &net, &err), SP_OK);
    if (!net) continue;
    TilesOptions o;
    TilesOptions_init(&o);
    o.capacity = 65536;
    TilesModel *m = NULL;
    Status st = Tiles_build(net, &o, &m, &err);
    if (c == 0) {
      CHECK_EQ(st, SP_OK);
      if (m) CHECK_EQ(m->tensors[1].bytes, 100000); /* x, y, z: y is the second */
    } else {
      CHECK_EQ(st, SP_ERR_ARG);
      CHECK_HAS(err.text, c == 1 ? "\"bytes\" 10 is less than its elements span (65536 bytes" : "strides[0] is 0");
    }
    Tiles_free(m);
    Net_free(net);
  }
}

TEST_MAIN("tiles", T(paper_render_chunks), T(paper_collision_size), T(paper_tensor_allocate_channel_tiles),
          T(paper_tensor_allocate_row_tiles), T(tensor_allocate_shifts), T(render_chunks_brute_force),
          T(tensor_allocate_brute_force), T(tiling_rule), T(lifetimes_of_a_tiled_chain),
          T(plan_json_round_trip_and_tampering), T(taa_deadline_past), T(tile_shape_axis), T(tile_shape_paper_example),
          T(bundled_networks_validate),
          T(tiled_networks_solve_below_mr), T(bytes_override_and_aliasing_strides))

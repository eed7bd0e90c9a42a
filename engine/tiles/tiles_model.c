/* Tiles_build: the tiling rule, each tensor's tiles, their lifetimes and chunks. */
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "tiles.h"
#include "tiles_internal.h"

void TilesOptions_init(TilesOptions *o) {
  o->capacity = 0;
  o->layout = TILES_LAYOUT_ROW_MAJOR;
  o->shape = TILES_SHAPE_ROWS;
  o->order = NULL;
  o->file_tiles_at_least = false;
  o->progress = NULL;
  o->progress_user = NULL;
}

static const char *const Tiles_layoutNames[TILES_LAYOUT_COUNT] = {"nchw", "nhwc"};
const char *TilesLayout_name(TilesLayout l) { return (unsigned)l < TILES_LAYOUT_COUNT ? Tiles_layoutNames[l] : "?"; }
bool TilesLayout_parse(const char *s, TilesLayout *l) {
  for (int i = 0; i < TILES_LAYOUT_COUNT; i++)
    if (strcmp(s, Tiles_layoutNames[i]) == 0) return *l = (TilesLayout)i, true;
  return false;
}

static const char *const Tiles_shapeNames[TILES_SHAPE_COUNT] = {"rows", "outer"};
const char *TilesShape_name(TilesShape s) { return (unsigned)s < TILES_SHAPE_COUNT ? Tiles_shapeNames[s] : "?"; }
bool TilesShape_parse(const char *s, TilesShape *out) {
  for (int i = 0; i < TILES_SHAPE_COUNT; i++)
    if (strcmp(s, Tiles_shapeNames[i]) == 0) return *out = (TilesShape)i, true;
  return false;
}

void Tiles_layoutStrides(TilesLayout layout, int rank, const int64_t *shape, int64_t *strides) {
  (void)Tiles_rowMajor(rank, shape, strides); /* a network's tensors fit 64 bits (the loader checks) */
  if (layout != TILES_LAYOUT_NHWC || rank < 3) return;
  int c = rank >= 4 ? 1 : 0; /* the channel axis moves innermost */
  int64_t s = shape[c];
  strides[c] = 1;
  for (int d = rank - 1; d >= 0; d--) {
    if (d == c) continue;
    strides[d] = s;
    s *= shape[d];
  }
}

const char *TilesRole_name(TilesRole r) {
  static const char *const names[TILES_ROLE_COUNT] = {"out", "whole", "in"};
  return (unsigned)r < TILES_ROLE_COUNT ? names[r] : "?";
}

int Tiles_splitAxis(int rank, const int64_t *shape) {
  if (rank >= 2 && shape[rank - 2] >= 2) return rank - 2; /* rows: H of CHW / NCHW */
  if (shape[rank - 1] >= 2) return rank - 1;
  for (int d = rank - 3; d >= 0; d--)
    if (shape[d] >= 2) return d;
  return -1;
}

int Tiles_tileAxis(TilesShape s, int rank, const int64_t *shape, const int64_t *strides) {
  if (s != TILES_SHAPE_OUTER) return Tiles_splitAxis(rank, shape);
  int best = -1; /* the largest stride; ties to the outer index (a stride-equal pair only with extents of 1) */
  for (int d = 0; d < rank; d++)
    if (shape[d] >= 2 && (best < 0 || strides[d] > strides[best])) best = d;
  return best;
}

int Tiles_tensorAxis(const Tensor *t, TilesLayout layout, TilesShape s) {
  if (s == TILES_SHAPE_ROWS) return Tiles_splitAxis(t->rank, t->shape);
  int64_t strides[TILES_MAX_RANK];
  if (t->rank > TILES_MAX_RANK) return -1;
  if (t->strides)
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->rank);
  else
    Tiles_layoutStrides(layout, t->rank, t->shape, strides);
  return Tiles_tileAxis(s, t->rank, t->shape, strides);
}

int Tiles_opTileCount(int64_t working_bytes, int64_t capacity, int64_t split_extent) {
  if (capacity <= 0 || working_bytes <= capacity) return 1;
  int64_t k = working_bytes / capacity + (working_bytes % capacity != 0);
  if (k > split_extent) k = split_extent;
  return k < 1 ? 1 : (int)k;
}

static int64_t Tiles_extent(const Tensor *t, int axis) { return axis < 0 ? 1 : t->shape[axis]; }

/* A growing list of tiles and their chunks (chunk ranges as indices until the
 * pool stops moving). */
typedef struct {
  TilesTile *tiles;
  int64_t *chunk0;
  int ntiles, cap;
  TilesChunk *pool;
  int64_t npool, poolcap;
} Builder;

static Status Builder_add(Builder *b, const TilesTile *tile, SpError *err) {
  if (b->ntiles == b->cap) {
    int cap = b->cap ? b->cap * 2 : 256;
    TilesTile *t = realloc(b->tiles, sizeof *t * (size_t)cap);
    if (!t) return SpError_set(err, SP_ERR_NOMEM, "out of memory building tiles");
    b->tiles = t;
    int64_t *c = realloc(b->chunk0, sizeof *c * (size_t)cap);
    if (!c) return SpError_set(err, SP_ERR_NOMEM, "out of memory building tiles");
    b->chunk0 = c;
    b->cap = cap;
  }
  TilesChunk *ch;
  int n;
  Status st = Tiles_renderChunks(&tile->view, &ch, &n, err);
  if (st) return st;
  if (b->npool + n > b->poolcap) {
    int64_t cap = b->poolcap ? b->poolcap * 2 : 4096;
    while (cap < b->npool + n) cap *= 2;
    TilesChunk *p = realloc(b->pool, sizeof *p * (size_t)cap);
    if (!p) {
      free(ch);
      return SpError_set(err, SP_ERR_NOMEM, "out of memory building chunks");
    }
    b->pool = p;
    b->poolcap = cap;
  }
  memcpy(b->pool + b->npool, ch, sizeof *ch * (size_t)n);
  free(ch);
  b->tiles[b->ntiles] = *tile;
  b->tiles[b->ntiles].nchunks = n;
  b->chunk0[b->ntiles] = b->npool;
  b->npool += n;
  b->ntiles++;
  return SP_OK;
}

/* The view of tile j of k along axis (k == 1 or axis < 0: the whole tensor). */
static void Tiles_view(const Tensor *t, const int64_t *strides, int axis, int j, int k, TilesView *v) {
  v->rank = t->rank;
  v->esize = t->elem_bytes;
  for (int d = 0; d < t->rank; d++) {
    v->shape[d] = t->shape[d];
    v->origin[d] = 0;
    v->strides[d] = strides[d];
  }
  if (axis >= 0 && k > 1) {
    int64_t ext = t->shape[axis];
    int64_t lo = ext * j / k, hi = ext * (j + 1) / k;
    v->origin[axis] = lo;
    v->shape[axis] = hi - lo;
  }
}

/* The op tile (0 .. K-1) that finishes tensor tile j of k (k <= K). */
static int Tiles_lastOpTile(int j, int k, int K) { return (int)((int64_t)(j + 1) * K / k) - 1; }

Status Tiles_build(const Net *net, const TilesOptions *o, TilesModel **out, SpError *err) {
  return Tiles_buildReport(net, o, NULL, NULL, out, err);
}

Status Tiles_buildReport(const Net *net, const TilesOptions *o, void (*report)(int64_t done, int64_t total, void *user),
                         void *user, TilesModel **out, SpError *err) {
  *out = NULL;
  TilesModel *m = calloc(1, sizeof *m);
  if (!m) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  m->net = net;
  m->capacity = o->capacity;
  m->layout = o->layout;
  m->shape = o->shape;
  Builder b = {0};
  Status st = SP_OK;
  m->ops = calloc((size_t)(net->nops ? net->nops : 1), sizeof *m->ops);
  m->tensors = calloc((size_t)(net->ntensors ? net->ntensors : 1), sizeof *m->tensors);
  if (!m->ops || !m->tensors) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int t = 0; t < net->ntensors; t++) {
    const Tensor *x = &net->tensors[t];
    if (x->rank > TILES_MAX_RANK) {
      st = SpError_set(err, SP_ERR_ARG, "tensor \"%s\" has rank %d (tiling supports up to %d)", x->name, x->rank,
                       TILES_MAX_RANK);
      goto fail;
    }
    /* a stride of 0 puts many elements at one address: no layout (it made one
     * chunk per byte, 25 s for a 1 KB network) */
    for (int d = 0; x->strides && x->kind != TK_PARAM && d < x->rank; d++)
      if (x->strides[d] == 0 && x->shape[d] > 1) {
        st = SpError_set(err, SP_ERR_ARG,
                         "tensor \"%s\": strides[%d] is 0 on a dimension of %lld: its elements share addresses "
                         "(a layout needs a stride of at least 1)",
                         x->name, d, (long long)x->shape[d]);
        goto fail;
      }
  }

  /* 1. Tiles per op: the file's count, or the capacity rule over the split
   * extent of its largest output. */
  if (o->order) { /* a permutation whose producers come first */
    for (int s = 0; s < net->nops; s++) m->ops[s].step = -1;
    for (int s = 0; s < net->nops; s++) {
      int op = o->order[s];
      if (op < 0 || op >= net->nops || m->ops[op].step >= 0) {
        st = SpError_set(err, SP_ERR_ARG, "schedule step %d: op %d is out of range or repeated", s, op);
        goto fail;
      }
      m->ops[op].step = s;
    }
    for (int i = 0; i < net->nops; i++)
      for (int k = 0; k < net->ops[i].ninputs; k++) {
        int p = net->tensors[net->ops[i].inputs[k]].producer;
        if (p >= 0 && m->ops[p].step > m->ops[i].step) {
          st = SpError_set(err, SP_ERR_ARG, "schedule runs op \"%s\" before its producer \"%s\"",
                           net->ops[i].name, net->ops[p].name);
          goto fail;
        }
      }
  } else {
    for (int i = 0; i < net->nops; i++) m->ops[i].step = i;
  }
  int sub = 0;
  for (int s = 0; s < net->nops; s++) {
    int i = o->order ? o->order[s] : s;
    const Op *op = &net->ops[i];
    TilesOp *to = &m->ops[i];
    to->working_bytes = Figures_opBytes(net, i, false);
    int64_t ext = 1;
    for (int k = 0; k < op->noutputs; k++) {
      const Tensor *t = &net->tensors[op->outputs[k]];
      int64_t e = Tiles_extent(t, Tiles_tensorAxis(t, o->layout, o->shape));
      if (e > ext) ext = e;
    }
    to->from_file = op->tiles > 0;
    to->ntiles = Tiles_opTileCount(to->working_bytes, o->capacity, ext);
    if (to->from_file && (!o->file_tiles_at_least || op->tiles > to->ntiles)) to->ntiles = op->tiles;
    to->substep0 = sub;
    sub += to->ntiles;
    /* one tile's working set: each distinct tensor's largest piece */
    int64_t tb = 0;
    for (int pass = 0; pass < 2; pass++) {
      const int *list = pass ? op->outputs : op->inputs;
      int n = pass ? op->noutputs : op->ninputs;
      for (int k = 0; k < n; k++) {
        const Tensor *t = &net->tensors[list[k]];
        if (t->kind == TK_PARAM) continue;
        bool seen = false;
        for (int q = 0; q < k && !seen; q++) seen = list[q] == list[k];
        for (int q = 0; pass && q < op->ninputs && !seen; q++) seen = op->inputs[q] == list[k];
        if (seen) continue;
        int axis = Tiles_tensorAxis(t, o->layout, o->shape);
        int64_t e = Tiles_extent(t, axis), kt = to->ntiles < e ? to->ntiles : e;
        tb += t->bytes / e * ((e + kt - 1) / kt);
      }
    }
    to->tile_bytes = tb;
  }
  m->nsubsteps = sub;
  const int64_t end_tick = 2 * (int64_t)sub + 1;
  m->nticks = end_tick + 1;

  /* 2. Each non-param tensor's tiles. */
  for (int ti = 0; ti < net->ntensors; ti++) {
    const Tensor *t = &net->tensors[ti];
    if (report) report(ti, net->ntensors, user); /* the tensors before this one are done */
    if (t->kind == TK_PARAM) continue;
    TilesTensor *tt = &m->tensors[m->ntensors];
    tt->net_tensor = ti;
    int64_t strides[TILES_MAX_RANK];
    if (t->strides)
      memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->rank);
    else
      Tiles_layoutStrides(o->layout, t->rank, t->shape, strides);
    int64_t extent = 1; /* last element's offset + 1 */
    for (int d = 0; d < t->rank; d++) extent += (t->shape[d] - 1) * strides[d];
    tt->bytes = extent * t->elem_bytes;
    /* the file's "bytes" overrides shape x dtype (formats.md): a larger buffer
     * is allocated whole; a smaller one cannot hold the elements the tiles
     * address (it was ignored: the plan said 65536 for "bytes": 10) */
    int64_t dense = t->elem_bytes;
    for (int d = 0; d < t->rank; d++) dense *= t->shape[d];
    if (t->bytes != dense) {
      if (t->bytes < tt->bytes) {
        st = SpError_set(err, SP_ERR_ARG,
                         "tensor \"%s\": \"bytes\" %lld is less than its elements span (%lld bytes from shape, "
                         "strides and dtype): the tiles address every element",
                         t->name, (long long)t->bytes, (long long)tt->bytes);
        goto fail;
      }
      tt->bytes = t->bytes;
    }
    tt->axis = Tiles_tileAxis(o->shape, t->rank, t->shape, strides);
    int64_t ext = Tiles_extent(t, tt->axis);
    tt->tile0 = b.ntiles;

    int64_t W = 0; /* whole from: the write tick of its last output tile */
    int kout = 1, Kp = 1, p = t->producer;
    if (p >= 0) {
      Kp = m->ops[p].ntiles;
      kout = (int)(Kp < ext ? Kp : ext);
      W = 2 * (int64_t)(m->ops[p].substep0 + Kp - 1) + 2;
    }
    int c = -1; /* the last reader in the schedule */
    for (int k = 0; k < t->nconsumers; k++)
      if (c < 0 || m->ops[t->consumers[k]].step > m->ops[c].step) c = t->consumers[k];
    int64_t R = c >= 0 ? 2 * (int64_t)m->ops[c].substep0 + 1 : W;
    bool keep = t->kind == TK_OUTPUT; /* the host reads it after the last op */
    int64_t whole_last = keep ? end_tick : R;
    if (whole_last < W) whole_last = W;
    tt->whole_first = W;
    tt->whole_last = whole_last;

    TilesTile tile = {.tensor = m->ntensors};
    if (kout > 1)
      for (int j = 0; j < kout; j++) {
        tile.role = TILES_ROLE_OUT;
        tile.index = j;
        tile.count = kout;
        tile.op = p;
        tile.first = 2 * (int64_t)(m->ops[p].substep0 + Tiles_lastOpTile(j, kout, Kp)) + 2;
        tile.last = W;
        Tiles_view(t, strides, tt->axis, j, kout, &tile.view);
        if ((st = Builder_add(&b, &tile, err))) goto fail;
      }
    tile.role = TILES_ROLE_WHOLE;
    tile.index = 0;
    tile.count = 1;
    tile.op = -1;
    tile.first = W;
    tile.last = whole_last;
    Tiles_view(t, strides, tt->axis, 0, 1, &tile.view);
    if ((st = Builder_add(&b, &tile, err))) goto fail;
    if (c >= 0 && !keep) {
      int Kc = m->ops[c].ntiles, kin = (int)(Kc < ext ? Kc : ext);
      if (kin > 1)
        for (int j = 0; j < kin; j++) {
          tile.role = TILES_ROLE_IN;
          tile.index = j;
          tile.count = kin;
          tile.op = c;
          tile.first = R;
          tile.last = 2 * (int64_t)(m->ops[c].substep0 + Tiles_lastOpTile(j, kin, Kc)) + 1;
          Tiles_view(t, strides, tt->axis, j, kin, &tile.view);
          if ((st = Builder_add(&b, &tile, err))) goto fail;
        }
    }
    tt->ntiles = b.ntiles - tt->tile0;
    tt->first = INT64_MAX;
    tt->last = INT64_MIN;
    for (int k = tt->tile0; k < b.ntiles; k++) {
      if (b.tiles[k].first < tt->first) tt->first = b.tiles[k].first;
      if (b.tiles[k].last > tt->last) tt->last = b.tiles[k].last;
    }
    m->ntensors++;
  }
  for (int k = 0; k < b.ntiles; k++) b.tiles[k].chunks = b.pool + b.chunk0[k];
  m->tiles = b.tiles;
  m->ntiles = b.ntiles;
  m->chunk_pool = b.pool;
  m->nchunks = b.npool;
  free(b.chunk0);
  *out = m;
  return SP_OK;
fail:
  free(b.tiles);
  free(b.chunk0);
  free(b.pool);
  free(m->ops);
  free(m->tensors);
  free(m);
  return st;
}

void Tiles_free(TilesModel *m) {
  if (!m) return;
  free(m->ops);
  free(m->tensors);
  free(m->tiles);
  free(m->chunk_pool);
  free(m);
}

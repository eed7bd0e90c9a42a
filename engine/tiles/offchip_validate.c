/* The off-chip plan's own validator: everything is recomputed from the plan
 * (and the network, when given); nothing is taken from the allocator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles.h"

typedef struct {
  int64_t lo, hi, first, last;
  int tensor, tile;
} VChunk;

/* by first tick: chunks live at one tick are few (their bytes fit in the
 * plan's height), chunks over one address are many on a long network (the
 * address sweep this replaced took 22 s on 50,000 ops, 192,000 chunks) */
static int VChunk_cmp(const void *a, const void *b) {
  const VChunk *x = a, *y = b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->tile > y->tile) - (x->tile < y->tile);
}

static const char *V_label(const OffchipPlan *p, int tile, char *buf, size_t n) {
  const OffchipPlanTile *t = &p->tiles[tile];
  snprintf(buf, n, "%s %s tile %d/%d (ticks %lld..%lld)", p->tensors[t->tensor].name, TilesRole_name(t->role),
           t->index, t->count, (long long)t->first, (long long)t->last);
  return buf;
}

static bool V_sameView(const TilesView *a, const TilesView *b) {
  if (a->rank != b->rank || a->esize != b->esize) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d] || a->origin[d] != b->origin[d] || a->strides[d] != b->strides[d]) return false;
  return true;
}

Status OffchipPlan_validate(const OffchipPlan *p, const Net *net, SpError *err) {
  if (net && strcmp(p->network, net->name) != 0) /* as the on-chip validator */
    return SpError_set(err, SP_ERR_FORMAT, "network: the plan is for \"%s\", not %s", p->network, net->name);
  if (net) { /* the plan's tensors are the network's non-param tensors, in order */
    int k = 0;
    for (int t = 0; t < net->ntensors; t++) {
      if (net->tensors[t].kind == TK_PARAM) continue;
      if (k >= p->ntensors || strcmp(p->tensors[k].name, net->tensors[t].name) != 0)
        return SpError_set(err, SP_ERR_FORMAT, "tensors[%d]: expected tensor \"%s\" of network %s", k,
                           net->tensors[t].name, net->name);
      k++;
    }
    if (k != p->ntensors)
      return SpError_set(err, SP_ERR_FORMAT, "tensors[%d]: \"%s\" is not a non-param tensor of network %s", k,
                         p->tensors[k].name, net->name);
  }
  if (net) { /* the tiles the network's tiling gives: same views, same lifetimes */
    TilesOptions to;
    TilesOptions_init(&to);
    to.capacity = p->capacity;
    to.layout = p->layout;
    to.shape = p->shape;
    TilesModel *m;
    SpError e2;
    if (Tiles_build(net, &to, &m, &e2))
      return SpError_set(err, SP_ERR_FORMAT, "the network cannot be tiled at the plan's budget: %s", e2.text);
    Status st = SP_OK;
    if (m->ntiles != p->ntiles || m->nticks != p->nticks)
      st = SpError_set(err, SP_ERR_FORMAT,
                       "%d tiles over %lld ticks, but the network tiled at %lld bytes (layout %s, tiles cut %s) has %d over %lld",
                       p->ntiles, (long long)p->nticks, (long long)p->capacity, TilesLayout_name(p->layout),
                       TilesShape_name(p->shape), m->ntiles, (long long)m->nticks);
    for (int i = 0; !st && i < p->ntensors; i++)
      if (p->tensors[i].tile0 != m->tensors[i].tile0 || p->tensors[i].ntiles != m->tensors[i].ntiles ||
          p->tensors[i].bytes != m->tensors[i].bytes)
        st = SpError_set(err, SP_ERR_FORMAT, "tensors[%d] (%s): its tiles or size differ from the network's tiling", i,
                         p->tensors[i].name);
    for (int k = 0; !st && k < p->ntiles; k++) {
      const OffchipPlanTile *a = &p->tiles[k];
      const TilesTile *b = &m->tiles[k];
      bool same_op = b->op < 0 ? a->op == NULL : a->op && strcmp(a->op, net->ops[b->op].name) == 0;
      if (!same_op) {
        char lab[256];
        st = SpError_set(err, SP_ERR_FORMAT, "%s: op \"%s\", but the network's tiling gives %s%s%s", V_label(p, k, lab, sizeof lab),
                         a->op ? a->op : "(none)", b->op < 0 ? "none (a whole tile)" : "\"",
                         b->op < 0 ? "" : net->ops[b->op].name, b->op < 0 ? "" : "\"");
      } else if (a->role != b->role || a->index != b->index || a->count != b->count || a->first != b->first ||
          a->last != b->last || !V_sameView(&a->view, &b->view)) {
        char lab[256];
        st = SpError_set(err, SP_ERR_FORMAT, "%s: the network's tiling gives %s tile %d/%d over ticks %lld..%lld",
                         V_label(p, k, lab, sizeof lab), TilesRole_name(b->role), b->index, b->count,
                         (long long)b->first, (long long)b->last);
      }
    }
    Tiles_free(m);
    if (st) return st;
  }
  int64_t height = 0, total = 0;
  for (int i = 0; i < p->ntensors; i++) {
    const OffchipPlanTensor *t = &p->tensors[i];
    if (t->base > INT64_MAX - t->bytes) return SpError_set(err, SP_ERR_FORMAT, "tensors[%d]: base + bytes overflows", i);
    if (t->base + t->bytes > height) height = t->base + t->bytes;
    bool whole = false;
    for (int k = t->tile0; k < t->tile0 + t->ntiles; k++) {
      const OffchipPlanTile *tl = &p->tiles[k];
      char lab[256];
      if (tl->first > tl->last || tl->last >= p->nticks)
        return SpError_set(err, SP_ERR_FORMAT, "%s: lifetime outside ticks 0..%lld or reversed",
                           V_label(p, k, lab, sizeof lab), (long long)p->nticks - 1);
      if (tl->index >= tl->count)
        return SpError_set(err, SP_ERR_FORMAT, "%s: index not below its count", V_label(p, k, lab, sizeof lab));
      whole |= tl->role == TILES_ROLE_WHOLE;
      /* the chunks must be what the tile's view renders to */
      TilesChunk *c;
      int n;
      SpError e2;
      if (Tiles_renderChunks(&tl->view, &c, &n, &e2))
        return SpError_set(err, SP_ERR_FORMAT, "%s: %s", V_label(p, k, lab, sizeof lab), e2.text);
      bool same = n == tl->nchunks && (n == 0 || memcmp(c, tl->chunks, sizeof *c * (size_t)n) == 0);
      free(c);
      if (!same)
        return SpError_set(err, SP_ERR_FORMAT, "%s: chunks differ from what its shape, origin and strides render",
                           V_label(p, k, lab, sizeof lab));
      const TilesChunk *last = &tl->chunks[tl->nchunks - 1];
      if (tl->nchunks && last->offset + last->size > t->bytes)
        return SpError_set(err, SP_ERR_FORMAT, "%s: chunk ends at %lld, beyond the tensor's %lld bytes",
                           V_label(p, k, lab, sizeof lab), (long long)(last->offset + last->size), (long long)t->bytes);
      total += tl->nchunks;
    }
    if (!whole) return SpError_set(err, SP_ERR_FORMAT, "tensors[%d] (%s): no whole tile", i, t->name);
  }
  if (height != p->peak_bytes)
    return SpError_set(err, SP_ERR_FORMAT, "peak_bytes is %lld but the tensors reach %lld", (long long)p->peak_bytes,
                       (long long)height);

  /* Collisions: sweep all chunks by first tick; a chunk is compared with every
   * earlier one still live at its first tick; two chunks of different tensors
   * live at one tick must not share a byte. */
  VChunk *v = malloc(sizeof *v * (size_t)(total ? total : 1));
  int *open = malloc(sizeof(int) * (size_t)(total ? total : 1));
  if (!v || !open) {
    free(v);
    free(open);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory validating the off-chip plan");
  }
  int64_t m = 0;
  for (int i = 0; i < p->ntensors; i++)
    for (int k = p->tensors[i].tile0; k < p->tensors[i].tile0 + p->tensors[i].ntiles; k++)
      for (int c = 0; c < p->tiles[k].nchunks; c++) {
        const OffchipPlanTile *tl = &p->tiles[k];
        v[m++] = (VChunk){p->tensors[i].base + tl->chunks[c].offset,
                          p->tensors[i].base + tl->chunks[c].offset + tl->chunks[c].size, tl->first, tl->last, i, k};
      }
  qsort(v, (size_t)m, sizeof *v, VChunk_cmp);
  Status st = SP_OK;
  int nopen = 0;
  for (int64_t i = 0; i < m && !st; i++) {
    int w = 0;
    for (int j = 0; j < nopen; j++)
      if (v[open[j]].last >= v[i].first) open[w++] = open[j];
    nopen = w;
    for (int j = 0; j < nopen; j++) {
      const VChunk *a = &v[open[j]], *b = &v[i];
      if (a->tensor == b->tensor || a->hi <= b->lo || b->hi <= a->lo) continue;
      char la[256], lb[256];
      /* b starts at or after a: the first shared tick is b's */
      st = SpError_set(err, SP_ERR_FORMAT, "at tick %lld, bytes %lld..%lld: %s and %s are both live",
                       (long long)b->first, (long long)(a->lo > b->lo ? a->lo : b->lo),
                       (long long)(a->hi < b->hi ? a->hi : b->hi) - 1, V_label(p, a->tile, la, sizeof la),
                       V_label(p, b->tile, lb, sizeof lb));
      break;
    }
    open[nopen++] = (int)i;
  }
  free(v);
  free(open);
  return st;
}

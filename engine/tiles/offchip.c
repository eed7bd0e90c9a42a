/* The off-chip plan: built from a model and its allocation, written as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "tiles.h"

static char *Offchip_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

void OffchipPlan_free(OffchipPlan *p) {
  if (!p) return;
  for (int i = 0; i < p->ntensors; i++) free(p->tensors[i].name);
  for (int i = 0; i < p->ntiles; i++) {
    free(p->tiles[i].op);
    free(p->tiles[i].chunks);
  }
  free(p->tensors);
  free(p->tiles);
  free(p->network);
  free(p->method);
  free(p->order);
  free(p);
}

Status OffchipPlan_fromModel(const TilesModel *m, const OffchipResult *r, const OffchipOptions *o,
                             OffchipPlan **out, SpError *err) {
  *out = NULL;
  OffchipPlan *p = calloc(1, sizeof *p);
  if (!p) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  p->network = Offchip_strdup(m->net->name);
  p->method = Offchip_strdup(OffchipMethod_name(r->method));
  p->order = Offchip_strdup(o->method == OFFCHIP_TAA ? TaaOrder_name(o->order) : "-");
  p->capacity = m->capacity;
  p->layout = m->layout;
  p->shape = m->shape;
  p->fallback = r->fell_back;
  p->nticks = m->nticks;
  p->peak_bytes = r->peak_bytes;
  p->seconds = r->seconds;
  p->tensors = calloc((size_t)(m->ntensors ? m->ntensors : 1), sizeof *p->tensors);
  p->tiles = calloc((size_t)(m->ntiles ? m->ntiles : 1), sizeof *p->tiles);
  if (!p->network || !p->method || !p->order || !p->tensors || !p->tiles) goto nomem;
  p->ntensors = m->ntensors;
  for (int i = 0; i < m->ntensors; i++) {
    const TilesTensor *tt = &m->tensors[i];
    OffchipPlanTensor *pt = &p->tensors[i];
    pt->name = Offchip_strdup(m->net->tensors[tt->net_tensor].name);
    if (!pt->name) goto nomem;
    pt->base = r->base[i];
    pt->bytes = tt->bytes;
    pt->tile0 = tt->tile0;
    pt->ntiles = tt->ntiles;
  }
  for (int k = 0; k < m->ntiles; k++) {
    const TilesTile *tl = &m->tiles[k];
    OffchipPlanTile *pt = &p->tiles[k];
    p->ntiles = k + 1;
    pt->tensor = tl->tensor;
    pt->role = tl->role;
    pt->index = tl->index;
    pt->count = tl->count;
    pt->first = tl->first;
    pt->last = tl->last;
    pt->view = tl->view;
    pt->nchunks = tl->nchunks;
    if (tl->op >= 0 && !(pt->op = Offchip_strdup(m->net->ops[tl->op].name))) goto nomem;
    pt->chunks = malloc(sizeof(TilesChunk) * (size_t)(tl->nchunks ? tl->nchunks : 1));
    if (!pt->chunks) goto nomem;
    memcpy(pt->chunks, tl->chunks, sizeof(TilesChunk) * (size_t)tl->nchunks);
  }
  *out = p;
  return SP_OK;
nomem:
  OffchipPlan_free(p);
  return SpError_set(err, SP_ERR_NOMEM, "out of memory");
}

/* ---- JSON writer ----------------------------------------------------------- */

static void Offchip_ints(StrBuf *b, const int64_t *v, int n) {
  StrBuf_printf(b, "[");
  for (int i = 0; i < n; i++) StrBuf_printf(b, "%s%lld", i ? "," : "", (long long)v[i]);
  StrBuf_printf(b, "]");
}

Status OffchipPlan_toJson(const OffchipPlan *p, char **text, SpError *err) {
  StrBuf b = {0};
  StrBuf_printf(&b, "{\n\"format\": \"spadmap-offchip\", \"version\": 1,\n\"network\": ");
  StrBuf_jsonString(&b, p->network);
  StrBuf_printf(&b, ", \"onchip_budget\": %lld, \"layout\": \"%s\", \"tile_shape\": \"%s\", \"method\": ",
                (long long)p->capacity, TilesLayout_name(p->layout), TilesShape_name(p->shape));
  StrBuf_jsonString(&b, p->method);
  StrBuf_printf(&b, ", \"order\": ");
  StrBuf_jsonString(&b, p->order);
  StrBuf_printf(&b, ", \"fallback\": %s,\n\"ticks\": %lld, \"peak_bytes\": %lld, \"seconds\": %.6f,\n\"tensors\": [\n",
            p->fallback ? "true" : "false", (long long)p->nticks, (long long)p->peak_bytes, p->seconds);
  for (int i = 0; i < p->ntensors; i++) {
    const OffchipPlanTensor *t = &p->tensors[i];
    StrBuf_printf(&b, "{\"tensor\": ");
    StrBuf_jsonString(&b, t->name);
    StrBuf_printf(&b, ", \"base\": %lld, \"bytes\": %lld, \"tiles\": [", (long long)t->base, (long long)t->bytes);
    for (int k = t->tile0; k < t->tile0 + t->ntiles; k++) {
      const OffchipPlanTile *tl = &p->tiles[k];
      StrBuf_printf(&b, "%s\n  {\"role\": \"%s\", \"index\": %d, \"of\": %d, \"op\": ", k > t->tile0 ? "," : "",
                TilesRole_name(tl->role), tl->index, tl->count);
      if (tl->op)
        StrBuf_jsonString(&b, tl->op);
      else
        StrBuf_printf(&b, "null");
      StrBuf_printf(&b, ", \"first\": %lld, \"last\": %lld, \"shape\": ", (long long)tl->first, (long long)tl->last);
      Offchip_ints(&b, tl->view.shape, tl->view.rank);
      StrBuf_printf(&b, ", \"origin\": ");
      Offchip_ints(&b, tl->view.origin, tl->view.rank);
      StrBuf_printf(&b, ", \"strides\": ");
      Offchip_ints(&b, tl->view.strides, tl->view.rank);
      StrBuf_printf(&b, ", \"esize\": %lld, \"chunks\": [", (long long)tl->view.esize);
      for (int c = 0; c < tl->nchunks; c++)
        StrBuf_printf(&b, "%s[%lld,%lld]", c ? "," : "", (long long)tl->chunks[c].offset, (long long)tl->chunks[c].size);
      StrBuf_printf(&b, "]}");
    }
    StrBuf_printf(&b, "]}%s\n", i + 1 < p->ntensors ? "," : "");
  }
  StrBuf_printf(&b, "]\n}\n");
  if (b.nomem) {
    free(b.s);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory writing the off-chip plan");
  }
  *text = b.s;
  return SP_OK;
}

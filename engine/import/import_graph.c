/* import_graph: see import_graph.h. */
#include "import_graph.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- name -> index (open addressing; keys are the graph's own name strings) ---- */
struct ImpHash {
  const char **keys;
  int *vals;
  size_t cap, n;
};

static size_t ImpHash_code(const char *s) {
  size_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static ImpHash *ImpHash_new(void) {
  ImpHash *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->cap = 64;
  h->keys = calloc(h->cap, sizeof *h->keys);
  h->vals = calloc(h->cap, sizeof *h->vals);
  if (!h->keys || !h->vals) {
    free(h->keys);
    free(h->vals);
    free(h);
    return NULL;
  }
  return h;
}

static void ImpHash_free(ImpHash *h) {
  if (!h) return;
  free(h->keys);
  free(h->vals);
  free(h);
}

static int ImpHash_get(const ImpHash *h, const char *key) {
  for (size_t i = ImpHash_code(key) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
    if (!h->keys[i]) return -1;
    if (strcmp(h->keys[i], key) == 0) return h->vals[i];
  }
}

static bool ImpHash_put(ImpHash *h, const char *key, int val) {
  if (2 * (h->n + 1) > h->cap) {
    ImpHash bigger = {calloc(2 * h->cap, sizeof(char *)), calloc(2 * h->cap, sizeof(int)), 2 * h->cap, 0};
    if (!bigger.keys || !bigger.vals) {
      free(bigger.keys);
      free(bigger.vals);
      return false;
    }
    for (size_t i = 0; i < h->cap; i++)
      if (h->keys[i]) ImpHash_put(&bigger, h->keys[i], h->vals[i]);
    free(h->keys);
    free(h->vals);
    *h = bigger;
  }
  size_t i = ImpHash_code(key) & (h->cap - 1);
  while (h->keys[i]) i = (i + 1) & (h->cap - 1);
  h->keys[i] = key;
  h->vals[i] = val;
  h->n++;
  return true;
}

/* ---- the graph ---- */
Status ImpGraph_init(ImpGraph *g, const char *name, const char *source, SpError *err) {
  memset(g, 0, sizeof *g);
  g->name = strdup(name);
  g->source = strdup(source);
  g->tindex = ImpHash_new();
  g->oindex = ImpHash_new();
  if (!g->name || !g->source || !g->tindex || !g->oindex) {
    ImpGraph_free(g);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  return SP_OK;
}

void ImpGraph_free(ImpGraph *g) {
  for (int i = 0; i < g->nt; i++) {
    free(g->t[i].name);
    free(g->t[i].shape);
  }
  for (int i = 0; i < g->no; i++) {
    free(g->o[i].name);
    free(g->o[i].type);
    free(g->o[i].inputs);
    free(g->o[i].outputs);
    cJSON_Delete(g->o[i].attrs);
  }
  free(g->t);
  free(g->o);
  free(g->name);
  free(g->source);
  ImpHash_free(g->tindex);
  ImpHash_free(g->oindex);
  memset(g, 0, sizeof *g);
}

int ImpGraph_findTensor(const ImpGraph *g, const char *name) { return ImpHash_get(g->tindex, name); }
int ImpGraph_findOp(const ImpGraph *g, const char *name) { return ImpHash_get(g->oindex, name); }

static bool Imp_grow(void **arr, int *cap, int need, size_t elem) {
  if (need <= *cap) return true;
  int c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void *p = realloc(*arr, (size_t)c * elem);
  if (!p) return false;
  memset((char *)p + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
  *arr = p;
  *cap = c;
  return true;
}

int ImpGraph_addTensor(ImpGraph *g, const char *name) {
  if (!Imp_grow((void **)&g->t, &g->capt, g->nt + 1, sizeof *g->t)) return -1;
  ImpTensor *t = &g->t[g->nt];
  memset(t, 0, sizeof *t);
  t->name = strdup(name);
  t->producer = -1;
  t->kind = TK_ACTIVATION;
  t->dtype = "int8";
  if (!t->name || !ImpHash_put(g->tindex, t->name, g->nt)) {
    free(t->name);
    return -1;
  }
  return g->nt++;
}

int ImpGraph_addOp(ImpGraph *g, const char *name, const char *base, const char *type) {
  if (!Imp_grow((void **)&g->o, &g->capo, g->no + 1, sizeof *g->o)) return -1;
  char *unique = NULL;
  if (name && name[0] && ImpGraph_findOp(g, name) < 0) {
    unique = strdup(name);
  } else {
    const char *b = name && name[0] ? name : base;
    size_t n = strlen(b) + 24;
    unique = malloc(n);
    if (unique) {
      snprintf(unique, n, "%s", b);
      for (int k = 1; ImpGraph_findOp(g, unique) >= 0; k++) snprintf(unique, n, "%s_%d", b, k);
    }
  }
  ImpOp *o = &g->o[g->no];
  memset(o, 0, sizeof *o);
  o->name = unique;
  o->type = strdup(type);
  o->file_index = g->no;
  if (!o->name || !o->type || !ImpHash_put(g->oindex, o->name, g->no)) {
    free(o->name);
    free(o->type);
    return -1;
  }
  return g->no++;
}

bool ImpGraph_addInput(ImpGraph *g, int op, int tensor) {
  ImpOp *o = &g->o[op];
  if (!Imp_grow((void **)&o->inputs, &o->capin, o->ninputs + 1, sizeof(int))) return false;
  o->inputs[o->ninputs++] = tensor;
  return true;
}

bool ImpGraph_addOutput(ImpGraph *g, int op, int tensor) {
  ImpOp *o = &g->o[op];
  if (!Imp_grow((void **)&o->outputs, &o->capout, o->noutputs + 1, sizeof(int))) return false;
  o->outputs[o->noutputs++] = tensor;
  g->t[tensor].producer = op;
  return true;
}

void ImpGraph_countUses(ImpGraph *g) {
  for (int i = 0; i < g->nt; i++) g->t[i].nuses = 0;
  for (int k = 0; k < g->no; k++) {
    const ImpOp *o = &g->o[k];
    if (o->dropped) continue;
    for (int i = 0; i < o->ninputs; i++) {
      bool again = false;
      for (int j = 0; j < i; j++) again |= o->inputs[j] == o->inputs[i];
      if (!again) g->t[o->inputs[i]].nuses++;
    }
  }
}

/* Kahn's algorithm; ready ops leave in file order (a min-heap on the op index),
 * so a file already in topological order keeps its order. */
static Status ImpGraph_order(ImpGraph *g, const char *label, int **order_out, int *n_out, SpError *err) {
  int *indeg = calloc((size_t)g->no + 1, sizeof(int));
  int *heap = malloc(((size_t)g->no + 1) * sizeof(int));
  int *order = malloc(((size_t)g->no + 1) * sizeof(int));
  /* consumers as a CSR over tensors */
  int *start = calloc((size_t)g->nt + 2, sizeof(int));
  int nedges = 0;
  for (int k = 0; k < g->no; k++)
    if (!g->o[k].dropped) nedges += g->o[k].ninputs;
  int *adj = malloc(((size_t)nedges + 1) * sizeof(int));
  if (!indeg || !heap || !order || !start || !adj) {
    free(indeg), free(heap), free(order), free(start), free(adj);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", label);
  }
  for (int k = 0; k < g->no; k++) {
    if (g->o[k].dropped) continue;
    for (int i = 0; i < g->o[k].ninputs; i++) {
      int t = g->o[k].inputs[i];
      start[t + 1]++;
      if (g->t[t].producer >= 0 && !g->t[t].zero) indeg[k]++;
    }
  }
  for (int t = 0; t < g->nt; t++) start[t + 1] += start[t];
  int *fill = calloc((size_t)g->nt + 1, sizeof(int));
  if (!fill) {
    free(indeg), free(heap), free(order), free(start), free(adj);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", label);
  }
  for (int k = 0; k < g->no; k++) {
    if (g->o[k].dropped) continue;
    for (int i = 0; i < g->o[k].ninputs; i++) {
      int t = g->o[k].inputs[i];
      adj[start[t] + fill[t]++] = k;
    }
  }
  free(fill);
  int nheap = 0, n = 0, live = 0;
#define HEAP_PUSH(v)                                                             \
  do {                                                                           \
    int c = nheap++;                                                             \
    heap[c] = (v);                                                               \
    while (c > 0 && heap[(c - 1) / 2] > heap[c]) {                               \
      int p = (c - 1) / 2, tmp = heap[p];                                        \
      heap[p] = heap[c], heap[c] = tmp, c = p;                                   \
    }                                                                            \
  } while (0)
  for (int k = 0; k < g->no; k++) {
    if (g->o[k].dropped) continue;
    live++;
    if (indeg[k] == 0) HEAP_PUSH(k);
  }
  while (nheap > 0) {
    int k = heap[0];
    heap[0] = heap[--nheap];
    for (int c = 0;;) {
      int l = 2 * c + 1, r = l + 1, m = c;
      if (l < nheap && heap[l] < heap[m]) m = l;
      if (r < nheap && heap[r] < heap[m]) m = r;
      if (m == c) break;
      int tmp = heap[m];
      heap[m] = heap[c], heap[c] = tmp, c = m;
    }
    order[n++] = k;
    for (int j = 0; j < g->o[k].noutputs; j++) {
      int t = g->o[k].outputs[j];
      if (g->t[t].zero) continue;
      for (int e = start[t]; e < start[t + 1]; e++)
        if (--indeg[adj[e]] == 0) HEAP_PUSH(adj[e]);
    }
  }
#undef HEAP_PUSH
  Status st = SP_OK;
  if (n < live) {
    /* The ops left wait on each other. Walk back from one through producers that
     * are also left until an op repeats: those ops form a cycle. */
    int *step = malloc(((size_t)g->no + 1) * sizeof(int));
    int *path = malloc(((size_t)g->no + 1) * sizeof(int));
    char names[600] = "";
    int cyc_start = 0, len = 0;
    if (step && path) {
      for (int k = 0; k < g->no; k++) step[k] = -1;
      int k = 0;
      while (k < g->no && (g->o[k].dropped || indeg[k] == 0)) k++;
      while (k < g->no && step[k] < 0) {
        step[k] = len;
        path[len++] = k;
        int next = g->no;
        for (int i = 0; i < g->o[k].ninputs && next == g->no; i++) {
          int p = g->t[g->o[k].inputs[i]].producer;
          if (p >= 0 && !g->o[p].dropped && !g->t[g->o[k].inputs[i]].zero && indeg[p] > 0) next = p;
        }
        k = next;
      }
      cyc_start = k < g->no ? step[k] : len;
      size_t used = 0;
      for (int i = len - 1, shown = 0; i >= cyc_start && shown < 8; i--, shown++) {
        int w = snprintf(names + used, sizeof names - used, "%s\"%.60s\"", shown ? " -> " : "", g->o[path[i]].name);
        if (w > 0 && (size_t)w < sizeof names - used) used += (size_t)w;
      }
    }
    free(step);
    free(path);
    st = SpError_set(err, SP_ERR_FORMAT, "%s: the graph has a cycle: %s%s (%d ops cannot be ordered)", label, names,
                     len - cyc_start > 8 ? " -> ..." : "", live - n);
  }
  free(indeg), free(heap), free(start), free(adj);
  if (st) {
    free(order);
    return st;
  }
  *order_out = order;
  *n_out = n;
  return SP_OK;
}

Status ImpGraph_checkAcyclic(ImpGraph *g, const char *label, SpError *err) {
  /* Names come from the model file as bytes; the network format is UTF-8 text. */
  char shown[200], shown2[100];
  for (int i = 0; i < g->nt; i++)
    if (!Text_isUtf8(g->t[i].name))
      return SpError_set(err, SP_ERR_FORMAT, "%s: value \"%s\": the name is not valid UTF-8", label,
                         Text_escape(g->t[i].name, shown, sizeof shown));
  for (int i = 0; i < g->no; i++)
    if (!Text_isUtf8(g->o[i].name) || !Text_isUtf8(g->o[i].type))
      return SpError_set(err, SP_ERR_FORMAT, "%s: node \"%s\" (%s): its name or type is not valid UTF-8", label,
                         Text_escape(g->o[i].name, shown, sizeof shown), Text_escape(g->o[i].type, shown2, sizeof shown2));
  if (!Text_isUtf8(g->name) || !Text_isUtf8(g->source))
    return SpError_set(err, SP_ERR_FORMAT, "%s: the graph's name or producer is not valid UTF-8", label);
  ImpGraph_countUses(g);
  int *order = NULL, n = 0;
  Status st = ImpGraph_order(g, label, &order, &n, err);
  free(order);
  return st;
}

static cJSON *Imp_names(const ImpGraph *g, const int *idx, int n) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; arr && i < n; i++)
    if (!g->t[idx[i]].zero) cJSON_AddItemToArray(arr, cJSON_CreateString(g->t[idx[i]].name));
  return arr;
}

static bool Imp_append(char **buf, size_t *len, size_t *cap, const char *s) {
  size_t n = strlen(s);
  if (*len + n + 1 > *cap) {
    size_t c = *cap ? *cap : 4096;
    while (*len + n + 1 > c) c *= 2;
    char *p = realloc(*buf, c);
    if (!p) return false;
    *buf = p;
    *cap = c;
  }
  memcpy(*buf + *len, s, n + 1);
  *len += n;
  return true;
}

static bool Imp_appendItem(char **buf, size_t *len, size_t *cap, cJSON *item, bool comma) {
  char *s = item ? cJSON_PrintUnformatted(item) : NULL;
  cJSON_Delete(item);
  bool ok = s && Imp_append(buf, len, cap, s) && Imp_append(buf, len, cap, comma ? ",\n" : "\n");
  free(s);
  return ok;
}

static const char *const Imp_kindNames[] = {"activation", "input", "param", "output"};

Status ImpGraph_write(ImpGraph *g, const char *label, char **json, size_t *len, SpError *err) {
  *json = NULL;
  *len = 0;
  ImpGraph_countUses(g);
  int *order = NULL, n = 0;
  Status st = ImpGraph_order(g, label, &order, &n, err);
  if (st) return st;
  if (n == 0) {
    free(order);
    return SpError_set(err, SP_ERR_FORMAT, "%s: the graph has no ops that hold data (every node's outputs are empty)", label);
  }
  /* Tensors in first-use order: inputs/params where first read, activations where made. */
  bool *keep = calloc((size_t)g->nt + 1, sizeof(bool));
  int *tlist = malloc(((size_t)g->nt + 1) * sizeof(int));
  int ntl = 0;
  char *buf = NULL;
  size_t blen = 0, bcap = 0;
  bool ok = keep && tlist;
  for (int s = 0; ok && s < n; s++) {
    const ImpOp *o = &g->o[order[s]];
    for (int pass = 0; pass < 2; pass++) {
      const int *ts = pass ? o->outputs : o->inputs;
      int nts = pass ? o->noutputs : o->ninputs;
      for (int i = 0; i < nts; i++)
        if (!keep[ts[i]] && !g->t[ts[i]].zero) keep[ts[i]] = true, tlist[ntl++] = ts[i];
    }
  }
  cJSON *head = cJSON_CreateObject();
  ok = ok && head && cJSON_AddStringToObject(head, "name", g->name) && cJSON_AddStringToObject(head, "source", g->source);
  char *hs = ok ? cJSON_PrintUnformatted(head) : NULL;
  cJSON_Delete(head);
  /* {"name":..,"source":..} -> the contract's header lines */
  ok = ok && hs && Imp_append(&buf, &blen, &bcap, "{\n\"format\": \"spadmap-network\", \"version\": 1,\n");
  if (ok) {
    hs[strlen(hs) - 1] = '\0';
    ok = Imp_append(&buf, &blen, &bcap, hs + 1) && Imp_append(&buf, &blen, &bcap, ",\n\"tensors\": [\n");
  }
  free(hs);
  for (int i = 0; ok && i < ntl; i++) {
    const ImpTensor *t = &g->t[tlist[i]];
    cJSON *obj = cJSON_CreateObject();
    cJSON *shape = cJSON_CreateArray();
    ok = obj && shape;
    for (int d = 0; ok && d < t->rank; d++) ok = cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t->shape[d]));
    if (!ok) {
      cJSON_Delete(obj);
      cJSON_Delete(shape);
      break;
    }
    cJSON_AddStringToObject(obj, "name", t->name);
    cJSON_AddItemToObject(obj, "shape", shape);
    cJSON_AddStringToObject(obj, "dtype", t->dtype);
    if (t->kind != TK_ACTIVATION) cJSON_AddStringToObject(obj, "kind", Imp_kindNames[t->kind]);
    if (t->bytes > 0) cJSON_AddNumberToObject(obj, "bytes", (double)t->bytes);
    if (t->note) cJSON_AddStringToObject(obj, "onnx_type", t->note);
    ok = Imp_appendItem(&buf, &blen, &bcap, obj, i + 1 < ntl);
  }
  ok = ok && Imp_append(&buf, &blen, &bcap, "],\n\"ops\": [\n");
  for (int s = 0; ok && s < n; s++) {
    const ImpOp *o = &g->o[order[s]];
    cJSON *obj = cJSON_CreateObject();
    ok = obj != NULL;
    if (!ok) break;
    cJSON_AddStringToObject(obj, "name", o->name);
    cJSON_AddStringToObject(obj, "type", o->type);
    cJSON_AddItemToObject(obj, "inputs", Imp_names(g, o->inputs, o->ninputs));
    cJSON_AddItemToObject(obj, "outputs", Imp_names(g, o->outputs, o->noutputs));
    if (o->attrs && cJSON_GetArraySize(o->attrs) > 0) cJSON_AddItemReferenceToObject(obj, "attrs", o->attrs);
    ok = Imp_appendItem(&buf, &blen, &bcap, obj, s + 1 < n);
  }
  ok = ok && Imp_append(&buf, &blen, &bcap, "]\n}\n");
  free(keep);
  free(tlist);
  free(order);
  if (!ok) {
    free(buf);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory writing the network", label);
  }
  if (!Text_isUtf8(buf)) { /* an attribute's text, say: the names were checked above */
    free(buf);
    return SpError_set(err, SP_ERR_FORMAT, "%s: the model holds text (an attribute) that is not valid UTF-8", label);
  }
  *json = buf;
  *len = blen;
  return SP_OK;
}

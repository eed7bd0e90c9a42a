/* Network loader: parses a "spadmap-network" file and checks every rule of the
 * contract. Each error names the file, the JSON path (ops[12].inputs[1]) or the
 * line:column of a syntax error, and what was expected. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json.h"
#include "net_internal.h"


typedef struct {
  const char *label;
  SpError *err;
  Net *net;
} Loader;

static Status Loader_fail(Loader *ld, Status code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static Status Loader_fail(Loader *ld, Status code, const char *path, const char *fmt, ...) {
  char what[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return SpError_set(ld->err, code, "%s: %s: %s", ld->label, path, what);
}

/* "a string", "number 3.5", ... for "expected X, got Y" messages. */
static void Json_describe(const cJSON *v, char *buf, size_t n) {
  if (!v) snprintf(buf, n, "nothing");
  else if (cJSON_IsString(v)) snprintf(buf, n, "string \"%.40s\"", v->valuestring);
  else if (Json_numberText(v)) snprintf(buf, n, "number %s", Json_numberText(v)); /* as written: exact */
  else if (cJSON_IsNumber(v)) snprintf(buf, n, "number %.17g", v->valuedouble);
  else if (cJSON_IsBool(v)) snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsNull(v)) snprintf(buf, n, "null");
  else if (cJSON_IsArray(v)) snprintf(buf, n, "an array");
  else if (cJSON_IsObject(v)) snprintf(buf, n, "an object");
  else snprintf(buf, n, "an unknown value");
}

static Status Loader_expected(Loader *ld, const char *path, const char *expected, const cJSON *got) {
  char desc[80];
  Json_describe(got, desc, sizeof desc);
  return Loader_fail(ld, SP_ERR_FORMAT, path, "expected %s, got %s", expected, desc);
}

/* cJSON keeps duplicate keys and returns the first; the contract wants one value. */
static Status Loader_checkKeys(Loader *ld, const cJSON *obj, const char *path) {
  const char *dup = Json_duplicateKey(obj);
  return dup ? Loader_fail(ld, SP_ERR_FORMAT, path, "duplicate key \"%s\"", dup) : SP_OK;
}

static Status Loader_string(Loader *ld, const cJSON *obj, const char *key, const char *path,
                            bool required, const char **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) {
    if (required) return Loader_fail(ld, SP_ERR_FORMAT, path, "missing key \"%s\" (expected a string)", key);
    *out = NULL;
    return SP_OK;
  }
  if (!cJSON_IsString(v)) { /* paths are only formatted for a message: the loader is linear and cheap per key */
    char p[256];
    snprintf(p, sizeof p, "%s.%s", path, key);
    return Loader_expected(ld, p, "a string", v);
  }
  *out = v->valuestring;
  return SP_OK;
}

static int Dtype_bytes(const char *dtype) {
  static const struct { const char *name; int bytes; } table[] = {
    {"int8", 1}, {"uint8", 1}, {"int16", 2}, {"fp16", 2}, {"bf16", 2}, {"int32", 4}, {"fp32", 4},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, dtype) == 0) return table[i].bytes;
  return 0;
}

static bool Kind_parse(const char *s, TensorKind *k) {
  static const char *const names[] = {"activation", "input", "param", "output"};
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *k = (TensorKind)i;
      return true;
    }
  return false;
}

/* A positive-integer array (shape or strides) at path; fills a fresh arena array. */
static Status Loader_intArray(Loader *ld, const cJSON *arr, const char *path, bool allow_zero,
                              int64_t **out, int *count) {
  if (!cJSON_IsArray(arr)) return Loader_expected(ld, path, "an array of integers", arr);
  int n = cJSON_GetArraySize(arr);
  int64_t *vals = Arena_alloc(&ld->net->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!vals) return SpError_set(ld->err, SP_ERR_NOMEM, "%s: out of memory", ld->label);
  int i = 0;
  for (const cJSON *v = arr->child; v; v = v->next, i++) {
    int64_t x;
    if (!Json_exactInt(v, &x) || x < (allow_zero ? 0 : 1)) {
      char p[256];
      snprintf(p, sizeof p, "%s[%d]", path, i);
      return Loader_expected(ld, p, allow_zero ? "a non-negative integer" : "a positive integer", v);
    }
    vals[i] = x;
  }
  *out = vals;
  *count = n;
  return SP_OK;
}

static Status Loader_tensor(Loader *ld, const cJSON *obj, int index, Tensor *t) {
  char path[64];
  Json_pathIndex(path, sizeof path, "tensors", index);
  if (!cJSON_IsObject(obj)) return Loader_expected(ld, path, "an object", obj);
  Status st = Loader_checkKeys(ld, obj, path);
  if (st) return st;

  const char *name = NULL, *dtype = NULL, *kind = NULL;
  if ((st = Loader_string(ld, obj, "name", path, true, &name))) return st;
  if (!name[0]) return Loader_fail(ld, SP_ERR_FORMAT, path, "name is empty");
  if ((st = Loader_string(ld, obj, "dtype", path, false, &dtype))) return st;
  if ((st = Loader_string(ld, obj, "kind", path, false, &kind))) return st;
  t->name = Arena_strdup(&ld->net->arena, name);
  t->dtype = Arena_strdup(&ld->net->arena, dtype ? dtype : "int8");
  t->elem_bytes = Dtype_bytes(t->dtype);
  if (!t->elem_bytes)
    return Loader_fail(ld, SP_ERR_FORMAT, path,
                       "dtype \"%s\" of tensor \"%s\" is not one of int8 uint8 int16 fp16 bf16 int32 fp32",
                       t->dtype, name);
  t->kind = TK_ACTIVATION;
  if (kind && !Kind_parse(kind, &t->kind))
    return Loader_fail(ld, SP_ERR_FORMAT, path,
                       "kind \"%s\" of tensor \"%s\" is not one of activation input param output", kind, name);

  char p[96];
  Json_pathKey(p, sizeof p, path, "shape");
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(obj, "shape");
  if (!shape) return Loader_fail(ld, SP_ERR_FORMAT, path, "tensor \"%s\" has no \"shape\"", name);
  int64_t *dims;
  if ((st = Loader_intArray(ld, shape, p, false, &dims, &t->rank))) return st;
  if (t->rank < 1) return Loader_fail(ld, SP_ERR_FORMAT, p, "shape of \"%s\" is empty (rank must be >= 1)", name);
  t->shape = dims;

  int64_t bytes = t->elem_bytes;
  for (int i = 0; i < t->rank; i++)
    if (__builtin_mul_overflow(bytes, dims[i], &bytes))
      return Loader_fail(ld, SP_ERR_FORMAT, p,
                         "shape x dtype of \"%s\" overflows 64 bits (the shape must fit even when \"bytes\" is given)", name);
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(obj, "bytes");
  if (b) {
    snprintf(p, sizeof p, "%s.bytes", path);
    if (!Json_exactInt(b, &bytes) || bytes < 1) return Loader_expected(ld, p, "a positive integer", b);
  }
  t->bytes = bytes;

  const cJSON *strides = cJSON_GetObjectItemCaseSensitive(obj, "strides");
  if (strides) {
    snprintf(p, sizeof p, "%s.strides", path);
    int64_t *s;
    int n;
    if ((st = Loader_intArray(ld, strides, p, true, &s, &n))) return st;
    if (n != t->rank)
      return Loader_fail(ld, SP_ERR_FORMAT, p, "%d strides for a rank-%d shape (expected one per dimension)", n,
                         t->rank);
    t->strides = s;
  }
  t->producer = -1;
  return SP_OK;
}

/* Reads ops[i].inputs or .outputs into tensor indices. */
static Status Loader_refs(Loader *ld, const cJSON *op, const char *key, const char *path, int **out, int *count) {
  char p[96];
  Json_pathKey(p, sizeof p, path, key);
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(op, key);
  if (!arr) return Loader_fail(ld, SP_ERR_FORMAT, path, "missing key \"%s\" (expected an array of tensor names)", key);
  if (!cJSON_IsArray(arr)) return Loader_expected(ld, p, "an array of tensor names", arr);
  int n = cJSON_GetArraySize(arr);
  int *idx = Arena_alloc(&ld->net->arena, sizeof(int) * (size_t)(n ? n : 1));
  if (!idx) return SpError_set(ld->err, SP_ERR_NOMEM, "%s: out of memory", ld->label);
  int i = 0;
  for (const cJSON *v = arr->child; v; v = v->next, i++) {
    idx[i] = cJSON_IsString(v) ? NameIndex_get(ld->net->tensor_index, v->valuestring) : -1;
    if (idx[i] >= 0) continue;
    char q[128];
    snprintf(q, sizeof q, "%s[%d]", p, i);
    if (!cJSON_IsString(v)) return Loader_expected(ld, q, "a tensor name", v);
    return Loader_fail(ld, SP_ERR_FORMAT, q, "unknown tensor \"%s\"", v->valuestring);
  }
  *out = idx;
  *count = n;
  return SP_OK;
}

static Status Loader_op(Loader *ld, const cJSON *obj, int index, Op *op) {
  char path[64];
  Json_pathIndex(path, sizeof path, "ops", index);
  if (!cJSON_IsObject(obj)) return Loader_expected(ld, path, "an object", obj);
  Status st = Loader_checkKeys(ld, obj, path);
  if (st) return st;
  const char *name = NULL, *type = NULL;
  if ((st = Loader_string(ld, obj, "name", path, true, &name))) return st;
  if (!name[0]) return Loader_fail(ld, SP_ERR_FORMAT, path, "name is empty");
  if ((st = Loader_string(ld, obj, "type", path, true, &type))) return st;
  op->name = Arena_strdup(&ld->net->arena, name);
  op->type = Arena_strdup(&ld->net->arena, type);
  int *in, *outv;
  if ((st = Loader_refs(ld, obj, "inputs", path, &in, &op->ninputs))) return st;
  if ((st = Loader_refs(ld, obj, "outputs", path, &outv, &op->noutputs))) return st;
  op->inputs = in;
  op->outputs = outv;
  if (op->noutputs == 0) return Loader_fail(ld, SP_ERR_FORMAT, path, "op \"%s\" has no outputs (expected at least one)", name);
  const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(obj, "attrs");
  if (attrs) {
    char p[96];
    snprintf(p, sizeof p, "%s.attrs", path);
    if (!cJSON_IsObject(attrs)) return Loader_expected(ld, p, "an object", attrs);
    char *s = cJSON_PrintUnformatted(attrs);
    if (!s) return SpError_set(ld->err, SP_ERR_NOMEM, "%s: out of memory", ld->label);
    op->attrs_json = Arena_strdup(&ld->net->arena, s);
    cJSON_free(s);
  }
  const cJSON *tiles = cJSON_GetObjectItemCaseSensitive(obj, "tiles"); /* optional: engine/tiles */
  if (tiles) {
    char p[96];
    snprintf(p, sizeof p, "%s.tiles", path);
    int64_t k;
    if (!Json_exactInt(tiles, &k) || k < 1 || k > 65536)
      return Loader_expected(ld, p, "an integer from 1 to 65536 (the op's tile count)", tiles);
    op->tiles = (int)k;
  }
  return SP_OK;
}

/* Finds a cycle among ops (Kahn's algorithm over producer -> consumer edges,
 * one entry per input read: linear in the file) and names its ops, so a cyclic
 * file is told apart from a merely unordered one. */
static bool Loader_findCycle(const Net *net, char *buf, size_t n) {
  size_t nops = (size_t)net->nops, nedges = 0;
  for (int o = 0; o < net->nops; o++) nedges += (size_t)net->ops[o].ninputs;
  int *indeg = calloc(nops, sizeof(int));
  int *queue = malloc(sizeof(int) * nops);
  size_t *first = calloc(nops + 1, sizeof(size_t)); /* edges of op p: succ[first[p] .. first[p+1]) */
  int *succ = malloc(sizeof(int) * (nedges ? nedges : 1));
  size_t *fill = calloc(nops, sizeof(size_t));
  bool cyclic = false;
  if (!indeg || !queue || !first || !succ || !fill) goto done;
  for (int o = 0; o < net->nops; o++)
    for (int i = 0; i < net->ops[o].ninputs; i++) {
      int p = net->tensors[net->ops[o].inputs[i]].producer;
      if (p >= 0) indeg[o]++, first[p + 1]++;
    }
  for (size_t p = 0; p < nops; p++) first[p + 1] += first[p];
  for (int o = 0; o < net->nops; o++)
    for (int i = 0; i < net->ops[o].ninputs; i++) {
      int p = net->tensors[net->ops[o].inputs[i]].producer;
      if (p >= 0) succ[first[p] + fill[p]++] = o;
    }
  int head = 0, tail = 0;
  for (int o = 0; o < net->nops; o++)
    if (!indeg[o]) queue[tail++] = o;
  while (head < tail) {
    int p = queue[head++];
    for (size_t e = first[p]; e < first[p + 1]; e++)
      if (--indeg[succ[e]] == 0) queue[tail++] = succ[e];
  }
  if (tail < net->nops) {
    /* Every op left has a predecessor left: walk back until an op repeats. */
    cyclic = true;
    int *seen = calloc((size_t)net->nops, sizeof(int)), *path = malloc(sizeof(int) * (size_t)net->nops);
    int v = 0, len = 0;
    while (indeg[v] == 0) v++;
    while (seen && path && !seen[v]) {
      seen[v] = ++len;
      path[len - 1] = v;
      int pred = -1;
      for (int i = 0; i < net->ops[v].ninputs && pred < 0; i++) {
        int p = net->tensors[net->ops[v].inputs[i]].producer;
        if (p >= 0 && indeg[p] > 0) pred = p;
      }
      v = pred;
    }
    size_t used = 0;
    buf[0] = '\0';
    if (seen && path) /* the cycle is path[seen[v]-1 .. len-1], walked backwards */
      for (int k = len - 1, shown = 0; k >= seen[v] - 1 && used < n; k--, shown++)
        used += (size_t)snprintf(buf + used, n - used, "%s\"%s\"", shown ? " -> " : "", net->ops[path[k]].name);
    if (seen && path && used < n) snprintf(buf + used, n - used, " -> \"%s\"", net->ops[path[len - 1]].name);
    free(seen);
    free(path);
  }
done:
  free(indeg);
  free(queue);
  free(first);
  free(succ);
  free(fill);
  return cyclic;
}

/* Producers, consumers and the order rule: an op reads only inputs/params or
 * tensors made by an earlier op. */
static Status Loader_link(Loader *ld) {
  Net *net = ld->net;
  for (int o = 0; o < net->nops; o++) {
    const Op *op = &net->ops[o];
    for (int k = 0; k < op->noutputs; k++) {
      Tensor *t = &net->tensors[op->outputs[k]];
      if (t->producer < 0 && t->kind != TK_INPUT && t->kind != TK_PARAM) {
        t->producer = o;
        continue;
      }
      char p[96];
      snprintf(p, sizeof p, "ops[%d].outputs[%d]", o, k);
      if (t->kind == TK_INPUT || t->kind == TK_PARAM)
        return Loader_fail(ld, SP_ERR_FORMAT, p, "tensor \"%s\" is a graph %s; only activation/output tensors are produced by ops",
                           t->name, TensorKind_name(t->kind));
      if (t->producer >= 0)
        return Loader_fail(ld, SP_ERR_FORMAT, p, "tensor \"%s\" is already produced by ops[%d] (\"%s\"); each tensor has one producer",
                           t->name, t->producer, net->ops[t->producer].name);
      t->producer = o;
    }
  }
  for (int i = 0; i < net->ntensors; i++) {
    const Tensor *t = &net->tensors[i];
    if ((t->kind == TK_ACTIVATION || t->kind == TK_OUTPUT) && t->producer < 0)
      return Loader_fail(ld, SP_ERR_FORMAT, "tensors", "tensors[%d] (\"%s\", kind %s) is produced by no op", i, t->name,
                         TensorKind_name(t->kind));
  }
  for (int o = 0; o < net->nops; o++) {
    const Op *op = &net->ops[o];
    for (int k = 0; k < op->ninputs; k++) {
      const Tensor *t = &net->tensors[op->inputs[k]];
      if (t->producer < o) continue;
      char p[96];
      snprintf(p, sizeof p, "ops[%d].inputs[%d]", o, k);
      if (t->producer == o)
        return Loader_fail(ld, SP_ERR_FORMAT, p, "op \"%s\" reads its own output \"%s\" (a cycle)", op->name, t->name);
      char cyc[300];
      if (Loader_findCycle(net, cyc, sizeof cyc))
        return Loader_fail(ld, SP_ERR_FORMAT, p, "the graph has a cycle: %s", cyc);
      return Loader_fail(ld, SP_ERR_FORMAT, p,
                         "tensor \"%s\" is produced by ops[%d] (\"%s\"), which comes later: ops must be listed in topological order",
                         t->name, t->producer, net->ops[t->producer].name);
    }
  }
  /* Distinct consumers per tensor, in file order. */
  int *count = calloc((size_t)net->ntensors, sizeof(int));
  int *last = malloc(sizeof(int) * (size_t)(net->ntensors ? net->ntensors : 1));
  if (!count || !last) {
    free(count);
    free(last);
    return SpError_set(ld->err, SP_ERR_NOMEM, "%s: out of memory", ld->label);
  }
  for (int i = 0; i < net->ntensors; i++) last[i] = -1;
  for (int o = 0; o < net->nops; o++)
    for (int k = 0; k < net->ops[o].ninputs; k++) {
      int t = net->ops[o].inputs[k];
      if (last[t] != o) count[t]++, last[t] = o;
    }
  Status st = SP_OK;
  for (int i = 0; i < net->ntensors && !st; i++) {
    int *c = Arena_alloc(&net->arena, sizeof(int) * (size_t)(count[i] ? count[i] : 1));
    if (!c) st = SpError_set(ld->err, SP_ERR_NOMEM, "%s: out of memory", ld->label);
    net->tensors[i].consumers = c;
    last[i] = -1;
  }
  for (int o = 0; o < net->nops && !st; o++)
    for (int k = 0; k < net->ops[o].ninputs; k++) {
      Tensor *t = &net->tensors[net->ops[o].inputs[k]];
      int ti = net->ops[o].inputs[k];
      if (last[ti] != o) ((int *)t->consumers)[t->nconsumers++] = o, last[ti] = o;
    }
  free(count);
  free(last);
  return st;
}

static Status Loader_tensors(Loader *ld, const cJSON *root) {
  Net *net = ld->net;
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "tensors");
  if (!arr) return Loader_fail(ld, SP_ERR_FORMAT, "$", "missing key \"tensors\" (expected an array)");
  if (!cJSON_IsArray(arr)) return Loader_expected(ld, "tensors", "an array", arr);
  net->ntensors = cJSON_GetArraySize(arr);
  net->tensors = Arena_alloc(&net->arena, sizeof(Tensor) * (size_t)(net->ntensors ? net->ntensors : 1));
  net->tensor_index = NameIndex_new(&net->arena, net->ntensors);
  if (!net->tensors || !net->tensor_index) return SpError_set(ld->err, SP_ERR_NOMEM, "%s: out of memory", ld->label);
  int i = 0;
  int64_t total = 0;
  for (const cJSON *v = arr->child; v; v = v->next, i++) {
    Status st = Loader_tensor(ld, v, i, &net->tensors[i]);
    if (st) return st;
    int prev = NameIndex_put(net->tensor_index, net->tensors[i].name, i);
    if (prev >= 0) {
      char p[64];
      snprintf(p, sizeof p, "tensors[%d].name", i);
      return Loader_fail(ld, SP_ERR_FORMAT, p, "duplicate tensor name \"%s\" (first at tensors[%d])", net->tensors[i].name, prev);
    }
    /* Every figure (M_R, M_P, peaks) is at most this sum, so capping it at 2^62
     * keeps all of them, and M_R + M_P, inside int64. */
    if (__builtin_add_overflow(total, net->tensors[i].bytes, &total) || total > NET_MAX_TOTAL_BYTES)
      return Loader_fail(ld, SP_ERR_FORMAT, "tensors",
                         "the summed tensor sizes overflow the 2^62-byte limit at tensors[%d] (\"%s\"), "
                         "so figures such as M_R + M_P would not fit in 64 bits", i, net->tensors[i].name);
  }
  return SP_OK;
}

static Status Loader_ops(Loader *ld, const cJSON *root) {
  Net *net = ld->net;
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "ops");
  if (!arr) return Loader_fail(ld, SP_ERR_FORMAT, "$", "missing key \"ops\" (expected an array)");
  if (!cJSON_IsArray(arr)) return Loader_expected(ld, "ops", "an array", arr);
  net->nops = cJSON_GetArraySize(arr);
  if (net->nops == 0) return Loader_fail(ld, SP_ERR_FORMAT, "ops", "no ops (expected at least one)");
  net->ops = Arena_alloc(&net->arena, sizeof(Op) * (size_t)net->nops);
  net->op_index = NameIndex_new(&net->arena, net->nops);
  if (!net->ops || !net->op_index) return SpError_set(ld->err, SP_ERR_NOMEM, "%s: out of memory", ld->label);
  int i = 0;
  for (const cJSON *v = arr->child; v; v = v->next, i++) {
    Status st = Loader_op(ld, v, i, &net->ops[i]);
    if (st) return st;
    int prev = NameIndex_put(net->op_index, net->ops[i].name, i);
    if (prev >= 0) {
      char p[64];
      snprintf(p, sizeof p, "ops[%d].name", i);
      return Loader_fail(ld, SP_ERR_FORMAT, p, "duplicate op name \"%s\" (first at ops[%d])", net->ops[i].name, prev);
    }
  }
  return SP_OK;
}

static Status Loader_header(Loader *ld, const cJSON *root) {
  const char *format = NULL, *name = NULL, *source = NULL;
  Status st;
  if ((st = Loader_string(ld, root, "format", "$", true, &format))) return st;
  if (strcmp(format, "spadmap-network") != 0)
    return Loader_fail(ld, SP_ERR_FORMAT, "format", "expected \"spadmap-network\", got \"%s\"", format);
  const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
  int64_t ver;
  if (!version) return Loader_fail(ld, SP_ERR_FORMAT, "$", "missing key \"version\" (expected 1)");
  if (!Json_exactInt(version, &ver)) return Loader_expected(ld, "version", "the integer 1", version);
  if (ver != 1) return Loader_fail(ld, SP_ERR_FORMAT, "version", "unsupported version %lld (this build reads version 1)", (long long)ver);
  if ((st = Loader_string(ld, root, "name", "$", false, &name))) return st;
  if ((st = Loader_string(ld, root, "source", "$", false, &source))) return st;
  char stem[256];
  ld->net->name = Arena_strdup(&ld->net->arena, name && name[0] ? name : FileIO_stem(ld->label, stem, sizeof stem));
  ld->net->source = Arena_strdup(&ld->net->arena, source ? source : "");
  /* not in the contract (unknown keys are ignored there): the import options a model was
   * opened with, kept so a plan made from it can be checked against the same network */
  const cJSON *imp = cJSON_GetObjectItemCaseSensitive(root, "import");
  if (imp) {
    if (!cJSON_IsObject(imp)) return Loader_expected(ld, "import", "an object (the import options)", imp);
    char *text = cJSON_PrintUnformatted(imp);
    if (!text) return Loader_fail(ld, SP_ERR_NOMEM, "import", "out of memory");
    ld->net->import_json = Arena_strdup(&ld->net->arena, text);
    cJSON_free(text);
  }
  return SP_OK;
}

Status Net_parse(const char *text, size_t len, const char *label, Net **out, SpError *err) {
  *out = NULL;
  cJSON *root;
  Status parsed = Json_parseArena(text, len, label, &root, err);
  if (parsed) return parsed;
  Arena arena = {0};
  Net *net = Arena_alloc(&arena, sizeof *net);
  if (!net) {
    Json_freeArena(root);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", label);
  }
  net->arena = arena;
  net->path = Arena_strdup(&net->arena, label);
  Loader ld = {label, err, net};
  Status st = SP_OK;
  if (!cJSON_IsObject(root)) st = Loader_expected(&ld, "$", "an object", root);
  if (!st) st = Loader_checkKeys(&ld, root, "$");
  if (!st) st = Loader_header(&ld, root);
  if (!st) st = Loader_tensors(&ld, root);
  if (!st) st = Loader_ops(&ld, root);
  if (!st) st = Loader_link(&ld);
  Json_freeArena(root);
  if (st) {
    Net_free(net);
    return st;
  }
  *out = net;
  return SP_OK;
}

Status Net_load(const char *path, Net **out, SpError *err) {
  char *text;
  size_t len;
  *out = NULL;
  Status st = FileIO_read(path, FILE_NETWORK, &text, &len, err);
  if (st) return st;
  st = Net_parse(text, len, path, out, err);
  free(text);
  return st;
}

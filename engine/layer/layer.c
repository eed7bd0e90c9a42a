/* layer: one convolution or matmul from a network op or from text, and CoSA's
 * name for it. */
#include "layer.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static int64_t Layer_elems(const Tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->rank; d++) n *= t->shape[d];
  return n;
}

/* attrs.key as [a, b] (or a single integer, used for both); out is left as it
 * is when the key is absent. false when it is there but neither form: a stride of
 * "2" or [2, 2, 2] is refused, not read as the default. */
static bool Layer_pair(const cJSON *attrs, const char *key, int64_t out[2]) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(attrs, key);
  if (!v) return true;
  if (Json_exactInt(v, &out[0])) {
    out[1] = out[0];
    return true;
  }
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2) return false;
  return Json_exactInt(cJSON_GetArrayItem(v, 0), &out[0]) && Json_exactInt(cJSON_GetArrayItem(v, 1), &out[1]);
}

/* The models count MACs, elements and bytes in int64: a layer whose MACs pass
 * 2^48 (or a dimension 2^24) is refused rather than counted wrong. Every tensor
 * is then below 2^61 elements (its halo included). */
enum { LAYER_DIM_MAX = 1 << 24 };
#define LAYER_MACS_MAX ((int64_t)1 << 48)
static Status Layer_checkSize(const Layer *l, const char *what, SpError *err) {
  const int64_t dims[] = {l->R, l->S, l->P, l->Q, l->C, l->K, l->N, l->groups};
  static const char *const names[] = {"R", "S", "P", "Q", "C", "K", "N", "groups"};
  int64_t macs = 1;
  for (int i = 0; i < 8; i++) {
    if (dims[i] < 1 || dims[i] > LAYER_DIM_MAX)
      return SpError_set(err, SP_ERR_ARG, "%s: %s = %lld is out of the layer model's range 1..%d", what, names[i],
                         (long long)dims[i], LAYER_DIM_MAX);
    if (__builtin_mul_overflow(macs, dims[i], &macs) || macs > LAYER_MACS_MAX)
      return SpError_set(err, SP_ERR_ARG, "%s: more than 2^48 MACs (R S P Q C K N groups), beyond what the models count",
                         what);
  }
  return SP_OK;
}

static void Layer_init(Layer *l, const char *name, int op) {
  memset(l, 0, sizeof *l);
  snprintf(l->name, sizeof l->name, "%s", name);
  l->R = l->S = l->P = l->Q = l->C = l->K = l->N = 1;
  l->stride_h = l->stride_w = 1;
  l->groups = 1;
  l->op = op;
}

static Status Layer_conv(const Net *net, const Op *op, const cJSON *attrs, Layer *l, SpError *err) {
  const char *where = net->path ? net->path : net->name;
  if (op->ninputs < 2 || op->noutputs < 1)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": a conv2d needs an input, a weight and an output", where,
                       op->name);
  const Tensor *x = &net->tensors[op->inputs[0]], *w = &net->tensors[op->inputs[1]];
  const Tensor *y = &net->tensors[op->outputs[0]];
  if (x->rank != 4 || w->rank != 4 || y->rank != 4)
    return SpError_set(err, SP_ERR_ARG,
                       "%s: op \"%s\": expected 4-d input, weight and output (N,C,H,W), got ranks %d, %d, %d",
                       where, op->name, x->rank, w->rank, y->rank);
  int64_t kernel[2] = {w->shape[2], w->shape[3]}, stride[2] = {1, 1}, pad[2] = {0, 0}, dil[2] = {1, 1}, g = 1;
  if (attrs) {
    static const char *const keys[] = {"kernel", "stride", "padding", "dilation"};
    int64_t *vals[] = {kernel, stride, pad, dil};
    for (int i = 0; i < 4; i++)
      if (!Layer_pair(attrs, keys[i], vals[i]))
        return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": attrs.%s: expected an integer or [height, width]", where,
                           op->name, keys[i]);
    const cJSON *gv = cJSON_GetObjectItemCaseSensitive(attrs, "groups");
    if (gv && (!Json_exactInt(gv, &g) || g < 1 || g > LAYER_DIM_MAX))
      return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": attrs.groups: expected an integer in 1..%d", where,
                         op->name, LAYER_DIM_MAX);
  }
  if (dil[0] != 1 || dil[1] != 1)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": dilation %lldx%lld is not in the layer model (only 1)",
                       where, op->name, (long long)dil[0], (long long)dil[1]);
  if (stride[0] < 1 || stride[1] < 1 || stride[0] > 64 || stride[1] > 64 || pad[0] < 0 || pad[1] < 0 ||
      pad[0] > 1024 || pad[1] > 1024)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": stride or padding out of range", where, op->name);
  for (int d = 0; d < 2; d++) { /* the output fits the padded input (the end pad may be one stride more: SAME) */
    int64_t most = (x->shape[2 + d] + 2 * pad[d] + stride[d] - 1 - w->shape[2 + d]) / stride[d] + 1;
    if (y->shape[2 + d] > most)
      return SpError_set(err, SP_ERR_ARG,
                         "%s: op \"%s\": output %s %lld does not follow from input %lld, kernel %lld, stride %lld, "
                         "padding %lld (at most %lld)",
                         where, op->name, d ? "width" : "height", (long long)y->shape[2 + d], (long long)x->shape[2 + d],
                         (long long)w->shape[2 + d], (long long)stride[d], (long long)pad[d], (long long)(most < 0 ? 0 : most));
  }
  if (kernel[0] != w->shape[2] || kernel[1] != w->shape[3])
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": attrs.kernel %lldx%lld differs from the weight's %lldx%lld",
                       where, op->name, (long long)kernel[0], (long long)kernel[1], (long long)w->shape[2],
                       (long long)w->shape[3]);
  if (x->shape[1] % g || y->shape[1] % g || w->shape[1] * g != x->shape[1] || w->shape[0] != y->shape[1])
    return SpError_set(err, SP_ERR_ARG,
                       "%s: op \"%s\": channels do not agree: input %lld, weight %lldx%lld, output %lld, groups %lld",
                       where, op->name, (long long)x->shape[1], (long long)w->shape[0], (long long)w->shape[1],
                       (long long)y->shape[1], (long long)g);
  l->R = kernel[0];
  l->S = kernel[1];
  l->P = y->shape[2];
  l->Q = y->shape[3];
  l->C = x->shape[1] / g;
  l->K = y->shape[1] / g;
  l->N = y->shape[0];
  l->stride_h = (int)stride[0];
  l->stride_w = (int)stride[1];
  l->pad_h = (int)pad[0];
  l->pad_w = (int)pad[1];
  l->groups = (int)g;
  return SP_OK;
}

/* linear: y[..., out] = x[..., in] W^T: N = rows, C = in, K = out. */
static Status Layer_linear(const Net *net, const Op *op, Layer *l, SpError *err) {
  const char *where = net->path ? net->path : net->name;
  if (op->ninputs < 2 || op->noutputs < 1)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": a linear op needs an input, a weight and an output", where,
                       op->name);
  const Tensor *x = &net->tensors[op->inputs[0]], *w = &net->tensors[op->inputs[1]];
  const Tensor *y = &net->tensors[op->outputs[0]];
  if (w->rank != 2 || y->rank < 1)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": expected a 2-d weight, got rank %d", where, op->name,
                       w->rank);
  int64_t out = w->shape[0], in = w->shape[1];
  if (y->shape[y->rank - 1] != out || Layer_elems(y) % out || Layer_elems(x) % in)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": weight %lldx%lld does not fit input/output shapes", where,
                       op->name, (long long)out, (long long)in);
  l->C = in;
  l->K = out;
  l->N = Layer_elems(y) / out;
  return SP_OK;
}

/* matmul: out[batch..., M, Ncol] = A[..., M, Kc] B: each batch entry (heads
 * included) is one group with N = M rows, C = Kc, K = Ncol. The contraction
 * length is A's size / (batch * M), which also covers reshaped heads. */
static Status Layer_matmul(const Net *net, const Op *op, Layer *l, SpError *err) {
  const char *where = net->path ? net->path : net->name;
  if (op->ninputs < 2 || op->noutputs < 1)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": a matmul needs two inputs and an output", where, op->name);
  const Tensor *a = &net->tensors[op->inputs[0]], *y = &net->tensors[op->outputs[0]];
  if (y->rank < 2)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": expected an output of rank >= 2", where, op->name);
  int64_t ncol = y->shape[y->rank - 1], m = y->shape[y->rank - 2];
  int64_t batch = Layer_elems(y) / (ncol * m);
  if (batch < 1 || Layer_elems(a) % (batch * m))
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": input shape does not divide into %lld x %lld rows", where,
                       op->name, (long long)batch, (long long)m);
  if (batch > 1 << 20)
    return SpError_set(err, SP_ERR_ARG, "%s: op \"%s\": too many batched products", where, op->name);
  l->C = Layer_elems(a) / (batch * m);
  l->K = ncol;
  l->N = m;
  l->groups = (int)batch;
  return SP_OK;
}

Status Layer_fromOp(const Net *net, int op, Layer *out, SpError *err) {
  if (!net || op < 0 || op >= net->nops) return SpError_set(err, SP_ERR_ARG, "no such op (index %d)", op);
  const Op *o = &net->ops[op];
  Layer_init(out, o->name, op);
  cJSON *attrs = o->attrs_json ? cJSON_Parse(o->attrs_json) : NULL;
  Status st;
  if (strcmp(o->type, "conv2d") == 0) st = Layer_conv(net, o, attrs, out, err);
  else if (strcmp(o->type, "linear") == 0) st = Layer_linear(net, o, out, err);
  else if (strcmp(o->type, "matmul") == 0) st = Layer_matmul(net, o, out, err);
  else
    st = SpError_set(err, SP_ERR_ARG, "%s: op \"%s\" is a %s, not a convolution or matmul",
                     net->path ? net->path : net->name, o->name, o->type);
  cJSON_Delete(attrs);
  if (st == SP_OK) {
    char what[200];
    snprintf(what, sizeof what, "%s: op \"%s\"", net->path ? net->path : net->name, o->name);
    st = Layer_checkSize(out, what, err);
  }
  return st;
}

static Status Layer_checkText(const Layer *l, const char *text, SpError *err) {
  char what[160];
  snprintf(what, sizeof what, "layer \"%.140s\"", text);
  return Layer_checkSize(l, what, err);
}

static bool Layer_number(const char *s, int64_t *v, const char **end) {
  char *e;
  long long x = strtoll(s, &e, 10);
  if (e == s || x < 1 || x > (1LL << 24)) return false;
  *v = x;
  *end = e;
  return true;
}

Status Layer_parse(const char *text, Layer *out, SpError *err) {
  Layer_init(out, text ? text : "", -1);
  if (!text || !*text) return SpError_set(err, SP_ERR_ARG, "empty layer (expected R_P_C_K_stride)");
  if (strchr(text, '=')) {
    /* the long form: key=value,... each key once, each value in its own range */
    static const struct { const char *key; int64_t lo, hi; } keys[] = {
        {"R", 1, LAYER_DIM_MAX}, {"S", 1, LAYER_DIM_MAX}, {"P", 1, LAYER_DIM_MAX}, {"Q", 1, LAYER_DIM_MAX},
        {"C", 1, LAYER_DIM_MAX}, {"K", 1, LAYER_DIM_MAX}, {"N", 1, LAYER_DIM_MAX}, {"stride", 1, 64},
        {"groups", 1, 1 << 20},  {"pad", 0, 1024}};
    unsigned seen = 0;
    const char *s = text;
    while (*s) {
      const char *eq = strchr(s, '=');
      if (!eq) return SpError_set(err, SP_ERR_ARG, "layer \"%s\": expected key=value at \"%s\"", text, s);
      size_t klen = (size_t)(eq - s);
      int k = 0;
      for (; k < 10; k++)
        if (strlen(keys[k].key) == klen && strncmp(keys[k].key, s, klen) == 0) break;
      if (k == 10)
        return SpError_set(err, SP_ERR_ARG, "layer \"%s\": unknown key \"%.*s\" (keys: R S P Q C K N stride groups pad)",
                           text, (int)klen, s);
      if (seen >> k & 1) return SpError_set(err, SP_ERR_ARG, "layer \"%s\": %s given twice", text, keys[k].key);
      seen |= 1u << k;
      char *end;
      long long v = strtoll(eq + 1, &end, 10);
      if (!(eq[1] >= '0' && eq[1] <= '9') || (*end && *end != ',') || v < keys[k].lo || v > keys[k].hi)
        return SpError_set(err, SP_ERR_ARG, "layer \"%s\": %s: expected an integer in %lld..%lld", text, keys[k].key,
                           (long long)keys[k].lo, (long long)keys[k].hi);
      int64_t *dims[] = {&out->R, &out->S, &out->P, &out->Q, &out->C, &out->K, &out->N};
      if (k < 7) *dims[k] = v;
      else if (k == 7) out->stride_h = out->stride_w = (int)v;
      else if (k == 8) out->groups = (int)v;
      else out->pad_h = out->pad_w = (int)v;
      s = end;
      if (*s == ',' && !*++s) return SpError_set(err, SP_ERR_ARG, "layer \"%s\": nothing after the last ','", text);
    }
    return Layer_checkText(out, text, err);
  }
  int64_t v[5];
  const char *s = text;
  for (int i = 0; i < 5; i++) {
    const char *end;
    if (!Layer_number(s, &v[i], &end) || (i < 4 ? *end != '_' : *end != 0))
      return SpError_set(err, SP_ERR_ARG,
                         "layer \"%s\": expected R_P_C_K_stride (five positive integers, e.g. 3_56_64_64_1)", text);
    s = end + 1;
  }
  if (v[4] > 64) return SpError_set(err, SP_ERR_ARG, "layer \"%s\": stride %lld out of range", text, (long long)v[4]);
  out->R = out->S = v[0];
  out->P = out->Q = v[1];
  out->C = v[2];
  out->K = v[3];
  out->stride_h = out->stride_w = (int)v[4];
  out->pad_h = out->pad_w = (int)(v[0] / 2);
  return Layer_checkText(out, text, err);
}

const char *Layer_cosaName(const Layer *l, char *buf, int n) {
  snprintf(buf, (size_t)n, "%lld_%lld_%lld_%lld_%d", (long long)l->R, (long long)l->P, (long long)l->C,
           (long long)l->K, l->stride_h);
  return buf;
}

bool Layer_sameShape(const Layer *a, const Layer *b) {
  return a->R == b->R && a->S == b->S && a->P == b->P && a->Q == b->Q && a->C == b->C && a->K == b->K &&
         a->N == b->N && a->stride_h == b->stride_h && a->stride_w == b->stride_w && a->groups == b->groups;
}

static bool Layer_isLayerOp(const char *type) {
  return !strcmp(type, "conv2d") || !strcmp(type, "linear") || !strcmp(type, "matmul");
}

int Layer_skipped(const Net *net, SpError *first) {
  int skipped = 0;
  for (int i = 0; i < net->nops; i++) {
    if (!Layer_isLayerOp(net->ops[i].type)) continue;
    Layer l;
    SpError e;
    if (Layer_fromOp(net, i, &l, &e) == SP_OK) continue;
    if (!skipped++ && first) *first = e;
  }
  return skipped;
}

Status Layer_unique(const Net *net, Layer **out, int **count, int *n, SpError *err) {
  *out = NULL;
  *count = NULL;
  *n = 0;
  Layer *list = malloc(sizeof(Layer) * (size_t)(net->nops ? net->nops : 1));
  int *cnt = calloc((size_t)(net->nops ? net->nops : 1), sizeof(int));
  if (!list || !cnt) {
    free(list);
    free(cnt);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < net->nops; i++) {
    if (!Layer_isLayerOp(net->ops[i].type)) continue;
    Layer l;
    SpError e;
    if (Layer_fromOp(net, i, &l, &e)) continue; /* e.g. dilated: not a layer of this model */
    int k = 0;
    while (k < *n && !Layer_sameShape(&list[k], &l)) k++;
    if (k == *n) list[(*n)++] = l;
    cnt[k]++;
  }
  *out = list;
  *count = cnt;
  return SP_OK;
}

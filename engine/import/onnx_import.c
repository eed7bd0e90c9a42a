/* onnx_import: an ONNX model (after shape inference, onnx_infer.cc) as the
 * contract's network. The graph as it is in the file: every node an op, every
 * value a tensor; graph inputs are inputs, initializers and Constant outputs are
 * params, graph outputs are outputs. Sizes come from the element type and the
 * inferred shape (the shape arithmetic already evaluated by onnx_const.cc); a value
 * whose shape is not known is an error naming it. Nodes that read only params
 * become params (weight-only ops, always). With opts->fold, BatchNorm and
 * elementwise activations fold into their producer (the rule of
 * data/gen/gen_networks.py, stated in docs/importing.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "import_graph.h"
#include "onnx_graph.h"

/* ONNX TensorProto.DataType -> bytes and the contract dtype of that width. */
static const struct {
  const char *onnx;
  int bytes;
  const char *dtype; /* the contract's dtype of the same width */
  bool exact;        /* the same type, not only the same width */
} Onnx_types[] = {
    [1] = {"FLOAT", 4, "fp32", true},    [2] = {"UINT8", 1, "uint8", true},
    [3] = {"INT8", 1, "int8", true},     [4] = {"UINT16", 2, "int16", false},
    [5] = {"INT16", 2, "int16", true},   [6] = {"INT32", 4, "int32", true},
    [7] = {"INT64", 8, NULL, false},     [8] = {"STRING", 0, NULL, false},
    [9] = {"BOOL", 1, "uint8", false},   [10] = {"FLOAT16", 2, "fp16", true},
    [11] = {"DOUBLE", 8, NULL, false},   [12] = {"UINT32", 4, "int32", false},
    [13] = {"UINT64", 8, NULL, false},   [14] = {"COMPLEX64", 8, NULL, false},
    [15] = {"COMPLEX128", 16, NULL, false}, [16] = {"BFLOAT16", 2, "bf16", true},
};
enum { ONNX_NTYPES = sizeof Onnx_types / sizeof Onnx_types[0] };

/* The ONNX op types the explorer and the layer model know under the bundled names. */
static const struct { const char *onnx, *type; } Onnx_opNames[] = {
    {"Gemm", "linear"}, {"MatMul", "matmul"}, {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"},
    {"Div", "div"}, {"Concat", "concat"}, {"Relu", "relu"}, {"Clip", "clip"}, {"Sigmoid", "sigmoid"},
    {"Tanh", "tanh"}, {"HardSwish", "hardswish"}, {"HardSigmoid", "hardsigmoid"},
    {"LeakyRelu", "leaky_relu"}, {"Elu", "elu"}, {"PRelu", "prelu"}, {"Gelu", "gelu"},
    {"BatchNormalization", "batch_norm"}, {"LayerNormalization", "layer_norm"},
    {"Softmax", "softmax"}, {"Flatten", "flatten"}, {"Reshape", "reshape"},
    {"Transpose", "transpose"}, {"ReduceMean", "mean"}, {"Pad", "pad"}, {"Resize", "interpolate"},
    {"Upsample", "interpolate"}, {"Slice", "slice"}, {"Split", "split"}, {"Identity", "identity"},
    {"Dropout", "dropout"}, {"Squeeze", "squeeze"}, {"Unsqueeze", "unsqueeze"}, {"Gather", "gather"},
};

/* --fold: the nodes that fold into their producer (BatchNorm, activations, and
 * arithmetic with one activation operand). */
static const char *const Onnx_foldable[] = {
    "BatchNormalization", "Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Celu", "Sigmoid",
    "HardSigmoid", "HardSwish", "Tanh", "Softplus", "Softsign", "Clip", "Gelu", "Mish",
    "ThresholdedRelu", "Add", "Sub", "Mul", "Div",
};

typedef struct {
  const OnnxGraph *g;
  const ImportOptions *opts;
  const char *label;
  SpError *err;
  ImpGraph ig;
  int *alias;      /* --fold: a folded node's output -> the tensor that replaced it */
} Onnx;

/* The tensor t stands for after the folds so far (with path halving). */
static int Onnx_resolve(Onnx *x, int t) {
  while (x->alias[t] != t) t = x->alias[t] = x->alias[x->alias[t]];
  return t;
}

static bool Onnx_isDefaultDomain(const char *d) { return !d[0] || strcmp(d, "ai.onnx") == 0; }

/* "node "conv1" (Conv, #3)" for messages. */
static const char *Onnx_nodeDesc(const OnnxNode *n, int index, char *buf, size_t size) {
  if (n->name[0]) snprintf(buf, size, "node \"%.80s\" (%.40s, node #%d)", n->name, n->op_type, index);
  else snprintf(buf, size, "node #%d (%.40s)", index, n->op_type);
  return buf;
}

static Status Onnx_nomem(Onnx *x) { return SpError_set(x->err, SP_ERR_NOMEM, "%s: out of memory", x->label); }

static const char *Onnx_opType(const OnnxNode *n, int weight_rank, char *buf, size_t size) {
  const char *kinds[][2] = {{"Conv", "conv"}, {"ConvTranspose", "conv_transpose"}, {"MaxPool", "max_pool"},
                            {"AveragePool", "avg_pool"}, {"GlobalAveragePool", "adaptive_avg_pool"},
                            {"GlobalMaxPool", "adaptive_max_pool"}};
  if (Onnx_isDefaultDomain(n->domain)) {
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
      if (strcmp(n->op_type, kinds[i][0]) == 0 && weight_rank >= 3 && weight_rank <= 5) {
        snprintf(buf, size, "%s%dd", kinds[i][1], weight_rank - 2);
        return buf;
      }
    for (size_t i = 0; i < sizeof Onnx_opNames / sizeof Onnx_opNames[0]; i++)
      if (strcmp(n->op_type, Onnx_opNames[i].onnx) == 0) return Onnx_opNames[i].type;
  }
  return n->op_type[0] ? n->op_type : "op";
}

/* A value's inferred type by name: binary search over indices sorted by name. */
static int Onnx_findValue(const OnnxGraph *g, const int *sorted, const char *name) {
  int lo = 0, hi = g->nvalues - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(g->values[sorted[mid]].name, name);
    if (c == 0) return sorted[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* Value indices sorted by name, for Onnx_findValue. */
static void Onnx_mergeSort(const OnnxGraph *g, int *a, int *tmp, int n) {
  if (n < 2) return;
  int h = n / 2;
  Onnx_mergeSort(g, a, tmp, h);
  Onnx_mergeSort(g, a + h, tmp, n - h);
  int i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = strcmp(g->values[a[i]].name, g->values[a[j]].name) <= 0 ? a[i++] : a[j++];
  while (i < h) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, (size_t)n * sizeof(int));
}

/* The tensor for a defined value; an error when it is defined twice. */
static Status Onnx_define(Onnx *x, const char *name, TensorKind kind, const char *by, int *out) {
  int t = ImpGraph_findTensor(&x->ig, name);
  if (t >= 0)
    return SpError_set(x->err, SP_ERR_FORMAT, "%s: value \"%.120s\" is defined twice (again by %s)", x->label, name, by);
  t = ImpGraph_addTensor(&x->ig, name);
  if (t < 0) return Onnx_nomem(x);
  x->ig.t[t].kind = kind;
  *out = t;
  return SP_OK;
}

/* When the unknown size of value `name` may follow from the value of a graph
 * input (a window's length, a Range's bounds): the small integer inputs (at most
 * IMPORT_MAX_VALUE_ELEMS elements) it is computed from, as a --value hint, into
 * buf; "" when there are none or the user gave them already. */
typedef struct {
  const char *name;
  int who; /* the node that writes it (>= 0), or -1 - the graph input's index */
} OnnxDef;

static int Onnx_defCompare(const void *a, const void *b) {
  return strcmp(((const OnnxDef *)a)->name, ((const OnnxDef *)b)->name);
}

static const char *Onnx_valueHint(const Onnx *x, const int *sorted, const char *name, char *buf, size_t n) {
  const OnnxGraph *g = x->g;
  buf[0] = '\0';
  if (x->opts->nvalues > 0) return buf; /* given: the value is not the missing piece */
  size_t ndefs = (size_t)g->ninputs;
  for (int k = 0; k < g->nnodes; k++) ndefs += (size_t)g->nodes[k].noutputs;
  bool *need = calloc((size_t)g->nnodes + 1, sizeof *need);
  int *queue = malloc(((size_t)g->nnodes + 1) * sizeof *queue);
  bool *reads = calloc((size_t)g->ninputs + 1, sizeof *reads);
  OnnxDef *defs = malloc((ndefs + 1) * sizeof *defs);
  if (!need || !queue || !reads || !defs) goto done;
  /* who defines each name, sorted for bsearch: the walk is O(E log V), not O(V^2) */
  size_t m = 0;
  for (int i = 0; i < g->ninputs; i++) defs[m++] = (OnnxDef){g->inputs[i], -1 - i};
  for (int k = 0; k < g->nnodes; k++)
    for (int o = 0; o < g->nodes[k].noutputs; o++)
      if (g->nodes[k].outputs[o][0]) defs[m++] = (OnnxDef){g->nodes[k].outputs[o], k};
  qsort(defs, m, sizeof *defs, Onnx_defCompare);
  int head = 0, tail = 0;
  /* `name`'s definition, then what its producer reads, and so on back to the inputs */
  OnnxDef key = {name, 0}, *d = m ? bsearch(&key, defs, m, sizeof *defs, Onnx_defCompare) : NULL;
  if (d && d->who < 0) reads[-1 - d->who] = true; /* several definitions: an error said elsewhere */
  else if (d) need[d->who] = true, queue[tail++] = d->who;
  while (head < tail) {
    const OnnxNode *nd = &g->nodes[queue[head++]];
    for (int j = 0; j < nd->ninputs + nd->nimplicit; j++) {
      const char *in = j < nd->ninputs ? nd->inputs[j] : nd->implicit[j - nd->ninputs];
      if (!in[0]) continue;
      key.name = in;
      d = bsearch(&key, defs, m, sizeof *defs, Onnx_defCompare);
      if (!d) continue;
      if (d->who < 0) reads[-1 - d->who] = true;
      else if (!need[d->who]) need[d->who] = true, queue[tail++] = d->who;
    }
  }
  char names[256] = "", opt[256] = "";
  size_t un = 0, uo = 0;
  int found = 0;
  for (int i = 0; i < g->ninputs && un < sizeof names && uo < sizeof opt; i++) {
    int v = reads[i] ? Onnx_findValue(g, sorted, g->inputs[i]) : -1;
    if (v < 0) continue;
    const OnnxValue *val = &g->values[v];
    if (val->rank < 0 || val->rank > 1) continue;
    int64_t elems = val->rank == 1 ? val->dims[0] : 1;
    int t = val->elem_type; /* UINT8..INT64, UINT32, UINT64 */
    bool integer = (t >= 2 && t <= 7) || t == 12 || t == 13;
    if (!integer || elems < 1 || elems > IMPORT_MAX_VALUE_ELEMS) continue;
    un += (size_t)snprintf(names + un, sizeof names - un, "%s\"%.60s\"", found ? ", " : "", val->name);
    uo += (size_t)snprintf(opt + uo, sizeof opt - uo, "%s%.60s=%s", found ? "," : "", val->name, elems == 1 ? "V" : "V,V,...");
    found++;
  }
  if (found && un < sizeof names && uo < sizeof opt)
    snprintf(buf, n, "; if it follows from the value of graph input%s %s, give %s: --value %s", found > 1 ? "s" : "",
             names, found > 1 ? "them" : "it", opt);
done:
  free(need);
  free(queue);
  free(reads);
  free(defs);
  return buf;
}

/* Shape, dtype and bytes of tensor t from its ONNX value. */
static Status Onnx_size(Onnx *x, int t, const int *sorted, const char *where) {
  ImpTensor *it = &x->ig.t[t];
  char hint[512];
  int v = Onnx_findValue(x->g, sorted, it->name);
  if (v < 0 || x->g->values[v].rank < 0)
    return SpError_set(x->err, SP_ERR_FORMAT,
                       "%s: value \"%.120s\" (%s): its shape is unknown (ONNX shape inference could not determine "
                       "it)%.400s%s%.300s",
                       x->label, it->name, where, Onnx_valueHint(x, sorted, it->name, hint, sizeof hint),
                       x->g->eval_note ? "; " : "", x->g->eval_note ? x->g->eval_note : "");
  const OnnxValue *val = &x->g->values[v];
  if (val->elem_type <= 0 || val->elem_type >= ONNX_NTYPES || !Onnx_types[val->elem_type].onnx) {
    if (val->elem_type == 0)
      return SpError_set(x->err, SP_ERR_FORMAT, "%s: value \"%.120s\" (%s): its element type is unknown", x->label,
                         it->name, where);
    return SpError_set(x->err, SP_ERR_FORMAT,
                       "%s: value \"%.120s\" (%s): unknown ONNX element type %d (expected 1..16, FLOAT..BFLOAT16)",
                       x->label, it->name, where, val->elem_type);
  }
  int width = Onnx_types[val->elem_type].bytes;
  if (width == 0 && !x->opts->dtype)
    return SpError_set(x->err, SP_ERR_FORMAT,
                       "%s: value \"%.120s\" (%s): element type %s has no fixed size (give --dtype to price it)",
                       x->label, it->name, where, Onnx_types[val->elem_type].onnx);
  int rank = val->rank > 0 ? val->rank : 1; /* a scalar is one element: shape [1] */
  it->shape = malloc((size_t)rank * sizeof(int64_t));
  if (!it->shape) return Onnx_nomem(x);
  it->rank = rank;
  it->shape[0] = 1;
  int64_t elems = 1;
  for (int d = 0; d < val->rank; d++) {
    int64_t dim = val->dims[d];
    if (dim < 0 && val->dim_params[d] && strncmp(val->dim_params[d], "unk__", 5) == 0)
      return SpError_set(x->err, SP_ERR_FORMAT,
                         "%s: value \"%.120s\" (%s): dimension %d depends on the data (ONNX shape inference "
                         "could not compute it)%.400s%s%.300s",
                         x->label, it->name, where, d, Onnx_valueHint(x, sorted, it->name, hint, sizeof hint),
                         x->g->eval_note ? "; " : "", x->g->eval_note ? x->g->eval_note : "");
    if (dim < 0 && val->dim_params[d])
      return SpError_set(x->err, SP_ERR_FORMAT,
                         "%s: value \"%.120s\" (%s): dimension %d is the symbolic \"%.60s\"; give its size with "
                         "--dim %.60s=N (info, solve, tui, snapshot, import)",
                         x->label, it->name, where, d, val->dim_params[d], val->dim_params[d]);
    if (dim < 0)
      return SpError_set(x->err, SP_ERR_FORMAT,
                         "%s: value \"%.120s\" (%s): dimension %d is unknown (ONNX shape inference could not "
                         "determine it)%s%.300s",
                         x->label, it->name, where, d, x->g->eval_note ? "; " : "",
                         x->g->eval_note ? x->g->eval_note : "");
    it->shape[d] = dim;
    if (__builtin_mul_overflow(elems, dim, &elems) || elems > (INT64_C(1) << 53) / 16)
      return SpError_set(x->err, SP_ERR_FORMAT, "%s: value \"%.120s\" (%s): too many elements (over 2^49)",
                         x->label, it->name, where);
  }
  if (elems == 0) {
    it->zero = true; /* holds nothing, takes no memory: left out of every op */
    return SP_OK;
  }
  if (x->opts->dtype) {
    it->dtype = x->opts->dtype;
  } else if (Onnx_types[val->elem_type].dtype) {
    it->dtype = Onnx_types[val->elem_type].dtype;
    if (!Onnx_types[val->elem_type].exact) it->note = Onnx_types[val->elem_type].onnx;
  } else {
    it->dtype = "int8";
    it->bytes = elems * width;
    it->note = Onnx_types[val->elem_type].onnx;
  }
  return SP_OK;
}

static bool Onnx_isFoldable(const OnnxNode *n) {
  if (!Onnx_isDefaultDomain(n->domain)) return false;
  for (size_t i = 0; i < sizeof Onnx_foldable / sizeof Onnx_foldable[0]; i++)
    if (strcmp(n->op_type, Onnx_foldable[i]) == 0) return true;
  return false;
}

static bool Onnx_takesBias(const char *onnx_type, int ninputs) {
  return (strcmp(onnx_type, "Conv") == 0 || strcmp(onnx_type, "ConvTranspose") == 0 ||
          strcmp(onnx_type, "Gemm") == 0) ? ninputs < 3 : strcmp(onnx_type, "MatMul") == 0;
}

/* Folds op k (from node n) into the producer of its one activation input when
 * that input has no other reader and the producer no other output. */
static Status Onnx_fold(Onnx *x, int k, const OnnxNode *n, const OnnxNode *producer_node) {
  ImpGraph *g = &x->ig;
  ImpOp *o = &g->o[k];
  int src = -1, nact = 0;
  for (int i = 0; i < o->ninputs; i++)
    if (g->t[o->inputs[i]].kind != TK_PARAM && !g->t[o->inputs[i]].zero) src = o->inputs[i], nact++;
  int live_outs = 0, out = -1;
  for (int i = 0; i < o->noutputs; i++)
    if (!g->t[o->outputs[i]].zero) live_outs++, out = o->outputs[i];
  if (nact != 1 || live_outs != 1 || g->t[src].producer < 0 || g->t[src].nuses != 1 ||
      g->t[src].kind == TK_OUTPUT || !producer_node)
    return SP_OK;
  ImpOp *p = &g->o[g->t[src].producer];
  if (p->dropped || p->noutputs != 1) return SP_OK;
  /* the producer absorbs the node: attrs.fused lists what it took, in order */
  if (!p->attrs && !(p->attrs = cJSON_CreateObject())) return Onnx_nomem(x);
  cJSON *fused = cJSON_GetObjectItemCaseSensitive(p->attrs, "fused");
  if (!fused && !(fused = cJSON_AddArrayToObject(p->attrs, "fused"))) return Onnx_nomem(x);
  cJSON_AddItemToArray(fused, cJSON_CreateString(o->type));
  cJSON *theirs = o->attrs ? cJSON_GetObjectItemCaseSensitive(o->attrs, "fused") : NULL;
  for (cJSON *f = theirs ? theirs->child : NULL; f; f = f->next)
    cJSON_AddItemToArray(fused, cJSON_CreateString(f->valuestring));
  if (strcmp(n->op_type, "BatchNormalization") == 0 && Onnx_takesBias(producer_node->op_type, producer_node->ninputs)) {
    /* a BN folded into a conv/linear gives it a bias of the channel count */
    char name[512];
    snprintf(name, sizeof name, "%s.bias", p->name);
    if (ImpGraph_findTensor(g, name) < 0 && g->t[out].rank >= 2) {
      int b = ImpGraph_addTensor(g, name);
      if (b < 0 || !(g->t[b].shape = malloc(sizeof(int64_t)))) return Onnx_nomem(x);
      p = &g->o[g->t[src].producer];
      g->t[b].rank = 1;
      g->t[b].shape[0] = g->t[out].shape[1];
      g->t[b].kind = TK_PARAM;
      g->t[b].dtype = g->t[src].dtype;
      g->t[b].note = g->t[src].note;
      if (g->t[src].bytes > 0) { /* an 8-byte type: the bias has the activation's element width */
        int64_t e = 1;
        for (int d = 0; d < g->t[src].rank; d++) e *= g->t[src].shape[d];
        g->t[b].bytes = g->t[b].shape[0] * (g->t[src].bytes / e);
      }
      x->alias[b] = b;
      if (!ImpGraph_addInput(g, g->t[src].producer, b)) return Onnx_nomem(x);
    }
  }
  /* readers of the folded output read the producer's output instead (resolved
   * through x->alias as each op is reached, and once more at the end); src had
   * one reader, the folded node, so its readers are now exactly out's */
  g->o[k].dropped = true;
  x->alias[out] = src;
  g->t[src].nuses = g->t[out].nuses;
  if (g->t[out].kind == TK_OUTPUT) g->t[src].kind = TK_OUTPUT;
  g->t[out].zero = true; /* gone: written nowhere */
  return SP_OK;
}

/* Weight-only ops (by default, not only with --fold): a node that reads only
 * params (an Identity, Cast, Transpose or Reshape of a weight, a shape computed from
 * constants that the evaluator left) is computed ahead of time: its outputs become
 * params and the node leaves the graph. Until nothing changes (any file order).
 * A node writing a graph output stays. Returns how many nodes left. */
static int Onnx_foldConstants(ImpGraph *g) {
  int folded = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (int k = 0; k < g->no; k++) {
      ImpOp *o = &g->o[k];
      if (o->dropped || o->ninputs == 0) continue;
      bool constant = true;
      for (int i = 0; i < o->ninputs; i++) constant &= g->t[o->inputs[i]].kind == TK_PARAM || g->t[o->inputs[i]].zero;
      for (int i = 0; i < o->noutputs; i++) constant &= g->t[o->outputs[i]].kind != TK_OUTPUT;
      if (!constant) continue;
      for (int i = 0; i < o->noutputs; i++) {
        g->t[o->outputs[i]].kind = TK_PARAM;
        g->t[o->outputs[i]].producer = -1;
      }
      o->dropped = changed = true;
      folded++;
    }
  }
  return folded;
}

/* A Constant node is not an op (its output is a param) unless it writes a graph
 * output: then it is what computes that output. */
static bool Onnx_isConstantParam(const OnnxGraph *g, const OnnxNode *n) {
  if (!Onnx_isDefaultDomain(n->domain) || strcmp(n->op_type, "Constant") != 0) return false;
  for (int i = 0; i < n->noutputs; i++)
    for (int j = 0; j < g->noutputs; j++)
      if (strcmp(n->outputs[i], g->outputs[j]) == 0) return false;
  return true;
}

static Status Onnx_build(Onnx *x) {
  const OnnxGraph *g = x->g;
  ImpGraph *ig = &x->ig;
  Status st;
  char desc[200];
  int t = -1;
  for (int i = 0; i < g->ninputs; i++)
    if ((st = Onnx_define(x, g->inputs[i], TK_INPUT, "a graph input", &t))) return st;
  for (int i = 0; i < g->ninitializers; i++)
    if ((st = Onnx_define(x, g->initializers[i], TK_PARAM, "an initializer", &t))) return st;
  /* node index per op, to describe ops in messages and folds */
  for (int k = 0; k < g->nnodes; k++) {
    const OnnxNode *n = &g->nodes[k];
    Onnx_nodeDesc(n, k, desc, sizeof desc);
    if (Onnx_isConstantParam(g, n)) { /* Constant outputs are params; the node is not an op */
      for (int i = 0; i < n->noutputs; i++)
        if (n->outputs[i][0] && (st = Onnx_define(x, n->outputs[i], TK_PARAM, desc, &t))) return st;
      continue;
    }
    int rank = -1; /* the weight's rank decides conv1d/2d/3d */
    char typebuf[64];
    const char *type = Onnx_opType(n, rank, typebuf, sizeof typebuf);
    int op = ImpGraph_addOp(ig, n->name, type, type);
    if (op < 0) return Onnx_nomem(x);
    ig->o[op].file_index = k;
    ig->o[op].attrs = cJSON_Duplicate(n->attrs, true);
    if (n->attrs && !ig->o[op].attrs) return Onnx_nomem(x);
    bool any = false;
    for (int i = 0; i < n->noutputs; i++) {
      if (!n->outputs[i][0]) continue;
      if ((st = Onnx_define(x, n->outputs[i], TK_ACTIVATION, desc, &t))) return st;
      if (!ImpGraph_addOutput(ig, op, t)) return Onnx_nomem(x);
      any = true;
    }
    if (!any) return SpError_set(x->err, SP_ERR_FORMAT, "%s: %s has no outputs", x->label, desc);
  }
  /* inputs, once every value is defined (a file out of order is sorted later) */
  for (int k = 0, op = 0; k < g->nnodes; k++) {
    const OnnxNode *n = &g->nodes[k];
    if (Onnx_isConstantParam(g, n)) continue;
    while (ig->o[op].file_index != k) op++;
    Onnx_nodeDesc(n, k, desc, sizeof desc);
    for (int pass = 0; pass < 2; pass++) {
      char **names = pass ? n->implicit : n->inputs;
      int count = pass ? n->nimplicit : n->ninputs;
      for (int i = 0; i < count; i++) {
        if (!names[i][0]) continue;
        t = ImpGraph_findTensor(ig, names[i]);
        if (t < 0)
          return SpError_set(x->err, SP_ERR_FORMAT,
                             "%s: %s reads \"%.120s\", which no node, graph input or initializer defines", x->label,
                             desc, names[i]);
        if (!ImpGraph_addInput(ig, op, t)) return Onnx_nomem(x);
      }
    }
  }
  for (int i = 0; i < g->noutputs; i++) {
    t = ImpGraph_findTensor(ig, g->outputs[i]);
    if (t < 0)
      return SpError_set(x->err, SP_ERR_FORMAT, "%s: graph output \"%.120s\" is not defined by any node", x->label,
                         g->outputs[i]);
    if (ig->t[t].kind == TK_INPUT || ig->t[t].kind == TK_PARAM)
      return SpError_set(x->err, SP_ERR_FORMAT,
                         "%s: graph output \"%.120s\" is a graph input or constant: no node computes it", x->label,
                         g->outputs[i]);
    ig->t[t].kind = TK_OUTPUT;
  }
  return SP_OK;
}

/* Sizes every tensor, names convolutions by their rank and gives them the
 * contract's kernel/stride/padding/groups attrs. */
static Status Onnx_sizeAll(Onnx *x) {
  const OnnxGraph *g = x->g;
  ImpGraph *ig = &x->ig;
  int *sorted = malloc(((size_t)g->nvalues + 1) * sizeof(int)), *tmp = malloc(((size_t)g->nvalues + 1) * sizeof(int));
  if (!sorted || !tmp) {
    free(sorted);
    free(tmp);
    return Onnx_nomem(x);
  }
  for (int i = 0; i < g->nvalues; i++) sorted[i] = i;
  Onnx_mergeSort(g, sorted, tmp, g->nvalues);
  free(tmp);
  Status st = SP_OK;
  char where[200];
  for (int t = 0; !st && t < ig->nt; t++) {
    const ImpTensor *it = &ig->t[t];
    if (it->producer >= 0) {
      const OnnxNode *n = &g->nodes[ig->o[it->producer].file_index];
      char d[160];
      snprintf(where, sizeof where, "output of %s", Onnx_nodeDesc(n, ig->o[it->producer].file_index, d, sizeof d));
    } else {
      snprintf(where, sizeof where, "%s", it->kind == TK_INPUT ? "graph input" : "initializer or constant");
    }
    st = Onnx_size(x, t, sorted, where);
  }
  free(sorted);
  if (st) return st;
  for (int k = 0; k < ig->no; k++) {
    ImpOp *o = &ig->o[k];
    const OnnxNode *n = &g->nodes[o->file_index];
    bool conv = strcmp(n->op_type, "Conv") == 0 || strcmp(n->op_type, "ConvTranspose") == 0;
    bool pool = strstr(n->op_type, "Pool") != NULL;
    if (!Onnx_isDefaultDomain(n->domain) || (!conv && !pool)) continue;
    int rank = -1;
    if (o->ninputs > 0 && !ig->t[o->inputs[0]].zero) rank = ig->t[o->inputs[0]].rank;
    char typebuf[64];
    const char *type = Onnx_opType(n, rank, typebuf, sizeof typebuf);
    char *nt = strdup(type);
    if (!nt) return Onnx_nomem(x);
    free(o->type);
    o->type = nt;
    if (!conv && strncmp(n->op_type, "Global", 6) == 0) continue;
    /* kernel: the attribute, or the weight's trailing dims */
    cJSON *a = o->attrs;
    if (!a) continue;
    cJSON *ks = cJSON_GetObjectItemCaseSensitive(a, "kernel_shape");
    int nk = ks ? cJSON_GetArraySize(ks) : 0;
    cJSON *kernel = cJSON_CreateArray(), *stride = cJSON_CreateArray(), *pad = cJSON_CreateArray();
    if (!kernel || !stride || !pad) {
      cJSON_Delete(kernel), cJSON_Delete(stride), cJSON_Delete(pad);
      return Onnx_nomem(x);
    }
    if (nk == 0 && conv && o->ninputs > 1 && ig->t[o->inputs[1]].rank >= 3) {
      const ImpTensor *w = &ig->t[o->inputs[1]];
      nk = w->rank - 2;
      for (int d = 2; d < w->rank; d++) cJSON_AddItemToArray(kernel, cJSON_CreateNumber((double)w->shape[d]));
    } else {
      for (cJSON *v = ks ? ks->child : NULL; v; v = v->next) cJSON_AddItemToArray(kernel, cJSON_CreateNumber(v->valuedouble));
    }
    cJSON *st_a = cJSON_GetObjectItemCaseSensitive(a, "strides"), *pads = cJSON_GetObjectItemCaseSensitive(a, "pads");
    for (int d = 0; d < nk; d++) {
      cJSON *s = st_a ? cJSON_GetArrayItem(st_a, d) : NULL;
      cJSON *p = pads ? cJSON_GetArrayItem(pads, d) : NULL;
      cJSON_AddItemToArray(stride, cJSON_CreateNumber(s ? s->valuedouble : 1));
      cJSON_AddItemToArray(pad, cJSON_CreateNumber(p ? p->valuedouble : 0));
    }
    cJSON_AddItemToObject(a, "kernel", kernel);
    cJSON_AddItemToObject(a, "stride", stride);
    cJSON_AddItemToObject(a, "padding", pad);
    if (conv) {
      cJSON *grp = cJSON_GetObjectItemCaseSensitive(a, "group");
      cJSON_AddNumberToObject(a, "groups", grp ? grp->valuedouble : 1);
    }
  }
  return SP_OK;
}

Status Import_onnxJson(const void *bytes, size_t len, const char *label, const ImportOptions *opts, char **json,
                       size_t *json_len, SpError *err) {
  *json = NULL;
  *json_len = 0;
  ImportOptions defaults;
  if (!opts) {
    ImportOptions_init(&defaults);
    opts = &defaults;
  }
  if (!OnnxGraph_available())
    return SpError_set(err, SP_ERR_ARG,
                       "%s: this spadmap was built without ONNX support (install libonnx-dev and libprotobuf-dev, "
                       "then rebuild)",
                       label);
  OnnxDim dims[IMPORT_MAX_DIMS];
  for (int i = 0; i < opts->ndims; i++) dims[i].name = opts->dims[i].name, dims[i].value = opts->dims[i].value;
  OnnxGiven given[IMPORT_MAX_VALUES];
  for (int i = 0; i < opts->nvalues; i++)
    given[i].name = opts->values[i].name, given[i].v = opts->values[i].v, given[i].n = opts->values[i].n;
  OnnxGraph *g;
  Status st = OnnxGraph_parse(bytes, len, label, dims, opts->ndims, given, opts->nvalues, &g, err);
  if (st) return st;
  char stem[256], source[1024];
  const char *base = strrchr(label, '/');
  snprintf(stem, sizeof stem, "%s", base ? base + 1 : label);
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = '\0';
  if (strcmp(stem, "model") == 0 && base && base != label) { /* ".../resnet/model.onnx": "resnet" */
    const char *dir = base - 1;
    while (dir > label && dir[-1] != '/') dir--;
    snprintf(stem, sizeof stem, "%.*s", (int)(base - dir), dir);
  }
  snprintf(source, sizeof source, "ONNX model %s (graph \"%.100s\"%s%.100s, IR %lld, opset %lld), imported by spadmap",
           base ? base + 1 : label, g->name, g->producer[0] ? ", from " : "", g->producer, (long long)g->ir_version,
           (long long)g->opset);
  Onnx x = {.g = g, .opts = opts, .label = label, .err = err};
  /* the graph's own name unless it is an exporter's placeholder */
  static const char *const placeholders[] = {"", "torch-jit-export", "torch_jit", "main_graph", "graph", "tf2onnx"};
  const char *net_name = g->name;
  for (size_t i = 0; i < sizeof placeholders / sizeof placeholders[0]; i++)
    if (strcmp(g->name, placeholders[i]) == 0) net_name = stem;
  if ((st = ImpGraph_init(&x.ig, net_name, source, err))) {
    OnnxGraph_free(g);
    return st;
  }
  if (!(st = Onnx_build(&x)) && !(st = ImpGraph_checkAcyclic(&x.ig, label, err)) && !(st = Onnx_sizeAll(&x))) {
    /* a node whose outputs all hold zero elements moves no bytes: left out */
    for (int k = 0; k < x.ig.no; k++) {
      bool empty = true;
      for (int i = 0; i < x.ig.o[k].noutputs; i++) empty &= x.ig.t[x.ig.o[k].outputs[i]].zero;
      x.ig.o[k].dropped |= empty;
    }
    int weight_only = Onnx_foldConstants(&x.ig);
    /* the source line says what the import did to the file's graph */
    size_t used = strlen(source);
    if (g->nevaluated > 0 && used < sizeof source)
      used += (size_t)snprintf(source + used, sizeof source - used, ", %d shape op%s evaluated at import",
                               g->nevaluated, g->nevaluated == 1 ? "" : "s");
    if (g->nsequence > 0 && used < sizeof source)
      used += (size_t)snprintf(source + used, sizeof source - used, ", %d sequence op%s lowered to tensors",
                               g->nsequence, g->nsequence == 1 ? "" : "s");
    if (weight_only > 0 && used < sizeof source)
      used += (size_t)snprintf(source + used, sizeof source - used, ", %d weight-only op%s folded into params",
                               weight_only, weight_only == 1 ? "" : "s");
    if (opts->fold && used < sizeof source)
      used += (size_t)snprintf(source + used, sizeof source - used, ", BN/activations folded into producers");
    if (opts->dtype && used < sizeof source)
      used += (size_t)snprintf(source + used, sizeof source - used, ", every tensor %s", opts->dtype);
    char *src_copy = strdup(source);
    if (!src_copy) st = Onnx_nomem(&x);
    else free(x.ig.source), x.ig.source = src_copy;
    if (!st && opts->fold) {
      ImpGraph_countUses(&x.ig);
      x.alias = malloc(((size_t)x.ig.nt + (size_t)x.ig.no + 1) * sizeof(int)); /* + one bias per op */
      if (!x.alias) st = Onnx_nomem(&x);
      for (int t = 0; !st && t < x.ig.nt + x.ig.no; t++) x.alias[t] = t;
      for (int k = 0; !st && k < x.ig.no; k++) {
        const OnnxNode *n = &g->nodes[x.ig.o[k].file_index];
        if (x.ig.o[k].dropped) continue;
        for (int i = 0; i < x.ig.o[k].ninputs; i++) x.ig.o[k].inputs[i] = Onnx_resolve(&x, x.ig.o[k].inputs[i]);
        if (!Onnx_isFoldable(n)) continue;
        int src = -1;
        for (int i = 0; i < x.ig.o[k].ninputs; i++)
          if (x.ig.t[x.ig.o[k].inputs[i]].kind != TK_PARAM) src = x.ig.o[k].inputs[i];
        int prod = src >= 0 ? x.ig.t[src].producer : -1;
        st = Onnx_fold(&x, k, n, prod >= 0 ? &g->nodes[x.ig.o[prod].file_index] : NULL);
      }
      for (int k = 0; !st && k < x.ig.no; k++) /* readers earlier in the file than their producer */
        for (int i = 0; i < x.ig.o[k].ninputs; i++) x.ig.o[k].inputs[i] = Onnx_resolve(&x, x.ig.o[k].inputs[i]);
      free(x.alias);
    }
    if (!st) st = ImpGraph_write(&x.ig, label, json, json_len, err);
  }
  ImpGraph_free(&x.ig);
  OnnxGraph_free(g);
  return st;
}

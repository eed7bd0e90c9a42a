/* The import-time evaluator of shape arithmetic (engine/import/onnx_const.cc)
 * against a small independent one: seeded random chains of the ops torch's
 * exports use (Shape, Size, Gather, Unsqueeze, Squeeze, Concat, Slice, Reshape,
 * Cast, Add, Mul, Div, Mod, Neg, Abs, Min, Max, ReduceProd, Equal, Where,
 * ConstantOfShape, Range) on a graph input's shape, ending in an Expand whose
 * output shape is the chain's value. Each model is built in memory as ONNX
 * protobuf bytes (a few lines of wire format below, not libonnx), imported, and
 * the Expand's output shape and the count of evaluated ops are checked against
 * what this file computes. Plus constant inputs that are invalid for their op (a
 * clear error naming the node), and a value over the evaluator's cap (left in
 * the graph). Skipped (77) without ONNX support. */
#include <stdlib.h>

#include "import_util.h"
#include "test.h"

/* ---- protobuf wire format, enough for a ModelProto ---- */
typedef struct {
  unsigned char *p;
  size_t n, cap;
} Pb;

static void Pb_put(Pb *b, const void *data, size_t n) {
  if (n == 0) return; /* an empty message: data may be NULL */
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
}
static void Pb_varint(Pb *b, uint64_t v) {
  do {
    unsigned char c = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) c |= 0x80;
    Pb_put(b, &c, 1);
  } while (v);
}
static void Pb_int(Pb *b, int field, int64_t v) {
  Pb_varint(b, (uint64_t)field << 3);
  Pb_varint(b, (uint64_t)v);
}
static void Pb_bytes(Pb *b, int field, const void *data, size_t n) {
  Pb_varint(b, (uint64_t)field << 3 | 2);
  Pb_varint(b, n);
  Pb_put(b, data, n);
}
static void Pb_str(Pb *b, int field, const char *s) { Pb_bytes(b, field, s, strlen(s)); }
static void Pb_msg(Pb *b, int field, Pb *sub) { /* appends sub and frees it */
  Pb_bytes(b, field, sub->p, sub->n);
  free(sub->p);
  memset(sub, 0, sizeof *sub);
}

enum { T_FLOAT = 1, T_INT32 = 6, T_INT64 = 7, T_BOOL = 9 };

/* ValueInfoProto: a tensor of elem type and shape (rank < 0: no shape) */
static void Pb_valueInfo(Pb *graph, int field, const char *name, int elem, const int64_t *dims, int rank) {
  Pb vi = {0}, type = {0}, tt = {0}, shape = {0};
  Pb_int(&tt, 1, elem);
  for (int d = 0; d < rank; d++) {
    Pb dim = {0};
    Pb_int(&dim, 1, dims[d]);
    Pb_msg(&shape, 1, &dim);
  }
  if (rank >= 0) Pb_msg(&tt, 2, &shape);
  Pb_msg(&type, 1, &tt);
  Pb_str(&vi, 1, name);
  Pb_msg(&vi, 2, &type);
  Pb_msg(graph, field, &vi);
}

/* an int64 initializer (rank 0 or 1) */
static void Pb_ints(Pb *graph, const char *name, const int64_t *v, int n, bool scalar) {
  Pb t = {0};
  if (!scalar) Pb_int(&t, 1, n);
  Pb_int(&t, 2, T_INT64);
  for (int k = 0; k < n; k++) Pb_int(&t, 7, v[k]);
  Pb_str(&t, 8, name);
  Pb_msg(graph, 5, &t);
}

typedef struct {
  const char *name;
  int64_t i;
  bool is_int;
} PbAttr;

static void Pb_node(Pb *graph, const char *op, const char *name, const char *const *in, int nin, const char *out,
                    const PbAttr *attrs, int nattrs) {
  Pb n = {0};
  for (int k = 0; k < nin; k++) Pb_str(&n, 1, in[k]);
  Pb_str(&n, 2, out);
  Pb_str(&n, 3, name);
  Pb_str(&n, 4, op);
  for (int k = 0; k < nattrs; k++) {
    Pb a = {0};
    Pb_str(&a, 1, attrs[k].name);
    Pb_int(&a, 3, attrs[k].i);
    Pb_int(&a, 20, 2); /* INT */
    Pb_msg(&n, 5, &a);
  }
  Pb_msg(graph, 1, &n);
}

static void Pb_model(Pb *model, Pb *graph, int opset) {
  Pb op = {0};
  Pb_int(model, 1, 8); /* ir_version */
  Pb_str(model, 2, "spadmap-tests");
  Pb_msg(model, 7, graph);
  Pb_int(&op, 2, opset);
  Pb_msg(model, 8, &op);
}

/* ---- the generator and its own evaluator (1-D int64 vectors only) ---- */
typedef struct {
  uint64_t s;
} Rng;
static int Rng_below(Rng *r, int n) {
  r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((r->s >> 33) % (uint64_t)n);
}

typedef struct {
  Pb graph;
  int nodes, consts;
  char cur[32];   /* the value holding the chain's vector so far */
  int64_t v[8];   /* its value, as this file computes it */
  int len;
} Chain;

/* hostile chains: some constants replaced by values no exporter writes */
static Rng *Chain_hostile;

static const char *Chain_const(Chain *c, const int64_t *v, int n, bool scalar, char *name) {
  sprintf(name, "c%d", c->consts++);
  int64_t w[8];
  memcpy(w, v, (size_t)n * sizeof *v);
  static const int64_t odd[] = {0, -1, 1, 7, -7, 3, 65536, 1000000, INT64_MAX, INT64_MIN, INT64_MIN + 1, -65537};
  if (Chain_hostile && Rng_below(Chain_hostile, 3) == 0)
    for (int k = 0; k < n; k++) w[k] = odd[Rng_below(Chain_hostile, (int)(sizeof odd / sizeof odd[0]))];
  Pb_ints(&c->graph, name, w, n, scalar);
  return name;
}

/* appends node op(inputs) -> a new value, which becomes cur */
static void Chain_node(Chain *c, const char *op, const char *const *in, int nin, const PbAttr *attrs, int nattrs) {
  char name[32], out[32];
  sprintf(name, "n%d_%s", c->nodes, op);
  sprintf(out, "v%d", c->nodes++);
  Pb_node(&c->graph, op, name, in, nin, out, attrs, nattrs);
  strcpy(c->cur, out);
}

static void Chain_binary(Chain *c, const char *op, int64_t k) {
  char cn[32];
  const char *in[2] = {c->cur, Chain_const(c, &k, 1, true, cn)};
  Chain_node(c, op, in, 2, NULL, 0);
  for (int j = 0; j < c->len; j++) {
    int64_t x = c->v[j];
    if (!strcmp(op, "Add")) x += k;
    else if (!strcmp(op, "Mul")) x *= k;
    else if (!strcmp(op, "Div")) x /= k;
    else if (!strcmp(op, "Mod")) x = ((x % k) + k) % k;
    else if (!strcmp(op, "Min")) x = x < k ? x : k;
    else if (!strcmp(op, "Max")) x = x > k ? x : k;
    c->v[j] = x;
  }
}

/* One random step on cur (a 1-D int64 vector of 1..4 entries, values 1..6). */
static void Chain_step(Chain *c, Rng *r, const int64_t *xdims, int xrank) {
  char cn[32], cn2[32];
  switch (Rng_below(r, 12)) {
  case 0: { /* Gather: 1..4 picks */
    int64_t idx[4];
    int n = 1 + Rng_below(r, 4);
    int64_t nv[4];
    for (int k = 0; k < n; k++) idx[k] = Rng_below(r, c->len) - (Rng_below(r, 2) ? c->len : 0), nv[k] = c->v[idx[k] < 0 ? idx[k] + c->len : idx[k]];
    const char *in[2] = {c->cur, Chain_const(c, idx, n, false, cn)};
    Chain_node(c, "Gather", in, 2, NULL, 0);
    memcpy(c->v, nv, sizeof nv);
    c->len = n;
    break;
  }
  case 1: { /* Concat with a constant, or with the input's Size (clamped) */
    if (c->len >= 4) {
      Chain_binary(c, "Min", 5);
      return;
    }
    int64_t k = 1 + Rng_below(r, 5);
    if (Rng_below(r, 2)) {
      char saved[32];
      strcpy(saved, c->cur);
      const char *xin[1] = {"x"};
      Chain_node(c, "Size", xin, 1, NULL, 0);
      int64_t size = 1, ax = 0;
      for (int d = 0; d < xrank; d++) size *= xdims[d];
      const char *uin[2] = {c->cur, Chain_const(c, &ax, 1, false, cn)};
      Chain_node(c, "Unsqueeze", uin, 2, NULL, 0);
      const char *min_in[2] = {c->cur, Chain_const(c, &k, 1, true, cn2)};
      Chain_node(c, "Min", min_in, 2, NULL, 0);
      k = size < k ? size : k;
      char tail[32];
      strcpy(tail, c->cur);
      const char *in[2] = {saved, tail};
      Chain_node(c, "Concat", in, 2, (PbAttr[]){{"axis", 0, true}}, 1);
    } else {
      const char *in[2] = {c->cur, Chain_const(c, &k, 1, false, cn)};
      Chain_node(c, "Concat", in, 2, (PbAttr[]){{"axis", 0, true}}, 1);
    }
    c->v[c->len++] = k;
    break;
  }
  case 2: { /* Slice [a, b) */
    int64_t a = Rng_below(r, c->len), b = a + 1 + Rng_below(r, c->len - (int)a);
    int64_t e = b == c->len && Rng_below(r, 2) ? INT64_MAX : b; /* torch writes INT64_MAX for "to the end" */
    const char *in[3] = {c->cur, Chain_const(c, &a, 1, false, cn), Chain_const(c, &e, 1, false, cn2)};
    Chain_node(c, "Slice", in, 3, NULL, 0);
    memmove(c->v, c->v + a, (size_t)(b - a) * sizeof(int64_t));
    c->len = (int)(b - a);
    break;
  }
  case 3: Chain_binary(c, "Add", Rng_below(r, 3)); Chain_binary(c, "Min", 6); break;
  case 4: Chain_binary(c, "Mul", 2); Chain_binary(c, "Min", 6); break;
  case 5: Chain_binary(c, "Div", 2); Chain_binary(c, "Max", 1); break;
  case 6: Chain_binary(c, "Mod", 3); Chain_binary(c, "Add", 1); break;
  case 7: { /* Unsqueeze then Squeeze, or a Reshape to [1, -1] and back to [-1] */
    int64_t ax = 0, sh[2] = {1, -1}, flat = -1;
    if (Rng_below(r, 2)) {
      const char *in[2] = {c->cur, Chain_const(c, &ax, 1, false, cn)};
      Chain_node(c, "Unsqueeze", in, 2, NULL, 0);
      const char *in2[2] = {c->cur, cn};
      Chain_node(c, "Squeeze", in2, 2, NULL, 0);
    } else {
      const char *in[2] = {c->cur, Chain_const(c, sh, 2, false, cn)};
      Chain_node(c, "Reshape", in, 2, NULL, 0);
      const char *in2[2] = {c->cur, Chain_const(c, &flat, 1, false, cn2)};
      Chain_node(c, "Reshape", in2, 2, NULL, 0);
    }
    break;
  }
  case 8: { /* Cast to int32 and back */
    const char *in[1] = {c->cur};
    Chain_node(c, "Cast", in, 1, (PbAttr[]){{"to", T_INT32, true}}, 1);
    const char *in2[1] = {c->cur};
    Chain_node(c, "Cast", in2, 1, (PbAttr[]){{"to", T_INT64, true}}, 1);
    break;
  }
  case 9: { /* Where(Equal(v, k), 2, v) */
    int64_t k = 1 + Rng_below(r, 6), two = 2;
    char saved[32];
    strcpy(saved, c->cur);
    const char *in[2] = {c->cur, Chain_const(c, &k, 1, true, cn)};
    Chain_node(c, "Equal", in, 2, NULL, 0);
    const char *win[3] = {c->cur, Chain_const(c, &two, 1, true, cn2), saved};
    Chain_node(c, "Where", win, 3, NULL, 0);
    for (int j = 0; j < c->len; j++) c->v[j] = c->v[j] == k ? 2 : c->v[j];
    break;
  }
  case 10: { /* the length as a vector: Shape(ConstantOfShape(ReduceProd...)) is too big; Shape(Range(0, n)) */
    int64_t zero = 0, one = 1;
    char saved[32];
    strcpy(saved, c->cur);
    const char *pin[1] = {c->cur};
    Chain_node(c, "ReduceProd", pin, 1, (PbAttr[]){{"keepdims", 0, true}}, 1);
    int64_t prod = 1;
    for (int j = 0; j < c->len; j++) prod *= c->v[j];
    const char *rin[3] = {Chain_const(c, &zero, 1, true, cn), c->cur, Chain_const(c, &one, 1, true, cn2)};
    Chain_node(c, "Range", rin, 3, NULL, 0);
    const char *sin[1] = {c->cur};
    Chain_node(c, "Shape", sin, 1, NULL, 0);
    (void)saved;
    c->v[0] = prod;
    c->len = 1;
    Chain_binary(c, "Min", 6);
    break;
  }
  default: { /* Neg, Abs; or ConstantOfShape([len]) of 3 added to v */
    if (Rng_below(r, 2)) {
      const char *in[1] = {c->cur};
      Chain_node(c, "Neg", in, 1, NULL, 0);
      const char *in2[1] = {c->cur};
      Chain_node(c, "Abs", in2, 1, NULL, 0);
    } else {
      char saved[32];
      strcpy(saved, c->cur);
      const char *sin[1] = {c->cur};
      Chain_node(c, "Shape", sin, 1, NULL, 0);
      const char *cin[1] = {c->cur};
      Chain_node(c, "ConstantOfShape", cin, 1, NULL, 0); /* float zeros */
      const char *kin[1] = {c->cur};
      Chain_node(c, "Cast", kin, 1, (PbAttr[]){{"to", T_INT64, true}}, 1);
      char zeros[32];
      strcpy(zeros, c->cur);
      const char *ain[2] = {saved, zeros};
      Chain_node(c, "Add", ain, 2, NULL, 0);
    }
    break;
  }
  }
}

/* A chain of `steps` random steps from Shape(x), ending in y = Expand(ReduceSum(x), v). */
static unsigned char *Chain_build(uint64_t seed, int steps, size_t *len, int64_t *want, int *want_len, int *evaluated) {
  Rng r = {seed * 2654435761ULL + 1};
  Chain c = {0};
  int64_t xdims[4];
  int xrank = 1 + Rng_below(&r, 4);
  for (int d = 0; d < xrank; d++) xdims[d] = 1 + Rng_below(&r, 6);
  const char *xin[1] = {"x"};
  Chain_node(&c, "Shape", xin, 1, NULL, 0);
  memcpy(c.v, xdims, sizeof xdims);
  c.len = xrank;
  for (int s = 0; s < steps; s++) Chain_step(&c, &r, xdims, xrank);
  Chain_binary(&c, "Max", 1);
  Chain_binary(&c, "Min", 6);
  *evaluated = c.nodes;
  const char *sum_in[1] = {"x"};
  Pb_node(&c.graph, "ReduceSum", "sum", sum_in, 1, "s", (PbAttr[]){{"keepdims", 0, true}}, 1);
  const char *ex_in[2] = {"s", c.cur};
  Pb_node(&c.graph, "Expand", "expand", ex_in, 2, "y", NULL, 0);
  Pb_str(&c.graph, 2, "chain");
  Pb_valueInfo(&c.graph, 11, "x", T_FLOAT, xdims, xrank);
  Pb_valueInfo(&c.graph, 12, "y", T_FLOAT, NULL, -1);
  Pb model = {0};
  Pb_model(&model, &c.graph, 13);
  memcpy(want, c.v, sizeof c.v);
  *want_len = c.len;
  *len = model.n;
  return model.p;
}

TEST(random_chains_against_this_files_evaluator) {
  int opened = 0, total_evaluated = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int64_t want[8];
    int want_len, evaluated;
    size_t len;
    unsigned char *bytes = Chain_build(seed, 1 + (int)(seed % 12), &len, want, &want_len, &evaluated);
    char *json = NULL;
    size_t json_len = 0;
    SpError err = {0};
    Status st = Import_onnxJson(bytes, len, "chain.onnx", NULL, &json, &json_len, &err);
    if (st) printf("  seed %llu: %s\n", (unsigned long long)seed, err.text);
    CHECK_EQ(st, SP_OK);
    Net *net = NULL;
    if (!st) CHECK_EQ(Net_parse(json, json_len, "chain.json", &net, &err), SP_OK);
    if (net) {
      opened++;
      total_evaluated += evaluated;
      int y = Net_findTensor(net, "y");
      CHECK(y >= 0);
      bool same = y >= 0 && net->tensors[y].rank == want_len;
      for (int d = 0; same && d < want_len; d++) same = net->tensors[y].shape[d] == want[d];
      if (!same) printf("  seed %llu: y's shape is not the chain's value\n", (unsigned long long)seed);
      CHECK(same);
      CHECK_EQ(net->nops, 2); /* ReduceSum and Expand: every shape op left */
      char count[64];
      snprintf(count, sizeof count, ", %d shape ops evaluated at import", evaluated);
      CHECK_HAS(net->source, count);
      Net_free(net);
    }
    free(json);
    free(bytes);
  }
  printf("  %d random chains open with the value this file computes (%d shape ops evaluated)\n", opened,
         total_evaluated);
  CHECK_EQ(opened, 300);
}

/* The same chains with a third of their constants replaced by hostile values
 * (0, -1, 2^16, 10^6, INT64_MIN, INT64_MAX, ...): each model opens or is refused
 * with a message naming it; nothing crashes (ASan/UBSan builds run this too). */
TEST(hostile_constants_are_refused_or_open) {
  Rng hostile = {0x4057113};
  Chain_hostile = &hostile;
  int opened = 0, refused = 0;
  for (uint64_t seed = 1; seed <= 1000; seed++) {
    int64_t want[8];
    int want_len, evaluated;
    size_t len;
    unsigned char *bytes = Chain_build(seed, 1 + (int)(seed % 12), &len, want, &want_len, &evaluated);
    char *json = NULL;
    size_t json_len = 0;
    SpError err = {0};
    if (getenv("SPADMAP_SHAPES_TRACE")) fprintf(stderr, "seed %llu\n", (unsigned long long)seed);
    Status st = Import_onnxJson(bytes, len, "hostile.onnx", NULL, &json, &json_len, &err);
    if (st == SP_OK) {
      Net *net = NULL;
      CHECK_EQ(Net_parse(json, json_len, "hostile.json", &net, &err), SP_OK);
      opened += net != NULL;
      Net_free(net);
    } else {
      if (getenv("SPADMAP_SHAPES_TRACE")) fprintf(stderr, "  %s\n", err.text);
      CHECK(st == SP_ERR_FORMAT);
      CHECK_HAS(err.text, "hostile.onnx");
      refused++;
    }
    free(json);
    free(bytes);
  }
  Chain_hostile = NULL;
  printf("  hostile chains: %d open, %d refused with a message\n", opened, refused);
  CHECK(opened > 0 && refused > 0);
}

/* x -> op(constants) -> Reshape(x, that): constants invalid for the op are a clear
 * error naming the node. */
static Status Shapes_bad(const char *op, const int64_t *a, int na, const int64_t *b, int nb, bool scalar, SpError *err) {
  Pb g = {0}, model = {0};
  int64_t xdims[2] = {2, 3};
  Pb_ints(&g, "a", a, na, false);
  Pb_ints(&g, "b", b, nb, scalar);
  const char *in[2] = {"a", "b"};
  Pb_node(&g, op, "bad_op", in, 2, "s", NULL, 0);
  const char *rin[2] = {"x", "s"};
  Pb_node(&g, "Reshape", "reshape", rin, 2, "y", NULL, 0);
  Pb_str(&g, 2, "bad");
  Pb_valueInfo(&g, 11, "x", T_FLOAT, xdims, 2);
  Pb_valueInfo(&g, 12, "y", T_FLOAT, NULL, -1);
  Pb_model(&model, &g, 13);
  char *json = NULL;
  size_t len = 0;
  Status st = Import_onnxJson(model.p, model.n, "bad.onnx", NULL, &json, &len, err);
  free(json);
  free(model.p);
  return st;
}

TEST(invalid_constants_are_clear_errors) {
  SpError err = {0};
  int64_t shape[2] = {2, 3}, zero = 0, big = 7;
  CHECK_EQ(Shapes_bad("Div", shape, 2, &zero, 1, true, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "bad.onnx: node \"bad_op\" (Div): its constant inputs give an integer division by zero");
  CHECK_EQ(Shapes_bad("Gather", shape, 2, &big, 1, true, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "bad_op"); /* ONNX's own inference names it first: "indices must be in [-rank, rank-1]" */
  CHECK_HAS(err.text, "Gather");
  int64_t odd[1] = {5};
  CHECK_EQ(Shapes_bad("Reshape", shape, 2, odd, 1, false, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "(Reshape): its constant inputs give a shape whose element count differs");
  /* the same ops on valid constants: Add [2,3] + 0 is the shape [2,3] */
  CHECK_EQ(Shapes_bad("Add", shape, 2, &zero, 1, true, &err), SP_OK);
}

/* A value over the cap (65,536 elements) is not evaluated: Range(0, 1e6) stays an
 * op, and the Shape of it, which needs only its inferred shape, is still evaluated. */
TEST(values_over_the_cap_stay_in_the_graph) {
  Pb g = {0}, model = {0};
  int64_t zero = 0, n = 1000000, one = 1, xdims[1] = {1};
  Pb_ints(&g, "start", &zero, 1, true);
  Pb_ints(&g, "limit", &n, 1, true);
  Pb_ints(&g, "delta", &one, 1, true);
  const char *rin[3] = {"start", "limit", "delta"};
  Pb_node(&g, "Range", "range", rin, 3, "r", NULL, 0);
  const char *ain[2] = {"r", "x"};
  Pb_node(&g, "Add", "add", ain, 2, "y", NULL, 0);
  Pb_str(&g, 2, "cap");
  int64_t xi[1] = {1};
  Pb_valueInfo(&g, 11, "x", T_INT64, xi, 1);
  Pb_valueInfo(&g, 12, "y", T_INT64, NULL, -1);
  (void)xdims;
  Pb_model(&model, &g, 13);
  char *json = NULL;
  size_t len = 0;
  SpError err = {0};
  CHECK_EQ(Import_onnxJson(model.p, model.n, "cap.onnx", NULL, &json, &len, &err), SP_OK);
  Net *net = NULL;
  if (json) CHECK_EQ(Net_parse(json, len, "cap.json", &net, &err), SP_OK);
  if (net) {
    /* the Range reads only params: a weight-only op, a param of 8 MB */
    CHECK_EQ(net->nops, 1);
    CHECK_EQ(ImportTest_bytes(net, "r"), 8000000);
    CHECK_HAS(net->source, "1 weight-only op folded into params");
    CHECK(strstr(net->source, "shape ops evaluated") == NULL);
    Net_free(net);
  }
  free(json);
  free(model.p);
}

/* Sizes that truly depend on the data keep their error: NonZero of an input, and a
 * Range whose bound is a graph input, feed a Reshape; neither is evaluated. */
TEST(data_dependent_sizes_keep_their_error) {
  for (int which = 0; which < 2; which++) {
    Pb g = {0}, model = {0};
    int64_t xdims[1] = {6}, zero = 0, one = 1;
    if (which == 0) {
      const char *nin[1] = {"x"};
      Pb_node(&g, "NonZero", "nonzero", nin, 1, "y", NULL, 0);
    } else {
      Pb_ints(&g, "start", &zero, 1, true);
      Pb_ints(&g, "delta", &one, 1, true);
      const char *rin[3] = {"start", "n", "delta"};
      Pb_node(&g, "Range", "range", rin, 3, "r", NULL, 0);
      const char *ain[2] = {"r", "r"};
      Pb_node(&g, "Add", "add", ain, 2, "y", NULL, 0);
    }
    Pb_str(&g, 2, "data");
    Pb_valueInfo(&g, 11, "x", T_INT64, xdims, 1);
    if (which == 1) Pb_valueInfo(&g, 11, "n", T_INT64, NULL, 0);
    Pb_valueInfo(&g, 12, "y", T_INT64, NULL, -1);
    Pb_model(&model, &g, 13);
    char *json = NULL;
    size_t len = 0;
    SpError err = {0};
    CHECK_EQ(Import_onnxJson(model.p, model.n, "data.onnx", NULL, &json, &len, &err), SP_ERR_FORMAT);
    CHECK_HAS(err.text, which == 0 ? "value \"y\" (output of node \"nonzero\"" : "value \"r\" (output of node \"range\"");
    CHECK_HAS(err.text, "depends on the data");
    free(json);
    free(model.p);
  }
}

int main(void) {
  if (!Import_haveOnnx()) {
    printf("skipped: spadmap was built without ONNX support (libonnx-dev)\n");
    return 77;
  }
  static const TestCase cases[] = {T(random_chains_against_this_files_evaluator), T(hostile_constants_are_refused_or_open),
                                   T(invalid_constants_are_clear_errors),
                                   T(values_over_the_cap_stay_in_the_graph),
                                   T(data_dependent_sizes_keep_their_error)};
  return Test_run(cases, (int)(sizeof cases / sizeof cases[0]), "import_shapes");
}

/* ONNX import: models exported by torch.onnx.export (data/onnx), hand-made ones
 * (tests/data/onnx), every value checked against the hand count, --fold, --dtype,
 * --dim, and the malformed files each give a clear error. Skipped (77) when spadmap
 * was built without libonnx. */
#include <stdlib.h>

#include "fileio.h"
#include "import_util.h"
#include "json.h"
#include "plan.h"
#include "solve.h"
#include "test.h"
#include "validate.h"

static const char *Model(char *buf, size_t n, const char *name) {
  return ImportTest_path(buf, n, SPADMAP_DATA_DIR, name);
}
static const char *Bad(char *buf, size_t n, const char *name) {
  char file[128];
  snprintf(file, sizeof file, "data/onnx/%s", name);
  return ImportTest_path(buf, n, SPADMAP_TEST_DIR, file);
}

/* The graph as it is in the file: 3 ops, float16 (2 bytes) everywhere. */
TEST(diamond_by_hand) {
  char path[512];
  Net *net = ImportTest_open(Bad(path, sizeof path, "good_diamond.onnx"), NULL);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_EQ(net->nops, 3);
  CHECK_EQ(net->ntensors, 4);
  CHECK_EQ(ImportTest_bytes(net, "x"), 2 * 3 * 2);
  CHECK_EQ(ImportTest_bytes(net, "y"), 2 * 6 * 2);
  CHECK_HAS(net->tensors[Net_findTensor(net, "x")].dtype, "fp16");
  CHECK_EQ(net->tensors[Net_findTensor(net, "x")].kind, TK_INPUT);
  CHECK_EQ(net->tensors[Net_findTensor(net, "y")].kind, TK_OUTPUT);
  CHECK_HAS(net->ops[0].name, "left");
  CHECK_HAS(net->ops[0].type, "relu");
  CHECK_HAS(net->ops[2].type, "concat");
  CHECK_HAS(net->ops[2].attrs_json, "\"axis\":1");
  CHECK_EQ(ImportTest_mr(net, false), 12 + 12 + 24); /* join: a, b and y */
  Net_free(net);
}

/* The If's branches read "a" from the outer graph: "a" must be live until the If
 * runs, so it is an input of the If op (without it, "a" would be freed at once). */
TEST(subgraph_reads_are_inputs) {
  char path[512];
  Net *net = ImportTest_open(Bad(path, sizeof path, "good_if_outer.onnx"), NULL);
  CHECK(net != NULL);
  if (!net) return;
  int op = Net_findOp(net, "branch"), a = Net_findTensor(net, "a");
  CHECK(op >= 0 && a >= 0);
  if (op >= 0 && a >= 0) {
    CHECK_EQ(net->ops[op].ninputs, 2);
    CHECK_EQ(net->ops[op].inputs[1], a);
    CHECK_EQ(net->tensors[a].nconsumers, 1);
  }
  CHECK_EQ(ImportTest_mr(net, false), 1 + 16 + 16); /* If: c (bool), a, y */
  Net_free(net);
}

/* tiny_cnn: conv-BN-ReLU, conv-BN, add, ReLU, pool, flatten, linear, exported with
 * BatchNormalization nodes kept. Float32 x [1,3,32,32] is 12288 bytes. */
TEST(tiny_cnn_as_in_the_file) {
  char path[512];
  Net *net = ImportTest_open(Model(path, sizeof path, "onnx/tiny_cnn.onnx"), NULL);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_EQ(ImportTest_bytes(net, "x"), 1 * 3 * 32 * 32 * 4);
  CHECK_EQ(ImportTest_bytes(net, "y"), 10 * 4);
  CHECK_EQ(net->tensors[Net_findTensor(net, "conv1.weight")].kind, TK_PARAM);
  int conv = Net_findOp(net, "/conv1/Conv");
  CHECK(conv >= 0);
  if (conv >= 0) {
    CHECK_HAS(net->ops[conv].type, "conv2d");
    CHECK_HAS(net->ops[conv].attrs_json, "\"kernel\":[3,3]");
    CHECK_HAS(net->ops[conv].attrs_json, "\"groups\":1");
  }
  CHECK(Net_findOp(net, "/bn1/BatchNormalization") >= 0);
  /* the largest op: add reads two [1,8,32,32] and writes one */
  CHECK_EQ(ImportTest_mr(net, false), 3 * 8 * 32 * 32 * 4);
  Net_free(net);
}

/* --fold --dtype int8, the bundled networks' way: BN and ReLU fold into the convs,
 * the final ReLU into the add; conv1 (no bias) gets one from its BN. */
TEST(tiny_cnn_folded_int8) {
  char path[512];
  ImportOptions o;
  ImportOptions_init(&o);
  o.fold = true;
  o.dtype = "int8";
  Net *net = ImportTest_open(Model(path, sizeof path, "onnx/tiny_cnn.onnx"), &o);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_EQ(net->nops, 6); /* conv1, conv2, add, pool, flatten, linear */
  CHECK_EQ(Net_findOp(net, "/bn1/BatchNormalization"), -1);
  CHECK_EQ(Net_findOp(net, "/Relu"), -1);
  int c1 = Net_findOp(net, "/conv1/Conv"), add = Net_findOp(net, "/Add");
  CHECK(c1 >= 0 && add >= 0);
  if (c1 >= 0) CHECK_HAS(net->ops[c1].attrs_json, "\"fused\":[\"batch_norm\",\"relu\"]");
  if (add >= 0) CHECK_HAS(net->ops[add].attrs_json, "\"fused\":[\"relu\"]");
  CHECK_EQ(ImportTest_bytes(net, "/conv1/Conv.bias"), 8);
  CHECK_EQ(ImportTest_bytes(net, "x"), 3 * 32 * 32);
  CHECK_EQ(ImportTest_mr(net, false), 3 * 8 * 32 * 32);
  /* a plan at M_R: valid, and M_R's figure is what it says */
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = ImportTest_mr(net, false);
  Plan *plan = NULL;
  SpError err;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
  if (plan) {
    ValidateReport rep;
    CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
    CHECK_EQ(rep.count, 0);
    ValidateReport_free(&rep);
    Plan_free(plan);
  }
  Net_free(net);
}

/* resnet18 from torchvision (BN already fused by the exporter): --fold leaves
 * convs with ReLUs folded in; M_R int8 = the max pool after conv1: 64x112x112 in, 64x56x56 out. */
TEST(resnet18) {
  char path[512];
  ImportOptions o;
  ImportOptions_init(&o);
  Net *net = ImportTest_open(Model(path, sizeof path, "onnx/resnet18.onnx"), &o);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(net->nops, 49); /* 20 conv, 17 relu, 8 add, max pool, global pool, flatten, gemm */
    CHECK_EQ(ImportTest_bytes(net, "x"), 3 * 224 * 224 * 4);
    CHECK_EQ(ImportTest_bytes(net, "y"), 1000 * 4);
    Net_free(net);
  }
  o.fold = true;
  o.dtype = "int8";
  net = ImportTest_open(Model(path, sizeof path, "onnx/resnet18.onnx"), &o);
  CHECK(net != NULL);
  if (!net) return;
  int convs = 0, relus = 0;
  for (int k = 0; k < net->nops; k++) {
    convs += strcmp(net->ops[k].type, "conv2d") == 0;
    relus += strcmp(net->ops[k].type, "relu") == 0;
  }
  CHECK_EQ(convs, 20);
  CHECK_EQ(relus, 0);
  CHECK_EQ(ImportTest_mr(net, false), 64 * 112 * 112 + 64 * 56 * 56); /* maxpool: in + out */
  Net_free(net);
}

/* Two independent extractions of torchvision's resnet50 and squeezenet1_1 agree:
 * the ONNX export imported with --fold --dtype int8 and the bundled
 * data/networks/NAME.json (torch.fx, gen_networks.py) have the same M_R, M_P and
 * default peak, with and without params, and the same param bytes; ONNX has one
 * op more (Flatten, an alias in the bundled file). */
static int64_t Onnx_paramBytes(const Net *net) {
  int64_t sum = 0;
  for (int t = 0; t < net->ntensors; t++)
    if (net->tensors[t].kind == TK_PARAM) sum += net->tensors[t].bytes;
  return sum;
}

static void Onnx_matchBundled(const char *name) {
  char path[512], file[128];
  ImportOptions o;
  ImportOptions_init(&o);
  o.fold = true;
  o.dtype = "int8";
  snprintf(file, sizeof file, "onnx/%s.onnx", name);
  Net *onnx = ImportTest_open(Model(path, sizeof path, file), &o);
  snprintf(path, sizeof path, "%s/networks/%s.json", SPADMAP_DATA_DIR, name);
  Net *fx = ImportTest_open(path, NULL);
  CHECK(onnx && fx);
  if (onnx && fx) {
    CHECK_EQ(onnx->nops, fx->nops + 1);
    CHECK_EQ(Onnx_paramBytes(onnx), Onnx_paramBytes(fx));
    for (int params = 0; params < 2; params++) {
      NetFigures a, b;
      SpError err;
      CHECK_EQ(Figures_compute(onnx, params, &a, NULL, &err), SP_OK);
      CHECK_EQ(Figures_compute(fx, params, &b, NULL, &err), SP_OK);
      CHECK_EQ(a.m_r, b.m_r);
      CHECK_EQ(a.m_p, b.m_p);
      CHECK(a.m_p_exact && b.m_p_exact);
      CHECK_EQ(a.default_peak, b.default_peak);
    }
  }
  Net_free(onnx);
  Net_free(fx);
}

TEST(exports_match_the_bundled_networks) {
  Onnx_matchBundled("resnet50");
  Onnx_matchBundled("squeezenet1_1");
}

/* The transformers issue 37 found refused, as torch.onnx.export writes them
 * (data/gen/export_onnx.py transformers: nn.TransformerEncoder, nn.Transformer, a
 * small torchvision VisionTransformer and SwinTransformer, a MaxViT-style block).
 * Each opens with its shape arithmetic evaluated (the source line counts the ops),
 * every graph output has the shape and dtype torch computed
 * (data/onnx/expected_outputs.json, written by the exporter from the model's own
 * forward pass), M_P is proven, and a plan at M_R validates. */
TEST(transformers_as_torch_writes_them) {
  char path[512];
  char *text = NULL;
  size_t len = 0;
  SpError err;
  cJSON *root = NULL;
  CHECK_EQ(FileIO_read(Model(path, sizeof path, "onnx/expected_outputs.json"), FILE_NETWORK, &text, &len, &err), SP_OK);
  if (text) CHECK_EQ(Json_parse(text, len, path, &root, &err), SP_OK);
  free(text);
  CHECK_EQ(cJSON_GetArraySize(root), 5);
  for (cJSON *model = root ? root->child : NULL; model; model = model->next) {
    char file[128];
    snprintf(file, sizeof file, "onnx/%s.onnx", model->string);
    Net *net = ImportTest_open(Model(path, sizeof path, file), NULL);
    CHECK(net != NULL);
    if (!net) continue;
    printf("  %s: %d ops; %s\n", model->string, net->nops, strstr(net->source, "imported by spadmap"));
    CHECK_HAS(net->source, "shape ops evaluated at import");
    int outputs = 0;
    for (int t = 0; t < net->ntensors; t++) outputs += net->tensors[t].kind == TK_OUTPUT;
    CHECK_EQ(outputs, cJSON_GetArraySize(model));
    for (cJSON *o = model->child; o; o = o->next) {
      int t = Net_findTensor(net, o->string);
      CHECK(t >= 0);
      if (t < 0) continue;
      const Tensor *tt = &net->tensors[t];
      CHECK_EQ(tt->kind, TK_OUTPUT);
      cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
      CHECK_EQ(tt->rank, cJSON_GetArraySize(shape));
      int64_t elems = 1, d = 0;
      for (cJSON *v = shape ? shape->child : NULL; v; v = v->next, d++) {
        if (d < tt->rank) CHECK_EQ(tt->shape[d], (int64_t)v->valuedouble);
        elems *= (int64_t)v->valuedouble;
      }
      CHECK_HAS(cJSON_GetObjectItemCaseSensitive(o, "dtype")->valuestring, "float32");
      CHECK_HAS(tt->dtype, "fp32");
      CHECK_EQ(tt->bytes, elems * 4);
    }
    NetFigures f;
    CHECK_EQ(Figures_compute(net, false, &f, NULL, &err), SP_OK);
    CHECK(f.m_p_exact);
    CHECK(f.m_r > 0 && f.m_r <= f.m_p);
    SolveSettings s;
    SolveSettings_init(&s);
    s.budget = f.m_r;
    Plan *plan = NULL;
    CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
    if (plan) {
      ValidateReport rep;
      CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
      CHECK_EQ(rep.count, 0);
      ValidateReport_free(&rep);
      Plan_free(plan);
    }
    Net_free(net);
  }
  cJSON_Delete(root);
}

/* Weight-only ops fold into params without --fold: the exporter's Identity copies
 * of shared weights and the Transposes of nn.MultiheadAttention's in-projection are
 * not activations; the source line says how many left. */
TEST(weight_only_ops_are_params) {
  char path[512];
  Net *net = ImportTest_open(Model(path, sizeof path, "onnx/transformer_encoder.onnx"), NULL);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_HAS(net->source, "weight-only ops folded into params");
  for (int k = 0; k < net->nops; k++) {
    bool all_params = true;
    for (int i = 0; i < net->ops[k].ninputs; i++) all_params &= net->tensors[net->ops[k].inputs[i]].kind == TK_PARAM;
    CHECK(!all_params); /* every op left reads an activation or an input */
    CHECK(strcmp(net->ops[k].type, "Shape") != 0 && strcmp(net->ops[k].type, "ConstantOfShape") != 0);
  }
  Net_free(net);
}

TEST(symbolic_dims) {
  char path[512];
  Model(path, sizeof path, "onnx/tiny_cnn_dynamic.onnx");
  Net *net = NULL;
  SpError err = {0};
  CHECK_EQ(Import_open(path, NULL, &net, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "\"x\"");
  CHECK_HAS(err.text, "symbolic \"batch\"");
  CHECK_HAS(err.text, "--dim batch=N");
  ImportOptions o;
  ImportOptions_init(&o);
  CHECK_EQ(ImportOptions_addDim(&o, "batch=4", &err), SP_OK);
  CHECK_EQ(ImportOptions_addDim(&o, "batch", &err), SP_ERR_ARG);
  CHECK_EQ(ImportOptions_addDim(&o, "batch=0", &err), SP_ERR_ARG);
  CHECK_EQ(ImportOptions_addDim(&o, "batch=2x", &err), SP_ERR_ARG);
  net = ImportTest_open(path, &o);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_EQ(ImportTest_bytes(net, "x"), 4 * 3 * 32 * 32 * 4);
  CHECK_EQ(ImportTest_bytes(net, "y"), 4 * 10 * 4);
  Net_free(net);
}

/* --value NAME=V[,V...]: parsed, recorded in the import record, read back the same,
 * described as the command line spells it; every malformed list is SP_ERR_ARG. */
TEST(value_option) {
  ImportOptions o, back, none;
  ImportOptions_init(&o);
  ImportOptions_init(&none);
  SpError err;
  CHECK_EQ(ImportOptions_addValues(&o, "size=10,pads=1,2,-3", &err), SP_OK);
  CHECK_EQ(o.nvalues, 2);
  CHECK_EQ(o.values[1].n, 3);
  CHECK_EQ(o.values[1].v[2], -3);
  char buf[256];
  CHECK_HAS(ImportOptions_describe(&o, buf, sizeof buf), "--value size=10,pads=1,2,-3");
  CHECK(!ImportOptions_equal(&o, &none));
  char *rec = Import_recordJson(IMPORT_ONNX, "m.onnx", &o);
  CHECK(rec != NULL);
  if (rec) {
    CHECK_HAS(rec, "\"values\":{\"size\":[10],\"pads\":[1,2,-3]}");
    ImportFormat f;
    CHECK_EQ(Import_recordOptions(rec, &back, &f, &err), SP_OK);
    CHECK(ImportOptions_equal(&o, &back));
    free(rec);
  }
  rec = Import_recordJson(IMPORT_ONNX, "m.onnx", &none); /* no key without values: older records read the same */
  CHECK(rec && !strstr(rec, "values"));
  free(rec);
  ImportFormat f;
  CHECK_EQ(Import_recordOptions("{\"format\":\"onnx\",\"values\":{\"x\":[1.5]}}", &back, &f, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "import.values.x[0]: expected an integer");
  CHECK_EQ(Import_recordOptions("{\"format\":\"onnx\",\"values\":{\"x\":3}}", &back, &f, &err), SP_ERR_FORMAT);
  static const char *const bad[] = {"size", "=3", "3", "size=", "size=x", "size=1,,2x", "a=1,a=2",
                                    "x=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ImportOptions_init(&back);
    CHECK_EQ(ImportOptions_addValues(&back, bad[i], &err), SP_ERR_ARG);
  }
  CHECK_HAS(err.text, "at most 16 elements");
}

/* Import_toJson's text is the contract: it loads with Net_parse to the same net. */
TEST(json_round_trip) {
  char path[512], *json = NULL;
  size_t len = 0;
  SpError err;
  ImportOptions o;
  ImportOptions_init(&o);
  o.fold = true;
  Model(path, sizeof path, "onnx/squeezenet1_1.onnx");
  CHECK_EQ(Import_toJson(path, &o, &json, &len, &err), SP_OK);
  Net *a = NULL, *b = ImportTest_open(path, &o);
  CHECK_EQ(Net_parse(json, len, "round.json", &a, &err), SP_OK);
  CHECK(a && b);
  if (a && b) {
    CHECK_EQ(a->nops, b->nops);
    CHECK_EQ(a->ntensors, b->ntensors);
    CHECK_EQ(ImportTest_mr(a, true), ImportTest_mr(b, true));
    CHECK_HAS(a->source, "squeezenet1_1.onnx");
  }
  Net_free(a);
  Net_free(b);
  free(json);
}

static void Onnx_expectError(const char *file, const char *message) {
  char path[512];
  Bad(path, sizeof path, file);
  Net *net = NULL;
  SpError err = {0};
  Status st = Import_open(path, NULL, &net, &err);
  CHECK_EQ(st, SP_ERR_FORMAT);
  CHECK(net == NULL);
  CHECK_HAS(err.text, file);
  CHECK_HAS(err.text, message);
}

TEST(malformed_files) {
  Onnx_expectError("bad_truncated.onnx", "not a valid ONNX model");
  Onnx_expectError("bad_undefined.onnx", "node \"add\" (Add, node #1) reads \"ghost\", which no node");
  Onnx_expectError("bad_cycle.onnx", "cycle: \"second\" -> \"first\"");
  Onnx_expectError("bad_elem_type.onnx", "value \"x\" (graph input): unknown ONNX element type 99");
  Onnx_expectError("bad_twice.onnx", "value \"y\" is defined twice");
  Onnx_expectError("bad_unknown_shape.onnx", "Mystery");
}

/* Truncated at every 97th byte: each is an error or, when the cut falls between
 * whole fields, a smaller graph the contract accepts; never a crash. */
TEST(truncations) {
  char path[512], *text;
  size_t len;
  SpError err;
  Model(path, sizeof path, "onnx/tiny_cnn.onnx");
  CHECK_EQ(FileIO_read(path, FILE_ONNX, &text, &len, &err), SP_OK);
  int errors = 0;
  for (size_t cut = 0; cut < len; cut += 97) {
    char *json = NULL;
    size_t jlen;
    Status st = Import_onnxJson(text, cut, "cut.onnx", NULL, &json, &jlen, &err);
    if (st) {
      errors++;
      CHECK_HAS(err.text, "cut.onnx");
    } else {
      Net *net = NULL;
      CHECK_EQ(Net_parse(json, jlen, "cut.json", &net, &err), SP_OK);
      Net_free(net);
    }
    free(json);
  }
  CHECK(errors > 0);
  free(text);
}

int main(void) {
  if (!Import_haveOnnx()) {
    printf("skipped: spadmap was built without ONNX support (libonnx-dev)\n");
    return 77;
  }
  static const TestCase cases[] = {T(diamond_by_hand), T(subgraph_reads_are_inputs), T(tiny_cnn_as_in_the_file), T(tiny_cnn_folded_int8),
                                   T(resnet18), T(exports_match_the_bundled_networks), T(transformers_as_torch_writes_them), T(weight_only_ops_are_params), T(symbolic_dims), T(value_option), T(json_round_trip), T(malformed_files),
                                   T(truncations)};
  return Test_run(cases, (int)(sizeof cases / sizeof cases[0]), "import_onnx");
}

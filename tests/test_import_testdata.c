/* The ONNX test models Debian ships (libonnx-testdata, /usr/share/libonnx-testdata):
 * a selection checked value by value, and a sweep over all of them in which each
 * one loads into a valid network whose outputs have the reference run's shapes,
 * or fails with a message naming the file; the refusals are counted by cause.
 * Skipped (77) without the package or without ONNX support. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fileio.h"
#include "import_util.h"
#include "test.h"

#define TESTDATA "/usr/share/libonnx-testdata/data"

static Net *Td_open(const char *model, const ImportOptions *o) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s/model.onnx", TESTDATA, model);
  return ImportTest_open(path, o);
}

TEST(selected_models) {
  Net *net = Td_open("node/test_add", NULL);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(net->nops, 1);
    CHECK_EQ(ImportTest_bytes(net, "sum"), 3 * 4 * 5 * 4);
    CHECK_EQ(ImportTest_mr(net, false), 3 * 3 * 4 * 5 * 4);
    CHECK_HAS(net->name, "test_add");
    Net_free(net);
  }
  net = Td_open("pytorch-converted/test_Conv2d", NULL);
  CHECK(net != NULL);
  if (net) {
    CHECK_HAS(net->ops[0].type, "conv2d");
    CHECK_HAS(net->ops[0].attrs_json, "\"kernel\":[3,2]");
    CHECK_EQ(ImportTest_bytes(net, "0"), 2 * 3 * 7 * 5 * 4);
    CHECK_EQ(ImportTest_bytes(net, "3"), 2 * 4 * 5 * 4 * 4); /* 7x5, kernel 3x2 -> 5x4 */
    CHECK_EQ(net->tensors[Net_findTensor(net, "1")].kind, TK_PARAM);
    CHECK_EQ(ImportTest_mr(net, true), (2 * 3 * 7 * 5 + 4 * 3 * 3 * 2 + 4 + 2 * 4 * 5 * 4) * 4);
    Net_free(net);
  }
  /* a BatchNorm reading the graph input has no producer to fold into */
  ImportOptions o;
  ImportOptions_init(&o);
  o.fold = true;
  net = Td_open("pytorch-converted/test_BatchNorm2d_eval", &o);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(net->nops, 1);
    CHECK_HAS(net->ops[0].type, "batch_norm");
    Net_free(net);
  }
  /* a bool value is priced as one byte */
  net = Td_open("node/test_if", NULL);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(ImportTest_bytes(net, "cond"), 1);
    CHECK_HAS(net->tensors[Net_findTensor(net, "cond")].dtype, "uint8");
    Net_free(net);
  }
  /* a window whose length is a graph input's value: refused with the fix named,
   * then opened with it (--value) to the reference run's length */
  SpError err;
  net = NULL;
  CHECK_EQ(Import_open(TESTDATA "/node/test_hannwindow_expanded/model.onnx", NULL, &net, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "depends on the data");
  CHECK_HAS(err.text, "graph input \"x\", give it: --value x=V");
  ImportOptions_init(&o);
  CHECK_EQ(ImportOptions_addValues(&o, "x=10", &err), SP_OK);
  net = Td_open("node/test_hannwindow_expanded", &o);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(ImportTest_bytes(net, "y"), 10 * 4);
    CHECK_HAS(net->source, "shape ops evaluated at import");
    Net_free(net);
  }
  ImportOptions_init(&o);
  CHECK_EQ(ImportOptions_addValues(&o, "size=10", &err), SP_OK);
  CHECK_EQ(Import_open(TESTDATA "/node/test_hannwindow_expanded/model.onnx", &o, &net, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "--value size: the model has no graph input of that name");
  ImportOptions_init(&o);
  CHECK_EQ(ImportOptions_addValues(&o, "x=10,11", &err), SP_OK);
  CHECK_EQ(Import_open(TESTDATA "/node/test_hannwindow_expanded/model.onnx", &o, &net, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "--value x: it holds 1 element, 2 given");
  /* sequences of known length are tensors: [X, Y] + Z at 1 -> [X, Z, Y]; SequenceAt 2 is Y (1x3x4) */
  net = Td_open("simple/test_sequence_model1", NULL);
  CHECK(net != NULL);
  if (net) {
    CHECK_HAS(net->source, "5 sequence ops lowered to tensors");
    CHECK_EQ(ImportTest_bytes(net, "out"), 1 * 3 * 4 * 4);
    CHECK_EQ(net->nops, 1);
    Net_free(net);
  }
  /* ConcatFromSequence with new_axis: three 2x3x4 inputs stacked on a new last axis */
  net = Td_open("simple/test_sequence_model5", NULL);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(ImportTest_bytes(net, "out"), 2 * 3 * 4 * 3 * 4);
    Net_free(net);
  }
  /* a split that is a graph input: named; given, it must sum to the axis */
  ImportOptions_init(&o);
  CHECK_EQ(ImportOptions_addDim(&o, "n=3", &err), SP_OK);
  CHECK_EQ(Import_open(TESTDATA "/simple/test_sequence_model8/model.onnx", &o, &net, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "give it: --value Splits=V,V,...");
  CHECK_HAS(err.text, "its split \"Splits\" is not a constant");
  ImportOptions short_list = o;
  CHECK_EQ(ImportOptions_addValues(&short_list, "Splits=1,2", &err), SP_OK);
  CHECK_EQ(Import_open(TESTDATA "/simple/test_sequence_model8/model.onnx", &short_list, &net, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "--value Splits: its declared shape does not hold the 2 elements given (dimension 0 is 3)");
  CHECK_EQ(ImportOptions_addValues(&o, "Splits=1,1,2", &err), SP_OK);
  CHECK_EQ(Import_open(TESTDATA "/simple/test_sequence_model8/model.onnx", &o, &net, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "its splits sum to 4, the axis holds 3");
  ImportOptions_init(&o);
  CHECK_EQ(ImportOptions_addDim(&o, "n=3", &err), SP_OK);
  CHECK_EQ(ImportOptions_addValues(&o, "Splits=1,0,2", &err), SP_OK);
  net = Td_open("simple/test_sequence_model8", &o);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(ImportTest_bytes(net, "len"), 8); /* a scalar int64: 3 */
    Net_free(net);
  }
  /* int64 has no contract dtype: 8 bytes per element through "bytes" */
  net = Td_open("simple/test_expand_shape_model1", NULL);
  CHECK(net != NULL);
  if (net) {
    CHECK_EQ(ImportTest_bytes(net, "shape"), 2 * 8);
    Net_free(net);
  }
}

static int Td_compare(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ---- the expected outputs' shapes: test_data_set_0/output_N.pb, TensorProtos ----
 * Read here with a few lines of protobuf wire format (not libonnx), so the check is
 * independent of the importer: field 1 is dims (varints, packed or not), field 8
 * the name. */
typedef struct {
  char name[256];
  int64_t dims[16];
  int rank;
  int type;         /* field 2, data_type */
  int64_t ints[16]; /* the first integers it holds (int32_data, int64_data or raw INT32/INT64) */
  int nints;
} TdTensor;

static bool Td_varint(const unsigned char **p, const unsigned char *end, uint64_t *v) {
  *v = 0;
  for (int shift = 0; *p < end && shift < 64; shift += 7) {
    unsigned char b = *(*p)++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

static bool Td_readTensor(const char *path, TdTensor *t) {
  char *buf = NULL;
  size_t len = 0;
  SpError err;
  if (FileIO_read(path, FILE_ONNX, &buf, &len, &err)) return false;
  memset(t, 0, sizeof *t);
  const unsigned char *p = (const unsigned char *)buf, *end = p + len;
  bool ok = true;
  while (ok && p < end) {
    uint64_t key, v;
    if (!(ok = Td_varint(&p, end, &key))) break;
    int field = (int)(key >> 3), wire = (int)(key & 7);
    if (wire == 0) {
      ok = Td_varint(&p, end, &v);
      if (field == 1 && t->rank < 16) t->dims[t->rank++] = (int64_t)v;
      if (field == 2) t->type = (int)v;
      if ((field == 5 || field == 7) && t->nints < 16) t->ints[t->nints++] = field == 5 ? (int32_t)v : (int64_t)v;
    } else if (wire == 2) {
      ok = Td_varint(&p, end, &v) && v <= (uint64_t)(end - p);
      if (!ok) break;
      const unsigned char *q = p, *qend = p + v;
      if (field == 1)
        while (ok && q < qend && t->rank < 16) ok = Td_varint(&q, qend, &v), t->dims[t->rank++] = (int64_t)v;
      else if (field == 8) snprintf(t->name, sizeof t->name, "%.*s", (int)(qend - q), (const char *)q);
      else if (field == 5 || field == 7)
        while (ok && q < qend && t->nints < 16)
          ok = Td_varint(&q, qend, &v), t->ints[t->nints++] = field == 5 ? (int32_t)v : (int64_t)v;
      else if (field == 9) /* raw_data, little-endian; the type (field 2) comes first in the files */
        for (int w = t->type == 7 ? 8 : t->type == 6 ? 4 : 0; w && q + w <= qend && t->nints < 16; q += w) {
          uint64_t x = 0;
          for (int b = w - 1; b >= 0; b--) x = x << 8 | q[b];
          t->ints[t->nints++] = w == 4 ? (int32_t)x : (int64_t)x;
        }
      p = qend;
    } else if (wire == 5) p += 4;
    else if (wire == 1) p += 8;
    else ok = false;
  }
  free(buf);
  return ok && p == end;
}

/* Every graph output of an opened model against the reference run's output:
 * the same elements (a scalar is [1] here); an output the file leaves empty
 * takes no memory and is not in the network. Returns the outputs compared. */
static int Td_checkOutputs(const Net *net, const char *model) {
  char dir[1024], path[1100];
  snprintf(dir, sizeof dir, "%.1000s", model);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  int compared = 0;
  for (int k = 0; k < 16; k++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, k);
    struct stat st;
    if (stat(path, &st) != 0) break;
    TdTensor want;
    if (!Td_readTensor(path, &want) || !want.name[0]) continue; /* sequences, optionals: no TensorProto */
    int t = Net_findTensor(net, want.name);
    int64_t elems = 1;
    for (int d = 0; d < want.rank; d++) elems *= want.dims[d];
    if (t < 0) {
      if (elems != 0) printf("  %s: output \"%s\" is missing\n", model, want.name);
      CHECK(elems == 0);
      continue;
    }
    const Tensor *tt = &net->tensors[t];
    bool same = want.rank == 0 ? tt->rank == 1 && tt->shape[0] == 1 : tt->rank == want.rank;
    for (int d = 0; same && d < want.rank; d++) same = tt->shape[d] == want.dims[d];
    if (!same) printf("  %s: output \"%s\" has another shape than the reference run's\n", model, want.name);
    CHECK(same);
    CHECK_EQ(tt->kind, TK_OUTPUT);
    compared++;
  }
  return compared;
}

/* The reference run's input named `name` (test_data_set_0/input_N.pb of model). */
static bool Td_input(const char *model, const char *name, TdTensor *t) {
  char dir[1024], path[1100];
  snprintf(dir, sizeof dir, "%.1000s", model);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  for (int k = 0; k < 16; k++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, k);
    if (Td_readTensor(path, t) && strcmp(t->name, name) == 0) return true;
  }
  return false;
}

/* What a user would do with a refusal that names its fix: a symbolic dimension
 * ("dimension D is the symbolic \"S\"" of graph input V) gets --dim S= the size
 * the reference run's input has; graph inputs the message suggests --value for get
 * the reference run's values. false when the message names no fix or the test
 * data cannot supply it. */
static bool Td_fix(const char *model, const char *text, ImportOptions *o) {
  const char *sym = strstr(text, "is the symbolic \""), *val = strstr(text, "give it: --value ");
  if (!val) val = strstr(text, "give them: --value ");
  char buf[512];
  TdTensor t;
  if (sym) { /* ...: value "V" (graph input): dimension D is the symbolic "S"; ... */
    const char *v = strstr(text, ": value \""), *d = strstr(text, "): dimension ");
    if (!v || !d || !strstr(text, "(graph input)")) return false;
    v += strlen(": value \"");
    const char *q = strchr(v, '"');
    snprintf(buf, sizeof buf, "%.*s", (int)(q - v), v);
    int dim = atoi(d + strlen("): dimension "));
    if (!Td_input(model, buf, &t) || dim >= t.rank) return false;
    sym += strlen("is the symbolic \"");
    char arg[256];
    snprintf(arg, sizeof arg, "%.*s=%lld", (int)(strchr(sym, '"') - sym), sym, (long long)t.dims[dim]);
    SpError err;
    return ImportOptions_addDim(o, arg, &err) == SP_OK; /* a size of 0 is no network */
  }
  if (!val) return false;
  snprintf(buf, sizeof buf, "%s", strchr(val, '-') + strlen("--value "));
  char *stop = strchr(buf, ';');
  if (stop) *stop = '\0';
  bool any = false;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) continue; /* the "V,..." placeholders */
    *eq = '\0';
    if (!Td_input(model, tok, &t) || t.nints == 0) return false;
    char arg[512];
    size_t k = (size_t)snprintf(arg, sizeof arg, "%s=", tok);
    for (int i = 0; i < t.nints && k < sizeof arg; i++)
      k += (size_t)snprintf(arg + k, sizeof arg - k, "%s%lld", i ? "," : "", (long long)t.ints[i]);
    SpError err;
    if (ImportOptions_addValues(o, arg, &err)) return false;
    any = true;
  }
  return any;
}

/* Why a model is refused, by its message. */
static const char *Td_cause(const char *text) {
  if (strstr(text, "element type STRING")) return "strings (no fixed size without --dtype)";
  if (strstr(text, "depends on the data")) return "a size that depends on input data (windows, Range of inputs)";
  if (strstr(text, "its shape is unknown")) return "sequences, optionals, a Loop over input data (no tensor shape)";
  if (strstr(text, "no ops that hold data")) return "every output empty (zero elements)";
  if (strstr(text, "is the symbolic")) return "a symbolic dimension the reference run sets to 0 (no zero-size tensors)";
  return "other";
}

/* Every model Debian ships: how many open, every refusal with its cause (and a
 * message naming the file), and every opened model's outputs against the
 * reference run's (test_data_set_0). */
TEST(sweep) {
  static const char *const groups[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  char **models = NULL;
  int n = 0;
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", TESTDATA, groups[g]);
    DIR *d = opendir(dir);
    if (!d) continue;
    for (struct dirent *e; (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      char path[1024];
      struct stat st;
      snprintf(path, sizeof path, "%s/%s/model.onnx", dir, e->d_name);
      if (stat(path, &st) != 0) continue;
      char **grown = realloc(models, sizeof *models * (size_t)(n + 1));
      if (!grown) break;
      models = grown;
      models[n++] = strdup(path);
    }
    closedir(d);
  }
  qsort(models, (size_t)n, sizeof *models, Td_compare);
  enum { NCAUSES = 6 };
  static const char *const causes[NCAUSES] = {
      "strings (no fixed size without --dtype)", "sequences, optionals, a Loop over input data (no tensor shape)",
      "a size that depends on input data (windows, Range of inputs)", "every output empty (zero elements)",
      "a symbolic dimension the reference run sets to 0 (no zero-size tensors)", "other"};
  int per_cause[NCAUSES] = {0};
  char examples[NCAUSES][200] = {{0}};
  int tried = 0, loaded = 0, compared = 0, with_options = 0;
  for (int i = 0; i < n; i++) {
    Net *net = NULL;
    SpError err = {0};
    tried++;
    ImportOptions o;
    ImportOptions_init(&o);
    Status st = Import_open(models[i], &o, &net, &err);
    /* a refusal naming its fix (--dim, --value): retried with the reference run's sizes and values */
    bool fixed = false;
    for (int retry = 0; st == SP_ERR_FORMAT && retry < 3 && Td_fix(models[i], err.text, &o); retry++) {
      fixed = true;
      st = Import_open(models[i], &o, &net, &err);
    }
    if (st == SP_OK) {
      loaded++;
      with_options += fixed;
      if (fixed) {
        char opts[256];
        CHECK_HAS(net->source, "imported by spadmap");
        printf("  opened with %s: %s\n", ImportOptions_describe(&o, opts, sizeof opts), models[i] + strlen(TESTDATA) + 1);
      }
      CHECK(net->nops > 0);
      CHECK(ImportTest_mr(net, true) > 0);
      compared += Td_checkOutputs(net, models[i]);
    } else {
      CHECK(st == SP_ERR_FORMAT);
      CHECK_HAS(err.text, models[i]);
      const char *cause = Td_cause(err.text);
      for (int c = 0; c < NCAUSES; c++)
        if (strcmp(cause, causes[c]) == 0) {
          const char *m = models[i] + strlen(TESTDATA) + 1;
          size_t used = strlen(examples[c]);
          if (per_cause[c]++ < 3 && used < sizeof examples[c])
            snprintf(examples[c] + used, sizeof examples[c] - used, "%s%.*s", used ? ", " : "",
                     (int)(strlen(m) - strlen("/model.onnx")), m);
          if (c == NCAUSES - 1) printf("  refused for another cause: %s\n", err.text);
        }
    }
    Net_free(net);
  }
  printf("  libonnx-testdata: %d of %d models open (%d in all, %d of them with --dim/--value from test_data_set_0); "
         "%d outputs match the reference run's shapes\n",
         loaded, tried, n, with_options, compared);
  for (int c = 0; c < NCAUSES; c++)
    if (per_cause[c]) printf("  refused, %s: %d (%s%s)\n", causes[c], per_cause[c], examples[c], per_cause[c] > 3 ? ", ..." : "");
  CHECK(n > 1000);
  CHECK_EQ(per_cause[NCAUSES - 1], 0);
  CHECK(loaded >= 1021); /* 963 before the shape arithmetic was evaluated, 1,008 before --value and sequences (issue 37) */
  CHECK(with_options >= 6);
  for (int i = 0; i < n; i++) free(models[i]);
  free(models);
}

int main(void) {
  struct stat st;
  if (stat(TESTDATA, &st) != 0) {
    printf("skipped: %s not found (apt-get install libonnx-testdata)\n", TESTDATA);
    return 77;
  }
  if (!Import_haveOnnx()) {
    printf("skipped: spadmap was built without ONNX support (libonnx-dev)\n");
    return 77;
  }
  static const TestCase cases[] = {T(selected_models), T(sweep)};
  return Test_run(cases, (int)(sizeof cases / sizeof cases[0]), "import_testdata");
}

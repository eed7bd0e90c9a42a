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
    } else if (wire == 2) {
      ok = Td_varint(&p, end, &v) && v <= (uint64_t)(end - p);
      if (!ok) break;
      const unsigned char *q = p, *qend = p + v;
      if (field == 1)
        while (ok && q < qend && t->rank < 16) ok = Td_varint(&q, qend, &v), t->dims[t->rank++] = (int64_t)v;
      else if (field == 8) snprintf(t->name, sizeof t->name, "%.*s", (int)(qend - q), (const char *)q);
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

/* Why a model is refused, by its message. */
static const char *Td_cause(const char *text) {
  if (strstr(text, "element type STRING")) return "strings (no fixed size without --dtype)";
  if (strstr(text, "depends on the data")) return "a size that depends on input data (windows, Range of inputs)";
  if (strstr(text, "its shape is unknown")) return "sequences, optionals, a Loop over input data (no tensor shape)";
  if (strstr(text, "no ops that hold data")) return "every output empty (zero elements)";
  if (strstr(text, "is the symbolic")) return "a symbolic dimension (needs --dim)";
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
      "a symbolic dimension (needs --dim)", "other"};
  int per_cause[NCAUSES] = {0};
  char examples[NCAUSES][200] = {{0}};
  int tried = 0, loaded = 0, compared = 0;
  for (int i = 0; i < n; i++) {
    Net *net = NULL;
    SpError err = {0};
    tried++;
    Status st = Import_open(models[i], NULL, &net, &err);
    if (st == SP_OK) {
      loaded++;
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
  printf("  libonnx-testdata: %d of %d models open (%d in all); %d outputs match the reference run's shapes\n",
         loaded, tried, n, compared);
  for (int c = 0; c < NCAUSES; c++)
    if (per_cause[c]) printf("  refused, %s: %d (%s%s)\n", causes[c], per_cause[c], examples[c], per_cause[c] > 3 ? ", ..." : "");
  CHECK(n > 1000);
  CHECK_EQ(per_cause[NCAUSES - 1], 0);
  CHECK(loaded >= 1008); /* 963 before the shape arithmetic was evaluated (issue 37) */
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

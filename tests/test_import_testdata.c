/* The ONNX test models Debian ships (libonnx-testdata, /usr/share/libonnx-testdata):
 * a selection checked value by value, and a sweep over every 8th model in which
 * each one loads into a valid network or fails with a message naming the file.
 * Skipped (77) without the package or without ONNX support. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

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
  int tried = 0, loaded = 0;
  for (int i = 0; i < n; i += 8) {
    Net *net = NULL;
    SpError err = {0};
    tried++;
    Status st = Import_open(models[i], NULL, &net, &err);
    if (st == SP_OK) {
      loaded++;
      CHECK(net->nops > 0);
      CHECK(ImportTest_mr(net, true) > 0);
    } else {
      CHECK(st == SP_ERR_FORMAT);
      CHECK_HAS(err.text, models[i]);
    }
    Net_free(net);
  }
  printf("  libonnx-testdata: %d of %d models in the sweep load (%d models in all)\n", loaded, tried, n);
  CHECK(n > 500);
  CHECK(loaded * 10 >= tried * 8); /* 89%% of all 1072 load with libonnx 1.12 */
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

/* A bounded, seeded mutation fuzzer over the importers: byte flips, interesting
 * values, cuts, duplicated and deleted ranges of real files (an exported ONNX
 * model, a hand-made one, a DAG JSON). Every mutant must either be refused with
 * an error naming it or give JSON the contract's loader accepts; a crash or a
 * sanitizer report fails the test (CI runs it under ASan+UBSan and valgrind).
 * The same seed gives the same mutants, so a failure can be replayed.
 * SPADMAP_FUZZ_SCALE=N multiplies the iterations for a longer run by hand. */
#include <stdint.h>
#include <stdlib.h>

#include "fileio.h"
#include "import_util.h"
#include "test.h"

static uint64_t Fuzz_state;

static uint64_t Fuzz_next(void) { /* xorshift64* */
  Fuzz_state ^= Fuzz_state >> 12;
  Fuzz_state ^= Fuzz_state << 25;
  Fuzz_state ^= Fuzz_state >> 27;
  return Fuzz_state * 2685821657736338717ULL;
}

static size_t Fuzz_below(size_t n) { return n ? (size_t)(Fuzz_next() % n) : 0; }

/* One to four mutations of seed into buf (capacity cap); returns the length. */
static size_t Fuzz_mutate(const char *seed, size_t len, char *buf, size_t cap) {
  memcpy(buf, seed, len);
  size_t n = len;
  int rounds = 1 + (int)Fuzz_below(4);
  static const unsigned char interesting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x12, '"', '{', '}', '[', ']', ',', ':', '-', '9'};
  for (int r = 0; r < rounds && n > 0; r++) {
    size_t at = Fuzz_below(n);
    switch (Fuzz_below(6)) {
    case 0: buf[at] = (char)(buf[at] ^ (1u << Fuzz_below(8))); break;
    case 1: buf[at] = (char)interesting[Fuzz_below(sizeof interesting)]; break;
    case 2: n = at; break; /* cut */
    case 3: { /* delete a range */
      size_t k = 1 + Fuzz_below(16);
      if (at + k > n) k = n - at;
      memmove(buf + at, buf + at + k, n - at - k);
      n -= k;
      break;
    }
    case 4: { /* duplicate a range */
      size_t k = 1 + Fuzz_below(32);
      if (at + k > n) k = n - at;
      if (n + k > cap) break;
      memmove(buf + at + k, buf + at, n - at);
      n += k;
      break;
    }
    default: /* a random byte */
      buf[at] = (char)Fuzz_below(256);
    }
  }
  return n;
}

typedef Status (*Translate)(const char *bytes, size_t len, const ImportOptions *o, char **json, size_t *jlen,
                            SpError *err);

static Status Fuzz_onnx(const char *b, size_t n, const ImportOptions *o, char **j, size_t *jl, SpError *e) {
  return Import_onnxJson(b, n, "mutant.onnx", o, j, jl, e);
}
static Status Fuzz_dag(const char *b, size_t n, const ImportOptions *o, char **j, size_t *jl, SpError *e) {
  return Import_dagJson(b, n, "mutant.json", o, j, jl, e);
}

static const char *Fuzz_values; /* --value for every mutant of the next run, or NULL */

/* Returns how many mutants were accepted. */
static int Fuzz_run(const char *path, Translate translate, const char *label, int iterations, uint64_t seed) {
  char *text;
  size_t len;
  SpError err;
  if (FileIO_read(path, FILE_ONNX, &text, &len, &err)) {
    printf("  %s\n", err.text);
    CHECK(0);
    return 0;
  }
  size_t cap = len + 256;
  char *buf = malloc(cap + 1);
  Fuzz_state = seed;
  const char *scale = getenv("SPADMAP_FUZZ_SCALE");
  if (scale && atoi(scale) > 1) iterations *= atoi(scale);
  int accepted = 0;
  for (int i = 0; i < iterations; i++) {
    size_t n = Fuzz_mutate(text, len, buf, cap);
    buf[n] = '\0';
    ImportOptions o;
    ImportOptions_init(&o);
    o.fold = i % 2;
    o.dtype = i % 3 == 0 ? "int8" : NULL;
    if (Fuzz_values && i % 4 != 3) CHECK_EQ(ImportOptions_addValues(&o, Fuzz_values, &err), SP_OK);
    char *json = NULL;
    size_t jlen = 0;
    Status st = translate(buf, n, &o, &json, &jlen, &err);
    if (st == SP_OK) {
      Net *net = NULL;
      Status lst = Net_parse(json, jlen, label, &net, &err);
      if (lst) printf("  mutant %d of %s: the importer wrote JSON the loader refuses: %s\n", i, path, err.text);
      CHECK_EQ(lst, SP_OK);
      accepted += lst == SP_OK;
      Net_free(net);
    } else {
      if (!strstr(err.text, label)) printf("  mutant %d of %s: message without the file: %s\n", i, path, err.text);
      CHECK_HAS(err.text, label);
      CHECK(st == SP_ERR_FORMAT || st == SP_ERR_SYNTAX);
    }
    free(json);
  }
  printf("  %s: %d mutants, %d accepted, %d refused\n", path, iterations, accepted, iterations - accepted);
  free(buf);
  free(text);
  return accepted;
}

TEST(onnx_mutants) {
  if (!Import_haveOnnx()) return;
  char path[512];
  Fuzz_run(ImportTest_path(path, sizeof path, SPADMAP_DATA_DIR, "onnx/tiny_cnn.onnx"), Fuzz_onnx, "mutant.onnx", 1500,
           0x5eed0001);
  Fuzz_run(ImportTest_path(path, sizeof path, SPADMAP_TEST_DIR, "data/onnx/good_diamond.onnx"), Fuzz_onnx,
           "mutant.onnx", 1500, 0x5eed0002);
  /* a torch export full of shape arithmetic: mutants reach the evaluator (onnx_const.cc) */
  Fuzz_run(ImportTest_path(path, sizeof path, SPADMAP_DATA_DIR, "onnx/maxvit_block.onnx"), Fuzz_onnx, "mutant.onnx",
           600, 0x5eed0004);
  /* ONNX's own sequence models (lowered to tensors, onnx_seq.cc) and a window whose
   * length is given (--value), when Debian's libonnx-testdata is installed */
  static const char *const testdata[] = {"simple/test_sequence_model1", "simple/test_sequence_model3",
                                         "simple/test_sequence_model5", "simple/test_sequence_model7",
                                         "node/test_hannwindow_expanded"};
  for (size_t k = 0; k < sizeof testdata / sizeof testdata[0]; k++) {
    snprintf(path, sizeof path, "/usr/share/libonnx-testdata/data/%s/model.onnx", testdata[k]);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    fclose(f);
    Fuzz_values = strstr(path, "window") ? "x=10" : NULL;
    Fuzz_run(path, Fuzz_onnx, "mutant.onnx", 400, 0x5eed0010 + k);
    Fuzz_values = NULL;
  }
}

TEST(dag_mutants) {
  char path[512];
  int accepted = Fuzz_run(ImportTest_path(path, sizeof path, SPADMAP_TEST_DIR, "data/dag/diamond_dag.json"), Fuzz_dag,
                          "mutant.json", 4000, 0x5eed0003);
  CHECK(accepted > 0); /* some mutants (a changed size, a renamed tensor) are still graphs */
}

TEST_MAIN("import_fuzz", T(onnx_mutants), T(dag_mutants))

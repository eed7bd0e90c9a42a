/* The network loader's error reporting: every broken file is rejected with the
 * right status and a message naming the place (JSON path, or line:column for
 * syntax errors) and what was wrong. Plus the fields of a good file, and every
 * bundled network loading cleanly. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "net.h"
#include "test.h"

/* Parses text as "t.json". Whatever the outcome, *out must be set consistently
 * (a net on success, NULL on failure); the net is freed here. */
static Status parse(const char *text, SpError *err) {
  Net *net = (Net *)1;
  memset(err, 0, sizeof *err);
  Status st = Net_parse(text, strlen(text), "t.json", &net, err);
  CHECK(st == SP_OK ? net != NULL : net == NULL);
  if (st == SP_OK) CHECK_EQ(err->text[0], 0);
  Net_free(net);
  return st;
}

/* A network with the given tensor and op lists, so each case shows only its own
 * breakage. The header is line 1, tensors start on line 2. */
static Status parse_net(const char *tensors, const char *ops, SpError *err) {
  char buf[4096];
  snprintf(buf, sizeof buf,
           "{\"format\": \"spadmap-network\", \"version\": 1,\n\"tensors\": [%s],\n\"ops\": [%s]}", tensors, ops);
  return parse(buf, err);
}

/* x (input) -> op0 -> a -> op1 -> y (output): the valid base most cases break. */
#define TX "{\"name\": \"x\", \"shape\": [4], \"kind\": \"input\"}"
#define TA "{\"name\": \"a\", \"shape\": [4]}"
#define TY "{\"name\": \"y\", \"shape\": [4], \"kind\": \"output\"}"
#define TENSORS TX ", " TA ", " TY
#define OP0 "{\"name\": \"op0\", \"type\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [\"a\"]}"
#define OP1 "{\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\"]}"
#define OPS OP0 ", " OP1

/* Status, the file named, the place, and the problem. */
#define EXPECT(st, err, code, where, what)                                                \
  do {                                                                                    \
    CHECK_EQ((st), (code));                                                               \
    CHECK(strncmp((err).text, "t.json", 6) == 0);                                         \
    CHECK_HAS((err).text, (where));                                                       \
    CHECK_HAS((err).text, (what));                                                        \
  } while (0)

/* Shorthand: a format error from parse_net. */
#define EXPECT_NET(tensors, ops, where, what)                                             \
  do {                                                                                    \
    SpError e_;                                                                           \
    Status st_ = parse_net((tensors), (ops), &e_);                                        \
    EXPECT(st_, e_, SP_ERR_FORMAT, (where), (what));                                      \
  } while (0)

/* ---- valid files ---- */

TEST(base_is_valid) {
  SpError err;
  CHECK_EQ(parse_net(TENSORS, OPS, &err), SP_OK);
}

TEST(valid_fields) {
  const char *text =
      "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"small\", \"source\": \"hand\",\n"
      " \"future_key\": {\"anything\": [1, 2]},\n"
      " \"tensors\": [\n"
      "  {\"name\": \"x\", \"shape\": [2, 3], \"dtype\": \"fp16\", \"kind\": \"input\", \"note\": 1},\n"
      "  {\"name\": \"w\", \"shape\": [3], \"dtype\": \"fp32\", \"kind\": \"param\"},\n"
      "  {\"name\": \"a\", \"shape\": [5, 7]},\n"
      "  {\"name\": \"b\", \"shape\": [1000], \"bytes\": 77, \"strides\": [2]},\n"
      "  {\"name\": \"y\", \"shape\": [2], \"dtype\": \"bf16\", \"kind\": \"output\"}],\n"
      " \"ops\": [\n"
      "  {\"name\": \"o0\", \"type\": \"conv2d\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"a\"],\n"
      "   \"attrs\": {\"kernel\": [3, 3]}, \"extra\": true},\n"
      "  {\"name\": \"o1\", \"type\": \"add\", \"inputs\": [\"a\", \"x\", \"a\"], \"outputs\": [\"b\"]},\n"
      "  {\"name\": \"o2\", \"type\": \"mul\", \"inputs\": [\"b\", \"x\"], \"outputs\": [\"y\"]}]}\n";
  Net *net = NULL;
  SpError err = {0};
  CHECK_EQ(Net_parse(text, strlen(text), "t.json", &net, &err), SP_OK);
  if (!net) {
    printf("  %s\n", err.text);
    return;
  }
  CHECK_HAS(net->name, "small");
  CHECK_HAS(net->source, "hand");
  CHECK_EQ(net->ntensors, 5);
  CHECK_EQ(net->nops, 3);
  int x = Net_findTensor(net, "x"), w = Net_findTensor(net, "w"), a = Net_findTensor(net, "a");
  int b = Net_findTensor(net, "b"), y = Net_findTensor(net, "y");
  CHECK(x == 0 && w == 1 && a == 2 && b == 3 && y == 4);
  CHECK_EQ(Net_findTensor(net, "nope"), -1);
  CHECK_EQ(Net_findOp(net, "o1"), 1);
  if (x != 0 || w != 1 || a != 2 || b != 3 || y != 4) goto done;

  const Tensor *t = net->tensors;
  /* bytes = shape x dtype size; int8 and activation are the defaults */
  CHECK_EQ(t[x].bytes, 12);
  CHECK_EQ(t[x].elem_bytes, 2);
  CHECK_EQ(t[w].bytes, 12);
  CHECK_EQ(t[a].bytes, 35);
  CHECK_HAS(t[a].dtype, "int8");
  CHECK_EQ(t[a].kind, TK_ACTIVATION);
  CHECK_EQ(t[y].bytes, 4);
  CHECK_EQ(t[x].kind, TK_INPUT);
  CHECK_EQ(t[w].kind, TK_PARAM);
  CHECK_EQ(t[y].kind, TK_OUTPUT);
  CHECK_EQ(t[x].rank, 2);
  CHECK(t[x].shape[0] == 2 && t[x].shape[1] == 3);
  CHECK(t[x].strides == NULL);
  /* the "bytes" override wins over shape x dtype */
  CHECK_EQ(t[b].bytes, 77);
  CHECK(t[b].strides && t[b].strides[0] == 2);

  /* producers: -1 for graph inputs/params */
  CHECK_EQ(t[x].producer, -1);
  CHECK_EQ(t[w].producer, -1);
  CHECK_EQ(t[a].producer, 0);
  CHECK_EQ(t[b].producer, 1);
  CHECK_EQ(t[y].producer, 2);
  /* consumers: distinct, in file order (o1 reads "a" twice) */
  CHECK_EQ(t[x].nconsumers, 3);
  CHECK(t[x].consumers[0] == 0 && t[x].consumers[1] == 1 && t[x].consumers[2] == 2);
  CHECK_EQ(t[a].nconsumers, 1);
  CHECK_EQ(t[a].consumers[0], 1);
  CHECK_EQ(t[y].nconsumers, 0);

  /* ops keep inputs as listed, repeats included */
  const Op *o1 = &net->ops[1];
  CHECK_HAS(o1->name, "o1");
  CHECK_HAS(o1->type, "add");
  CHECK_EQ(o1->ninputs, 3);
  CHECK(o1->inputs[0] == a && o1->inputs[1] == x && o1->inputs[2] == a);
  CHECK_EQ(o1->noutputs, 1);
  CHECK(o1->attrs_json == NULL);
  CHECK_HAS(net->ops[0].attrs_json, "\"kernel\"");
done:
  Net_free(net);
}

TEST(name_defaults_to_file_stem) {
  const char *text = "{\"format\": \"spadmap-network\", \"version\": 1, \"tensors\": [" TENSORS "], \"ops\": [" OPS "]}";
  Net *net = NULL;
  SpError err = {0};
  CHECK_EQ(Net_parse(text, strlen(text), "some/dir/mynet.json", &net, &err), SP_OK);
  if (net) CHECK_HAS(net->name, "mynet");
  Net_free(net);
}

/* Every shipped network loads and is internally consistent. */
TEST(bundled_networks_load) {
  DIR *dir = opendir(SPADMAP_DATA_DIR "/networks");
  CHECK(dir != NULL);
  if (!dir) return;
  int loaded = 0;
  struct dirent *de;
  while ((de = readdir(dir))) {
    size_t n = strlen(de->d_name);
    if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/networks/%s", SPADMAP_DATA_DIR, de->d_name);
    Net *net = NULL;
    SpError err = {0};
    Status st = Net_load(path, &net, &err);
    if (st) printf("  %s: %s\n", de->d_name, err.text);
    CHECK_EQ(st, SP_OK);
    if (!net) continue;
    loaded++;
    CHECK(net->nops > 0 && net->ntensors > 0);
    CHECK(net->name && net->name[0]);
    int bad = 0;
    for (int o = 0; o < net->nops; o++) {
      const Op *op = &net->ops[o];
      bad += op->noutputs < 1;
      for (int k = 0; k < op->noutputs; k++) bad += net->tensors[op->outputs[k]].producer != o;
      for (int k = 0; k < op->ninputs; k++) bad += net->tensors[op->inputs[k]].producer >= o; /* topological */
    }
    for (int i = 0; i < net->ntensors; i++) {
      const Tensor *t = &net->tensors[i];
      bad += t->bytes < 1 || t->rank < 1;
      bad += (t->kind == TK_INPUT || t->kind == TK_PARAM) != (t->producer < 0);
      bad += Net_findTensor(net, t->name) != i;
      for (int c = 0; c < t->nconsumers; c++) {
        bad += c > 0 && t->consumers[c] <= t->consumers[c - 1]; /* strictly ascending */
        const Op *op = &net->ops[t->consumers[c]];
        bool reads = false;
        for (int k = 0; k < op->ninputs; k++) reads |= op->inputs[k] == i;
        bad += !reads;
      }
    }
    if (bad) printf("  %s: %d invariant violations\n", de->d_name, bad);
    CHECK_EQ(bad, 0);
    Net_free(net);
  }
  closedir(dir);
  CHECK(loaded >= 3); /* fig1, diamond, resnet50 at least */
}

/* ---- syntax errors: line:column ---- */

/* A valid file laid out one item per line, for cutting and breaking. */
static const char *const LINES =
    "{\"format\": \"spadmap-network\", \"version\": 1,\n"                  /* line 1 */
    "\"tensors\": [\n"                                                     /* line 2 */
    "  {\"name\": \"x\", \"shape\": [4], \"kind\": \"input\"},\n"          /* line 3 */
    "  {\"name\": \"a\", \"shape\": [4], \"kind\": \"output\"}],\n"        /* line 4 */
    "\"ops\": [\n"                                                         /* line 5 */
    "  {\"name\": \"op0\", \"type\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [\"a\"]}]}\n";

TEST(lines_is_valid) {
  SpError err;
  CHECK_EQ(parse(LINES, &err), SP_OK);
}

/* The first n bytes of LINES, parsed. */
static Status parse_prefix(size_t n, SpError *err) {
  char buf[1024];
  memcpy(buf, LINES, n);
  buf[n] = '\0';
  return parse(buf, err);
}

TEST(truncated_mid_line) {
  /* cut after `  {"name": "x", "shape": [` on line 3: 26 characters, so the file
   * ends at column 27 */
  const char *cut = strstr(LINES, "\"shape\": [4], \"kind\": \"input\"") + strlen("\"shape\": [");
  SpError err;
  Status st = parse_prefix((size_t)(cut - LINES), &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:3:27:", "end of file");
}

TEST(truncated_in_string) {
  /* cut inside "input" on line 3: `  {"name": "x", "shape": [4], "kind": "in` is 41
   * characters; cJSON itself stops right after the opening quote */
  const char *cut = strstr(LINES, "\"input\"") + 3;
  SpError err;
  Status st = parse_prefix((size_t)(cut - LINES), &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:3:42:", "end of file");
}

TEST(truncated_at_line_end) {
  /* cut right after line 4's newline: the file ends at line 5, column 1 */
  const char *cut = strstr(LINES, "\"ops\"");
  SpError err;
  Status st = parse_prefix((size_t)(cut - LINES), &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:5:1:", "end of file");
}

TEST(empty_file) {
  SpError err;
  EXPECT(parse("", &err), err, SP_ERR_SYNTAX, "t.json:1:1:", "end of file");
}

TEST(malformed_mid_file) {
  /* line 4 lacks the comma after "a": the error is at the `"` of "shape", column 16
   * of `  {"name": "a" "shape": ...` */
  const char *text =
      "{\"format\": \"spadmap-network\", \"version\": 1,\n"
      "\"tensors\": [\n"
      "  {\"name\": \"x\", \"shape\": [4], \"kind\": \"input\"},\n"
      "  {\"name\": \"a\" \"shape\": [4], \"kind\": \"output\"}],\n"
      "\"ops\": []}\n";
  SpError err;
  Status st = parse(text, &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:4:16:", "malformed JSON");
  CHECK(strstr(err.text, "end of file") == NULL); /* not mistaken for truncation */
}

TEST(malformed_last_byte) {
  /* the bad character is the file's very last byte: still not a truncation */
  const char *text = "{\"format\": \"spadmap-network\",\n \"version\": 1]";
  SpError err;
  Status st = parse(text, &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:2:14:", "malformed JSON");
  CHECK(strstr(err.text, "end of file") == NULL);
}

/* LINES with line 3 replaced. */
static Status parse_line3(const char *line3, SpError *err) {
  char buf[1024];
  const char *l3 = strchr(strchr(LINES, '\n') + 1, '\n') + 1, *l4 = strchr(l3, '\n') + 1;
  snprintf(buf, sizeof buf, "%.*s%s\n%s", (int)(l3 - LINES), LINES, line3, l4);
  return parse(buf, err);
}

TEST(mismatched_bracket_mid_file) {
  /* a wrong closer: the `}` after [4 is at column 28 */
  SpError err;
  Status st = parse_line3("  {\"name\": \"x\", \"shape\": [4}, \"kind\": \"input\"},", &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:3:28:", "malformed JSON");
  CHECK(strstr(err.text, "end of file") == NULL);
  /* a forgotten `]`: brackets stay open to the end of the file, but the mistake is
   * on line 3 (cJSON stops at the `:` after "kind", column 36), not a cut-off file */
  st = parse_line3("  {\"name\": \"x\", \"shape\": [4, \"kind\": \"input\"},", &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:3:36:", "malformed JSON");
  CHECK(strstr(err.text, "end of file") == NULL);
}

TEST(trailing_garbage) {
  /* one complete object followed by more text is not one JSON document: an
   * appended second file or a stray brace must not load silently */
  char buf[1024];
  SpError err;
  snprintf(buf, sizeof buf, "%s\n  xyz\n", LINES); /* LINES has 6 lines: xyz is on 8, column 3 */
  EXPECT(parse(buf, &err), err, SP_ERR_SYNTAX, "t.json:8:3:", "after");
  snprintf(buf, sizeof buf, "%.*s}\n", (int)(strlen(LINES) - 1), LINES); /* an extra `}` ends line 6 */
  Status st = parse(buf, &err);
  EXPECT(st, err, SP_ERR_SYNTAX, "t.json:6:", "after");
  snprintf(buf, sizeof buf, "%s \n\t\r\n", LINES); /* trailing whitespace is fine */
  CHECK_EQ(parse(buf, &err), SP_OK);
}

/* ---- header ---- */

TEST(top_level_not_object) {
  SpError err;
  EXPECT(parse("[1, 2, 3]", &err), err, SP_ERR_FORMAT, "$", "expected an object, got an array");
  EXPECT(parse("\"spadmap-network\"", &err), err, SP_ERR_FORMAT, "$", "expected an object");
}

TEST(missing_format) {
  SpError err;
  const char *text = "{\"version\": 1, \"tensors\": [" TENSORS "], \"ops\": [" OPS "]}";
  EXPECT(parse(text, &err), err, SP_ERR_FORMAT, "missing key \"format\"", "expected a string");
}

TEST(wrong_format) {
  SpError err;
  const char *text = "{\"format\": \"spadmap-plan\", \"version\": 1, \"tensors\": [" TENSORS "], \"ops\": [" OPS "]}";
  EXPECT(parse(text, &err), err, SP_ERR_FORMAT, "format", "expected \"spadmap-network\", got \"spadmap-plan\"");
  const char *num = "{\"format\": 7, \"version\": 1, \"tensors\": [" TENSORS "], \"ops\": [" OPS "]}";
  EXPECT(parse(num, &err), err, SP_ERR_FORMAT, "format", "expected a string, got number 7");
}

TEST(wrong_version) {
  SpError err;
  const char *v2 = "{\"format\": \"spadmap-network\", \"version\": 2, \"tensors\": [" TENSORS "], \"ops\": [" OPS "]}";
  EXPECT(parse(v2, &err), err, SP_ERR_FORMAT, "version", "unsupported version 2");
  const char *str = "{\"format\": \"spadmap-network\", \"version\": \"1\", \"tensors\": [" TENSORS "], \"ops\": [" OPS "]}";
  EXPECT(parse(str, &err), err, SP_ERR_FORMAT, "version", "expected the integer 1");
  const char *none = "{\"format\": \"spadmap-network\", \"tensors\": [" TENSORS "], \"ops\": [" OPS "]}";
  EXPECT(parse(none, &err), err, SP_ERR_FORMAT, "$", "missing key \"version\"");
}

TEST(missing_lists) {
  SpError err;
  EXPECT(parse("{\"format\": \"spadmap-network\", \"version\": 1, \"ops\": [" OPS "]}", &err), err, SP_ERR_FORMAT,
         "$", "missing key \"tensors\"");
  EXPECT(parse("{\"format\": \"spadmap-network\", \"version\": 1, \"tensors\": [" TENSORS "]}", &err), err,
         SP_ERR_FORMAT, "$", "missing key \"ops\"");
  EXPECT(parse("{\"format\": \"spadmap-network\", \"version\": 1, \"tensors\": {}, \"ops\": []}", &err), err,
         SP_ERR_FORMAT, "tensors", "expected an array");
  EXPECT_NET(TENSORS, "", "ops", "no ops");
}

/* ---- wrong types ---- */

TEST(name_is_number) {
  EXPECT_NET(TX ", {\"name\": 5, \"shape\": [4]}, " TY, OPS, "tensors[1].name", "expected a string, got number 5");
  EXPECT_NET(TENSORS, OP0 ", {\"name\": 1, \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\"]}",
             "ops[1].name", "expected a string, got number 1");
}

TEST(shape_is_string) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": \"4\"}, " TY, OPS, "tensors[1].shape",
             "expected an array of integers, got string \"4\"");
  EXPECT_NET(TX ", {\"name\": \"a\"}, " TY, OPS, "tensors[1]", "has no \"shape\"");
}

TEST(inputs_not_array) {
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": \"a\", \"outputs\": [\"y\"]}",
             "ops[1].inputs", "expected an array of tensor names, got string \"a\"");
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [3], \"outputs\": [\"y\"]}",
             "ops[1].inputs[0]", "expected a tensor name, got number 3");
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"outputs\": [\"y\"]}", "ops[1]",
             "missing key \"inputs\"");
}

TEST(attrs_not_object) {
  EXPECT_NET(TENSORS,
             OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\"], \"attrs\": [1]}",
             "ops[1].attrs", "expected an object, got an array");
}

TEST(type_not_string) {
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": null, \"inputs\": [\"a\"], \"outputs\": [\"y\"]}",
             "ops[1].type", "expected a string, got null");
}

TEST(dtype_unknown) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4], \"dtype\": \"fp8\"}, " TY, OPS, "tensors[1]", "dtype \"fp8\"");
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4], \"dtype\": 8}, " TY, OPS, "tensors[1].dtype",
             "expected a string, got number 8");
}

TEST(kind_unknown) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4], \"kind\": \"weight\"}, " TY, OPS, "tensors[1]",
             "kind \"weight\"");
}

TEST(tensor_not_object) {
  EXPECT_NET(TX ", 42, " TY, OPS, "tensors[1]", "expected an object, got number 42");
}

/* ---- names and keys ---- */

TEST(duplicate_tensor_name) {
  EXPECT_NET(TX ", " TA ", " TY ", {\"name\": \"a\", \"shape\": [8]}", OPS, "tensors[3].name",
             "duplicate tensor name \"a\" (first at tensors[1])");
}

TEST(duplicate_op_name) {
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op0\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\"]}",
             "ops[1].name", "duplicate op name \"op0\" (first at ops[0])");
}

TEST(duplicate_json_key) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4], \"shape\": [8]}, " TY, OPS, "tensors[1]",
             "duplicate key \"shape\"");
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"inputs\": [], \"outputs\": [\"y\"]}",
             "ops[1]", "duplicate key \"inputs\"");
  SpError err;
  const char *top = "{\"format\": \"spadmap-network\", \"version\": 1, \"version\": 1, \"tensors\": [" TENSORS
                    "], \"ops\": [" OPS "]}";
  EXPECT(parse(top, &err), err, SP_ERR_FORMAT, "$", "duplicate key \"version\"");
}

TEST(empty_names) {
  EXPECT_NET(TX ", {\"name\": \"\", \"shape\": [4]}, " TY, OPS, "tensors[1]", "name is empty");
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\"]}",
             "ops[1]", "name is empty");
}

/* ---- graph structure ---- */

TEST(cycle) {
  /* op0 reads b (made by op1), op1 reads a (made by op0) */
  EXPECT_NET(TX ", " TA ", {\"name\": \"b\", \"shape\": [4]}, " TY,
             "{\"name\": \"op0\", \"type\": \"add\", \"inputs\": [\"x\", \"b\"], \"outputs\": [\"a\"]},"
             "{\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]},"
             "{\"name\": \"op2\", \"type\": \"relu\", \"inputs\": [\"b\"], \"outputs\": [\"y\"]}",
             "ops[0].inputs[1]", "cycle");
  SpError err;
  parse_net(TX ", " TA ", {\"name\": \"b\", \"shape\": [4]}, " TY,
            "{\"name\": \"op0\", \"type\": \"add\", \"inputs\": [\"x\", \"b\"], \"outputs\": [\"a\"]},"
            "{\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]},"
            "{\"name\": \"op2\", \"type\": \"relu\", \"inputs\": [\"b\"], \"outputs\": [\"y\"]}",
            &err);
  /* names the ops on the cycle, in data-flow order, and not op2 which only reads from it */
  CHECK_HAS(err.text, "cycle: \"op1\" -> \"op0\" -> \"op1\"");
  CHECK(strstr(err.text, "op2") == NULL);
}

TEST(reads_own_output) {
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\", \"y\"], \"outputs\": [\"y\"]}",
             "ops[1].inputs[1]", "reads its own output \"y\"");
}

TEST(not_topological) {
  /* acyclic, but op1 (making a) is listed after its reader */
  EXPECT_NET(TENSORS, OP1 ", " OP0, "ops[0].inputs[0]", "topological order");
  SpError err;
  parse_net(TENSORS, OP1 ", " OP0, &err);
  CHECK(strstr(err.text, "cycle") == NULL);
}

TEST(unknown_tensor) {
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\", \"q\"], \"outputs\": [\"y\"]}",
             "ops[1].inputs[1]", "unknown tensor \"q\"");
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\", \"z\"]}",
             "ops[1].outputs[1]", "unknown tensor \"z\"");
}

TEST(op_without_outputs) {
  EXPECT_NET(TENSORS, OPS ", {\"name\": \"op2\", \"type\": \"print\", \"inputs\": [\"a\"], \"outputs\": []}", "ops[2]",
             "no outputs");
  EXPECT_NET(TENSORS, OPS ", {\"name\": \"op2\", \"type\": \"print\", \"inputs\": [\"a\"]}", "ops[2]",
             "missing key \"outputs\"");
}

TEST(input_produced_by_op) {
  EXPECT_NET(TENSORS, OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\", \"x\"]}",
             "ops[1].outputs[1]", "graph input");
  EXPECT_NET(TX ", {\"name\": \"w\", \"shape\": [4], \"kind\": \"param\"}, " TA ", " TY,
             OP0 ", {\"name\": \"op1\", \"type\": \"relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\", \"w\"]}",
             "ops[1].outputs[1]", "graph param");
}

TEST(produced_twice) {
  EXPECT_NET(TENSORS, OPS ", {\"name\": \"op2\", \"type\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [\"a\"]}",
             "ops[2].outputs[0]", "already produced by ops[0]");
}

TEST(activation_produced_by_none) {
  EXPECT_NET(TENSORS ", {\"name\": \"orphan\", \"shape\": [4]}", OPS, "tensors[3]", "produced by no op");
  EXPECT_NET(TENSORS ", {\"name\": \"out2\", \"shape\": [4], \"kind\": \"output\"}", OPS, "tensors[3]",
             "produced by no op");
}

/* ---- shapes and sizes ---- */

TEST(zero_and_negative_dims) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4, 0]}, " TY, OPS, "tensors[1].shape[1]",
             "expected a positive integer, got number 0");
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [-3]}, " TY, OPS, "tensors[1].shape[0]",
             "expected a positive integer, got number -3");
}

TEST(non_integer_dim) {
  EXPECT_NET(TX ", " TA ", {\"name\": \"y\", \"shape\": [1, 2, 3.5], \"kind\": \"output\"}", OPS,
             "tensors[2].shape[2]", "expected a positive integer, got number 3.5");
  EXPECT_NET(TX ", " TA ", {\"name\": \"y\", \"shape\": [1, \"2\"], \"kind\": \"output\"}", OPS,
             "tensors[2].shape[1]", "expected a positive integer, got string \"2\"");
}

TEST(empty_shape) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": []}, " TY, OPS, "tensors[1].shape", "empty");
}

TEST(size_overflow) {
  /* 2^32 x 2^32 x 16 bytes does not fit in 64 bits */
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4294967296, 4294967296, 16]}, " TY, OPS, "tensors[1].shape",
             "overflows 64 bits");
  /* each under 2^63, but not once summed: 2^62 + 2^62 */
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [1073741824, 4294967296]}, {\"name\": \"y\", \"shape\": [1073741824, "
                "4294967296], \"kind\": \"output\"}",
             OPS, "tensors", "summed tensor sizes overflow");
}

TEST(bytes_override) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4], \"bytes\": 0}, " TY, OPS, "tensors[1].bytes",
             "expected a positive integer, got number 0");
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4], \"bytes\": -8}, " TY, OPS, "tensors[1].bytes",
             "expected a positive integer");
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [4], \"bytes\": \"big\"}, " TY, OPS, "tensors[1].bytes",
             "expected a positive integer");
  /* a positive override loads (valid_fields checks it becomes the size) */
  SpError err;
  CHECK_EQ(parse_net(TX ", {\"name\": \"a\", \"shape\": [4], \"bytes\": 123}, " TY, OPS, &err), SP_OK);
}

TEST(strides_wrong_length) {
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [2, 2], \"strides\": [2]}, " TY, OPS, "tensors[1].strides",
             "1 strides for a rank-2 shape");
  EXPECT_NET(TX ", {\"name\": \"a\", \"shape\": [2, 2], \"strides\": [2, -1]}, " TY, OPS, "tensors[1].strides[1]",
             "non-negative integer");
  SpError err;
  CHECK_EQ(parse_net(TX ", {\"name\": \"a\", \"shape\": [2, 2], \"strides\": [4, 1]}, " TY, OPS, &err), SP_OK);
}

/* ---- files ---- */

TEST(missing_file) {
  Net *net = (Net *)1;
  SpError err = {0};
  const char *path = "/nonexistent-dir/no-such-net.json";
  CHECK_EQ(Net_load(path, &net, &err), SP_ERR_IO);
  CHECK(net == NULL);
  CHECK_HAS(err.text, path);
  CHECK_HAS(err.text, "cannot open");
}

TEST(load_names_file_in_errors) {
  /* errors from a file on disk carry its path, like t.json above */
  char path[] = "/tmp/spadmap_test_loader_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  FILE *f = fdopen(fd, "w");
  fputs("{\"format\": \"spadmap-network\",\n \"version\": 1,\n \"tensors\": [", f);
  fclose(f);
  Net *net = NULL;
  SpError err = {0};
  CHECK_EQ(Net_load(path, &net, &err), SP_ERR_SYNTAX);
  char where[64];
  snprintf(where, sizeof where, "%s:3:14:", path); /* ` "tensors": [` is 13 characters */
  CHECK_HAS(err.text, where);
  CHECK_HAS(err.text, "end of file");
  Net_free(net);
  remove(path);
}

TEST_MAIN("loader", T(base_is_valid), T(valid_fields), T(name_defaults_to_file_stem), T(bundled_networks_load),
          T(lines_is_valid), T(truncated_mid_line), T(truncated_in_string), T(truncated_at_line_end), T(empty_file),
          T(malformed_mid_file), T(malformed_last_byte), T(mismatched_bracket_mid_file), T(trailing_garbage), T(top_level_not_object),
          T(missing_format), T(wrong_format), T(wrong_version), T(missing_lists), T(name_is_number),
          T(shape_is_string), T(inputs_not_array), T(attrs_not_object), T(type_not_string), T(dtype_unknown),
          T(kind_unknown), T(tensor_not_object), T(duplicate_tensor_name), T(duplicate_op_name),
          T(duplicate_json_key), T(empty_names), T(cycle), T(reads_own_output), T(not_topological),
          T(unknown_tensor), T(op_without_outputs), T(input_produced_by_op), T(produced_twice),
          T(activation_produced_by_none), T(zero_and_negative_dims), T(non_integer_dim), T(empty_shape),
          T(size_overflow), T(bytes_override), T(strides_wrong_length), T(missing_file),
          T(load_names_file_in_errors))

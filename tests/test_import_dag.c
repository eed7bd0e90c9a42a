/* The COSMA authors' DAG JSON (LeeOHzzZ/HMCOS layout): detection, sizes, kinds,
 * sorting into a topological order, and clear errors. */
#include <stdlib.h>

#include "fileio.h"
#include "import_util.h"
#include "plan.h"
#include "solve.h"
#include "test.h"
#include "validate.h"

static const char *Dag_file(char *buf, size_t n) {
  return ImportTest_path(buf, n, SPADMAP_TEST_DIR, "data/dag/diamond_dag.json");
}

static Status Dag_parse(const char *text, Net **net, SpError *err) {
  char *json = NULL;
  size_t len = 0;
  *net = NULL;
  Status st = Import_dagJson(text, strlen(text), "t.json", NULL, &json, &len, err);
  if (!st) st = Net_parse(json, len, "t.json", net, err);
  free(json);
  return st;
}

TEST(detects_the_format) {
  char path[512];
  ImportFormat f = IMPORT_SPADMAP;
  SpError err;
  CHECK_EQ(Import_detect(Dag_file(path, sizeof path), &f, &err), SP_OK);
  CHECK_EQ(f, IMPORT_DAG);
  snprintf(path, sizeof path, "%s/networks/diamond.json", SPADMAP_DATA_DIR);
  CHECK_EQ(Import_detect(path, &f, &err), SP_OK);
  CHECK_EQ(f, IMPORT_SPADMAP);
}

/* sizes are bytes; nodes come out sorted (the file lists "join" first); the
 * figures match the hand count: M_R = join's 8192 + 8192 + 1024, M_P = the step of
 * "right", where stem_out, left_out and right_out are all live. */
TEST(diamond_values) {
  char path[512];
  Net *net = ImportTest_open(Dag_file(path, sizeof path), NULL);
  CHECK(net != NULL);
  if (!net) return;
  CHECK_HAS(net->name, "diamond_dag");
  CHECK_EQ(net->nops, 4);
  CHECK_EQ(net->ntensors, 4); /* the zero-size dummy is left out */
  CHECK_HAS(net->ops[0].name, "stem");
  CHECK_HAS(net->ops[3].name, "join");
  CHECK_EQ(net->ops[0].ninputs, 0);
  CHECK_EQ(ImportTest_bytes(net, "left_out"), 8192);
  CHECK_EQ(net->tensors[Net_findTensor(net, "join_out")].kind, TK_OUTPUT);
  NetFigures f;
  SpError err;
  CHECK_EQ(Figures_compute(net, false, &f, NULL, &err), SP_OK);
  CHECK_EQ(f.m_r, 8192 + 8192 + 1024);
  CHECK_EQ(f.m_p, 2048 + 8192 + 8192);
  /* a plan for it at M_R passes the validator */
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = f.m_r;
  Plan *plan = NULL;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
  if (plan) {
    ValidateReport rep;
    CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
    CHECK_EQ(rep.count, 0);
    CHECK(plan->metrics.noncompulsory_bytes > 0); /* 18432 peak does not fit in 17408 */
    ValidateReport_free(&rep);
    Plan_free(plan);
  }
  Net_free(net);
}

TEST(unwritten_tensors_are_inputs) {
  Net *net;
  SpError err;
  CHECK_EQ(Dag_parse("{\"name\":\"n\",\"graph_output_tensors\":[\"b\"],\"tensor_list\":[\"a\",\"b\"],"
                     "\"tensor_sizes\":{\"a\":10,\"b\":20},"
                     "\"dag\":[{\"name\":\"op\",\"input_nodes\":[\"src\"],\"input_tensors\":[\"a\"],"
                     "\"output_tensors\":[\"b\"]}]}",
                     &net, &err),
           SP_OK);
  if (!net) return;
  CHECK_EQ(net->tensors[Net_findTensor(net, "a")].kind, TK_INPUT);
  CHECK_EQ(ImportTest_mr(net, false), 30);
  Net_free(net);
}

static void Dag_expectError(const char *text, const char *message) {
  Net *net;
  SpError err = {0};
  Status st = Dag_parse(text, &net, &err);
  CHECK(st != SP_OK);
  CHECK(net == NULL);
  CHECK_HAS(err.text, "t.json");
  CHECK_HAS(err.text, message);
}

TEST(errors_name_what_is_wrong) {
  const char *ok_head = "{\"name\":\"n\",\"graph_output_tensors\":[\"b\"],\"tensor_sizes\":{\"a\":1,\"b\":2},";
  char buf[1024];
  Dag_expectError("{\"name\": \"n\", \"dag\": [", "malformed JSON");
  Dag_expectError("{\"name\":\"n\",\"graph_output_tensors\":[],\"tensor_sizes\":{},\"dag\":{}}", "dag: expected an array");
  snprintf(buf, sizeof buf, "%s\"dag\":[{\"name\":\"x\",\"input_nodes\":[\"y\"],\"input_tensors\":[\"zz\"],"
                            "\"output_tensors\":[\"b\"]}]}", ok_head);
  Dag_expectError(buf, "tensor \"zz\" has no entry in tensor_sizes");
  snprintf(buf, sizeof buf, "%s\"dag\":[{\"name\":\"x\",\"output_tensors\":[\"b\"]},{\"name\":\"y\","
                            "\"output_tensors\":[\"b\"]}]}", ok_head);
  Dag_expectError(buf, "already written by node \"x\"");
  snprintf(buf, sizeof buf, "%s\"dag\":[{\"name\":\"x\",\"output_tensors\":[\"a\"]},{\"name\":\"x\","
                            "\"output_tensors\":[\"b\"]}]}", ok_head);
  Dag_expectError(buf, "dag[1].name: node \"x\" appears twice");
  snprintf(buf, sizeof buf, "%s\"dag\":[{\"name\":\"x\",\"input_nodes\":[\"y\"],\"input_tensors\":[\"b\"],"
                            "\"output_tensors\":[\"a\"]},{\"name\":\"y\",\"input_nodes\":[\"x\"],"
                            "\"input_tensors\":[\"a\"],\"output_tensors\":[\"b\"]}]}", ok_head);
  Dag_expectError(buf, "cycle");
  snprintf(buf, sizeof buf, "%s\"dag\":[{\"name\":\"x\",\"output_tensors\":[7]}]}", ok_head);
  Dag_expectError(buf, "dag[0].output_tensors[0]: expected a non-empty string");
  Dag_expectError("{\"name\":\"n\",\"graph_output_tensors\":[\"b\"],\"tensor_sizes\":{\"b\":-4},"
                  "\"dag\":[{\"name\":\"x\",\"output_tensors\":[\"b\"]}]}",
                  "tensor_sizes.b: expected a non-negative integer");
  Dag_expectError("{\"name\":\"n\",\"graph_output_tensors\":[\"q\"],\"tensor_sizes\":{\"b\":4},"
                  "\"dag\":[{\"name\":\"x\",\"output_tensors\":[\"b\"]}]}",
                  "graph_output_tensors[0]: no node writes \"q\"");
}

TEST_MAIN("import_dag", T(detects_the_format), T(diamond_values), T(unwritten_tensors_are_inputs),
          T(errors_name_what_is_wrong))

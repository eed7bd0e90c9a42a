/* dag_import: the COSMA authors' DAG JSON (LeeOHzzZ/HMCOS, Graph(const json&)):
 *   {"name": ..., "dummy_input_tensors": [...], "graph_output_tensors": [...],
 *    "tensor_list": [...], "tensor_sizes": {"t": bytes, ...},
 *    "dag": [{"name": ..., "input_nodes": [...], "input_tensors": [...],
 *             "output_tensors": [...]}, ...]}
 * as the contract's network. Sizes are bytes (shape [bytes], int8, as the
 * teaching graphs). A node with no input_nodes reads only its zero-size dummy
 * tensor in HMCOS, so here it reads nothing; zero-size tensors take no memory and
 * are left out. Tensors nobody produces are inputs; graph_output_tensors are
 * outputs. Nodes need not be in topological order (they are sorted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "import_graph.h"
#include "json.h"

typedef struct {
  const char *label;
  SpError *err;
  const cJSON *sizes;
  ImpGraph g;
} Dag;

static Status Dag_expected(Dag *d, const char *path, const char *what) {
  return SpError_set(d->err, SP_ERR_FORMAT, "%s: %s: expected %s (the COSMA authors' DAG layout)", d->label, path,
                     what);
}

/* A string array member (absent = empty when optional). */
static Status Dag_strings(Dag *d, const cJSON *obj, const char *key, const char *path, bool required,
                          const cJSON **out) {
  char p[160];
  snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = a;
  if (!a) return required ? Dag_expected(d, p, "an array of tensor names") : SP_OK;
  if (!cJSON_IsArray(a)) return Dag_expected(d, p, "an array of tensor names");
  int i = 0;
  for (const cJSON *v = a->child; v; v = v->next, i++) {
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
      snprintf(p, sizeof p, "%s%s%s[%d]", path, path[0] ? "." : "", key, i);
      return Dag_expected(d, p, "a non-empty string");
    }
  }
  return SP_OK;
}

/* The tensor of that name, made (and sized) on first mention. */
static Status Dag_tensor(Dag *d, const char *name, const char *path, int *out) {
  int t = ImpGraph_findTensor(&d->g, name);
  if (t >= 0) {
    *out = t;
    return SP_OK;
  }
  const cJSON *sz = cJSON_GetObjectItemCaseSensitive(d->sizes, name);
  int64_t bytes;
  if (!sz)
    return SpError_set(d->err, SP_ERR_FORMAT, "%s: %s: tensor \"%.120s\" has no entry in tensor_sizes", d->label, path,
                       name);
  if (!Json_exactInt(sz, &bytes) || bytes < 0) {
    char p[200];
    snprintf(p, sizeof p, "tensor_sizes.%.120s", name);
    return Dag_expected(d, p, "a non-negative integer (bytes)");
  }
  t = ImpGraph_addTensor(&d->g, name);
  if (t < 0 || !(d->g.t[t].shape = malloc(sizeof(int64_t))))
    return SpError_set(d->err, SP_ERR_NOMEM, "%s: out of memory", d->label);
  d->g.t[t].rank = 1;
  d->g.t[t].shape[0] = bytes;
  d->g.t[t].zero = bytes == 0;
  *out = t;
  return SP_OK;
}

static Status Dag_build(Dag *d, const cJSON *root) {
  Status st;
  const cJSON *dag = cJSON_GetObjectItemCaseSensitive(root, "dag"), *outs, *list, *dummies;
  if (!cJSON_IsObject(d->sizes)) return Dag_expected(d, "tensor_sizes", "an object of tensor name -> bytes");
  const char *dup = Json_duplicateKey(d->sizes);
  if (dup) return SpError_set(d->err, SP_ERR_FORMAT, "%s: tensor_sizes: duplicate key \"%.120s\"", d->label, dup);
  if (!cJSON_IsArray(dag)) return Dag_expected(d, "dag", "an array of nodes");
  if ((st = Dag_strings(d, root, "graph_output_tensors", "", true, &outs)) ||
      (st = Dag_strings(d, root, "tensor_list", "", false, &list)) ||
      (st = Dag_strings(d, root, "dummy_input_tensors", "", false, &dummies)))
    return st;
  int i = 0;
  char path[160];
  for (const cJSON *node = dag->child; node; node = node->next, i++) {
    snprintf(path, sizeof path, "dag[%d]", i);
    if (!cJSON_IsObject(node)) return Dag_expected(d, path, "an object");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(node, "name"), *ins, *outputs, *in_nodes;
    if (!cJSON_IsString(name) || !name->valuestring[0]) {
      snprintf(path, sizeof path, "dag[%d].name", i);
      return Dag_expected(d, path, "a non-empty string");
    }
    if (ImpGraph_findOp(&d->g, name->valuestring) >= 0)
      return SpError_set(d->err, SP_ERR_FORMAT, "%s: dag[%d].name: node \"%.120s\" appears twice", d->label, i,
                         name->valuestring);
    if ((st = Dag_strings(d, node, "input_tensors", path, false, &ins)) ||
        (st = Dag_strings(d, node, "output_tensors", path, true, &outputs)))
      return st;
    in_nodes = cJSON_GetObjectItemCaseSensitive(node, "input_nodes");
    if (in_nodes && !cJSON_IsArray(in_nodes)) {
      snprintf(path, sizeof path, "dag[%d].input_nodes", i);
      return Dag_expected(d, path, "an array of node names");
    }
    int op = ImpGraph_addOp(&d->g, name->valuestring, name->valuestring, "op");
    if (op < 0) return SpError_set(d->err, SP_ERR_NOMEM, "%s: out of memory", d->label);
    int t;
    /* HMCOS: a node without input nodes reads only its dummy (zero-size) tensor */
    if (cJSON_GetArraySize(in_nodes) > 0) {
      int j = 0;
      for (const cJSON *v = ins ? ins->child : NULL; v; v = v->next, j++) {
        snprintf(path, sizeof path, "dag[%d].input_tensors[%d]", i, j);
        if ((st = Dag_tensor(d, v->valuestring, path, &t))) return st;
        if (!ImpGraph_addInput(&d->g, op, t)) return SpError_set(d->err, SP_ERR_NOMEM, "%s: out of memory", d->label);
      }
    }
    int j = 0, nonzero = 0;
    for (const cJSON *v = outputs->child; v; v = v->next, j++) {
      snprintf(path, sizeof path, "dag[%d].output_tensors[%d]", i, j);
      if ((st = Dag_tensor(d, v->valuestring, path, &t))) return st;
      if (d->g.t[t].producer >= 0)
        return SpError_set(d->err, SP_ERR_FORMAT, "%s: %s: tensor \"%.120s\" is already written by node \"%.120s\"",
                           d->label, path, v->valuestring, d->g.o[d->g.t[t].producer].name);
      if (!ImpGraph_addOutput(&d->g, op, t)) return SpError_set(d->err, SP_ERR_NOMEM, "%s: out of memory", d->label);
      nonzero += !d->g.t[t].zero;
    }
    if (!nonzero)
      return SpError_set(d->err, SP_ERR_FORMAT,
                         "%s: dag[%d]: node \"%.120s\" writes no tensor of non-zero size (an op needs an output)",
                         d->label, i, name->valuestring);
  }
  /* a tensor nobody writes is an input; the graph outputs must be written */
  for (int t = 0; t < d->g.nt; t++)
    if (d->g.t[t].producer < 0) d->g.t[t].kind = TK_INPUT;
  i = 0;
  for (const cJSON *v = outs->child; v; v = v->next, i++) {
    int t = ImpGraph_findTensor(&d->g, v->valuestring);
    if (t < 0 || d->g.t[t].producer < 0)
      return SpError_set(d->err, SP_ERR_FORMAT, "%s: graph_output_tensors[%d]: no node writes \"%.120s\"", d->label,
                         i, v->valuestring);
    if (!d->g.t[t].zero) d->g.t[t].kind = TK_OUTPUT;
  }
  return SP_OK;
}

Status Import_dagJson(const char *text, size_t len, const char *label, const ImportOptions *opts, char **json,
                      size_t *json_len, SpError *err) {
  *json = NULL;
  *json_len = 0;
  cJSON *root;
  Status st = Json_parse(text, len, label, &root, err);
  if (st) return st;
  Dag d = {.label = label, .err = err, .sizes = cJSON_GetObjectItemCaseSensitive(root, "tensor_sizes")};
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
  char stem[256];
  const char *base = strrchr(label, '/');
  snprintf(stem, sizeof stem, "%s", base ? base + 1 : label);
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = '\0';
  const char *net_name = cJSON_IsString(name) && name->valuestring[0] ? name->valuestring : stem;
  char source[512];
  snprintf(source, sizeof source, "COSMA authors' DAG JSON %s, imported by spadmap (sizes in bytes: shape [bytes], int8)",
           base ? base + 1 : label);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return SpError_set(err, SP_ERR_FORMAT, "%s: expected an object", label);
  }
  if (!(st = ImpGraph_init(&d.g, net_name, source, err))) {
    if (!(st = Dag_build(&d, root))) st = ImpGraph_write(&d.g, label, json, json_len, err);
    ImpGraph_free(&d.g);
  }
  cJSON_Delete(root);
  (void)opts; /* sizes are bytes already: --dtype and --fold do not apply */
  return st;
}

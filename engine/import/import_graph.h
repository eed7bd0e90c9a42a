/* import_graph: the graph both translators (ONNX, DAG JSON) build before writing
 * the contract's JSON: tensors and ops by name, producers and uses, a stable
 * topological order (Kahn, file order among ready ops) that names a cycle, and the
 * writer (one tensor or op per line, as the bundled networks). Internal to import/. */
#ifndef SPADMAP_IMPORT_GRAPH_H
#define SPADMAP_IMPORT_GRAPH_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "status.h"

typedef struct {
  char *name;
  int rank;
  int64_t *shape;
  const char *dtype;     /* a contract dtype */
  int64_t bytes;         /* > 0: written as the "bytes" override */
  const char *note;      /* written as "onnx_type" when not NULL */
  TensorKind kind;
  int producer;          /* op index, -1 for none */
  int nuses;             /* ops (not dropped) that read it, each counted once */
  bool zero;             /* holds no elements: left out of every op */
} ImpTensor;

typedef struct {
  char *name, *type;
  int *inputs, ninputs, capin;  /* tensor indices */
  int *outputs, noutputs, capout;
  cJSON *attrs;          /* owned; NULL for none */
  int file_index;        /* the node's position in the source file, for messages */
  bool dropped;          /* folded into its producer */
} ImpOp;

typedef struct ImpHash ImpHash;

typedef struct {
  char *name, *source;
  ImpTensor *t;
  int nt, capt;
  ImpOp *o;
  int no, capo;
  ImpHash *tindex, *oindex;
} ImpGraph;

Status ImpGraph_init(ImpGraph *g, const char *name, const char *source, SpError *err);
void ImpGraph_free(ImpGraph *g);
int ImpGraph_findTensor(const ImpGraph *g, const char *name);
int ImpGraph_findOp(const ImpGraph *g, const char *name);
/* A new tensor (kind activation, no producer); -1 when out of memory. */
int ImpGraph_addTensor(ImpGraph *g, const char *name);
/* A new op named `name`, or when that is empty or taken `base`, `base_1`, ...; -1
 * when out of memory. */
int ImpGraph_addOp(ImpGraph *g, const char *name, const char *base, const char *type);
bool ImpGraph_addInput(ImpGraph *g, int op, int tensor);   /* false: out of memory */
bool ImpGraph_addOutput(ImpGraph *g, int op, int tensor);
/* Recounts nuses over the ops that are not dropped. */
void ImpGraph_countUses(ImpGraph *g);
/* An error naming ops on a cycle, if there is one (before sizing: values on a
 * cycle have no inferred shape, and the cycle is the error to report). */
Status ImpGraph_checkAcyclic(ImpGraph *g, const char *label, SpError *err);
/* Orders the ops topologically (an error naming ops on a cycle), leaves out zero
 * tensors, unused inputs/params and dropped ops, and writes the contract's JSON. */
Status ImpGraph_write(ImpGraph *g, const char *label, char **json, size_t *len, SpError *err);

#endif

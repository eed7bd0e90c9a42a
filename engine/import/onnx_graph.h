/* onnx_graph: the C boundary around the ONNX C++ library. onnx_infer.cc parses a
 * ModelProto, fixes the symbolic dimensions the caller names, runs ONNX shape
 * inference (evaluating the shape arithmetic it leaves, onnx_const.cc, until
 * nothing changes) and copies what the importer needs into these plain C structs (all
 * malloc'd; OnnxGraph_free releases them). No C++ type or exception crosses it. */
#ifndef SPADMAP_ONNX_GRAPH_H
#define SPADMAP_ONNX_GRAPH_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "status.h" /* a C header: its functions have C linkage */

/* A value's type as the file and shape inference know it. */
typedef struct {
  char *name;
  int elem_type;      /* ONNX TensorProto.DataType; 0 when unknown */
  int rank;           /* -1 when no shape is known */
  int64_t *dims;      /* rank entries; -1 where the dimension is unknown */
  char **dim_params;  /* rank entries; the symbolic name of an unknown dimension, or NULL */
} OnnxValue;

typedef struct {
  char *name, *op_type, *domain;
  char **inputs;      /* "" marks an omitted optional input */
  int ninputs;
  char **outputs;
  int noutputs;
  char **implicit;    /* outer-scope values the node's subgraphs read (If, Loop, Scan) */
  int nimplicit;
  cJSON *attrs;       /* the node's int/float/string attributes (and lists of them) */
} OnnxNode;

typedef struct {
  char *name;         /* the graph's name */
  char *producer;     /* "pytorch 1.13.1", or "" */
  int64_t ir_version, opset;
  OnnxValue *values;  /* every typed value: inputs, outputs, value_info, initializers */
  int nvalues;
  char **inputs;      /* graph inputs that are not initializers */
  int ninputs;
  char **initializers;
  int ninitializers;
  char **outputs;
  int noutputs;
  OnnxNode *nodes;    /* in file order */
  int nnodes;
  int nevaluated;     /* nodes the import-time evaluator (onnx_const.cc) replaced by their values */
  int nsequence;      /* sequence nodes lowered to tensor ops (onnx_seq.cc) */
  char *eval_note;    /* the first value it left to the graph for a cap, and why; or NULL */
} OnnxGraph;

typedef struct {
  const char *name;   /* a symbolic dimension ("batch") */
  int64_t value;
} OnnxDim;

typedef struct {
  const char *name;   /* a graph input ("size") */
  const int64_t *v;   /* its elements in row-major order */
  int n;
} OnnxGiven;

/* Parses an ONNX model held in memory (label names it in messages), gives each
 * symbolic dimension listed in dims its value and each graph input listed in given
 * its value (for the shape arithmetic only: the input stays an input), lowers
 * sequences of known length to tensors (onnx_seq.cc) and runs shape inference. */
Status OnnxGraph_parse(const void *bytes, size_t len, const char *label, const OnnxDim *dims,
                       int ndims, const OnnxGiven *given, int ngiven, OnnxGraph **out, SpError *err);
void OnnxGraph_free(OnnxGraph *g);
/* Is ONNX support compiled in (libonnx-dev found at build time)? */
int OnnxGraph_available(void);

#ifdef __cplusplus
}
#endif

#endif

/* net: a loaded network (the contract's "spadmap-network" file), immutable after
 * loading. Every solve reads it; nothing writes it. */
#ifndef SPADMAP_NET_H
#define SPADMAP_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "status.h"

typedef enum { TK_ACTIVATION, TK_INPUT, TK_PARAM, TK_OUTPUT } TensorKind;

typedef struct {
  const char *name;
  int rank;
  const int64_t *shape;
  const int64_t *strides;   /* NULL: contiguous row-major */
  const char *dtype;        /* "int8", "fp16", ... */
  int elem_bytes;
  int64_t bytes;            /* shape x dtype, or the file's "bytes" override */
  TensorKind kind;
  int producer;             /* op index, -1 for input/param */
  const int *consumers;     /* distinct op indices, ascending file order */
  int nconsumers;
} Tensor;

typedef struct {
  const char *name;
  const char *type;
  const int *inputs;        /* tensor indices as listed (may repeat) */
  int ninputs;
  const int *outputs;
  int noutputs;
  const char *attrs_json;   /* the "attrs" object printed compactly, or NULL */
  int tiles;                /* the optional "tiles": run in this many tiles; 0: by the tiling rule */
} Op;

typedef struct NameIndex NameIndex;

/* The summed sizes of all tensors are at most this (2^62 bytes), so every figure
 * and any sum of two figures fits in int64_t. */
#define NET_MAX_TOTAL_BYTES ((int64_t)1 << 62)

typedef struct {
  const char *name;
  const char *source;
  const char *path;         /* the file it came from, for messages */
  const char *import_json;  /* the "import" record (how a model file became this network:
                               format, file, --fold, --dtype, --dim) as compact JSON, or NULL
                               for a network written by hand; plans made from it repeat it */
  Tensor *tensors;
  int ntensors;
  Op *ops;                  /* in file order: the default schedule */
  int nops;
  Arena arena;
  NameIndex *tensor_index, *op_index;
} Net;

/* Load and validate a network file against every rule of the contract.
 * On failure *out is NULL and err says file, JSON path or line:column, and what. */
Status Net_load(const char *path, Net **out, SpError *err);
/* The same from a string held in memory; `label` names it in messages. */
Status Net_parse(const char *text, size_t len, const char *label, Net **out, SpError *err);
void Net_free(Net *net);

int Net_findTensor(const Net *net, const char *name); /* index or -1 */
int Net_findOp(const Net *net, const char *name);

/* Is tensor t held on chip under the params setting (params are ignored without it)? */
static inline bool Net_onChip(const Net *net, int t, bool params) {
  return params || net->tensors[t].kind != TK_PARAM;
}

const char *TensorKind_name(TensorKind k);

#endif

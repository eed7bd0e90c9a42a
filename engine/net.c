#include "net.h"

#include <stdlib.h>
#include <string.h>

/* Open-addressing name -> index table; sized at twice the count, never grows. */
struct NameIndex {
  int cap;
  const char **names;
  int *values;
};

static uint64_t NameIndex_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

NameIndex *NameIndex_new(Arena *a, int count) {
  NameIndex *ix = Arena_alloc(a, sizeof *ix);
  if (!ix) return NULL;
  ix->cap = 16;
  while (ix->cap < 2 * count) ix->cap *= 2;
  ix->names = Arena_alloc(a, sizeof(char *) * (size_t)ix->cap);
  ix->values = Arena_alloc(a, sizeof(int) * (size_t)ix->cap);
  return ix->names && ix->values ? ix : NULL;
}

/* Insert name -> value; returns the existing value if the name is taken, else -1. */
int NameIndex_put(NameIndex *ix, const char *name, int value) {
  int i = (int)(NameIndex_hash(name) & (uint64_t)(ix->cap - 1));
  while (ix->names[i]) {
    if (strcmp(ix->names[i], name) == 0) return ix->values[i];
    i = (i + 1) & (ix->cap - 1);
  }
  ix->names[i] = name;
  ix->values[i] = value;
  return -1;
}

int NameIndex_get(const NameIndex *ix, const char *name) {
  if (!ix || !name) return -1;
  int i = (int)(NameIndex_hash(name) & (uint64_t)(ix->cap - 1));
  while (ix->names[i]) {
    if (strcmp(ix->names[i], name) == 0) return ix->values[i];
    i = (i + 1) & (ix->cap - 1);
  }
  return -1;
}

int Net_findTensor(const Net *net, const char *name) { return NameIndex_get(net->tensor_index, name); }
int Net_findOp(const Net *net, const char *name) { return NameIndex_get(net->op_index, name); }

void Net_free(Net *net) {
  if (!net) return;
  Arena a = net->arena; /* net itself lives in its arena */
  Arena_free(&a);
}

const char *TensorKind_name(TensorKind k) {
  static const char *const names[] = {"activation", "input", "param", "output"};
  return (unsigned)k < 4 ? names[k] : "?";
}

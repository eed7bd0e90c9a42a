/* import_util.h: helpers the import tests share: load through Import_open with
 * options, find a tensor's bytes, and the path of a test file. */
#ifndef SPADMAP_IMPORT_UTIL_H
#define SPADMAP_IMPORT_UTIL_H

#include <stdio.h>

#include "figures.h"
#include "import.h"
#include "net.h"

#ifndef SPADMAP_TEST_DIR
#define SPADMAP_TEST_DIR "tests"
#endif

static inline const char *ImportTest_path(char *buf, size_t n, const char *dir, const char *file) {
  snprintf(buf, n, "%s/%s", dir, file);
  return buf;
}

static inline Net *ImportTest_open(const char *path, const ImportOptions *o) {
  Net *net = NULL;
  SpError err = {0};
  if (Import_open(path, o, &net, &err)) printf("  cannot open %s: %s\n", path, err.text);
  return net;
}

static inline int64_t ImportTest_bytes(const Net *net, const char *tensor) {
  int t = Net_findTensor(net, tensor);
  return t < 0 ? -1 : net->tensors[t].bytes;
}

static inline int64_t ImportTest_mr(const Net *net, bool params) {
  NetFigures f;
  SpError err;
  if (Figures_compute(net, params, &f, NULL, &err)) return -1;
  return f.m_r;
}

#endif

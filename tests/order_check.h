/* Test_isTopological: is order a permutation of the ops that respects every
 * dependency? (the M_P tests check the orders the search returns) */
#ifndef SPADMAP_TEST_ORDER_CHECK_H
#define SPADMAP_TEST_ORDER_CHECK_H

#include <stdbool.h>
#include <stdlib.h>

#include "net.h"

static inline bool Test_isTopological(const Net *net, const int *order) {
  int n = net->nops, *pos = malloc(sizeof(int) * (size_t)n);
  bool ok = pos != NULL;
  for (int v = 0; ok && v < n; v++) pos[v] = -1;
  for (int q = 0; ok && q < n; q++) {
    ok = order[q] >= 0 && order[q] < n && pos[order[q]] < 0;
    if (ok) pos[order[q]] = q;
  }
  for (int v = 0; ok && v < n; v++)
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p >= 0 && pos[p] >= pos[v]) ok = false;
    }
  free(pos);
  return ok;
}

#endif

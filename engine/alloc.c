/* Allocators: where a new block goes among the resident ones (sorted by offset). */
#include "alloc.h"

/* TFLite's simple_memory_arena: the smallest gap between live allocations that
 * fits (best fit), else right after the highest allocation. */
int64_t Alloc_linear(const Block *b, int n, int64_t bytes, int64_t budget) {
  int64_t cursor = 0, best = -1, best_gap = 0;
  for (int i = 0; i < n; i++) {
    int64_t gap = b[i].offset - cursor;
    if (gap >= bytes && (best < 0 || gap < best_gap)) best = cursor, best_gap = gap;
    if (b[i].offset + b[i].bytes > cursor) cursor = b[i].offset + b[i].bytes;
  }
  if (best >= 0) return best;
  return cursor <= budget - bytes ? cursor : -1;
}

/* The lowest-addressed gap that fits. */
int64_t Alloc_firstFit(const Block *b, int n, int64_t bytes, int64_t budget) {
  int64_t cursor = 0;
  for (int i = 0; i < n; i++) {
    if (b[i].offset - cursor >= bytes) return cursor;
    if (b[i].offset + b[i].bytes > cursor) cursor = b[i].offset + b[i].bytes;
  }
  return cursor <= budget - bytes ? cursor : -1;
}

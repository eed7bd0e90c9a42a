/* Replacement policies for the simulator: a score per eviction candidate. */
#include "replace.h"

#include <stdint.h>

/* Belady: the tensor read furthest in the future (the simulator breaks ties
 * by size, larger first, then by tensor index). */
double Replace_belady(const EvictCandidate *c) { return (double)c->next_use; }

/* LRU: the tensor read or made longest ago. */
double Replace_lru(const EvictCandidate *c) { return -(double)c->last_access; }

/* Size-aware: next-use distance times size, so big tensors idle for long go first. */
double Replace_sizeAware(const EvictCandidate *c) {
  return (double)(c->next_use - c->step) * (double)c->bytes;
}

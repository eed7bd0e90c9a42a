/* replace: eviction scores of the simulated replacement policies. */
#ifndef SPADMAP_REPLACE_H
#define SPADMAP_REPLACE_H

#include "policy.h"

double Replace_belady(const EvictCandidate *c);
double Replace_lru(const EvictCandidate *c);
double Replace_sizeAware(const EvictCandidate *c);

#endif

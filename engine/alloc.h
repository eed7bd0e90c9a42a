/* alloc: the allocators' placement rules (see policy.h for the Block view). */
#ifndef SPADMAP_ALLOC_H
#define SPADMAP_ALLOC_H

#include "policy.h"

int64_t Alloc_linear(const Block *blocks, int n, int64_t bytes, int64_t budget);
int64_t Alloc_firstFit(const Block *blocks, int n, int64_t bytes, int64_t budget);

#endif

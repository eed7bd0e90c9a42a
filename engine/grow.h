/* grow: room for `need` elements in a realloc'd array whose capacity doubles
 * (amortised constant-time appends). New elements are left uninitialised. */
#ifndef SPADMAP_GROW_H
#define SPADMAP_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* false (the array unchanged) when out of memory or the size would overflow. */
static inline bool Grow_array(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t c = *cap ? *cap : 16;
  while (c < need) {
    if (c > SIZE_MAX / 2) return false;
    c *= 2;
  }
  if (elem && c > SIZE_MAX / elem) return false;
  void *p = realloc(*arr, c * elem);
  if (!p) return false;
  *arr = p;
  *cap = c;
  return true;
}

#endif

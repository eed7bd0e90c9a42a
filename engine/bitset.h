/* bitset: fixed-size bit arrays over 64-bit words. */
#ifndef SPADMAP_BITSET_H
#define SPADMAP_BITSET_H

#include <stdbool.h>
#include <stdint.h>

static inline int Bitset_words(int bits) { return (bits + 63) / 64; }
static inline bool Bitset_has(const uint64_t *b, int i) { return (b[i >> 6] >> (i & 63)) & 1u; }
static inline void Bitset_set(uint64_t *b, int i) { b[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void Bitset_clear(uint64_t *b, int i) { b[i >> 6] &= ~((uint64_t)1 << (i & 63)); }

#endif

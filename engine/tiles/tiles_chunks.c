/* RenderChunks (Algorithm 3) and CollisionSize (Algorithm 2). */
#include "tiles.h"

#include <stdlib.h>
#include <string.h>

bool Tiles_rowMajor(int rank, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = s;
    if (d > 0 && __builtin_mul_overflow(s, shape[d], &s)) return false;
  }
  return true;
}

static int Chunks_cmp(const void *a, const void *b) {
  const TilesChunk *x = a, *y = b;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return (x->size > y->size) - (x->size < y->size);
}

/* The paper's recursion renders dimensions [axis, rank) as one chunk when they
 * are contiguous, else loops over dimension axis. Its line 3 test, read as
 * printed, compares only stride[axis] with the product of the inner sizes; the
 * intent (and what its example needs) is that every inner dimension is dense:
 * stride[d] == product of shape[d+1..] for all d >= axis. We find the outermost
 * such axis c once and enumerate the index space of dimensions [0, c) in
 * row-major order: the same chunks as the recursion, without the recursion. */
Status Tiles_renderChunks(const TilesView *view, TilesChunk **chunks, int *n, SpError *err) {
  *chunks = NULL;
  *n = 0;
  /* Walk the dimensions in memory order (descending stride, stable): the same
   * set of bytes, but a channels-last tile of a logically NCHW tensor then
   * renders as the few dense runs it is instead of one chunk per element. */
  TilesView pv = *view, *v = &pv;
  for (int i = 1; i < v->rank && i < TILES_MAX_RANK; i++)
    for (int j = i; j > 0 && v->strides[j] > v->strides[j - 1]; j--) {
      int64_t t;
      t = v->strides[j], v->strides[j] = v->strides[j - 1], v->strides[j - 1] = t;
      t = v->shape[j], v->shape[j] = v->shape[j - 1], v->shape[j - 1] = t;
      t = v->origin[j], v->origin[j] = v->origin[j - 1], v->origin[j - 1] = t;
    }
  if (v->rank < 1 || v->rank > TILES_MAX_RANK || v->esize < 1)
    return SpError_set(err, SP_ERR_ARG, "tile of rank %d, element size %lld (expected rank 1..%d, size >= 1)", v->rank,
                       (long long)v->esize, TILES_MAX_RANK);
  int r = v->rank;
  for (int d = 0; d < r; d++)
    if (v->shape[d] < 1 || v->origin[d] < 0 || v->strides[d] < 0)
      return SpError_set(err, SP_ERR_ARG, "tile dimension %d: shape %lld, origin %lld, stride %lld (expected >= 1, >= 0, >= 0)",
                         d, (long long)v->shape[d], (long long)v->origin[d], (long long)v->strides[d]);
  /* c: the outermost axis from which all dimensions are dense */
  int c = r;
  int64_t inner = 1;
  for (int d = r - 1; d >= 0; d--) {
    if (v->strides[d] != inner) break;
    c = d;
    if (__builtin_mul_overflow(inner, v->shape[d], &inner))
      return SpError_set(err, SP_ERR_ARG, "tile size overflows 64 bits");
  }
  /* chunk length in elements: the dense suffix, or one element */
  int64_t len = 1;
  for (int d = c; d < r; d++) len *= v->shape[d];
  int64_t count = 1;
  for (int d = 0; d < c; d++)
    if (__builtin_mul_overflow(count, v->shape[d], &count) || count > TILES_MAX_CHUNKS)
      return SpError_set(err, SP_ERR_ARG, "tile has more than %d chunks", TILES_MAX_CHUNKS);
  int64_t off0 = 0; /* off(t): Eq. 1 */
  for (int d = 0; d < r; d++) {
    int64_t x;
    if (__builtin_mul_overflow(v->origin[d], v->strides[d], &x) || __builtin_add_overflow(off0, x, &off0))
      return SpError_set(err, SP_ERR_ARG, "tile offset overflows 64 bits");
  }
  int64_t span = 0; /* last element's offset from off0, for the overflow check */
  for (int d = 0; d < r; d++) {
    int64_t x;
    if (__builtin_mul_overflow(v->shape[d] - 1, v->strides[d], &x) || __builtin_add_overflow(span, x, &span))
      return SpError_set(err, SP_ERR_ARG, "tile span overflows 64 bits");
  }
  int64_t end; /* span + len checked too: a span of 2^63 - 2 passed and then wrapped (UBSan) */
  if (__builtin_add_overflow(span, len, &end) || __builtin_add_overflow(off0, end, &end) ||
      __builtin_mul_overflow(end, v->esize, &end))
    return SpError_set(err, SP_ERR_ARG, "tile span overflows 64 bits");

  TilesChunk *out = malloc(sizeof(TilesChunk) * (size_t)count);
  if (!out) return SpError_set(err, SP_ERR_NOMEM, "out of memory rendering %lld chunks", (long long)count);
  int64_t idx[TILES_MAX_RANK] = {0};
  int m = 0;
  bool sorted = true;
  for (int64_t k = 0; k < count; k++) {
    int64_t off = off0;
    for (int d = 0; d < c; d++) off += idx[d] * v->strides[d];
    TilesChunk ch = {off * v->esize, len * v->esize};
    if (m && out[m - 1].offset + out[m - 1].size == ch.offset) {
      out[m - 1].size += ch.size; /* line 15: the next chunk starts where the last ends */
    } else {
      if (m && ch.offset < out[m - 1].offset) sorted = false;
      out[m++] = ch;
    }
    for (int d = c - 1; d >= 0; d--) { /* row-major odometer */
      if (++idx[d] < v->shape[d]) break;
      idx[d] = 0;
    }
  }
  if (!sorted) { /* permuted or overlapping strides: sort, then merge touching chunks */
    qsort(out, (size_t)m, sizeof *out, Chunks_cmp);
    int w = 0;
    for (int i = 0; i < m; i++) {
      if (w && out[i].offset <= out[w - 1].offset + out[w - 1].size) {
        int64_t e = out[i].offset + out[i].size;
        if (e > out[w - 1].offset + out[w - 1].size) out[w - 1].size = e - out[w - 1].offset;
      } else {
        out[w++] = out[i];
      }
    }
    m = w;
  }
  *chunks = out;
  *n = m;
  return SP_OK;
}

/* First chunk whose end lies above addr (chunks ascending, base added). */
static int Chunks_firstEndingAbove(const TilesChunk *c, int n, int64_t base, int64_t addr) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (base + c[mid].offset + c[mid].size <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int64_t Tiles_collisionSize(const TilesChunk *c1, int n1, int64_t base1, const TilesChunk *c2, int n2, int64_t base2) {
  if (n1 <= 0 || n2 <= 0) return 0;
  /* lines 1-2: one tile entirely left or right of the other */
  int64_t lo1 = base1 + c1[0].offset, hi1 = base1 + c1[n1 - 1].offset + c1[n1 - 1].size;
  int64_t lo2 = base2 + c2[0].offset, hi2 = base2 + c2[n2 - 1].offset + c2[n2 - 1].size;
  if (hi1 <= lo2 || hi2 <= lo1) return 0;
  /* The linear scan would step over every chunk that ends below the other
   * tile's start; a binary search skips them (same result, fewer steps). */
  int i = Chunks_firstEndingAbove(c1, n1, base1, lo2);
  int j = Chunks_firstEndingAbove(c2, n2, base2, lo1);
  while (i < n1 && j < n2) { /* lines 7-21 */
    int64_t s1 = base1 + c1[i].offset, e1 = s1 + c1[i].size;
    int64_t s2 = base2 + c2[j].offset, e2 = s2 + c2[j].size;
    if (e1 <= s2) {
      i++;
      continue;
    }
    if (e2 <= s1) {
      j++;
      continue;
    }
    return e1 - s2;
  }
  return 0;
}

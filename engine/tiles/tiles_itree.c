/* The interval tree TAA finds peers with (tiles_internal.h). */
#include <stdlib.h>

#include "tiles_internal.h"

typedef struct {
  int64_t first, last;
  int id;
} ItreeItem;

static int Itree_cmp(const void *a, const void *b) {
  const ItreeItem *x = a, *y = b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static int64_t Itree_fill(TilesItree *t, int lo, int hi) { /* [lo, hi): subtree rooted at the middle */
  if (lo >= hi) return INT64_MIN;
  int mid = lo + (hi - lo) / 2;
  int64_t m = t->last[mid];
  int64_t l = Itree_fill(t, lo, mid), r = Itree_fill(t, mid + 1, hi);
  if (l > m) m = l;
  if (r > m) m = r;
  t->maxlast[mid] = m;
  return m;
}

Status TilesItree_build(TilesItree *t, const int64_t *first, const int64_t *last, int n) {
  *t = (TilesItree){0};
  ItreeItem *items = malloc(sizeof(ItreeItem) * (size_t)(n ? n : 1));
  t->first = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  t->last = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  t->maxlast = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  t->id = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!items || !t->first || !t->last || !t->maxlast || !t->id) {
    free(items);
    TilesItree_free(t);
    return SP_ERR_NOMEM;
  }
  for (int i = 0; i < n; i++) items[i] = (ItreeItem){first[i], last[i], i};
  qsort(items, (size_t)n, sizeof *items, Itree_cmp);
  for (int i = 0; i < n; i++) {
    t->first[i] = items[i].first;
    t->last[i] = items[i].last;
    t->id[i] = items[i].id;
  }
  free(items);
  t->n = n;
  Itree_fill(t, 0, n);
  return SP_OK;
}

void TilesItree_free(TilesItree *t) {
  free(t->first);
  free(t->last);
  free(t->maxlast);
  free(t->id);
  *t = (TilesItree){0};
}

static void Itree_query(const TilesItree *t, int lo, int hi, int64_t qlo, int64_t qhi, void (*fn)(int, void *),
                        void *user) {
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (t->maxlast[mid] < qlo) return; /* nothing below here ends late enough */
    Itree_query(t, lo, mid, qlo, qhi, fn, user);
    if (t->first[mid] > qhi) return; /* this node and its right subtree start too late */
    if (t->last[mid] >= qlo) fn(t->id[mid], user);
    lo = mid + 1; /* the right subtree, iteratively */
  }
}

void TilesItree_query(const TilesItree *t, int64_t lo, int64_t hi, void (*fn)(int id, void *user), void *user) {
  Itree_query(t, 0, t->n, lo, hi, fn, user);
}

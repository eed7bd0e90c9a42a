/* Internals shared by the files of engine/tiles (not part of its interface). */
#ifndef SPADMAP_TILES_INTERNAL_H
#define SPADMAP_TILES_INTERNAL_H

#include <stdint.h>

#include "tiles.h"

/* An interval tree: an augmented binary search tree over intervals keyed by
 * their start, each node holding the largest end in its subtree (the paper's
 * Section III.A). Built once over all intervals (balanced: the sorted array is
 * the tree, the middle element its root); queries report the ids of the
 * intervals meeting [lo, hi] in O(log n + k). */
typedef struct {
  int n;
  int64_t *first, *last, *maxlast;
  int *id;
} TilesItree;

Status TilesItree_build(TilesItree *t, const int64_t *first, const int64_t *last, int n);
void TilesItree_free(TilesItree *t);
/* Calls fn(id, user) for every interval meeting [lo, hi] (inclusive). */
void TilesItree_query(const TilesItree *t, int64_t lo, int64_t hi, void (*fn)(int id, void *user), void *user);

/* Tiles_build, calling report(done, total, user) as it goes through the net's
 * tensors (done of total = net->ntensors; NULL: none): the tiled network's
 * progress (Tiles_tiledNetUsed). */
Status Tiles_buildReport(const Net *net, const TilesOptions *o, void (*report)(int64_t done, int64_t total, void *user),
                         void *user, TilesModel **out, SpError *err);

#endif

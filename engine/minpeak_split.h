/* minpeak_split: how the exact M_P search cuts a network into smaller problems
 * (see docs/design/minpeak.md). Internal to minpeak.c. */
#ifndef SPADMAP_MINPEAK_SPLIT_H
#define SPADMAP_MINPEAK_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "net.h"

/* The network without its weight-only ops: ops that read nothing on chip (only
 * params, or nothing) and make one output, which is read. Their outputs become graph
 * inputs, live from their first reader. Activations only, this keeps M_P (running
 * such an op just before its first reader never raises a step); with params it
 * is a relaxation (its M_P is a lower bound) and the caller checks the result. */
typedef struct {
  Net net;            /* the reduced network; tensors keep their indices */
  int *orig;          /* reduced op -> original op */
  int *removed;       /* the original indices of the ops taken out, ascending */
  int nremoved;
  Tensor *tensors;
  Op *ops;
  int *consumers;     /* every tensor's consumer list, in one block */
  int *inputs;        /* folded: every op's inputs, in one block */
} MinPeakReduced;

/* false: no memory. take false, or nothing to take out: nremoved is 0 and net copies the original.
 * fold: the readers of a removed op's output read its param instead (only when
 * every removed op copies one param into an output at least as large, else
 * nremoved is 0). With params on chip this is a relaxation too: at every step of
 * any order of the original, the param or one of its copies is live wherever the
 * folded network holds the param. */
bool MinPeakReduced_make(MinPeakReduced *r, const Net *net, bool take, bool fold);
void MinPeakReduced_free(MinPeakReduced *r);
/* The original network's order from an order of the reduced one: each removed op
 * runs just before its first reader. full: the original's nops entries. */
void MinPeakReduced_expand(const MinPeakReduced *r, const Net *net, const int *order, int *full);

/* Cut ops: ops every other op is an ancestor or a descendant of. Every order runs
 * the ops before a cut (in file order) first, so the file order splits into
 * segments that end at a cut and are scheduled independently. seg_end gets the
 * index one past each segment's last op, ascending (the last is nops); returns
 * the number of segments, 0 for no memory. anc: Figures_ancestors of net. */
int MinPeak_segments(const Net *net, const uint64_t *anc, int *seg_end);

#endif

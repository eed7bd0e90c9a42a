/* pack_core: a small proven-infeasible subset of buffers (see pack.h). */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "workclock.h"
#include "pack_internal.h"
#include "testhook.h"

typedef struct {
  int64_t size;
  int keep, i;
} CoreKey;

/* keep[] first, then larger first: the fewest cut-bearing buffers. */
static int CoreKey_cmp(const void *pa, const void *pb) {
  const CoreKey *a = pa, *b = pb;
  if (a->keep != b->keep) return b->keep - a->keep;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return a->i - b->i;
}

/* Decides the buffers marked in sel: true when proven infeasible. */
static bool Core_provenInfeasible(const PackBuffer *b, int n, const bool *sel, int64_t cap, const PackOptions *o,
                                  PackBuffer *tmp, Status *st, SpError *err) {
  int m = 0;
  for (int i = 0; i < n; i++)
    if (sel[i]) tmp[m++] = b[i];
  PackResult r;
  *st = Pack_solve(tmp, m, cap, o, &r, err);
  bool proven = *st == SP_OK && r.status == PACK_INFEASIBLE;
  PackResult_free(&r);
  return proven;
}

Status Pack_infeasibleCore(const PackBuffer *b, int n, int64_t cap, const PackOptions *o, const bool *keep,
                           bool *core, bool *found, SpError *err) {
  *found = false;
  memset(core, 0, sizeof *core * (size_t)(n > 0 ? n : 1));
  if (n <= 0 || cap <= 0) return SP_OK;
  PackOptions defaults;
  if (!o) {
    PackOptions_init(&defaults);
    o = &defaults;
  }
  double start = Clock_now();
  /* with a node limit, the whole core search stays within that much work (on the
   * work clock, where every Pack_solve below adds its nodes): the same cut on any
   * machine; the time limit is the caller's wall-clock stop */
  double w_end = o->node_limit > 0 ? WorkClock_now() + (double)o->node_limit / (double)Pack_nodesFor(1.0) : 0;
  int64_t when;
  int64_t load = Pack_maxLoadAt(b, n, &when);
  if (load < 0) return SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
  if (load > cap) {
    CoreKey *k = malloc(sizeof *k * (size_t)n);
    if (!k) return SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
    int m = 0;
    for (int i = 0; i < n; i++)
      if (b[i].lower <= when && when < b[i].upper) k[m++] = (CoreKey){b[i].size, keep && keep[i], i};
    qsort(k, (size_t)m, sizeof *k, CoreKey_cmp);
    int64_t sum = 0;
    for (int j = 0; j < m && sum <= cap; j++) sum += k[j].size, core[k[j].i] = true;
    free(k);
    *found = true;
    return SP_OK;
  }
  /* the search: the whole set first (its parts are independent: Pack_solve
   * proves the first failing one; find it by deciding each part alone) */
  PackBuffer *tmp = malloc(sizeof *tmp * (size_t)n);
  bool *sel = malloc(sizeof *sel * (size_t)n);
  int *order = malloc(sizeof *order * (size_t)n);
  Status st = SP_OK;
  if (!tmp || !sel || !order) {
    st = SpError_set(err, SP_ERR_NOMEM, "pack: out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++) {
    int v = order[i], q = i;
    while (q > 0 && b[order[q - 1]].lower > b[v].lower) order[q] = order[q - 1], q--;
    order[q] = v;
  }
  PackOptions one = *o;
  for (int x = 0; x < n && !*found;) {
    int64_t reach = b[order[x]].upper;
    int y = x + 1;
    while (y < n && b[order[y]].lower < reach) {
      if (b[order[y]].upper > reach) reach = b[order[y]].upper;
      y++;
    }
    memset(sel, 0, sizeof *sel * (size_t)n);
    for (int z = x; z < y; z++) sel[order[z]] = true;
    if (o->time_limit > 0) one.time_limit = o->time_limit - (Clock_now() - start);
    if (o->time_limit > 0 && one.time_limit <= 0) break;
    if (Core_provenInfeasible(b, n, sel, cap, &one, tmp, &st, err)) {
      memcpy(core, sel, sizeof *core * (size_t)n);
      *found = true;
    }
    if (st != SP_OK) goto done;
    x = y;
  }
  if (!*found) goto done;
  /* deletion filter: drop what the proof does not need, cut-bearing ones first */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      if (!core[i] || (keep && keep[i]) != (pass == 1)) continue;
      Testhook_at("pack.core", o->cancel);
      if (o->time_limit > 0 && Clock_now() - start > o->time_limit) goto done;
      if (w_end > 0 && WorkClock_now() > w_end) goto done;
      if (o->cancel && atomic_load(o->cancel)) goto done;
      core[i] = false;
      one = *o;
      one.node_limit = 20000; /* each test must be quick: a failed proof keeps the buffer */
      if (o->time_limit > 0) one.time_limit = o->time_limit - (Clock_now() - start);
      if (!Core_provenInfeasible(b, n, core, cap, &one, tmp, &st, err)) core[i] = true;
      if (st != SP_OK) goto done;
    }
done:
  free(tmp);
  free(sel);
  free(order);
  return st;
}

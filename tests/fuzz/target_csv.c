/* Fuzz target "csv": any bytes as a minimalloc CSV instance (spadmap pack's
 * input). A clean refusal is fine; an accepted instance must hold the reader's
 * promises (size > 0, 0 <= lower < upper, offsets >= 0, ids distinct), and the heuristics must
 * pack it into offsets Pack_check accepts, no lower than the load bound. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pack/pack.h"

int Fuzz_csv(const uint8_t *data, size_t size, char *why, size_t n) {
  if (memchr(data, 0, size)) return FUZZ_OK; /* PackInstance_readCsv refuses a NUL before parsing */
  PackInstance inst;
  SpError err;
  if (PackInstance_parseCsv("fuzz.csv", (const char *)data, &inst, &err)) return FUZZ_OK;
  int found = FUZZ_OK;
  for (int i = 0; i < inst.n && !found; i++) {
    const PackBuffer *b = &inst.buffers[i];
    if (b->size < 1 || b->lower < 0 || b->lower >= b->upper || b->align < 0)
      found = Fuzz_found(why, n, "row %d accepted with lower %lld upper %lld size %lld align %lld", i,
                         (long long)b->lower, (long long)b->upper, (long long)b->size, (long long)b->align);
    else if (!inst.ids[i] || !inst.ids[i][0])
      found = Fuzz_found(why, n, "row %d accepted without an id", i);
    else if (inst.offsets && inst.offsets[i] < 0)
      found = Fuzz_found(why, n, "row %d accepted with offset %lld", i, (long long)inst.offsets[i]);
  }
  for (int i = 0; i < inst.n && i < 2000 && !found; i++) /* rows that cannot be told apart */
    for (int j = 0; j < i && !found; j++)
      if (strcmp(inst.ids[i], inst.ids[j]) == 0) found = Fuzz_found(why, n, "rows %d and %d accepted with one id", j, i);
  if (!found && inst.n > 0 && inst.n <= 200) {
    if (inst.offsets) Pack_check(inst.buffers, inst.n, inst.offsets, 0, &err); /* must not crash or overflow */
    int64_t load = Pack_maxLoad(inst.buffers, inst.n);
    PackOptions o;
    PackOptions_init(&o);
    o.method = PACK_BEST_HEURISTIC;
    o.time_limit = 0.5;
    PackResult r;
    memset(&r, 0, sizeof r);
    Status st = Pack_solve(inst.buffers, inst.n, 0, &o, &r, &err);
    if (st == SP_OK && (r.status == PACK_FOUND || r.status == PACK_OPTIMAL)) {
      if (Pack_check(inst.buffers, inst.n, r.offsets, 0, &err))
        found = Fuzz_found(why, n, "the heuristics' offsets fail the check: %s", err.text);
      else if (r.height < load)
        found = Fuzz_found(why, n, "height %lld below the load bound %lld", (long long)r.height, (long long)load);
    }
    PackResult_free(&r);
  }
  PackInstance_free(&inst);
  return found ? found : FUZZ_ACCEPTED;
}

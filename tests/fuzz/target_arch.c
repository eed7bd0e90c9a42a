/* Fuzz target "arch": any bytes as a "spadmap-arch" file. A clean refusal is
 * fine; an accepted architecture must hold the loader's promises (2 or more
 * levels, each fan-out whole, the outermost level unbounded and holding all
 * three operands), the naive mapping must be valid on it (or fail on a level's
 * capacity alone) and cost a finite, non-negative amount, and the random mapper
 * must not crash on it. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "layer/arch.h"
#include "layer/layer_map.h"

int Fuzz_arch(const uint8_t *data, size_t size, char *why, size_t n) {
  Arch a;
  SpError err;
  if (Arch_parse((const char *)data, size, "fuzz.json", &a, &err)) return FUZZ_OK;
  if (a.nlevels < 2 || a.nlevels > ARCH_MAX_LEVELS) return Fuzz_found(why, n, "accepted %d levels", a.nlevels);
  int64_t below = a.macs;
  for (int i = 0; i < a.nlevels; i++) {
    const ArchLevel *lv = &a.level[i];
    if (lv->instances < 1 || lv->fanout < 1 || lv->fanout * lv->instances != below)
      return Fuzz_found(why, n, "levels[%d]: fan-out %lld x instances %lld is not the %lld below", i,
                        (long long)lv->fanout, (long long)lv->instances, (long long)below);
    if (i < a.nlevels - 1 && lv->capacity < 1) return Fuzz_found(why, n, "levels[%d]: capacity %lld", i, (long long)lv->capacity);
    if (!(lv->bandwidth > 0) || !isfinite(lv->bandwidth) || !(lv->read_pj >= 0) || !(lv->write_pj >= 0))
      return Fuzz_found(why, n, "levels[%d]: a bandwidth or energy accepted that is not a positive number", i);
    below = lv->instances;
  }
  const ArchLevel *top = &a.level[a.nlevels - 1];
  if (top->holds != 7u || top->instances != 1) return Fuzz_found(why, n, "the outermost level holds %u", top->holds);
  Layer l;
  if (Layer_parse("3_14_16_16_1", &l, &err)) return Fuzz_found(why, n, "the fixed layer: %s", err.text);
  Mapping m;
  Mapping_init(&m, &a, &l);
  Cost c;
  Cost_evaluate(&a, &l, &m, &c);
  /* a level too small for one element of what it holds is a valid file that no
   * layer fits: the mappers say which level binds (test_layer's
   * cosa_names_the_binding_level); any other reason is a finding */
  if (!c.valid && c.bad_level < 0) return Fuzz_found(why, n, "the naive mapping is invalid: %s", c.why);
  if (!c.valid) return FUZZ_ACCEPTED;
  if (!isfinite(c.latency) || c.latency <= 0 || !isfinite(c.energy_pj) || c.energy_pj < 0)
    return Fuzz_found(why, n, "the naive mapping costs latency %g, energy %g", c.latency, c.energy_pj);
  LayerMapOptions o;
  LayerMapOptions_init(&o);
  o.samples = 2;
  o.time_limit = 0.05;
  LayerMapResult r;
  if (LayerMap_random(&a, &l, &o, &r, &err) == SP_OK && !r.cost.valid)
    return Fuzz_found(why, n, "the random mapper returned an invalid mapping");
  return FUZZ_ACCEPTED;
}

/* The fuzz targets: one line per target. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"

const FuzzTarget Fuzz_targets[] = {
  {"net", Fuzz_net, "the network loader, then M_R and a default solve that the validator must accept"},
  {"plan", Fuzz_plan, "the plan reader and validator, checked against a brute-force reference and a round trip"},
  {"csv", Fuzz_csv, "the minimalloc CSV reader (spadmap pack), then the heuristics' packing checked"},
  {"arch", Fuzz_arch, "the architecture reader, then the naive mapping's cost and the random mapper"},
  {"offchip", Fuzz_offchip, "the off-chip plan reader and validator (alone and against its network), and a round trip"},
  {"layer", Fuzz_layer, "a layer spec (short and long form), then the naive mapping's cost on CoSA's baseline"},
  {NULL, NULL, NULL},
};

const FuzzTarget *Fuzz_target(const char *name) {
  for (const FuzzTarget *t = Fuzz_targets; t->name; t++)
    if (strcmp(t->name, name) == 0) return t;
  return NULL;
}

int Fuzz_found(char *why, size_t why_size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, why_size, fmt, ap);
  va_end(ap);
  return FUZZ_FINDING;
}

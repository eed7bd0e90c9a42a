/* Fuzz target "layer": any bytes as a layer spec ("R_P_C_K_stride" or the long
 * form "R=3,S=3,...", as `spadmap layer` takes it). A clean refusal is fine; an
 * accepted layer must be inside the model's ranges (every loop bound 1..2^24,
 * at most 2^48 MACs), and the naive mapping on CoSA's baseline architecture
 * must be valid and cost a finite amount. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "layer/arch.h"
#include "layer/layer_map.h"

int Fuzz_layer(const uint8_t *data, size_t size, char *why, size_t n) {
  static Arch arch;
  static bool loaded;
  if (!loaded) {
    SpError e;
    loaded = true;
    if (Arch_load(SPADMAP_DATA_DIR "/arch/cosa_baseline.json", &arch, &e)) fprintf(stderr, "fuzz: %s\n", e.text);
  }
  char text[512];
  if (size >= sizeof text || memchr(data, 0, size)) return FUZZ_OK; /* the CLI's argv: a C string, short */
  memcpy(text, data, size);
  text[size] = 0;
  Layer l;
  SpError err;
  if (Layer_parse(text, &l, &err)) return FUZZ_OK;
  const int64_t dims[] = {l.R, l.S, l.P, l.Q, l.C, l.K, l.N, l.groups};
  for (int i = 0; i < 8; i++)
    if (dims[i] < 1 || dims[i] > 1 << 24) return Fuzz_found(why, n, "accepted a loop bound of %lld", (long long)dims[i]);
  if (l.stride_h < 1 || l.stride_w < 1 || l.pad_h < 0 || l.pad_w < 0)
    return Fuzz_found(why, n, "accepted stride %d or pad %d", l.stride_h, l.pad_h);
  if (Layer_macs(&l) < 1 || Layer_macs(&l) > (int64_t)1 << 48)
    return Fuzz_found(why, n, "accepted %lld MACs", (long long)Layer_macs(&l));
  if (!strchr(text, '=')) { /* the short form names itself */
    char name[128];
    Layer back;
    if (Layer_parse(Layer_cosaName(&l, name, sizeof name), &back, &err) || !Layer_sameShape(&l, &back))
      return Fuzz_found(why, n, "its CoSA name %s does not read back as the same layer", name);
  }
  if (arch.nlevels) {
    Mapping m;
    Mapping_init(&m, &arch, &l);
    Cost c;
    Cost_evaluate(&arch, &l, &m, &c);
    if (!c.valid) return Fuzz_found(why, n, "the naive mapping is invalid: %s", c.why);
    if (!isfinite(c.latency) || c.latency <= 0 || !isfinite(c.energy_pj) || c.energy_pj < 0)
      return Fuzz_found(why, n, "the naive mapping costs latency %g, energy %g", c.latency, c.energy_pj);
  }
  return FUZZ_ACCEPTED;
}

/* Fuzz target "offchip": any bytes as a "spadmap-offchip" plan. A clean refusal
 * is fine. The validator runs on every plan the reader accepts, alone and
 * against the bundled network the plan names; a plan it accepts must be written
 * and read back to a plan it accepts again, with the same peak. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "net.h"
#include "tiles/tiles.h"

static const char *const Fuzz_offchipNets[] = {"fig1", "diamond", "chain", "skip"};
enum { FUZZ_OFFCHIP_NETS = 4 };
static Net *Fuzz_offchipNet[FUZZ_OFFCHIP_NETS];

static void Fuzz_offchipFree(void) {
  for (int i = 0; i < FUZZ_OFFCHIP_NETS; i++) Net_free(Fuzz_offchipNet[i]), Fuzz_offchipNet[i] = NULL;
}

static Net *Fuzz_offchipNamed(const char *name) {
  static bool loaded;
  if (!loaded) {
    loaded = true;
    atexit(Fuzz_offchipFree);
    for (int i = 0; i < FUZZ_OFFCHIP_NETS; i++) {
      char path[512];
      SpError err;
      snprintf(path, sizeof path, "%s/networks/%s.json", SPADMAP_DATA_DIR, Fuzz_offchipNets[i]);
      if (Net_load(path, &Fuzz_offchipNet[i], &err)) fprintf(stderr, "fuzz: %s\n", err.text);
    }
  }
  for (int i = 0; name && i < FUZZ_OFFCHIP_NETS; i++)
    if (Fuzz_offchipNet[i] && strcmp(Fuzz_offchipNet[i]->name, name) == 0) return Fuzz_offchipNet[i];
  return NULL;
}

int Fuzz_offchip(const uint8_t *data, size_t size, char *why, size_t n) {
  OffchipPlan *p = NULL;
  SpError err;
  if (OffchipPlan_parse((const char *)data, size, "fuzz.json", &p, &err)) return FUZZ_OK;
  int found = FUZZ_OK;
  Net *net = Fuzz_offchipNamed(p->network);
  bool alone = OffchipPlan_validate(p, NULL, &err) == SP_OK;
  bool with = net && OffchipPlan_validate(p, net, &err) == SP_OK;
  if (net && with && !alone) found = Fuzz_found(why, n, "valid against its network but not alone");
  if (!found && alone) {
    char *text = NULL;
    OffchipPlan *q = NULL;
    if (OffchipPlan_toJson(p, &text, &err) == SP_OK) {
      if (OffchipPlan_parse(text, strlen(text), "again.json", &q, &err))
        found = Fuzz_found(why, n, "an accepted plan, written out, cannot be read back: %s", err.text);
      else if (OffchipPlan_validate(q, NULL, &err))
        found = Fuzz_found(why, n, "an accepted plan, written and read back, is refused: %s", err.text);
      else if (q->peak_bytes != p->peak_bytes || q->ntiles != p->ntiles || q->ntensors != p->ntensors)
        found = Fuzz_found(why, n, "an accepted plan changed when written and read back");
    }
    OffchipPlan_free(q);
    free(text);
  }
  OffchipPlan_free(p);
  return found ? found : (alone ? FUZZ_ACCEPTED : FUZZ_OK);
}

/* bundled.h: load a bundled network (data/networks/NAME.json) in a test; prints
 * the loader's message and returns NULL when it fails. */
#ifndef SPADMAP_BUNDLED_H
#define SPADMAP_BUNDLED_H

#include <stdio.h>

#include "net.h"

static inline Net *Bundled_load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/networks/%s.json", SPADMAP_DATA_DIR, name);
  Net *net = NULL;
  SpError err = {0};
  if (Net_load(path, &net, &err)) printf("  cannot load %s: %s\n", path, err.text);
  return net;
}

#endif

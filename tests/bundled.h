/* bundled.h: the bundled networks (data/networks/NAME.json) in a test: load one
 * (prints the loader's message and returns NULL when it fails), list them all. */
#ifndef SPADMAP_BUNDLED_H
#define SPADMAP_BUNDLED_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "net.h"

static inline Net *Bundled_load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/networks/%s.json", SPADMAP_DATA_DIR, name);
  Net *net = NULL;
  SpError err = {0};
  if (Net_load(path, &net, &err)) printf("  cannot load %s: %s\n", path, err.text);
  return net;
}

enum { BUNDLED_MAX = 256 };
typedef char BundledStem[256];

/* The names (without .json) of every bundled network, in directory order, at
 * most max; -1 when the folder cannot be read. */
static inline int Bundled_stems(BundledStem *stems, int max) {
  DIR *d = opendir(SPADMAP_DATA_DIR "/networks");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while (n < max && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    snprintf(stems[n++], sizeof *stems, "%.*s", (int)(len - 5), e->d_name);
  }
  closedir(d);
  return n;
}

#endif

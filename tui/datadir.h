/* datadir: where the bundled data is (networks/, arch/, onnx/, lessons/), found at
 * run time, so no path of the build machine is compiled into the binary:
 *   $SPADMAP_DATA when set and not empty, else
 *   <folder of the executable>/../share/spadmap (the installed layout: bin/spadmap
 *   beside share/spadmap; the build tree has build/share/spadmap, a link CMake makes
 *   to the source data/, so build/tui/spadmap and build/tests/test_* find it too). */
#ifndef SPADMAP_DATADIR_H
#define SPADMAP_DATADIR_H

#include <stddef.h>

/* The data folder, resolved once per process. */
const char *Data_dir(void);
/* Data_dir()/rel, in one of 8 rotating buffers of the calling thread. */
const char *Data_file(const char *rel);
/* A network argument as the commands take it: an existing file, or anything with a
 * '/' or a '.', as it is; a bare name that names no file ("resnet50") becomes the
 * bundled networks/NAME.json when that exists. Rotating buffers as Data_file. */
const char *Data_net(const char *arg);
/* For a network argument that is a bare name naming neither a file nor a
 * bundled network: "the data folder D (set by SPADMAP_DATA) has no
 * networks/NAME.json" into buf, so the error says where it looked; else NULL. */
const char *Data_netMissing(const char *arg, char *buf, size_t n);
/* The rule itself, for tests: env is $SPADMAP_DATA (NULL: unset), exe the
 * executable's path (NULL: unknown). Writes the folder to out. */
void Data_resolve(const char *env, const char *exe, char *out, size_t n);

#endif

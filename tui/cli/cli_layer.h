/* cli_layer: what `layer` and `bench layer` share (architecture lookup, options). */
#ifndef SPADMAP_CLI_LAYER_H
#define SPADMAP_CLI_LAYER_H

#include <cjson/cJSON.h>

#include "cli.h"
#include "layer/layer_map.h"

/* The file of --arch: a path, or a bundled name ("cosa_4xpe" -> data/arch/cosa_4xpe.json),
 * into buf; NULL: the bundled dflt. SP_ERR_ARG for an empty name. */
Status CliLayer_archPath(const char *name, const char *dflt, char *buf, size_t n, SpError *err);
/* Loads it (NULL: cosa_baseline). */
Status CliLayer_loadArch(const char *name, Arch *arch, SpError *err);
/* --objective/--samples/--seed/--time-limit/--weights into o; an exit code on a
 * usage error (message printed), else -1. */
int CliLayer_options(const CliCommand *cmd, const CliArgs *a, LayerMapOptions *o);
cJSON *CliLayer_resultJSON(const Arch *arch, const Layer *l, const char *method, const LayerMapResult *r);
/* A solver's progress on a terminal's stderr (one line, rewritten in place); gap < 0
 * or a NaN incumbent/bound: only the stage and the time. The mappers' progress
 * callback (user unused); the steps methods call it too. */
void CliLayer_progress(const char *stage, double inc, double bound, double gap, double el, void *user);

#endif

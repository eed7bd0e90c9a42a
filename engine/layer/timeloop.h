/* timeloop: a layer's mapping as the three input files of NVIDIA's Timeloop
 * v1.0 (`timeloop-model arch.yaml prob.yaml map.yaml`), so that Timeloop
 * evaluates exactly this mapping. The format follows Timeloop v1.0's parsers
 * (the ISPASS "arch: arithmetic + storage" form, an inline CNN-Layer shape, a
 * list of datatype / temporal / spatial directives); docs/timeloop.md says how
 * each of our fields is written and where Timeloop's model differs from ours. */
#ifndef SPADMAP_TIMELOOP_H
#define SPADMAP_TIMELOOP_H

#include "mapping.h"
#include "status.h"

typedef enum { TIMELOOP_ARCH, TIMELOOP_PROB, TIMELOOP_MAP, TIMELOOP_FILES } TimeloopFile;

/* "arch.yaml", "prob.yaml", "map.yaml". */
const char *Timeloop_fileName(TimeloopFile f);
/* One file's text (malloc'd, the caller frees) into *out. SP_ERR_ARG when the
 * layer or mapping cannot be written (grouped layers: Timeloop's CNN-Layer has
 * no groups; an invalid mapping). */
Status Timeloop_text(const Arch *a, const Layer *l, const Mapping *m, TimeloopFile f, char **out, SpError *err);
/* The three files into directory dir (created when missing). */
Status Timeloop_write(const Arch *a, const Layer *l, const Mapping *m, const char *dir, SpError *err);

#endif

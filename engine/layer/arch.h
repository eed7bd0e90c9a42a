/* arch: an accelerator's memory hierarchy as the layer mappers see it (the
 * "spadmap-arch" JSON file, documented in the README). Levels run from the
 * innermost (registers) to the outermost (DRAM); each level has `instances`
 * copies, a per-instance capacity, the operands it holds, a bandwidth and an
 * energy per byte. The spatial fan-out of level i is how many copies of level
 * i-1 (or MACs, for level 0) each copy of level i feeds:
 *   fanout(i) = instances(i-1) / instances(i),  fanout(0) = macs / instances(0).
 * That is Timeloop's way of writing a hierarchy (instances per level). */
#ifndef SPADMAP_ARCH_H
#define SPADMAP_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef enum { OPND_W, OPND_I, OPND_O, OPND_COUNT } Operand; /* weights, inputs, outputs */

#define ARCH_MAX_LEVELS 8

typedef struct {
  char name[32];
  int64_t capacity;      /* bytes per instance; 0 = unbounded (only the outermost level) */
  unsigned holds;        /* bit (1u << Operand) per operand kept here */
  int64_t instances;
  int64_t fanout;        /* derived, see above */
  /* The copies as a mesh_x x mesh_y array (Timeloop's meshX/meshY). The file's
   * optional "mesh_x" says it; by default a level keeps the Y extent of the
   * level above (mesh_y(i) = mesh_y(i+1)), so its whole fan-out runs along X
   * and, with no mesh_x anywhere, every level is one row (Timeloop's default).
   * fanout = fanout_x * fanout_y, fanout_x = mesh_x(i-1) / mesh_x(i) (the MACs
   * below level 0 extend level 0's mesh along X). On a level with both
   * fanout_x and fanout_y > 1 each dimension's spatial factor runs along one
   * axis, as in Timeloop (mapping.h: Mapping_spatialSplit). */
  int64_t mesh_x, mesh_y;
  int64_t fanout_x, fanout_y;
  double bandwidth;      /* bytes per cycle per instance (reads + writes) */
  double read_pj, write_pj; /* energy per byte */
} ArchLevel;

typedef struct {
  char name[64];
  char source[1024];
  int nlevels;
  ArchLevel level[ARCH_MAX_LEVELS];
  int64_t macs;          /* total multiply-accumulate units */
  double mac_pj;         /* energy per MAC */
  int precision[OPND_COUNT]; /* bytes per element: weights, inputs, outputs (partial sums) */
  int noc_level;         /* derived: the outermost level with fanout > 1 (CoSA's NoC level), -1 if none */
} Arch;

/* Load and check an architecture file. Errors name the file, the JSON path
 * (levels[2].capacity) or line:column, and what was expected. */
Status Arch_load(const char *path, Arch *out, SpError *err);
Status Arch_parse(const char *text, size_t len, const char *label, Arch *out, SpError *err);

const char *Operand_name(Operand v);   /* "weights", "inputs", "outputs" */
const char *Operand_short(Operand v);  /* "W", "I", "O" */
static inline bool Arch_holds(const Arch *a, int level, Operand v) { return (a->level[level].holds >> v) & 1u; }

#endif

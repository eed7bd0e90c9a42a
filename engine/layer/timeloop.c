/* timeloop: Timeloop v1.0 input files for one mapping (see timeloop.h).
 *
 * What is written, read off Timeloop v1.0's parsers (model/buffer.cpp,
 * model/arithmetic.cpp, workload/workload.cpp, mapping/parser.cpp):
 *  arch.yaml  arch: {arithmetic: MACs, storage: our levels innermost first}.
 *    Timeloop counts a level's capacity and bandwidth in words of one width
 *    (word-bits), we in bytes with a precision per operand. A level whose
 *    operands share one precision p gets word-bits 8p, entries capacity/p and
 *    bandwidths in words; a level with mixed precisions (GlobalBuf: inputs 1 B,
 *    outputs 3 B; DRAM) gets byte words, so Timeloop counts an output as one
 *    word there: its capacity check and bandwidth are looser than ours. Our
 *    bandwidth is reads + writes per cycle; Timeloop has a read and a write
 *    bandwidth and takes the slower stream. Both get ours: where a level binds,
 *    its reads (to the copies below) outnumber its fills by the reuse, so
 *    Timeloop's reads / B is our (reads + writes) / B to within the fills
 *    (halves, Timeloop's own reading of its deprecated `bandwidth` key, made
 *    it 2x slower than ours on ResNet-50's layer3.0.conv1: 1605632 cycles
 *    against 809088; full: 802816). meshX is written on every level (arch.h's mesh), so
 *    Timeloop's fan-outs are ours. Energies per access are ours (pJ/byte x
 *    word bytes, the mean of read and write).
 *  prob.yaml  problem: the CNN-Layer shape inline (Timeloop's own shape file
 *    needs its search path) and the bounds. Timeloop's input projection pairs
 *    R with P under Wstride and S with Q under Hstride; our R, P pair under
 *    stride_h, so Wstride = stride_h, Hstride = stride_w.
 *  map.yaml   mapping: per level a datatype directive (keep what the level
 *    holds, bypass the rest), a temporal directive (factors, permutation
 *    innermost first, as ours) and, where the level fans out, a spatial one:
 *    the dimensions along X first, then Y, split = how many run along X
 *    (Mapping_spatialSplit). */
#include "timeloop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "strbuf.h"

static const char *const Timeloop_space[OPND_COUNT] = {"Weights", "Inputs", "Outputs"};

const char *Timeloop_fileName(TimeloopFile f) {
  static const char *const names[] = {"arch.yaml", "prob.yaml", "map.yaml"};
  return f >= 0 && f < TIMELOOP_FILES ? names[f] : "?";
}

/* s as a YAML double-quoted scalar. */
static void Timeloop_quote(StrBuf *b, const char *s) {
  StrBuf_printf(b, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') StrBuf_printf(b, "\\%c", *s);
    else StrBuf_printf(b, "%c", *s);
  }
  StrBuf_printf(b, "\"");
}

/* Bytes per word at level i: the held operands' common precision, else 1. */
static int Timeloop_wordBytes(const Arch *a, int i) {
  int p = 0;
  for (int v = 0; v < OPND_COUNT; v++) {
    if (!Arch_holds(a, i, (Operand)v)) continue;
    if (p && p != a->precision[v]) return 1;
    p = a->precision[v];
  }
  return p ? p : 1;
}

static void Timeloop_arch(const Arch *a, StrBuf *b) {
  StrBuf_printf(b, "# spadmap: architecture %s for Timeloop v1.0 (timeloop-model arch.yaml prob.yaml map.yaml)\n",
                a->name);
  StrBuf_printf(b, "arch:\n  arithmetic:\n    name: MACs\n    instances: %lld\n    meshX: %lld\n    word-bits: 8\n",
                (long long)a->macs, (long long)(a->level[0].mesh_x * a->level[0].fanout_x));
  StrBuf_printf(b, "  storage:\n");
  for (int i = 0; i < a->nlevels; i++) {
    const ArchLevel *lv = &a->level[i];
    int wb = Timeloop_wordBytes(a, i);
    StrBuf_printf(b, "  - name: ");
    Timeloop_quote(b, lv->name);
    StrBuf_printf(b, "\n    instances: %lld\n    meshX: %lld\n    word-bits: %d\n", (long long)lv->instances,
                  (long long)lv->mesh_x, 8 * wb);
    if (i == a->nlevels - 1) StrBuf_printf(b, "    technology: DRAM\n");
    else StrBuf_printf(b, "    entries: %lld\n", (long long)(lv->capacity / wb));
    StrBuf_printf(b, "    read_bandwidth: %.9g\n    write_bandwidth: %.9g\n", lv->bandwidth / wb, lv->bandwidth / wb);
    StrBuf_printf(b, "    vector-access-energy: %.9g\n", (lv->read_pj + lv->write_pj) / 2 * wb);
  }
}

static void Timeloop_prob(const Layer *l, StrBuf *b) {
  char name[64];
  StrBuf_printf(b, "# spadmap: layer %s (%s)\n", Layer_cosaName(l, name, sizeof name), l->name);
  StrBuf_printf(b, "problem:\n"
                   "  shape:\n"
                   "    name: CNN-Layer\n"
                   "    dimensions: [R, S, P, Q, C, K, N]\n"
                   "    coefficients:\n"
                   "    - {name: Wstride, default: 1}\n"
                   "    - {name: Hstride, default: 1}\n"
                   "    - {name: Wdilation, default: 1}\n"
                   "    - {name: Hdilation, default: 1}\n"
                   "    data-spaces:\n"
                   "    - name: Weights\n"
                   "      projection: [[[C]], [[K]], [[R]], [[S]]]\n"
                   "    - name: Inputs\n"
                   "      projection: [[[N]], [[C]], [[R, Wdilation], [P, Wstride]], [[S, Hdilation], [Q, Hstride]]]\n"
                   "    - name: Outputs\n"
                   "      projection: [[[N]], [[K]], [[Q]], [[P]]]\n"
                   "      read-write: true\n");
  StrBuf_printf(b, "  instance:\n");
  for (int d = 0; d < DIM_COUNT; d++) StrBuf_printf(b, "    %s: %lld\n", Dim_name((Dim)d), (long long)Layer_dim(l, (Dim)d));
  StrBuf_printf(b, "    Wstride: %d\n    Hstride: %d\n    Wdilation: 1\n    Hdilation: 1\n", l->stride_h, l->stride_w);
}

static void Timeloop_factors(StrBuf *b, const int64_t *f) {
  StrBuf_printf(b, "    factors: \"");
  for (int d = 0; d < DIM_COUNT; d++) StrBuf_printf(b, "%s%s%lld", d ? " " : "", Dim_name((Dim)d), (long long)f[d]);
  StrBuf_printf(b, "\"\n");
}

static void Timeloop_map(const Arch *a, const Mapping *m, StrBuf *b) {
  StrBuf_printf(b, "# spadmap: the mapping, innermost level first; permutations innermost loop first\nmapping:\n");
  for (int i = 0; i < a->nlevels; i++) {
    const char *name = a->level[i].name;
    StrBuf_printf(b, "  - target: ");
    Timeloop_quote(b, name);
    StrBuf_printf(b, "\n    type: datatype\n    keep: [");
    int k = 0;
    for (int v = 0; v < OPND_COUNT; v++)
      if (Arch_holds(a, i, (Operand)v)) StrBuf_printf(b, "%s%s", k++ ? ", " : "", Timeloop_space[v]);
    StrBuf_printf(b, "]\n    bypass: [");
    k = 0;
    for (int v = 0; v < OPND_COUNT; v++)
      if (!Arch_holds(a, i, (Operand)v)) StrBuf_printf(b, "%s%s", k++ ? ", " : "", Timeloop_space[v]);
    StrBuf_printf(b, "]\n  - target: ");
    Timeloop_quote(b, name);
    StrBuf_printf(b, "\n    type: temporal\n");
    Timeloop_factors(b, m->t[i]);
    StrBuf_printf(b, "    permutation: ");
    for (int j = 0; j < DIM_COUNT; j++) StrBuf_printf(b, "%s", Dim_name((Dim)m->order[i][j]));
    StrBuf_printf(b, "\n");
    if (a->level[i].fanout <= 1) continue;
    unsigned y = 0;
    Mapping_spatialSplit(m, a, i, &y); /* the mapping is valid: a split exists */
    StrBuf_printf(b, "  - target: ");
    Timeloop_quote(b, name);
    StrBuf_printf(b, "\n    type: spatial\n");
    Timeloop_factors(b, m->s[i]);
    StrBuf_printf(b, "    permutation: ");
    int split = 0;
    for (int d = 0; d < DIM_COUNT; d++)
      if (!((y >> d) & 1u)) {
        StrBuf_printf(b, "%s", Dim_name((Dim)d));
        split++;
      }
    for (int d = 0; d < DIM_COUNT; d++)
      if ((y >> d) & 1u) StrBuf_printf(b, "%s", Dim_name((Dim)d));
    StrBuf_printf(b, "\n    split: %d\n", split);
  }
}

Status Timeloop_text(const Arch *a, const Layer *l, const Mapping *m, TimeloopFile f, char **out, SpError *err) {
  *out = NULL;
  if (l->groups > 1)
    return SpError_set(err, SP_ERR_ARG, "timeloop export: %s has %d groups; Timeloop's CNN-Layer has none", l->name,
                       l->groups);
  char why[200];
  if (!Mapping_valid(m, a, l, why, sizeof why, NULL))
    return SpError_set(err, SP_ERR_ARG, "timeloop export: the mapping is invalid: %s", why);
  StrBuf b = {0};
  if (f == TIMELOOP_ARCH) Timeloop_arch(a, &b);
  else if (f == TIMELOOP_PROB) Timeloop_prob(l, &b);
  else Timeloop_map(a, m, &b);
  if (b.nomem || !b.s) {
    free(b.s);
    return SpError_set(err, SP_ERR_NOMEM, "timeloop export: out of memory");
  }
  *out = b.s;
  return SP_OK;
}

Status Timeloop_write(const Arch *a, const Layer *l, const Mapping *m, const char *dir, SpError *err) {
  if (!dir || !*dir) return SpError_set(err, SP_ERR_ARG, "timeloop export: the directory is empty");
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return SpError_set(err, SP_ERR_IO, "%s: cannot create the directory: %s", dir, strerror(errno));
  /* all three or none: a set with a new arch.yaml and an old map.yaml would be
   * read by Timeloop as one mapping */
  char *texts[TIMELOOP_FILES] = {0}, paths[TIMELOOP_FILES][4096];
  const char *p[TIMELOOP_FILES], *t[TIMELOOP_FILES];
  Status st = SP_OK;
  for (int f = 0; f < TIMELOOP_FILES && !st; f++) {
    if ((st = Timeloop_text(a, l, m, (TimeloopFile)f, &texts[f], err))) break;
    if (snprintf(paths[f], sizeof paths[f], "%s/%s", dir, Timeloop_fileName((TimeloopFile)f)) >= (int)sizeof paths[f])
      st = SpError_set(err, SP_ERR_ARG, "timeloop export: the directory's path is too long");
    p[f] = paths[f], t[f] = texts[f];
  }
  if (!st) st = FileIO_writeAll(TIMELOOP_FILES, p, t, err);
  for (int f = 0; f < TIMELOOP_FILES; f++) free(texts[f]);
  return st;
}

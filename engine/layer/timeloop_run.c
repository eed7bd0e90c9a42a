/* timeloop_run: the Hybrid mapper's input and Timeloop's stats read back (see
 * timeloop_run.h). The stats format is Timeloop v1.0's model/topology.cpp
 * (operator<<): a "Summary Stats" block with "Utilization: U", "Cycles: N",
 * "Energy: X uJ", "Area: A mm^2", then "MACCs = N". */
#include "timeloop_run.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static const char *const TimeloopRun_space[OPND_COUNT] = {"Weights", "Inputs", "Outputs"};

Status Timeloop_mapperText(const Arch *a, int threads, bool fix_outer, char **out, SpError *err) {
  *out = NULL;
  if (threads < 1) return SpError_set(err, SP_ERR_ARG, "timeloop mapper: %d threads", threads);
  StrBuf b = {0};
  StrBuf_printf(&b, "# spadmap: Timeloop v1.0's Hybrid mapper with the CoSA paper's settings (bench layer --timeloop)\n"
                    "mapper:\n  algorithm: hybrid\n  num-threads: %d\n  optimization-metrics: [delay, energy]\n"
                    "  victory-condition: %d\n  timeout: %d\n  live-status: False\n"
                    "# the CoSA authors' mapspace constraints (ucb-bar/cosa configs/mapspace/mapspace.yaml): which\n"
                    "# operands each level keeps, for our levels as the export writes them\n"
                    "mapspace_constraints:\n",
                threads, TIMELOOP_VICTORY, TIMELOOP_INVALID_TIMEOUT);
  for (int i = 0; i < a->nlevels; i++) {
    StrBuf_printf(&b, "  - target: \"%s\"\n    type: datatype\n    keep: [", a->level[i].name);
    int k = 0;
    for (int v = 0; v < OPND_COUNT; v++)
      if (Arch_holds(a, i, (Operand)v)) StrBuf_printf(&b, "%s%s", k++ ? ", " : "", TimeloopRun_space[v]);
    StrBuf_printf(&b, "]\n    bypass: [");
    k = 0;
    for (int v = 0; v < OPND_COUNT; v++)
      if (!Arch_holds(a, i, (Operand)v)) StrBuf_printf(&b, "%s%s", k++ ? ", " : "", TimeloopRun_space[v]);
    StrBuf_printf(&b, "]\n");
  }
  /* Ours, not the CoSA authors', and only when asked (fix_outer): the outermost level's loop order fixed to
   * R S P Q C K N (innermost first), the order the paper's cosa keeps at the levels it does not rank. Timeloop
   * v1.0 refuses ResNet-50's conv1 without it ("mapspace size appears to be greater than 2^128": 5040^6 loop
   * orders x 4.3e13 factorisations x 512 spatial splits); the caller retries with it only then. */
  if (fix_outer)
    StrBuf_printf(&b, "  - target: \"%s\"\n    type: temporal\n    permutation: RSPQCKN\n", a->level[a->nlevels - 1].name);
  if (b.nomem || !b.s) {
    free(b.s);
    return SpError_set(err, SP_ERR_NOMEM, "timeloop mapper: out of memory");
  }
  *out = b.s;
  return SP_OK;
}

/* The number after `key` on the line starting with it, within [from, end). */
static bool TimeloopRun_value(const char *from, const char *key, double *v, int *line_out, const char *text) {
  size_t n = strlen(key);
  for (const char *p = from; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, key, n) != 0) continue;
    int line = 1;
    for (const char *q = text; q < p; q++) line += *q == '\n';
    *line_out = line;
    char *end;
    errno = 0;
    *v = strtod(p + n, &end);
    return end != p + n && errno == 0;
  }
  *line_out = 0;
  return false;
}

Status Timeloop_parseStats(const char *text, TimeloopStats *s, SpError *err) {
  memset(s, 0, sizeof *s);
  const char *sum = text ? strstr(text, "Summary Stats") : NULL;
  if (!sum) return SpError_set(err, SP_ERR_FORMAT, "timeloop stats: no \"Summary Stats\" block");
  static const struct {
    const char *key;
    size_t off;
    bool need;
  } fields[] = {
      {"Cycles: ", offsetof(TimeloopStats, cycles), true},
      {"Energy: ", offsetof(TimeloopStats, energy_uj), true},
      {"Utilization: ", offsetof(TimeloopStats, utilization), false},
      {"MACCs = ", offsetof(TimeloopStats, maccs), false},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    double v;
    int line;
    bool ok = TimeloopRun_value(sum, fields[i].key, &v, &line, text);
    if (!ok && line)
      return SpError_set(err, SP_ERR_FORMAT, "timeloop stats: line %d: \"%s\" is not followed by a number", line,
                         fields[i].key);
    if (!ok && fields[i].need)
      return SpError_set(err, SP_ERR_FORMAT, "timeloop stats: no \"%s\" line in the Summary Stats block",
                         fields[i].key);
    if (ok && (v < 0 || v != v))
      return SpError_set(err, SP_ERR_FORMAT, "timeloop stats: line %d: %s%g is out of range", line, fields[i].key, v);
    if (ok) *(double *)((char *)s + fields[i].off) = v;
  }
  if (s->cycles <= 0) return SpError_set(err, SP_ERR_FORMAT, "timeloop stats: zero cycles (no mapping evaluated?)");
  if (!strstr(sum, " uJ")) return SpError_set(err, SP_ERR_FORMAT, "timeloop stats: the energy is not in uJ");
  return SP_OK;
}

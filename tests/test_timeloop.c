/* The Timeloop export (engine/layer/timeloop.c) and the X/Y array split it
 * needs (arch.h mesh_x, Mapping_spatialSplit, the MIP's Cosa_mesh): the written
 * YAML is read back by a small reader here and checked against the mapping,
 * level by level (factors per dimension, permutation, spatial split, kept
 * operands), for every bundled cosa architecture and every ResNet-50 layer. */
#include <ctype.h>
#include <math.h>

#include "layer/layer_map.h"
#include "layer/timeloop.h"
#include "layer/timeloop_run.h"
#include "fileio.h"
#include "test.h"

static const char *const ARCHS[] = {"cosa_baseline", "cosa_4xpe", "cosa_sram"};

static void load_arch(const char *name, Arch *a) {
  char path[512];
  SpError err = {0};
  snprintf(path, sizeof path, "%s/arch/%s.json", SPADMAP_DATA_DIR, name);
  CHECK_EQ(Arch_load(path, a, &err), SP_OK);
}

/* One directive of map.yaml. */
typedef struct {
  char target[64], type[16], perm[16];
  int64_t f[DIM_COUNT];
  int split;      /* -1: none */
  unsigned keep;  /* bit per operand */
} Directive;

static unsigned space_bits(const char *list) {
  unsigned bits = 0;
  if (strstr(list, "Weights")) bits |= 1u << OPND_W;
  if (strstr(list, "Inputs")) bits |= 1u << OPND_I;
  if (strstr(list, "Outputs")) bits |= 1u << OPND_O;
  return bits;
}

/* The reader: "  - target: "X"" opens a directive, "    key: value" fills it. */
static int read_map(const char *text, Directive *d, int max) {
  int n = -1;
  for (const char *line = text; *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
    char *v;
    if ((v = strstr(buf, "- target: \""))) {
      if (++n >= max) return -1;
      memset(&d[n], 0, sizeof d[n]);
      d[n].split = -1;
      v += 11;
      snprintf(d[n].target, sizeof d[n].target, "%.*s", (int)strcspn(v, "\""), v);
    } else if (n >= 0 && (v = strstr(buf, "type: "))) {
      snprintf(d[n].type, sizeof d[n].type, "%s", v + 6);
    } else if (n >= 0 && (v = strstr(buf, "permutation: "))) {
      snprintf(d[n].perm, sizeof d[n].perm, "%s", v + 13);
    } else if (n >= 0 && (v = strstr(buf, "split: "))) {
      d[n].split = atoi(v + 7);
    } else if (n >= 0 && (v = strstr(buf, "keep: "))) {
      d[n].keep = space_bits(v);
    } else if (n >= 0 && (v = strstr(buf, "factors: \""))) {
      for (char *p = v + 10; *p && *p != '"';) {
        int dim = -1;
        for (int k = 0; k < DIM_COUNT; k++)
          if (*p == Dim_name((Dim)k)[0]) dim = k;
        if (dim < 0) return -1;
        d[n].f[dim] = strtoll(p + 1, &p, 10);
        while (*p == ' ') p++;
      }
    }
    line += len + (end ? 1 : 0);
  }
  return n + 1;
}

/* The value after "key: " on the first line holding it at or after from. */
static long long yaml_int(const char *from, const char *key) {
  const char *p = strstr(from, key);
  return p ? atoll(p + strlen(key)) : -1;
}

static int dim_of(char c) {
  for (int k = 0; k < DIM_COUNT; k++)
    if (c == Dim_name((Dim)k)[0]) return k;
  return -1;
}

/* Checks the three files against the mapping; returns the failures it found. */
static void check_export(const Arch *a, const Layer *l, const Mapping *m) {
  char *text[TIMELOOP_FILES] = {0};
  SpError err = {0};
  for (int f = 0; f < TIMELOOP_FILES; f++) CHECK_EQ(Timeloop_text(a, l, m, (TimeloopFile)f, &text[f], &err), SP_OK);
  if (!text[0] || !text[1] || !text[2]) goto done;
  /* map.yaml: per level datatype + temporal (+ spatial where it fans out) */
  Directive d[3 * ARCH_MAX_LEVELS + 1];
  int n = read_map(text[TIMELOOP_MAP], d, 3 * ARCH_MAX_LEVELS + 1);
  int want = 0;
  for (int i = 0; i < a->nlevels; i++) want += a->level[i].fanout > 1 ? 3 : 2;
  CHECK_EQ(n, want);
  int64_t prod[DIM_COUNT];
  for (int k = 0; k < DIM_COUNT; k++) prod[k] = 1;
  for (int j = 0; j < n; j++) {
    int i = 0;
    while (i < a->nlevels && strcmp(a->level[i].name, d[j].target)) i++;
    CHECK(i < a->nlevels);
    if (i == a->nlevels) continue;
    if (strcmp(d[j].type, "datatype") == 0) {
      CHECK_EQ(d[j].keep, a->level[i].holds);
    } else if (strcmp(d[j].type, "temporal") == 0) {
      for (int k = 0; k < DIM_COUNT; k++) {
        CHECK_EQ(d[j].f[k], m->t[i][k]);
        prod[k] *= d[j].f[k];
      }
      CHECK_EQ(strlen(d[j].perm), DIM_COUNT);
      for (int k = 0; k < DIM_COUNT; k++) CHECK_EQ(dim_of(d[j].perm[k]), m->order[i][k]);
    } else {
      CHECK(strcmp(d[j].type, "spatial") == 0);
      CHECK(a->level[i].fanout > 1);
      CHECK_EQ(strlen(d[j].perm), DIM_COUNT);
      CHECK(d[j].split >= 0 && d[j].split <= DIM_COUNT);
      int64_t px = 1, py = 1;
      for (int k = 0; k < DIM_COUNT; k++) {
        int dim = dim_of(d[j].perm[k]);
        CHECK(dim >= 0);
        if (dim < 0) continue;
        CHECK_EQ(d[j].f[dim], m->s[i][dim]);
        if (k < d[j].split) px *= d[j].f[dim];
        else py *= d[j].f[dim];
      }
      for (int k = 0; k < DIM_COUNT; k++) prod[k] *= d[j].f[k];
      /* Timeloop's rule: X's product within the X fan-out, Y's within Y's */
      CHECK(px <= a->level[i].fanout_x);
      CHECK(py <= a->level[i].fanout_y);
    }
  }
  for (int k = 0; k < DIM_COUNT; k++) CHECK_EQ(prod[k], Layer_dim(l, (Dim)k));
  /* arch.yaml: the MACs and each level's instances and meshX, in order */
  const char *p = strstr(text[TIMELOOP_ARCH], "arithmetic:");
  CHECK(p != NULL);
  if (p) {
    CHECK_EQ(yaml_int(p, "instances: "), a->macs);
    CHECK_EQ(yaml_int(p, "meshX: "), a->level[0].mesh_x * a->level[0].fanout_x);
  }
  for (int i = 0; i < a->nlevels && p; i++) {
    char key[80];
    snprintf(key, sizeof key, "- name: \"%s\"", a->level[i].name);
    p = strstr(p, key);
    CHECK(p != NULL);
    if (!p) break;
    CHECK_EQ(yaml_int(p, "instances: "), a->level[i].instances);
    CHECK_EQ(yaml_int(p, "meshX: "), a->level[i].mesh_x);
  }
  /* prob.yaml: the bounds and strides */
  for (int k = 0; k < DIM_COUNT; k++) {
    char key[16];
    snprintf(key, sizeof key, "\n    %s: ", Dim_name((Dim)k));
    CHECK_EQ(yaml_int(text[TIMELOOP_PROB], key), Layer_dim(l, (Dim)k));
  }
  CHECK_EQ(yaml_int(text[TIMELOOP_PROB], "Wstride: "), l->stride_h);
done:
  for (int f = 0; f < TIMELOOP_FILES; f++) free(text[f]);
}

TEST(arch_mesh_derived) {
  Arch a;
  load_arch("cosa_baseline", &a);
  /* GlobalBuf feeds the 4x4 PEs (InputBuf mesh_x 4), a PE's 8 lanes are one row */
  int gb = a.nlevels - 2, ib = a.nlevels - 3;
  CHECK_EQ(a.level[gb].fanout_x, 4);
  CHECK_EQ(a.level[gb].fanout_y, 4);
  CHECK_EQ(a.level[ib].mesh_x, 4);
  CHECK_EQ(a.level[ib].fanout_x, 8);
  CHECK_EQ(a.level[ib].fanout_y, 1);
  CHECK_EQ(a.level[0].mesh_x, 256);
  CHECK_EQ(a.level[0].mesh_y, 4);
  load_arch("cosa_4xpe", &a);
  CHECK_EQ(a.level[a.nlevels - 2].fanout_x, 8);
  CHECK_EQ(a.level[a.nlevels - 2].fanout_y, 8);
  /* no mesh_x anywhere: one row, the whole fan-out along X (Timeloop's default) */
  load_arch("smartshuttle", &a);
  CHECK_EQ(a.level[a.nlevels - 2].fanout_x, 168);
  CHECK_EQ(a.level[a.nlevels - 2].fanout_y, 1);
}

TEST(arch_mesh_errors) {
  const char *bad = "{\"format\":\"spadmap-arch\",\"version\":1,\"name\":\"m\",\"source\":\"t\",\"macs\":16,\"mac_pj\":1,"
                    "\"precision\":{\"weights\":1,\"inputs\":1,\"outputs\":1},\"levels\":["
                    "{\"name\":\"PE\",\"instances\":16,\"mesh_x\":5,\"capacity\":64,\"holds\":[\"weights\",\"inputs\","
                    "\"outputs\"],\"bandwidth\":1,\"read_pj\":1,\"write_pj\":1},"
                    "{\"name\":\"DRAM\",\"instances\":1,\"holds\":[\"weights\",\"inputs\",\"outputs\"],\"bandwidth\":1,"
                    "\"read_pj\":1,\"write_pj\":1}]}";
  Arch a;
  SpError err = {0};
  CHECK_EQ(Arch_parse(bad, strlen(bad), "m.json", &a, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "levels[0]");
  CHECK_HAS(err.text, "mesh_x 5 must divide instances 16");
}

TEST(spatial_split_rule) {
  Arch a;
  load_arch("cosa_baseline", &a);
  Layer l;
  SpError err = {0};
  CHECK_EQ(Layer_parse("1_14_256_1024_1", &l, &err), SP_OK);
  int gb = a.nlevels - 2;
  Mapping m;
  Mapping_init(&m, &a, &l);
  /* K16 over the 4x4 PEs: one dimension cannot run along both axes */
  m.t[a.nlevels - 1][DIM_K] /= 16;
  m.s[gb][DIM_K] = 16;
  char why[200];
  CHECK(!Mapping_valid(&m, &a, &l, why, sizeof why, NULL));
  CHECK_HAS(why, "do not split over its 4x4 array");
  /* K4 x C4: one per axis */
  m.t[a.nlevels - 1][DIM_K] *= 4;
  m.s[gb][DIM_K] = 4;
  m.t[a.nlevels - 1][DIM_C] /= 4;
  m.s[gb][DIM_C] = 4;
  unsigned y = 99;
  CHECK(Mapping_spatialSplit(&m, &a, gb, &y));
  CHECK(y == 1u << DIM_C || y == 1u << DIM_K);
  CHECK(Mapping_valid(&m, &a, &l, why, sizeof why, NULL));
  check_export(&a, &l, &m);
}

/* Every ResNet-50 layer on every bundled cosa arch: the paper's cosa (whose MIP
 * must respect the split) and a random mapping, exported and read back. */
TEST(export_resnet50_all_archs) {
  char path[512];
  snprintf(path, sizeof path, "%s/networks/resnet50.json", SPADMAP_DATA_DIR);
  Net *net = NULL;
  SpError err = {0};
  CHECK_EQ(Net_load(path, &net, &err), SP_OK);
  if (!net) return;
  Layer *u;
  int *count, n;
  CHECK_EQ(Layer_unique(net, &u, &count, &n, &err), SP_OK);
  CHECK_EQ(n, 24);
  for (size_t ai = 0; ai < sizeof ARCHS / sizeof ARCHS[0]; ai++) {
    Arch a;
    load_arch(ARCHS[ai], &a);
    int split2d = 0;
    /* under valgrind every 6th layer: 4 MIPs per arch still reach every export path, including the 2-D split */
    for (int i = 0; i < n; i += Test_underValgrind() ? 6 : 1) {
      LayerMapOptions o;
      LayerMapOptions_init(&o);
      /* a time-limited incumbent is as good a test as the optimum. The limit is wall-clock: on a loaded
       * machine 2 s passed before any incumbent on 2 of 72 solves, and 30 s cost 34 s of CPU (MIPs proving
       * optimality); 5 s, and a layer whose MIP found nothing in them is still exported from a random
       * mapping below (said, not failed: the load is not the exporter's fault) */
      o.time_limit = 5;
      LayerMapResult r;
      Status st = LayerMap_cosa(&a, &u[i], &o, &r, &err);
      CHECK(st == SP_OK || st == SP_ERR_LIMIT);
      if (st) {
        printf("  note: %s on %s: %s\n", u[i].name, ARCHS[ai], err.text);
      } else {
        CHECK(r.cost.valid);
        check_export(&a, &u[i], &r.map);
        int gb = a.nlevels - 2, used = 0;
        for (int d = 0; d < DIM_COUNT; d++) used += r.map.s[gb][d] > 1;
        split2d += used >= 2;
      }
      o.samples = 3;
      CHECK_EQ(LayerMap_random(&a, &u[i], &o, &r, &err), SP_OK);
      check_export(&a, &u[i], &r.map);
    }
    CHECK(split2d > 0); /* the PE split is exercised, not only 1-D mappings */
  }
  free(u);
  free(count);
  Net_free(net);
}

TEST(export_refuses) {
  Arch a;
  load_arch("cosa_baseline", &a);
  Layer l;
  SpError err = {0};
  CHECK_EQ(Layer_parse("R=3,S=3,P=14,Q=14,C=8,K=8,N=1,groups=4", &l, &err), SP_OK);
  Mapping m;
  Mapping_init(&m, &a, &l);
  char *t = NULL;
  CHECK_EQ(Timeloop_text(&a, &l, &m, TIMELOOP_MAP, &t, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "groups");
  CHECK(t == NULL);
  CHECK_EQ(Layer_parse("1_14_256_1024_1", &l, &err), SP_OK);
  Mapping_init(&m, &a, &l);
  m.s[a.nlevels - 2][DIM_K] = 16; /* factors no longer multiply to K */
  CHECK_EQ(Timeloop_text(&a, &l, &m, TIMELOOP_MAP, &t, &err), SP_ERR_ARG);
  CHECK_HAS(err.text, "invalid");
}

/* Timeloop's stats read back (bench layer --timeloop): real v1.0 outputs
 * committed in tests/data/timeloop (README there). The summary's Cycles, not the
 * per-level "Cycles : N" lines before it; a file without the block, and
 * mangled numbers, are refused with what is wrong. */
static char *read_sample(const char *name) {
  char path[512], *text = NULL;
  size_t len = 0;
  SpError err = {0};
  snprintf(path, sizeof path, "%s/data/timeloop/%s", SPADMAP_TEST_DIR, name);
  CHECK_EQ(FileIO_read(path, FILE_NETWORK, &text, &len, &err), SP_OK);
  return text;
}

TEST(timeloop_stats_samples) {
  TimeloopStats s;
  SpError err = {0};
  char *t = read_sample("model_fc.stats.txt");
  CHECK_EQ(Timeloop_parseStats(t, &s, &err), SP_OK);
  CHECK(s.cycles == 128128);
  CHECK(fabs(s.energy_uj - 136.98) < 1e-9);
  CHECK(fabs(s.utilization - 0.02) < 1e-9);
  CHECK(s.maccs == 2048000);
  /* a mangled cycle count names its line */
  char *at = t ? strstr(t, "Cycles: 128128") : NULL;
  CHECK(at != NULL);
  if (at) {
    memcpy(at + 8, "x", 1);
    CHECK_EQ(Timeloop_parseStats(t, &s, &err), SP_ERR_FORMAT);
    CHECK_HAS(err.text, "\"Cycles: \" is not followed by a number");
    CHECK_HAS(err.text, "line 24");
  }
  free(t);
  t = read_sample("mapper_fc.stats.txt");
  CHECK_EQ(Timeloop_parseStats(t, &s, &err), SP_OK);
  CHECK(s.cycles == 128128);
  CHECK(fabs(s.energy_uj - 136.06) < 1e-9);
  free(t);
  t = read_sample("truncated.stats.txt");
  CHECK_EQ(Timeloop_parseStats(t, &s, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "no \"Summary Stats\" block");
  free(t);
  CHECK_EQ(Timeloop_parseStats("Summary Stats\n-------------\nUtilization: 0.5\n", &s, &err), SP_ERR_FORMAT);
  CHECK_HAS(err.text, "no \"Cycles: \" line");
}

/* The Hybrid mapper's input: the paper's settings and, per level, the operands
 * the arch file keeps there (the CoSA authors' mapspace constraints). */
TEST(timeloop_mapper_text) {
  Arch a;
  load_arch("cosa_baseline", &a);
  char *t = NULL;
  SpError err = {0};
  CHECK_EQ(Timeloop_mapperText(&a, 2, false, &t, &err), SP_OK);
  if (!t) return;
  CHECK_HAS(t, "algorithm: hybrid");
  CHECK_HAS(t, "num-threads: 2");
  CHECK_HAS(t, "victory-condition: 500");
  CHECK_HAS(t, "timeout: 0");
  CHECK_HAS(t, "  - target: \"GlobalBuf\"\n    type: datatype\n    keep: [Inputs, Outputs]\n    bypass: [Weights]\n");
  CHECK_HAS(t, "  - target: \"DRAM\"\n    type: datatype\n    keep: [Weights, Inputs, Outputs]\n    bypass: []\n");
  CHECK(strstr(t, "type: temporal") == NULL);
  int targets = 0;
  for (const char *p = t; (p = strstr(p, "- target:")); p++) targets++;
  CHECK_EQ(targets, a.nlevels);
  free(t);
  /* the fallback for a mapspace Timeloop finds too large: DRAM's loop order fixed */
  CHECK_EQ(Timeloop_mapperText(&a, 2, true, &t, &err), SP_OK);
  if (t) CHECK_HAS(t, "  - target: \"DRAM\"\n    type: temporal\n    permutation: RSPQCKN\n");
  free(t);
  CHECK_EQ(Timeloop_mapperText(&a, 0, false, &t, &err), SP_ERR_ARG);
}

TEST_MAIN("timeloop", T(arch_mesh_derived), T(arch_mesh_errors), T(spatial_split_rule), T(export_resnet50_all_archs),
          T(export_refuses), T(timeloop_stats_samples),
          T(timeloop_mapper_text))

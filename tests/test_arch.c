/* test_arch: the shipped architecture files load with the fan-outs CoSA's Table V
 * implies, and each kind of broken file gets a clear message (file, JSON path,
 * what was expected). */
#include <stdio.h>
#include <string.h>

#include "layer/arch.h"
#include "test.h"

static Status Arch_loadBundled(const char *name, Arch *a, SpError *err) {
  char path[512];
  snprintf(path, sizeof path, "%s/arch/%s.json", SPADMAP_DATA_DIR, name);
  return Arch_load(path, a, err);
}

TEST(baseline_fanouts) {
  Arch a;
  SpError err = {0};
  CHECK_EQ(Arch_loadBundled("cosa_baseline", &a, &err), SP_OK);
  CHECK_EQ(a.nlevels, 6);
  CHECK_EQ(a.macs, 1024);
  /* registers 1 per MAC, 8 C-lanes under an accumulation buffer, 8 K-lanes per PE, 4x4 PEs */
  int64_t fan[6] = {1, 8, 1, 8, 16, 1};
  for (int i = 0; i < 6; i++) CHECK_EQ(a.level[i].fanout, fan[i]);
  CHECK_EQ(a.noc_level, 4);
  CHECK_EQ(a.level[4].capacity, 131072);
  CHECK_EQ(a.level[3].capacity * a.level[3].instances, 16 * 8192);
  CHECK(Arch_holds(&a, 4, OPND_I) && Arch_holds(&a, 4, OPND_O) && !Arch_holds(&a, 4, OPND_W));
  CHECK_EQ(a.precision[OPND_O], 3);
  CHECK(strstr(a.source, "Table V") != NULL);
}

TEST(variants_scale) {
  Arch b, pe, sram;
  SpError err = {0};
  CHECK_EQ(Arch_loadBundled("cosa_baseline", &b, &err), SP_OK);
  CHECK_EQ(Arch_loadBundled("cosa_4xpe", &pe, &err), SP_OK);
  CHECK_EQ(Arch_loadBundled("cosa_sram", &sram, &err), SP_OK);
  CHECK_EQ(pe.macs, 4 * b.macs);
  CHECK_EQ(pe.level[4].fanout, 64);
  CHECK(pe.level[5].bandwidth == 2 * b.level[5].bandwidth);
  CHECK_EQ(sram.level[4].capacity, 8 * b.level[4].capacity);
  for (int i = 1; i <= 3; i++) CHECK_EQ(sram.level[i].capacity, 2 * b.level[i].capacity);
}

static const char *Good =
    "{\"format\": \"spadmap-arch\", \"version\": 1, \"name\": \"t\", \"source\": \"test\", \"macs\": 4,\n"
    " \"mac_pj\": 1, \"precision\": {\"weights\": 1, \"inputs\": 1, \"outputs\": 2},\n"
    " \"levels\": [{\"name\": \"L1\", \"instances\": 4, \"capacity\": 64, \"holds\": [\"weights\", \"inputs\", \"outputs\"],\n"
    "   \"bandwidth\": 4, \"read_pj\": 1, \"write_pj\": 1},\n"
    "  {\"name\": \"DRAM\", \"instances\": 1, \"holds\": [\"weights\", \"inputs\", \"outputs\"], \"bandwidth\": 2,\n"
    "   \"read_pj\": 100, \"write_pj\": 100}]}";

/* Good with the first occurrence of `from` replaced by `to`; returns the loader's message. */
static Status Arch_mutate(const char *from, const char *to, SpError *err) {
  char text[2048];
  const char *at = strstr(Good, from);
  if (!at) {
    printf("  pattern \"%s\" not in the test document\n", from);
    return SP_ERR_ARG;
  }
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - Good), Good, to, at + strlen(from));
  Arch a;
  return Arch_parse(text, strlen(text), "t.json", &a, err);
}

TEST(good_document) {
  Arch a;
  SpError err = {0};
  CHECK_EQ(Arch_parse(Good, strlen(Good), "t.json", &a, &err), SP_OK);
  CHECK_EQ(a.level[0].fanout, 1);
  CHECK_EQ(a.level[1].fanout, 4);
  CHECK_EQ(a.level[1].capacity, 0);
  CHECK_EQ(a.noc_level, 1);
}

TEST(errors_name_the_place) {
  static const struct { const char *from, *to, *message; } cases[] = {
      {"\"spadmap-arch\"", "\"spadmap-network\"", "t.json: format: expected \"spadmap-arch\""},
      {"\"version\": 1", "\"version\": 2", "t.json: (root).version: expected an integer in 1..1, got number 2"},
      {"\"capacity\": 64", "\"capacity\": -1", "levels[0].capacity: expected an integer in 1.."},
      {"\"capacity\": 64,", "", "levels[0]: missing key \"capacity\""},
      {"\"holds\": [\"weights\", \"inputs\"", "\"holds\": [\"weight\", \"inputs\"",
       "levels[0].holds[0]: expected one of \"weights\", \"inputs\", \"outputs\", got string \"weight\""},
      {"\"instances\": 4", "\"instances\": 3", "levels[0]: instances 3 must divide the MAC count below (4)"},
      {"\"name\": \"DRAM\"", "\"name\": \"L1\"", "levels[1]: name \"L1\" is also levels[0]'s"},
      {"\"bandwidth\": 2", "\"bandwidth\": \"fast\"", "levels[1].bandwidth: expected a number"},
      {"\"macs\": 4", "\"macs\": 4, \"macs\": 8", "(root): duplicate key \"macs\""},
      {"\"outputs\": 2}", "\"outputs\": 9}", "precision.outputs: expected an integer in 1..8, got number 9"},
      {"\"holds\": [\"weights\", \"inputs\", \"outputs\"], \"bandwidth\": 2", "\"holds\": [\"weights\"], \"bandwidth\": 2",
       "the outermost level (\"DRAM\") must hold weights, inputs and outputs"},
      {"\"name\": \"DRAM\", \"instances\": 1,", "\"name\": \"DRAM\", \"instances\": 1, \"capacity\": 10,",
       "levels[1].capacity: the outermost level holds the whole layer and takes no capacity"},
      {"\"name\": \"DRAM\"", "\"name\": \"DR\\u001b[2JAM\"", "levels[1].name: expected printable text"},
      {"\"levels\": [", "\"levels\": 3, \"x\": [", "levels: expected an array of levels, got number 3"},
      {"\"mac_pj\": 1,", "\"mac_pj\": 1", "t.json:2:"}, /* syntax: line:column */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    SpError err = {0};
    Status st = Arch_mutate(cases[i].from, cases[i].to, &err);
    CHECK(st == SP_ERR_FORMAT || st == SP_ERR_SYNTAX);
    CHECK_HAS(err.text, cases[i].message);
  }
}

TEST(missing_file) {
  Arch a;
  SpError err = {0};
  CHECK_EQ(Arch_load("/nonexistent/arch.json", &a, &err), SP_ERR_IO);
  CHECK_HAS(err.text, "/nonexistent/arch.json");
  CHECK_EQ(Arch_load("", &a, &err), SP_ERR_IO);
  CHECK_HAS(err.text, "the path is empty");
}

TEST_MAIN("arch", T(baseline_fanouts), T(variants_scale), T(good_document), T(errors_name_the_place), T(missing_file))

/* Bad input found by mutating files (issues 13 and 14): each case failed before
 * its fix. JSON text the grammar forbids, numbers at full 64-bit width, sizes that
 * overflow, plans that lie, names that carry terminal escapes, files that never
 * end, and the linear-time paths (duplicate keys, cycles, the validator's sweep). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bundled.h"
#include "fileio.h"
#include "figures.h"
#include "json.h"
#include "net.h"
#include "plan.h"
#include "solve.h"
#include "strbuf.h"
#include "test.h"
#include "text.h"
#include "validate.h"

static Status parse_text(const char *text, size_t len, SpError *err) {
  Net *net = NULL;
  memset(err, 0, sizeof *err);
  Status st = Net_parse(text, len, "t.json", &net, err);
  Net_free(net);
  return st;
}

static Status parse(const char *text, SpError *err) { return parse_text(text, strlen(text), err); }

#define HEAD "{\"format\": \"spadmap-network\", \"version\": 1,\n"
#define BODY                                                                                          \
  "\"tensors\": [{\"name\": \"x\", \"shape\": [4], \"kind\": \"input\"}, {\"name\": \"y\", \"shape\": [4], " \
  "\"kind\": \"output\"}],\n\"ops\": [{\"name\": \"op\", \"type\": \"t\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}"

static bool has_byte(const char *s, unsigned char c) {
  for (; *s; s++)
    if ((unsigned char)*s == c) return true;
  return false;
}

/* ---- JSON text ---- */

TEST(control_byte_between_tokens) {
  SpError err;
  CHECK_EQ(parse("{\x01\"format\": \"spadmap-network\", \"version\": 1,\n" BODY, &err), SP_ERR_SYNTAX);
  CHECK_HAS(err.text, "t.json:1:2:");
  CHECK_HAS(err.text, "control character");
  CHECK(!has_byte(err.text, 1));
}

TEST(nul_between_tokens) {
  SpError err;
  char text[512];
  int n = snprintf(text, sizeof text, "%s%s", HEAD, BODY);
  memmove(text + 2, text + 1, (size_t)n); /* {\0"format"... */
  text[1] = '\0';
  CHECK_EQ(parse_text(text, (size_t)n + 1, &err), SP_ERR_SYNTAX);
  CHECK_HAS(err.text, "t.json:1:2:");
  CHECK_HAS(err.text, "NUL");
}

TEST(bad_unicode_escape) {
  SpError err;
  CHECK_EQ(parse(HEAD "\"name\": \"a\\uZZZZ\",\n" BODY, &err), SP_ERR_SYNTAX);
  CHECK_HAS(err.text, "t.json:2:");
  CHECK_HAS(err.text, "\\u");
}

TEST(control_byte_in_string) {
  SpError err;
  CHECK_EQ(parse(HEAD "\"name\": \"a\x1b[2J\",\n" BODY, &err), SP_ERR_SYNTAX);
  CHECK_HAS(err.text, "t.json:2:");
  CHECK(!has_byte(err.text, 0x1b));
}

TEST(deep_nesting_says_why) {
  SpError err;
  size_t n = 1001;
  char *text = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++) text[i] = '[', text[n + i] = ']';
  text[2 * n] = '\0';
  CHECK_EQ(parse(text, &err), SP_ERR_SYNTAX);
  CHECK_HAS(err.text, "t.json:1:1001:");
  CHECK_HAS(err.text, "nesting");
  CHECK_HAS(err.text, "1000");
  free(text);
}

TEST(bad_number_grammar) {
  SpError err;
  CHECK_EQ(parse("{\"a\": 01}", &err), SP_ERR_SYNTAX);
  CHECK_HAS(err.text, "t.json:1:7:");
  CHECK_EQ(parse("{\"a\": +1}", &err), SP_ERR_SYNTAX);
  CHECK_EQ(parse("{\"a\": 1.}", &err), SP_ERR_SYNTAX);
}

TEST(invalid_utf8) {
  SpError err;
  CHECK_EQ(parse(HEAD "\"name\": \"a\xff\",\n" BODY, &err), SP_ERR_SYNTAX);
  CHECK_HAS(err.text, "t.json:2:");
  CHECK_HAS(err.text, "UTF-8");
}

TEST(exact_integers_beyond_2_53) {
  cJSON *root = NULL;
  SpError err = {0};
  const char *text = "[9007199254740993, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1e3]";
  CHECK_EQ(Json_parse(text, strlen(text), "t", &root, &err), SP_OK);
  int64_t v = 0;
  const cJSON *e = root ? root->child : NULL;
  CHECK(e && Json_exactInt(e, &v) && v == INT64_C(9007199254740993));
  e = e ? e->next : NULL;
  CHECK(e && Json_exactInt(e, &v) && v == INT64_MAX);
  e = e ? e->next : NULL;
  CHECK(e && Json_exactInt(e, &v) && v == INT64_MIN);
  e = e ? e->next : NULL;
  CHECK(e && !Json_exactInt(e, &v)); /* 2^63: does not fit */
  e = e ? e->next : NULL;
  CHECK(e && Json_exactInt(e, &v) && v == 1000);
  cJSON_Delete(root);
}

/* A value past int64 is quoted as written, not as a rounded double. */
TEST(big_numbers_quoted_exactly) {
  SpError err;
  CHECK_EQ(parse(HEAD "\"tensors\": [{\"name\": \"x\", \"shape\": [18446744073709551617], \"kind\": \"input\"}],"
                      "\"ops\": []}",
                 &err),
           SP_ERR_FORMAT);
  CHECK_HAS(err.text, "18446744073709551617");
}

/* ---- sizes ---- */

TEST(shape_overflows_despite_bytes) {
  SpError err;
  CHECK_EQ(parse(HEAD "\"tensors\": [{\"name\": \"big\", \"shape\": [4294967296, 4294967296], \"bytes\": 1024, "
                      "\"kind\": \"input\"}, {\"name\": \"y\", \"shape\": [4], \"kind\": \"output\"}],\n"
                      "\"ops\": [{\"name\": \"op\", \"type\": \"t\", \"inputs\": [\"big\"], \"outputs\": [\"y\"]}]}",
                 &err),
           SP_ERR_FORMAT);
  CHECK_HAS(err.text, "\"big\"");
  CHECK_HAS(err.text, "64 bits");
  CHECK_EQ(parse(HEAD "\"tensors\": [{\"name\": \"w\", \"shape\": [2147483648, 2147483648], \"dtype\": \"fp32\", "
                      "\"bytes\": 8, \"kind\": \"input\"}, {\"name\": \"y\", \"shape\": [4], \"kind\": \"output\"}],\n"
                      "\"ops\": [{\"name\": \"op\", \"type\": \"t\", \"inputs\": [\"w\"], \"outputs\": [\"y\"]}]}",
                 &err),
           SP_ERR_FORMAT);
  CHECK_HAS(err.text, "\"w\"");
}

/* M_R = 6e18 fits in 64 bits, M_R + M_P = 1.2e19 does not: the loader refuses the
 * file naming the tensor, rather than M_H coming out negative. */
TEST(figures_cannot_wrap) {
  SpError err;
  const char *text = HEAD "\"tensors\": [{\"name\": \"x\", \"shape\": [1500000000, 2000000000], \"kind\": "
                          "\"input\"}, {\"name\": \"huge\", \"shape\": [2000000000, 1500000000], \"kind\": "
                          "\"output\"}],\n\"ops\": [{\"name\": \"op\", \"type\": \"t\", \"inputs\": [\"x\"], "
                          "\"outputs\": [\"huge\"]}]}";
  Net *net = NULL;
  Status st = Net_parse(text, strlen(text), "t.json", &net, &err);
  if (st == SP_OK) {
    NetFigures f;
    SpError e2;
    if (!Figures_compute(net, false, &f, NULL, &e2)) printf("  M_H came out as %lld\n", (long long)f.m_h);
  }
  Net_free(net);
  CHECK_EQ(st, SP_ERR_FORMAT);
  CHECK_HAS(err.text, "\"huge\"");
}

/* ---- files ---- */

TEST(read_has_a_size_cap) {
  char *text = NULL;
  size_t len = 0;
  SpError err = {0};
  /* a device that never ends: stopped at the kind's cap, not at the largest one */
  CHECK_EQ(FileIO_read("/dev/zero", FILE_ARCH, &text, &len, &err), SP_ERR_IO);
  CHECK(text == NULL);
  CHECK_HAS(err.text, "/dev/zero: larger than the 1 MiB cap for architecture files");
  CHECK_EQ(FileIO_read("/", FILE_NETWORK, &text, &len, &err), SP_ERR_IO);
  CHECK_HAS(err.text, "directory");
}

/* Each kind has its own cap, stated in words the user can act on, and a regular
 * file over it is refused from its size (a sparse 2 MiB file: never read). */
TEST(read_caps_differ_per_kind) {
  CHECK_EQ(FileIO_cap(FILE_ARCH), (size_t)1 << 20);
  CHECK(FileIO_cap(FILE_ARCH) < FileIO_cap(FILE_CSV));
  CHECK(FileIO_cap(FILE_CSV) < FileIO_cap(FILE_PLAN));
  CHECK(FileIO_cap(FILE_NETWORK) < FileIO_cap(FILE_ONNX));
  char path[256];
  const char *t = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/spadmap-cap-XXXXXX", t && *t ? t : "/tmp");
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK_EQ(ftruncate(fd, (off_t)2 << 20), 0);
  close(fd);
  char *text = NULL;
  size_t len = 0;
  SpError err = {0};
  CHECK_EQ(FileIO_read(path, FILE_LESSON, &text, &len, &err), SP_ERR_IO);
  CHECK(text == NULL);
  CHECK_HAS(err.text, ": 2.0 MiB is larger than the 1 MiB cap for lesson files");
  CHECK_EQ(FileIO_read(path, FILE_PLAN, &text, &len, &err), SP_OK); /* the same file is a fine plan's size */
  CHECK_EQ(len, (size_t)2 << 20);
  free(text);
  unlink(path);
}

/* ---- plans ---- */

static Plan *solve(const Net *net, int64_t budget) {
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = budget;
  Plan *plan = NULL;
  SpError err = {0};
  if (Solve_run(net, &s, &plan, &err)) printf("  solve: %s\n", err.text);
  return plan;
}

static Plan *reparse(const Net *net, const char *text, SpError *err) {
  Plan *p = NULL;
  memset(err, 0, sizeof *err);
  if (Plan_parse(text, strlen(text), "p.json", net, &p, err)) return NULL;
  return p;
}

/* Replaces the first `key` value in a plan's JSON with `value` (text). */
static char *set_key(const char *json, const char *key, const char *value) {
  const char *at = strstr(json, key);
  if (!at) return NULL;
  at += strlen(key);
  const char *end = at;
  while (*end && *end != ',' && *end != '}') end++;
  size_t n = strlen(json) + strlen(value) + 1;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(at - json), json, value, end);
  return out;
}

TEST(validator_offset_minus_two) {
  Net *net = Bundled_load("diamond");
  Plan *p = net ? solve(net, 64 * 1024) : NULL;
  CHECK(p != NULL);
  if (p) {
    p->stays[0].offset = -2;
    ValidateReport r;
    CHECK_EQ(Validate_plan(net, p, &r), SP_ERR_FORMAT);
    CHECK_EQ(r.count, 1); /* only "outside [0, budget)", no made-up overlap */
    CHECK(r.nlines >= 1 && strstr(r.lines[0], "outside"));
    for (int i = 0; i < r.nlines; i++) CHECK(!strstr(r.lines[i], "overlaps"));
    ValidateReport_free(&r);
  }
  Plan_free(p);
  Net_free(net);
}

TEST(plan_counts_at_full_width) {
  Net *net = Bundled_load("fig1");
  Plan *p = net ? solve(net, 12 * 1024) : NULL; /* at M_R: one spill, two retrievals */
  CHECK(p && p->metrics.spills >= 1);
  char *json = p ? Plan_toJSON(p, net) : NULL;
  if (json) {
    char v[32];
    snprintf(v, sizeof v, " %lld", (long long)p->metrics.spills + 4294967296LL);
    char *bad = set_key(json, "\"spills\":", v);
    SpError err;
    Plan *q = reparse(net, bad, &err);
    ValidateReport r = {0};
    Status st = q ? Validate_plan(net, q, &r) : SP_ERR_FORMAT;
    CHECK_EQ(st, SP_ERR_FORMAT); /* refused by the reader or the validator, never valid */
    if (!q) CHECK_HAS(err.text, "spills");
    ValidateReport_free(&r);
    Plan_free(q);
    free(bad);
  }
  free(json);
  Plan_free(p);
  Net_free(net);
}

TEST(solver_fields_are_type_checked) {
  Net *net = Bundled_load("fig1");
  Plan *p = net ? solve(net, 64 * 1024) : NULL;
  char *json = p ? Plan_toJSON(p, net) : NULL;
  CHECK(json && strstr(json, "\"seconds\":"));
  if (json) {
    const char *cases[][2] = {{"\"seconds\":", "\"fast\""}, {"\"objective\":", "[]"}, {"\"bound\":", "null"}};
    /* every field present: replace whatever solver block the plan has */
    const char *at = strstr(json, "\"solver\":");
    size_t n = strlen(json) + 128;
    char *with = malloc(n);
    snprintf(with, n, "%.*s\"solver\": {\"status\": \"heuristic\", \"seconds\": 0.5, \"objective\": 1, \"bound\": 0}}\n",
             (int)(at - json), json);
    const char *base = with ? with : json;
    SpError err;
    Plan *ok = reparse(net, base, &err);
    CHECK(ok != NULL);
    Plan_free(ok);
    for (int i = 0; i < 3; i++) {
      char *bad = set_key(base, cases[i][0], cases[i][1]);
      Plan *q = reparse(net, bad, &err);
      CHECK(q == NULL);
      CHECK_HAS(err.text, "solver");
      CHECK_HAS(err.text, cases[i][0] + 1);
      Plan_free(q);
      free(bad);
    }
    free(with);
  }
  free(json);
  Plan_free(p);
  Net_free(net);
}

/* Budgets and offsets above 2^53 survive the file exactly. */
TEST(plan_budget_beyond_2_53) {
  Net *net = Bundled_load("fig1");
  Plan *p = net ? solve(net, 64 * 1024) : NULL;
  CHECK(p != NULL);
  if (p) {
    p->budget = (INT64_C(1) << 53) + 1;
    p->stays[0].offset = (INT64_C(1) << 53) + 3;
    char *json = Plan_toJSON(p, net);
    SpError err;
    Plan *q = json ? reparse(net, json, &err) : NULL;
    if (!q) printf("  %s\n", err.text);
    CHECK(q != NULL);
    if (q) {
      CHECK(q->budget == (INT64_C(1) << 53) + 1);
      CHECK(q->stays[0].offset == (INT64_C(1) << 53) + 3);
    }
    Plan_free(q);
    free(json);
  }
  Plan_free(p);
  Net_free(net);
}

/* x (input, 2^61 bytes) is retrieved four times: the non-compulsory sum is 2^63,
 * past int64. A plan claiming the wrapped sum must not pass. */
TEST(validator_metric_sums_cannot_wrap) {
  char text[2048];
  int n = snprintf(text, sizeof text, "%s\"tensors\": [{\"name\": \"x\", \"shape\": [1], \"bytes\": %lld, \"kind\": "
                   "\"input\"}", HEAD, (long long)(INT64_C(1) << 61));
  for (int i = 0; i < 5; i++)
    n += snprintf(text + n, sizeof text - (size_t)n, ", {\"name\": \"y%d\", \"shape\": [1], \"kind\": \"output\"}", i);
  n += snprintf(text + n, sizeof text - (size_t)n, "],\n\"ops\": [");
  for (int i = 0; i < 5; i++)
    n += snprintf(text + n, sizeof text - (size_t)n, "%s{\"name\": \"op%d\", \"type\": \"t\", \"inputs\": [\"x\"], "
                  "\"outputs\": [\"y%d\"]}", i ? ", " : "", i, i);
  snprintf(text + n, sizeof text - (size_t)n, "]}");
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(text, strlen(text), "t.json", &net, &err), SP_OK);
  if (!net) return;
  Plan *p = Plan_new(net, false, INT64_C(1) << 62);
  for (int i = 0; i < 5; i++) {
    p->order[i] = i;
    Plan_addStay(p, (Stay){0, 0, i, i, i ? STAY_RETRIEVE : STAY_LOAD, STAY_DROP});
    Plan_addStay(p, (Stay){1 + i, INT64_C(1) << 61, i, i, STAY_CREATE, STAY_STORE});
  }
  p->nsteps = 5;
  uint64_t wrapped = 4u * (UINT64_C(1) << 61);
  p->metrics.noncompulsory_bytes = (int64_t)(wrapped - (UINT64_C(1) << 63)) + INT64_MIN; /* the wrapped value */
  p->metrics.compulsory_bytes = (INT64_C(1) << 61) + 5;
  p->metrics.peak_bytes = (INT64_C(1) << 61) + 1;
  p->metrics.footprint_bytes = (INT64_C(1) << 61) + 1;
  p->metrics.retrievals = 4;
  ValidateReport r;
  CHECK_EQ(Validate_plan(net, p, &r), SP_ERR_FORMAT);
  bool said = false;
  for (int i = 0; i < r.nlines; i++) said |= strstr(r.lines[i], "overflow") != NULL;
  CHECK(said);
  ValidateReport_free(&r);
  Plan_free(p);
  Net_free(net);
}

/* ---- names that carry terminal escapes ---- */

TEST(escape_function) {
  char buf[64];
  Text_escape("x\x1b[2J\x1b[31mRED", buf, sizeof buf);
  CHECK(strcmp(buf, "x\\x1b[2J\\x1b[31mRED") == 0);
  Text_escape("caf\xc3\xa9 \xff\xc3", buf, sizeof buf); /* valid é kept, bad bytes shown */
  CHECK(strcmp(buf, "caf\xc3\xa9 \\xff\\xc3") == 0);
  Text_escape("a\xc2\x9b" "b\x7f", buf, sizeof buf); /* C1 CSI and DEL */
  CHECK(strcmp(buf, "a\\u009bb\\x7f") == 0);
  Text_escape("\xe2\x80\xae" "evil", buf, sizeof buf); /* bidi override */
  CHECK(strcmp(buf, "\\u202eevil") == 0);
  Text_escape("\xed\xa0\x80", buf, sizeof buf); /* a UTF-16 surrogate is not UTF-8 */
  CHECK(strcmp(buf, "\\xed\\xa0\\x80") == 0);
  char small[6];
  Text_escape("ab\x1b\x1b", small, sizeof small); /* never a cut escape */
  CHECK(strcmp(small, "ab") == 0);
}

TEST(engine_errors_escape_names) {
  SpError err;
  CHECK_EQ(parse(HEAD "\"tensors\": [{\"name\": \"x\\u001b[2J\\u001b[31mRED\", \"shape\": [4], \"dtype\": \"nope\"}],"
                      "\"ops\": []}",
                 &err),
           SP_ERR_FORMAT);
  CHECK(!has_byte(err.text, 0x1b));
  CHECK_HAS(err.text, "x\\x1b[2J\\x1b[31mRED");
}

TEST(validator_lines_escape_names) {
  const char *text = HEAD "\"tensors\": [{\"name\": \"x\\u001b[2J\", \"shape\": [4], \"kind\": \"input\"}, {\"name\": "
                          "\"y\", \"shape\": [4], \"kind\": \"output\"}],\n\"ops\": [{\"name\": \"op\", \"type\": "
                          "\"t\", \"inputs\": [\"x\\u001b[2J\"], \"outputs\": [\"y\"]}]}";
  Net *net = NULL;
  SpError err;
  CHECK_EQ(Net_parse(text, strlen(text), "t.json", &net, &err), SP_OK);
  if (!net) return;
  Plan *p = solve(net, 1024);
  CHECK(p != NULL);
  if (p) {
    p->stays[0].offset = 2000;
    ValidateReport r;
    CHECK_EQ(Validate_plan(net, p, &r), SP_ERR_FORMAT);
    for (int i = 0; i < r.nlines; i++) CHECK(!has_byte(r.lines[i], 0x1b));
    CHECK(r.nlines >= 1 && strstr(r.lines[0], "x\\x1b[2J"));
    ValidateReport_free(&r);
  }
  Plan_free(p);
  Net_free(net);
}

/* ---- linear paths at scale ---- */

/* CPU time, so a loaded machine does not fail the bound (the quadratic paths
 * took 15-50 s; the linear ones well under 1 s, a few under ASan). */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 100k unknown keys: the duplicate check is n log n (was 12.9 s). */
TEST(many_keys_linear) {
  if (Test_underValgrind()) return;
  StrBuf b = {0};
  StrBuf_printf(&b, HEAD);
  for (int i = 0; i < 100000; i++) StrBuf_printf(&b, "\"k%d\": %d, ", i, i);
  StrBuf_printf(&b, BODY);
  SpError err;
  double t0 = now();
  CHECK(!b.nomem);
  CHECK_EQ(parse_text(b.s, b.len, &err), SP_OK); /* unknown keys are ignored */
  b.len -= strlen(BODY);
  StrBuf_printf(&b, "\"k99999\": 0}"); /* and a duplicate at the very end is found */
  cJSON *root = NULL;
  CHECK_EQ(Json_parse(b.s, b.len, "t", &root, &err), SP_OK);
  const char *dup = Json_duplicateKey(root);
  CHECK(dup && strcmp(dup, "k99999") == 0);
  cJSON_Delete(root);
  double secs = now() - t0;
  if (secs > 8) printf("  100k keys took %.1f s\n", secs);
  CHECK(secs < 8);
  free(b.s);
}

/* 50k ops in a chain whose last two ops form a cycle: found in linear time (was 15.6 s). */
TEST(late_cycle_linear) {
  if (Test_underValgrind()) return;
  int n = 50000;
  StrBuf b = {0};
  StrBuf_printf(&b, HEAD "\"tensors\": [{\"name\": \"t0\", \"shape\": [1], \"kind\": \"input\"}");
  for (int i = 1; i <= n; i++) StrBuf_printf(&b, ", {\"name\": \"t%d\", \"shape\": [1]}", i);
  StrBuf_printf(&b, "],\n\"ops\": [");
  for (int i = 1; i <= n - 2; i++)
    StrBuf_printf(&b, "%s{\"name\": \"o%d\", \"type\": \"t\", \"inputs\": [\"t%d\"], \"outputs\": [\"t%d\"]}",
               i > 1 ? ", " : "", i, i - 1, i);
  /* o(n-1) reads t(n-2) and t(n), o(n) reads t(n-1): a 2-op cycle */
  StrBuf_printf(&b, ", {\"name\": \"o%d\", \"type\": \"t\", \"inputs\": [\"t%d\", \"t%d\"], \"outputs\": [\"t%d\"]}", n - 1,
             n - 2, n, n - 1);
  StrBuf_printf(&b, ", {\"name\": \"o%d\", \"type\": \"t\", \"inputs\": [\"t%d\"], \"outputs\": [\"t%d\"]}]}", n, n - 1, n);
  SpError err;
  double t0 = now();
  CHECK(!b.nomem);
  CHECK_EQ(parse_text(b.s, b.len, &err), SP_ERR_FORMAT);
  double secs = now() - t0;
  CHECK_HAS(err.text, "cycle");
  CHECK_HAS(err.text, "\"o49999\"");
  CHECK_HAS(err.text, "\"o50000\"");
  if (secs > 8) printf("  cycle search took %.1f s\n", secs);
  CHECK(secs < 8);
  free(b.s);
}

/* 20k ops all read by a last op: 20k stays each ~20k steps long. The validator
 * sweeps once (was a bucket per step and stay: 2e8 entries). */
TEST(validator_linear_in_plan) {
  if (Test_underValgrind()) return;
  int n = 20000;
  StrBuf b = {0};
  StrBuf_printf(&b, HEAD "\"tensors\": [{\"name\": \"x\", \"shape\": [1], \"kind\": \"input\"}");
  for (int i = 0; i < n; i++) StrBuf_printf(&b, ", {\"name\": \"t%d\", \"shape\": [16]}", i);
  StrBuf_printf(&b, ", {\"name\": \"y\", \"shape\": [1], \"kind\": \"output\"}],\n\"ops\": [");
  for (int i = 0; i < n; i++)
    StrBuf_printf(&b, "{\"name\": \"o%d\", \"type\": \"t\", \"inputs\": [\"x\"], \"outputs\": [\"t%d\"]}, ", i, i);
  StrBuf_printf(&b, "{\"name\": \"last\", \"type\": \"concat\", \"inputs\": [");
  for (int i = 0; i < n; i++) StrBuf_printf(&b, "%s\"t%d\"", i ? ", " : "", i);
  StrBuf_printf(&b, "], \"outputs\": [\"y\"]}]}");
  Net *net = NULL;
  SpError err;
  CHECK(!b.nomem);
  CHECK_EQ(Net_parse(b.s, b.len, "t.json", &net, &err), SP_OK);
  free(b.s);
  if (!net) return;
  Plan *p = Plan_new(net, false, 16 * (int64_t)n + 2);
  for (int s = 0; s <= n; s++) p->order[s] = s;
  p->nsteps = n + 1;
  Plan_addStay(p, (Stay){0, 16 * (int64_t)n, 0, n - 1, STAY_LOAD, STAY_FREE});
  for (int i = 0; i < n; i++) Plan_addStay(p, (Stay){1 + i, 16 * (int64_t)i, i, n, STAY_CREATE, STAY_FREE});
  Plan_addStay(p, (Stay){n + 1, 16 * (int64_t)n + 1, n, n, STAY_CREATE, STAY_STORE});
  p->metrics = (Metrics){0, 2, 16 * (int64_t)n + 1, 16 * (int64_t)n + 2, 0, 0};
  double t0 = now();
  ValidateReport r;
  Status st = Validate_plan(net, p, &r);
  double secs = now() - t0;
  for (int i = 0; i < r.nlines && i < 3; i++) printf("  %s\n", r.lines[i]);
  CHECK_EQ(st, SP_OK);
  ValidateReport_free(&r);
  /* and an overlap at the very end is still found */
  p->stays[n].offset = 16 * (int64_t)(n - 2) + 8;
  CHECK_EQ(Validate_plan(net, p, &r), SP_ERR_FORMAT);
  CHECK(r.nlines >= 1 && strstr(r.lines[0], "overlaps"));
  ValidateReport_free(&r);
  if (secs > 8) printf("  validate took %.1f s\n", secs);
  CHECK(secs < 8);
  Plan_free(p);
  Net_free(net);
}

TEST_MAIN("badinput", T(control_byte_between_tokens), T(nul_between_tokens), T(bad_unicode_escape), T(control_byte_in_string), T(deep_nesting_says_why), T(bad_number_grammar), T(invalid_utf8), T(exact_integers_beyond_2_53), T(big_numbers_quoted_exactly), T(shape_overflows_despite_bytes), T(figures_cannot_wrap), T(read_has_a_size_cap), T(read_caps_differ_per_kind), T(validator_offset_minus_two), T(plan_counts_at_full_width), T(solver_fields_are_type_checked), T(plan_budget_beyond_2_53), T(validator_metric_sums_cannot_wrap), T(escape_function), T(engine_errors_escape_names), T(validator_lines_escape_names), T(many_keys_linear), T(late_cycle_linear), T(validator_linear_in_plan))

/* Scale work (issue 14): the plan writer prints what cJSON printed, byte for
 * byte, without a node per name; loading, writing and reading a 50k-op plan
 * stays linear; COSMA FS's model builder stops at its time limit and on cancel
 * instead of building millions of pair rows it can never load. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cosma/cosma.h"
#include "fileio.h"
#include "figures.h"
#include "json.h"
#include "net.h"
#include "plan.h"
#include "solve.h"
#include "strbuf.h"
#include "test.h"
#include "validate.h"

static Net *parse(const StrBuf *b) {
  CHECK(!b->nomem);
  Net *net = NULL;
  SpError err;
  Status st = Net_parse(b->s, b->len, "t.json", &net, &err);
  if (st) printf("  %s\n", err.text);
  CHECK_EQ(st, SP_OK);
  return net;
}

/* Names with every control byte, quotes, backslashes, a slash and UTF-8: the
 * writer's own escaping must give exactly cJSON's text for the same object. */
TEST(plan_writer_matches_cjson) {
  static const char *const odd[] = {"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
                                    "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b"
                                    "\\u001c\\u001d\\u001e\\u001f !#",
                                    "q\\\"b\\\\c/d\\u00e9\\u4e2d\\ud83d\\ude00", "\\u007f\\u001b[31m", "plain"};
  StrBuf b = {0};
  StrBuf_printf(&b, "{\"format\": \"spadmap-network\", \"version\": 1, \"name\": \"n\\\"\\n\", \"tensors\": ["
                 "{\"name\": \"in\", \"shape\": [4], \"kind\": \"input\"}");
  for (int i = 0; i < 4; i++) StrBuf_printf(&b, ", {\"name\": \"t%s\", \"shape\": [%d]%s}", odd[i], 8 + i, i == 3 ? ", \"kind\": \"output\"" : "");
  StrBuf_printf(&b, "], \"ops\": [");
  for (int i = 0; i < 4; i++)
    StrBuf_printf(&b, "%s{\"name\": \"o%s\", \"type\": \"x\", \"inputs\": [\"%s%s\"], \"outputs\": [\"t%s\"]}", i ? ", " : "",
               odd[i], i ? "t" : "in", i ? odd[i - 1] : "", odd[i]);
  StrBuf_printf(&b, "]}");
  Net *net = parse(&b);
  free(b.s);
  if (!net) return;
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = 1 << 20;
  Plan *plan = NULL;
  SpError err;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
  if (!plan) {
    Net_free(net);
    return;
  }
  /* a few stays with 64-bit offsets and negative steps too */
  CHECK_EQ(Plan_addStay(plan, (Stay){.tensor = 1, .offset = INT64_MAX - 7, .start = -3, .end = 2147483647,
                                     .in = STAY_RETRIEVE, .out = STAY_STORE}), SP_OK);
  char *text = Plan_toJSON(plan, net);
  CHECK(text != NULL);
  for (int i = 0; text && i < plan->nstays; i++) { /* the old writer's object, printed by cJSON */
    const Stay *st = &plan->stays[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tensor", net->tensors[st->tensor].name);
    char off[32];
    snprintf(off, sizeof off, "%lld", (long long)st->offset);
    cJSON_AddItemToObject(o, "offset", cJSON_CreateRaw(off));
    cJSON_AddNumberToObject(o, "start", st->start);
    cJSON_AddNumberToObject(o, "end", st->end);
    cJSON_AddStringToObject(o, "in", StayIn_name(st->in));
    cJSON_AddStringToObject(o, "out", StayOut_name(st->out));
    char *want = cJSON_PrintUnformatted(o);
    CHECK_HAS(text, want);
    cJSON_free(want);
    cJSON_Delete(o);
  }
  for (int q = 0; text && q < plan->nsteps; q++) {
    cJSON *n = cJSON_CreateString(net->ops[plan->order[q]].name);
    char *want = cJSON_PrintUnformatted(n);
    CHECK_HAS(text, want);
    cJSON_free(want);
    cJSON_Delete(n);
  }
  /* and it reads back to the same plan */
  Plan *back = NULL;
  CHECK_EQ(Plan_parse(text, strlen(text), "p.json", net, &back, &err), SP_OK);
  if (back) {
    CHECK_EQ(back->nstays, plan->nstays);
    for (int i = 0; i < plan->nstays && i < back->nstays; i++) {
      const Stay *x = &back->stays[i], *y = &plan->stays[i];
      CHECK(x->tensor == y->tensor && x->offset == y->offset && x->start == y->start && x->end == y->end &&
            x->in == y->in && x->out == y->out);
    }
  }
  Plan_free(back);
  free(text);
  Plan_free(plan);
  Net_free(net);
}

/* ---- Json_parseArena builds the tree Json_parse (cJSON) builds ---- */

static bool same_tree(const cJSON *x, const cJSON *y) {
  for (; x && y; x = x->next, y = y->next) {
    if ((x->type & 0xFF) != (y->type & 0xFF)) return false;
    if ((x->string == NULL) != (y->string == NULL) || (x->string && strcmp(x->string, y->string))) return false;
    if ((x->valuestring == NULL) != (y->valuestring == NULL) || (x->valuestring && strcmp(x->valuestring, y->valuestring)))
      return false;
    if (cJSON_IsNumber(x) && (memcmp(&x->valuedouble, &y->valuedouble, sizeof(double)) || x->valueint != y->valueint))
      return false;
    if (cJSON_IsBool(x) && x->valueint != y->valueint) return false;
    if ((x->child == NULL) != (y->child == NULL)) return false;
    if (x->child) {
      const cJSON *tx = x->child, *ty = y->child;
      while (tx->next) tx = tx->next;
      while (ty->next) ty = ty->next;
      if (x->child->prev != tx || (y->child->prev != NULL && y->child->prev != ty)) return false; /* head->prev: the tail */
      if (!same_tree(x->child, y->child)) return false;
    }
  }
  return x == NULL && y == NULL;
}

static int compared;

static void check_same(const char *text, size_t len, const char *label) {
  cJSON *a = NULL, *c = NULL;
  SpError ea, ec;
  Status sa = Json_parseArena(text, len, label, &a, &ea), sc = Json_parse(text, len, label, &c, &ec);
  CHECK_EQ(sa, sc);
  if (sa && sc) CHECK(strcmp(ea.text, ec.text) == 0);
  if (!sa && !sc) {
    bool same = same_tree(a, c);
    CHECK(same);
    if (!same) printf("  %s: the trees differ\n", label);
    compared++;
  }
  Json_freeArena(a);
  cJSON_Delete(c);
}

static void check_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text;
    size_t len;
    SpError err;
    if (FileIO_read(path, FILE_NETWORK, &text, &len, &err)) continue;
    check_same(text, len, path);
    for (size_t cut = 1; cut < len; cut += len / 7 + 1) check_same(text, cut, path); /* truncated: same errors */
    free(text);
  }
  closedir(d);
}

TEST(arena_tree_equals_cjson_tree) {
  static const char *const docs[] = {
    "{\"a\": [1, -0, 0.5, -2.5e-3, 1E+2, 123456789012345, 1234567890123456, -9223372036854775808, 18446744073709551615, "
    "2147483647, 2147483648, -2147483649, 1e400, -1e400, 3.14159265358979323846], \"b\": {\"\": \"\", \"k\": null}, "
    "\"c\": [true, false, [], {}, [[]]], \"s\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u4e2d\\ud83d\\ude00\\u001f\\u0001 é中\"}",
    "\xEF\xBB\xBF [ \"bom\" , 1 ]\r\n", "  \"just a string\"  ", "0", "-1.5", "null", "{\"a\":1,\"a\":2}",
    "{\"a\": [1, 2", "{\"x\": \"\\uZZZZ\"}", "[01]", "{\"k\" 1}",
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) check_same(docs[i], strlen(docs[i]), "doc");
  static const char *const dirs[] = {SPADMAP_DATA_DIR "/networks", SPADMAP_TEST_DIR "/fuzz/corpus/net",
                                     SPADMAP_TEST_DIR "/fuzz/corpus/plan", SPADMAP_TEST_DIR "/fuzz/seeds/net",
                                     SPADMAP_TEST_DIR "/fuzz/seeds/plan"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) check_dir(dirs[i]);
  CHECK(compared > 40);
}

/* Transformer-like blocks as in `spadmap bench scale`, about nops ops. */
static void scale_net(StrBuf *b, int nblocks) {
  StrBuf_printf(b, "{\"format\": \"spadmap-network\", \"version\": 1, \"tensors\": [{\"name\": \"x\", \"shape\": [4096], \"kind\": \"input\"}");
  for (int k = 0; k < nblocks; k++)
    StrBuf_printf(b, ",\n{\"name\": \"w%d\", \"shape\": [2048], \"kind\": \"param\"}, {\"name\": \"a%d\", \"shape\": [%d]}, "
                  "{\"name\": \"b%d\", \"shape\": [%d]}, {\"name\": \"c%d\", \"shape\": [1024]%s}",
               k, k, 1024 * (1 + k % 5), k, 1024 * (1 + k % 3), k, k == nblocks - 1 ? ", \"kind\": \"output\"" : "");
  StrBuf_printf(b, "],\n\"ops\": [");
  for (int k = 0; k < nblocks; k++) {
    char x[24];
    if (k) snprintf(x, sizeof x, "c%d", k - 1);
    else snprintf(x, sizeof x, "x");
    StrBuf_printf(b, "%s\n{\"name\": \"a%d\", \"type\": \"mm\", \"inputs\": [\"%s\", \"w%d\"], \"outputs\": [\"a%d\"]}, "
                  "{\"name\": \"b%d\", \"type\": \"act\", \"inputs\": [\"a%d\"], \"outputs\": [\"b%d\"]}, "
                  "{\"name\": \"c%d\", \"type\": \"add\", \"inputs\": [\"%s\", \"b%d\"], \"outputs\": [\"c%d\"]}",
               k ? "," : "", k, x, k, k, k, k, k, k, x, k, k);
  }
  StrBuf_printf(b, "]}\n");
}

/* Load, default solve, write and read back 51k ops, and validate what was read.
 * No time is asserted (speed targets live in `spadmap bench scale`); a quadratic
 * path coming back would show there, and as a test that no longer ends. */
TEST(load_write_read_stay_linear) {
  int nblocks = Test_instrumented() ? 2000 : 17000;
  StrBuf b = {0};
  scale_net(&b, nblocks);
  Net *net = parse(&b);
  free(b.s);
  if (!net) return;
  CHECK_EQ(net->nops, 3 * nblocks);
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = Figures_minRequired(net, false);
  Plan *plan = NULL;
  SpError err;
  CHECK_EQ(Solve_run(net, &s, &plan, &err), SP_OK);
  char *text = plan ? Plan_toJSON(plan, net) : NULL;
  Plan *back = NULL;
  CHECK(text != NULL);
  if (text) CHECK_EQ(Plan_parse(text, strlen(text), "p.json", net, &back, &err), SP_OK);
  if (back && plan) {
    CHECK_EQ(back->nstays, plan->nstays);
    CHECK_EQ(back->nsteps, plan->nsteps);
    ValidateReport rep;
    CHECK_EQ(Validate_plan(net, back, &rep), SP_OK);
    CHECK_EQ(rep.count, 0);
    ValidateReport_free(&rep);
  }
  free(text);
  Plan_free(back);
  Plan_free(plan);
  Net_free(net);
}

/* A chain where op i also reads the output of op i - k: about k tensors live at
 * every step, so COSMA FS's full model has ~n*k ordering pairs. */
static Net *skip_net(int n, int k) {
  StrBuf b = {0};
  StrBuf_printf(&b, "{\"format\": \"spadmap-network\", \"version\": 1, \"tensors\": [{\"name\": \"x\", \"shape\": [64], \"kind\": \"input\"}");
  for (int i = 0; i < n; i++)
    StrBuf_printf(&b, ", {\"name\": \"t%d\", \"shape\": [%d]%s}", i, 64 + (i * 37) % 64, i == n - 1 ? ", \"kind\": \"output\"" : "");
  StrBuf_printf(&b, "], \"ops\": [");
  for (int i = 0; i < n; i++) {
    char prev[24], far[40] = "";
    if (i) snprintf(prev, sizeof prev, "t%d", i - 1);
    else snprintf(prev, sizeof prev, "x");
    if (i >= k) snprintf(far, sizeof far, ", \"t%d\"", i - k);
    StrBuf_printf(&b, "%s{\"name\": \"o%d\", \"type\": \"f\", \"inputs\": [\"%s\"%s], \"outputs\": [\"t%d\"]}", i ? ", " : "", i,
               prev, far, i);
  }
  StrBuf_printf(&b, "]}");
  Net *net = parse(&b);
  free(b.s);
  return net;
}

static void check_stopped_fs(atomic_int *cancel, double time_limit, SolverStatus want) {
  Net *net = skip_net(1200, 500);
  if (!net) return;
  int *order = malloc(sizeof(int) * (size_t)net->nops);
  for (int i = 0; i < net->nops; i++) order[i] = i;
  SolveSettings s;
  SolveSettings_init(&s);
  s.budget = 20000; /* above M_R, far below the peak: spills are needed */
  s.time_limit = time_limit;
  s.cancel = cancel;
  CosmaFsOptions opt = {0};
  CosmaFsStats stats;
  Plan *plan = NULL;
  SpError err;
  CHECK_EQ(Cosma_replacement(net, &s, order, &opt, &plan, &stats, &err), SP_OK);
  /* the builder stopped: the full model (hundreds of thousands of pairs, far
   * more nonzeros than GLPK could load in the limit) was never completed */
  CHECK(!stats.full_ran);
  CHECK_EQ(stats.relax_status, SOLVER_NONE); /* nor the replacement-only one (the old code built and solved it) */
  if (plan) {
    CHECK_EQ(plan->solver.status, want);
    CHECK(plan->metrics.noncompulsory_bytes > 0);
    ValidateReport rep;
    CHECK_EQ(Validate_plan(net, plan, &rep), SP_OK);
    CHECK_EQ(rep.count, 0); /* the heuristic incumbent */
    ValidateReport_free(&rep);
  }
  Plan_free(plan);
  free(order);
  Net_free(net);
}

TEST(cosma_fs_builder_stops_at_the_time_limit) { check_stopped_fs(NULL, 0.01, SOLVER_TIMEOUT); }

TEST(cosma_fs_builder_stops_on_cancel) {
  atomic_int cancel = 1;
  check_stopped_fs(&cancel, 0, SOLVER_CANCELLED);
}

TEST_MAIN("scale", T(arena_tree_equals_cjson_tree), T(plan_writer_matches_cjson), T(load_write_read_stay_linear), T(cosma_fs_builder_stops_at_the_time_limit),
          T(cosma_fs_builder_stops_on_cancel))

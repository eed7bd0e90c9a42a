/* lesson_load: reading a lesson file (see lesson.h). The file is data, and may
 * come from anyone: it is read only if it is a regular file under the lesson
 * cap, parsed by engine/json.c (grammar, control bytes, depth, duplicate keys),
 * every key must be one this reader knows, every string is printable text, a
 * network is a bundled one or a file beside the lesson (no absolute path, no
 * ".."), and the learner's invited key is a harmless one. Nothing here runs an
 * action, types into a prompt or writes a file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "actions.h"
#include "datadir.h"
#include "fileio.h"
#include "json.h"
#include "lesson.h"
#include "policy.h"

enum {
  LESSON_MAX_STAGES = 64,
  LESSON_MAX_TEXT = 16,    /* paragraphs per stage */
  LESSON_MAX_PARA = 2000,  /* bytes per paragraph (the pane fills 4096) */
  LESSON_MAX_CLAIMS = 32,
  LESSON_MAX_TIME = 10     /* seconds an ILP stage may search: the stage is shown on the UI thread */
};

/* The actions a stage may invite the learner to press: they look and compare,
 * never prompt, write, open a file or leave. */
static const char *const Lesson_tryable[] = {
  "legend", "budget_mr", "budget_mh", "budget_mp", "budget_up", "budget_down", "schedule", "replacement", "allocator",
  "params", "step_left", "step_right", "first_step", "last_step", "peak", "zoom_in", "zoom_out", "pan_left", "pan_right",
  "page_left", "page_right", "addr_in", "addr_out", "addr_up", "addr_down", "reset_view", "next_tensor", "prev_tensor",
  "unselect", "next_spill", "prev_spill", "tensor_next", "tensor_prev", "sweep", "pin", "flip", "first_difference", "layer", "offchip",
  "layer_method_next", "layer_method_prev", "layer_arch", "layer_group_up", "layer_group_down", "steps_prev",
  "steps_next", "steps_page_prev", "steps_page_next", "steps_first", "steps_last", NULL};

static bool Lesson_inList(const char *const *list, const char *s) {
  for (int i = 0; list[i]; i++)
    if (strcmp(list[i], s) == 0) return true;
  return false;
}

typedef struct {
  const char *file, *dir; /* dir: the lesson's folder, for networks beside it */
  SpError *err;
} Lr;

static Status Lr_fail(Lr *r, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Status Lr_fail(Lr *r, const char *path, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return SpError_set(r->err, SP_ERR_FORMAT, "%s: %s: %s", r->file, path, what);
}

static char *Lr_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Every member of obj is one of keys (NULL-terminated), and none is there twice. */
static Status Lr_keys(Lr *r, const cJSON *obj, const char *path, const char *const *keys, const char *expected) {
  const char *dup = Json_duplicateKey(obj);
  char p[512];
  if (dup) {
    Json_pathKey(p, sizeof p, path, dup);
    return Lr_fail(r, p, "%s", "a key given twice (which one was meant?)");
  }
  const cJSON *it;
  cJSON_ArrayForEach(it, obj) if (!Lesson_inList(keys, it->string)) {
    Json_pathKey(p, sizeof p, path, it->string);
    char what[400];
    snprintf(what, sizeof what, "unknown key (expected %s)", expected);
    return Lr_fail(r, p, "%s", what);
  }
  return SP_OK;
}

/* Printable text: no control byte (a terminal escape) anywhere. */
static bool Lr_printable(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p < 0x20 || *p == 0x7f) return false;
  return true;
}

/* A string member into *out (malloc'd); NULL when absent and not required. */
static Status Lr_string(Lr *r, const cJSON *obj, const char *key, const char *path, bool required, char **out) {
  *out = NULL;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  char p[512];
  Json_pathKey(p, sizeof p, path, key);
  if (!v) return required ? Lr_fail(r, p, "%s", "missing (expected a string)") : SP_OK;
  if (!cJSON_IsString(v) || !v->valuestring[0]) return Lr_fail(r, p, "%s", "expected a non-empty string");
  if (!Lr_printable(v->valuestring)) return Lr_fail(r, p, "%s", "a control character in the text (only printable text)");
  if (strlen(v->valuestring) > LESSON_MAX_PARA) return Lr_fail(r, p, "%s", "longer than 2000 bytes");
  if (!(*out = Lr_dup(v->valuestring))) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  return SP_OK;
}

/* A network: a bundled name ("nasnet_a"), a file in the data folder
 * ("onnx/resnet18.onnx") or a file beside the lesson; never an absolute path or "..". */
static Status Lr_network(Lr *r, const char *arg, const char *path, char **out) {
  *out = NULL;
  if (arg[0] == '/' || strstr(arg, "..") || arg[0] == '~')
    return Lr_fail(r, path, "\"%s\": expected a bundled network or a file beside the lesson (no absolute path, no ..)", arg);
  struct stat sb;
  char cand[3][2048];
  /* never the working folder: a bundled name, the data folder, the lesson's folder */
  snprintf(cand[0], sizeof cand[0], "%s/networks/%s.json", Data_dir(), arg);
  snprintf(cand[1], sizeof cand[1], "%s", Data_file(arg));
  snprintf(cand[2], sizeof cand[2], "%s/%s", r->dir, arg);
  for (int i = 0; i < 3; i++)
    if (stat(cand[i], &sb) == 0 && S_ISREG(sb.st_mode)) {
      if (strlen(cand[i]) >= 1024) break;
      if (!(*out = Lr_dup(cand[i]))) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
      return SP_OK;
    }
  return Lr_fail(r, path, "no network \"%s\" (a bundled name, a file in the data folder or beside the lesson)", arg);
}

static const char *const Lr_planKeys[] = {"budget", "policies", NULL};
static const char *const Lr_policyKeys[] = {"schedule", "replacement", "allocator", NULL};

/* {"budget": "M_R*1.15", "policies": {"replacement": "belady", ...}}. The budget is
 * checked against the network when the stage is shown (it needs M_R ...); the
 * policy names here. *searching: one of them is an ILP. */
static Status Lr_plan(Lr *r, const cJSON *obj, const char *path, LessonPlan *p, bool *searching) {
  Status st = SP_OK;
  if (!st) st = Lr_string(r, obj, "budget", path, false, &p->budget);
  const cJSON *pol = cJSON_GetObjectItemCaseSensitive(obj, "policies");
  char pp[512];
  Json_pathKey(pp, sizeof pp, path, "policies");
  if (!st && pol && !cJSON_IsObject(pol))
    st = Lr_fail(r, pp, "%s", "expected an object: {\"schedule\": NAME, \"replacement\": NAME, \"allocator\": NAME}");
  if (!st && pol) st = Lr_keys(r, pol, pp, Lr_policyKeys, "schedule, replacement, allocator");
  for (int k = 0; !st && pol && k < POLICY_KIND_COUNT; k++) {
    st = Lr_string(r, pol, PolicyKind_name((PolicyKind)k), pp, false, &p->policy[k]);
    if (st || !p->policy[k]) continue;
    int found = -1;
    for (int i = 0; i < App_policyCount((PolicyKind)k); i++)
      if (strcmp(App_policy((PolicyKind)k, i)->name, p->policy[k]) == 0) found = i;
    char pk[600];
    Json_pathKey(pk, sizeof pk, pp, PolicyKind_name((PolicyKind)k));
    if (found < 0) st = Lr_fail(r, pk, "no %s policy of that name (spadmap solve --help lists them)", PolicyKind_name((PolicyKind)k));
    else if (App_policy((PolicyKind)k, found)->searching) *searching = true;
  }
  return st;
}

static const char *const Lr_layerKeys[] = {"op", "method", "arch", "group", NULL};

static Status Lr_layer(Lr *r, const cJSON *obj, const char *path, LessonLayer *ly, char **op) {
  Status st = Lr_keys(r, obj, path, Lr_layerKeys, "op, method, arch, group");
  if (!st && op) st = Lr_string(r, obj, "op", path, true, op);
  else if (!st && cJSON_GetObjectItemCaseSensitive(obj, "op")) {
    char p[512];
    Json_pathKey(p, sizeof p, path, "op");
    st = Lr_fail(r, p, "%s", "the op is the shown layer's (\"layer\": {\"op\": ...})");
  }
  if (!st) st = Lr_string(r, obj, "method", path, false, &ly->method);
  if (!st) st = Lr_string(r, obj, "arch", path, false, &ly->arch);
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(obj, "group");
  int64_t gv;
  if (!st && g) {
    char p[512];
    Json_pathKey(p, sizeof p, path, "group");
    if (!Json_exactInt(g, &gv) || gv < 1 || gv > 4096) st = Lr_fail(r, p, "%s", "expected patches per step, 1 to 4096");
    else ly->group = (int)gv;
  }
  return st;
}

/* Every {placeholder} names a figure whose plan the stage has, or {key:ACTION}. */
static Status Lr_placeholders(Lr *r, const LessonStage *s, const char *text, const char *path) {
  for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
    const char *end = strchr(p, '}');
    char name[96], what[300], plan[32];
    if (!end || end - p - 1 >= (long)sizeof name) return Lr_fail(r, path, "%s", "a '{' without its '}' (placeholders are {plan.quantity})");
    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
    if (strncmp(name, "key:", 4) == 0) {
      if (Actions_keyOf(name + 4) == 0) return Lr_fail(r, path, "{%s}: no action of that name in the action table", name);
      continue;
    }
    if (!Lesson_isFigure(name, plan, sizeof plan)) {
      snprintf(what, sizeof what, "{%s}: not a figure (current.spills, pinned.traffic, layer.cycles, ...: docs/lessons.md lists them)", name);
      return Lr_fail(r, path, "%s", what);
    }
    bool have = strcmp(plan, "pinned") == 0 ? s->has_pinned
                : strcmp(plan, "layer") == 0 ? s->has_layer
                : strcmp(plan, "pinned_layer") == 0 ? s->has_pinned_layer
                : true;
    if (!have) {
      snprintf(what, sizeof what, "{%s}: this stage declares no \"%s\" plan", name, plan);
      return Lr_fail(r, path, "%s", what);
    }
  }
  return SP_OK;
}

static const char *const Lr_claimKeys[] = {"a", "op", "b", "says", NULL};
static const char *const Lr_ops[] = {"<", "<=", "==", "!=", ">=", ">", NULL};

static Status Lr_figureRef(Lr *r, const LessonStage *s, const char *name, const char *path) {
  char text[160];
  snprintf(text, sizeof text, "{%s}", name);
  return Lr_placeholders(r, s, text, path);
}

static Status Lr_claim(Lr *r, const cJSON *obj, const char *path, LessonStage *s, LessonClaim *c) {
  if (!cJSON_IsObject(obj)) return Lr_fail(r, path, "%s", "expected {\"a\": FIGURE, \"op\": \"<\", \"b\": FIGURE or a value}");
  Status st = Lr_keys(r, obj, path, Lr_claimKeys, "a, op, b, says");
  char *op = NULL, pa[512];
  c->scale = 1;
  if (!st) st = Lr_string(r, obj, "a", path, true, &c->a);
  Json_pathKey(pa, sizeof pa, path, "a");
  if (!st) st = Lr_figureRef(r, s, c->a, pa);
  if (!st) st = Lr_string(r, obj, "op", path, true, &op);
  if (!st) {
    int k = -1;
    for (int i = 0; Lr_ops[i]; i++)
      if (strcmp(Lr_ops[i], op) == 0) k = i;
    Json_pathKey(pa, sizeof pa, path, "op");
    if (k < 0) st = Lr_fail(r, pa, "%s", "expected one of < <= == != >= >");
    else c->op = (ClaimOp)k;
  }
  free(op);
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(obj, "b");
  Json_pathKey(pa, sizeof pa, path, "b");
  if (!st && !b) st = Lr_fail(r, pa, "%s", "missing (a figure's name, a number or \"text\" in quotes)");
  if (!st && cJSON_IsNumber(b)) c->num = b->valuedouble;
  else if (!st && cJSON_IsString(b)) {
    const char *t = b->valuestring;
    size_t n = strlen(t);
    if (!Lr_printable(t) || n > 120) st = Lr_fail(r, pa, "%s", "expected printable text of at most 120 bytes");
    else if (n >= 2 && t[0] == '"' && t[n - 1] == '"') { /* a literal text: "\"optimal\"" */
      if (!(c->b_text = malloc(n - 1))) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
      snprintf(c->b_text, n - 1, "%.*s", (int)(n - 2), t + 1);
    } else {
      if (!(c->b = Lr_dup(t))) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
      char *star = strchr(c->b, '*'), *end = NULL;
      if (star) { /* a factor: "pinned.traffic*2.5" */
        *star = '\0';
        c->scale = strtod(star + 1, &end);
        if (end == star + 1 || *end || !(c->scale > 0) || c->scale > 1e9)
          st = Lr_fail(r, pa, "\"%s\": expected FIGURE*FACTOR, a factor above 0", t);
      }
      if (!st) st = Lr_figureRef(r, s, c->b, pa);
    }
  } else if (!st) st = Lr_fail(r, pa, "%s", "expected a figure's name, a number or \"text\" in quotes");
  if (!st) st = Lr_string(r, obj, "says", path, false, &c->says);
  return st;
}

static const char *const Lr_stageKeys[] = {"title", "network", "budget", "policies", "pinned", "time_limit", "view",
                                           "flip", "cursor", "layer", "pinned_layer", "text", "try", "claims", NULL};
static const char *const Lr_views[] = {"map", "layer", "offchip", "sweep", NULL};

static Status Lr_cursor(Lr *r, const cJSON *c, const char *path, LessonStage *s) {
  int64_t v;
  if (Json_exactInt(c, &v)) {
    if (v < 0 || v > 1000000) return Lr_fail(r, path, "%s", "expected a step from 0");
    s->at = LESSON_AT_STEP;
    s->at_n = (int)v;
    return SP_OK;
  }
  if (cJSON_IsString(c) && strcmp(c->valuestring, "peak") == 0) {
    s->at = LESSON_AT_PEAK;
    return SP_OK;
  }
  static const char *const keys[] = {"spill", "spill_of", "tensor", NULL};
  const char *expected = "expected a step, \"peak\", {\"spill\": N}, {\"spill_of\": TENSOR} or {\"tensor\": TENSOR}";
  if (!cJSON_IsObject(c) || cJSON_GetArraySize(c) != 1) return Lr_fail(r, path, "%s", expected);
  Status st = Lr_keys(r, c, path, keys, "spill, spill_of or tensor");
  if (st) return st;
  const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "spill");
  if (n) {
    if (!Json_exactInt(n, &v) || v < 1 || v > 1000000) return Lr_fail(r, path, "%s", "spill: expected N from 1 (the N-th spill)");
    s->at = LESSON_AT_SPILL;
    s->at_n = (int)v;
    return SP_OK;
  }
  s->at = cJSON_GetObjectItemCaseSensitive(c, "tensor") ? LESSON_AT_TENSOR : LESSON_AT_SPILL_OF;
  return Lr_string(r, c, s->at == LESSON_AT_TENSOR ? "tensor" : "spill_of", path, true, &s->at_name);
}

static Status Lr_stage(Lr *r, const cJSON *so, const char *p, LessonStage *s, const char *lesson_net) {
  if (!cJSON_IsObject(so)) return Lr_fail(r, p, "%s", "expected an object (title, text, budget, policies, ...)");
  Status st = Lr_keys(r, so, p, Lr_stageKeys,
                      "title, network, budget, policies, pinned, time_limit, view, flip, cursor, layer, pinned_layer, "
                      "text, try, claims");
  char pa[512], *net = NULL, *view = NULL;
  bool searching = false;
  if (!st) st = Lr_string(r, so, "title", p, true, &s->title);
  if (!st) st = Lr_string(r, so, "network", p, false, &net);
  if (!st && net) {
    Json_pathKey(pa, sizeof pa, p, "network");
    st = Lr_network(r, net, pa, &s->network);
  } else if (!st && !(s->network = Lr_dup(lesson_net))) st = SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  free(net);
  if (!st) st = Lr_plan(r, so, p, &s->current, &searching);
  const cJSON *pin = cJSON_GetObjectItemCaseSensitive(so, "pinned");
  Json_pathKey(pa, sizeof pa, p, "pinned");
  if (!st && pin) {
    if (!cJSON_IsObject(pin)) st = Lr_fail(r, pa, "%s", "expected {\"budget\": ..., \"policies\": {...}} (what differs from the current plan)");
    if (!st) st = Lr_keys(r, pin, pa, Lr_planKeys, "budget, policies");
    if (!st) st = Lr_plan(r, pin, pa, &s->pinned, &searching);
    s->has_pinned = true;
  }
  const cJSON *tl = cJSON_GetObjectItemCaseSensitive(so, "time_limit");
  Json_pathKey(pa, sizeof pa, p, "time_limit");
  if (!st && tl && (!cJSON_IsNumber(tl) || !(tl->valuedouble > 0) || tl->valuedouble > LESSON_MAX_TIME))
    st = Lr_fail(r, pa, "%s", "expected seconds, more than 0 and at most 10");
  if (!st && tl) s->time_limit = tl->valuedouble;
  if (!st && searching && !tl)
    st = Lr_fail(r, pa, "%s", "missing: a stage with an ILP policy says how long it may search (seconds, at most 10)");
  if (!st) st = Lr_string(r, so, "view", p, false, &view);
  Json_pathKey(pa, sizeof pa, p, "view");
  if (!st && view) {
    int k = -1;
    for (int i = 0; Lr_views[i]; i++)
      if (strcmp(Lr_views[i], view) == 0) k = i;
    if (k < 0) st = Lr_fail(r, pa, "%s", "expected map, layer, offchip or sweep");
    else s->view = (LessonView)k;
  }
  free(view);
  const cJSON *flip = cJSON_GetObjectItemCaseSensitive(so, "flip");
  Json_pathKey(pa, sizeof pa, p, "flip");
  if (!st && flip && !cJSON_IsBool(flip)) st = Lr_fail(r, pa, "%s", "expected true or false");
  if (!st && flip) s->flip = cJSON_IsTrue(flip);
  if (!st && s->flip && !s->has_pinned) st = Lr_fail(r, pa, "%s", "the map flips to the pinned plan: declare \"pinned\"");
  const cJSON *cur = cJSON_GetObjectItemCaseSensitive(so, "cursor");
  Json_pathKey(pa, sizeof pa, p, "cursor");
  if (!st && cur) st = Lr_cursor(r, cur, pa, s);
  const cJSON *ly = cJSON_GetObjectItemCaseSensitive(so, "layer");
  Json_pathKey(pa, sizeof pa, p, "layer");
  if (!st && ly) {
    if (!cJSON_IsObject(ly)) st = Lr_fail(r, pa, "%s", "expected {\"op\": NAME, \"method\": ..., \"arch\": ..., \"group\": G}");
    else st = Lr_layer(r, ly, pa, &s->layer, &s->layer_op);
    s->has_layer = true;
  }
  if (!st && (s->view == LESSON_VIEW_LAYER) != s->has_layer)
    st = Lr_fail(r, pa, "%s", "\"view\": \"layer\" and \"layer\": {\"op\": ...} go together");
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(so, "pinned_layer");
  Json_pathKey(pa, sizeof pa, p, "pinned_layer");
  if (!st && pl) {
    if (!cJSON_IsObject(pl)) st = Lr_fail(r, pa, "%s", "expected {\"method\": ..., \"arch\": ..., \"group\": G}");
    else if (!s->has_layer) st = Lr_fail(r, pa, "%s", "a pinned layer is the shown layer's op mapped otherwise: declare \"layer\"");
    else st = Lr_layer(r, pl, pa, &s->pinned_layer, NULL);
    s->has_pinned_layer = true;
  }
  /* the text */
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(so, "text");
  Json_pathKey(pa, sizeof pa, p, "text");
  int nt = cJSON_IsString(t) ? 1 : cJSON_IsArray(t) ? cJSON_GetArraySize(t) : -1;
  if (!st && (nt < 1 || nt > LESSON_MAX_TEXT)) st = Lr_fail(r, pa, "%s", "expected a string or an array of 1 to 16 strings");
  if (!st && !(s->text = calloc((size_t)nt, sizeof(char *)))) st = SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < nt; i++) {
    const cJSON *ti = cJSON_IsString(t) ? t : cJSON_GetArrayItem(t, i);
    char pi[600];
    Json_pathIndex(pi, sizeof pi, pa, i);
    if (!cJSON_IsString(ti)) st = Lr_fail(r, pi, "%s", "expected a string");
    else if (!Lr_printable(ti->valuestring)) st = Lr_fail(r, pi, "%s", "a control character in the text (only printable text)");
    else if (strlen(ti->valuestring) > LESSON_MAX_PARA) st = Lr_fail(r, pi, "%s", "longer than 2000 bytes");
    else if (!(s->text[i] = Lr_dup(ti->valuestring))) st = SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
    else {
      s->ntext++;
      st = Lr_placeholders(r, s, s->text[i], pi);
    }
  }
  if (!st) st = Lr_string(r, so, "try", p, false, &s->try_action);
  Json_pathKey(pa, sizeof pa, p, "try");
  if (!st && s->try_action && !Lesson_inList(Lesson_tryable, s->try_action))
    st = Actions_find(s->try_action)
             ? Lr_fail(r, pa, "\"%s\": not an action a lesson may invite (it prompts, writes, opens or leaves)", s->try_action)
             : Lr_fail(r, pa, "\"%s\": no action of that name in the action table", s->try_action);
  const cJSON *cl = cJSON_GetObjectItemCaseSensitive(so, "claims");
  Json_pathKey(pa, sizeof pa, p, "claims");
  int nc = cl ? (cJSON_IsArray(cl) ? cJSON_GetArraySize(cl) : -1) : 0;
  if (!st && (nc < 0 || nc > LESSON_MAX_CLAIMS)) st = Lr_fail(r, pa, "%s", "expected an array of at most 32 claims");
  if (!st && nc && !(s->claims = calloc((size_t)nc, sizeof *s->claims))) st = SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < nc; i++) {
    char pi[600];
    Json_pathIndex(pi, sizeof pi, pa, i);
    s->nclaims++;
    st = Lr_claim(r, cJSON_GetArrayItem(cl, i), pi, s, &s->claims[i]);
  }
  return st;
}

static const char *const Lr_rootKeys[] = {"format", "title", "summary", "network", "stages", NULL};

static Status Lesson_parse(Lesson *l, const char *text, size_t len, SpError *err) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", l->path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  else snprintf(dir, sizeof dir, ".");
  Lr r = {l->path, dir, err};
  cJSON *root = NULL;
  Status st = Json_parse(text, len, l->path, &root, err);
  if (st) return st == SP_ERR_NOMEM ? st : SP_ERR_FORMAT;
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  char *net = NULL;
  if (!cJSON_IsObject(root)) st = Lr_fail(&r, "$", "%s", "expected an object");
  if (!st) st = Lr_keys(&r, root, "$", Lr_rootKeys, "format, title, summary, network, stages");
  if (!st && (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "spadmap-lesson") != 0))
    st = Lr_fail(&r, "$.format", "%s", "expected \"spadmap-lesson\"");
  if (!st) st = Lr_string(&r, root, "title", "$", true, &l->title);
  if (!st) st = Lr_string(&r, root, "summary", "$", true, &l->summary);
  if (!st) st = Lr_string(&r, root, "network", "$", true, &net);
  if (!st) st = Lr_network(&r, net, "$.network", &l->network);
  free(net);
  const cJSON *stages = cJSON_GetObjectItemCaseSensitive(root, "stages");
  int n = cJSON_IsArray(stages) ? cJSON_GetArraySize(stages) : 0;
  if (!st && (n < 1 || n > LESSON_MAX_STAGES)) st = Lr_fail(&r, "$.stages", "%s", "expected an array of 1 to 64 stages");
  if (!st && !(l->stages = calloc((size_t)n, sizeof *l->stages))) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < n; i++) {
    char p[64];
    Json_pathIndex(p, sizeof p, "$.stages", i);
    l->nstages++;
    st = Lr_stage(&r, cJSON_GetArrayItem(stages, i), p, &l->stages[i], l->network);
  }
  cJSON_Delete(root);
  return st;
}

static void Lesson_freePlan(LessonPlan *p) {
  free(p->budget);
  for (int k = 0; k < POLICY_KIND_COUNT; k++) free(p->policy[k]);
}

static void Lesson_freeStage(LessonStage *s) {
  free(s->title);
  free(s->network);
  Lesson_freePlan(&s->current);
  Lesson_freePlan(&s->pinned);
  free(s->at_name);
  free(s->layer_op);
  free(s->layer.method), free(s->layer.arch);
  free(s->pinned_layer.method), free(s->pinned_layer.arch);
  for (int i = 0; i < s->ntext; i++) free(s->text[i]);
  free(s->text);
  free(s->try_action);
  for (int i = 0; i < s->nclaims; i++)
    free(s->claims[i].a), free(s->claims[i].b), free(s->claims[i].b_text), free(s->claims[i].says);
  free(s->claims);
}

void Lesson_free(Lesson *l) {
  if (!l) return;
  for (int i = 0; i < l->nstages; i++) Lesson_freeStage(&l->stages[i]);
  for (int i = 0; i < 16; i++) free(l->frozen[i]);
  free(l->stages);
  free(l->title);
  free(l->summary);
  free(l->network);
  free(l);
}

Status Lesson_load(const char *path, Lesson **out, SpError *err) {
  *out = NULL;
  struct stat sb;
  if (strlen(path) >= sizeof((Lesson *)0)->path)
    return SpError_set(err, SP_ERR_IO, "%.60s...: a path of %zu bytes (at most 1023)", path, strlen(path));
  /* a FIFO or a device would block or never end: only a regular file is read */
  if (stat(path, &sb) != 0) return SpError_set(err, SP_ERR_IO, "%s: no such lesson file", path);
  if (!S_ISREG(sb.st_mode)) return SpError_set(err, SP_ERR_IO, "%s: not a regular file (a lesson is a JSON file)", path);
  Lesson *l = calloc(1, sizeof *l);
  if (!l) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  l->stage = -1;
  snprintf(l->path, sizeof l->path, "%s", path);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(l->name, sizeof l->name, "%.*s", (int)strcspn(base, "."), base);
  char *text;
  size_t len;
  Status st = FileIO_read(path, FILE_LESSON, &text, &len, err);
  if (st) {
    free(l);
    return st;
  }
  st = Lesson_parse(l, text, len, err);
  free(text);
  if (st) {
    Lesson_free(l);
    return st;
  }
  *out = l;
  return SP_OK;
}

/* arch: the "spadmap-arch" loader. Every error names the file, the JSON path
 * (levels[2].capacity) or line:column of a syntax error, and what was expected,
 * as the network loader does. */
#include "arch.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json.h"
#include "text.h"

static const char *const Operand_names[OPND_COUNT] = {"weights", "inputs", "outputs"};
static const char *const Operand_shorts[OPND_COUNT] = {"W", "I", "O"};

const char *Operand_name(Operand v) { return v < OPND_COUNT ? Operand_names[v] : "?"; }
const char *Operand_short(Operand v) { return v < OPND_COUNT ? Operand_shorts[v] : "?"; }

typedef struct {
  const char *label;
  SpError *err;
} ArchLoader;

static Status Arch_fail(ArchLoader *ld, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static Status Arch_fail(ArchLoader *ld, const char *path, const char *fmt, ...) {
  char what[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return SpError_set(ld->err, SP_ERR_FORMAT, "%s: %s: %s", ld->label, path, what);
}

static void Arch_describe(const cJSON *v, char *buf, size_t n) {
  if (!v) snprintf(buf, n, "nothing");
  else if (cJSON_IsString(v)) snprintf(buf, n, "string \"%.40s\"", v->valuestring);
  else if (cJSON_IsNumber(v)) snprintf(buf, n, "number %.17g", v->valuedouble);
  else if (cJSON_IsBool(v)) snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsNull(v)) snprintf(buf, n, "null");
  else if (cJSON_IsArray(v)) snprintf(buf, n, "an array");
  else snprintf(buf, n, "an object");
}

static Status Arch_expected(ArchLoader *ld, const char *path, const char *what, const cJSON *got) {
  char d[80];
  Arch_describe(got, d, sizeof d);
  return Arch_fail(ld, path, "expected %s, got %s", what, d);
}

static Status Arch_object(ArchLoader *ld, const cJSON *o, const char *path) {
  if (!cJSON_IsObject(o)) return Arch_expected(ld, path, "an object", o);
  const char *dup = Json_duplicateKey(o);
  return dup ? Arch_fail(ld, path, "duplicate key \"%s\"", dup) : SP_OK;
}

/* o.key as an integer in [lo, hi]; missing: *v unchanged if !required. */
static Status Arch_int(ArchLoader *ld, const cJSON *o, const char *path, const char *key, bool required, int64_t lo,
                       int64_t hi, int64_t *v) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
  char p[160], what[96];
  snprintf(p, sizeof p, "%s.%s", path, key);
  snprintf(what, sizeof what, "an integer in %lld..%lld", (long long)lo, (long long)hi);
  if (!x) return required ? Arch_fail(ld, path, "missing key \"%s\" (expected %s)", key, what) : SP_OK;
  int64_t y;
  if (!Json_exactInt(x, &y) || y < lo || y > hi) return Arch_expected(ld, p, what, x);
  *v = y;
  return SP_OK;
}

static Status Arch_num(ArchLoader *ld, const cJSON *o, const char *path, const char *key, double lo, double hi,
                       double *v) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
  char p[160], what[96];
  snprintf(p, sizeof p, "%s.%s", path, key);
  snprintf(what, sizeof what, "a number in %g..%g", lo, hi);
  if (!x) return Arch_fail(ld, path, "missing key \"%s\" (expected %s)", key, what);
  if (!cJSON_IsNumber(x) || x->valuedouble < lo || x->valuedouble > hi) return Arch_expected(ld, p, what, x);
  *v = x->valuedouble;
  return SP_OK;
}

static Status Arch_str(ArchLoader *ld, const cJSON *o, const char *path, const char *key, bool required, char *buf,
                       size_t n) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
  char p[160];
  snprintf(p, sizeof p, "%s.%s", path, key);
  if (!x) return required ? Arch_fail(ld, path, "missing key \"%s\" (expected a string)", key) : SP_OK;
  if (!cJSON_IsString(x)) return Arch_expected(ld, p, "a string", x);
  if (strlen(x->valuestring) >= n) return Arch_fail(ld, p, "longer than %zu characters", n - 1);
  if (Text_needsEscape(x->valuestring)) /* names reach terminals and tables as they are */
    return Arch_fail(ld, p, "expected printable text (no control characters or bidirectional overrides)");
  snprintf(buf, n, "%s", x->valuestring);
  return SP_OK;
}

static Status Arch_level(ArchLoader *ld, const cJSON *o, int i, bool last, ArchLevel *lv) {
  char path[32];
  snprintf(path, sizeof path, "levels[%d]", i);
  Status st;
  if ((st = Arch_object(ld, o, path))) return st;
  if ((st = Arch_str(ld, o, path, "name", true, lv->name, sizeof lv->name))) return st;
  if (!lv->name[0]) return Arch_fail(ld, path, "name is empty");
  if ((st = Arch_int(ld, o, path, "instances", true, 1, 1 << 20, &lv->instances))) return st;
  lv->capacity = 0;
  const cJSON *cap = cJSON_GetObjectItemCaseSensitive(o, "capacity");
  if (!cap && !last)
    return Arch_fail(ld, path, "missing key \"capacity\" (bytes per instance; only the outermost level may omit it)");
  if (cap && last) { /* the mappers hold the whole layer there (random.c, exhaustive.c rely on it) */
    char cp[48];
    snprintf(cp, sizeof cp, "%s.capacity", path);
    return Arch_fail(ld, cp, "the outermost level holds the whole layer and takes no capacity (omit the key)");
  }
  if (cap && (st = Arch_int(ld, o, path, "capacity", true, 1, (int64_t)1 << 50, &lv->capacity))) return st;
  const cJSON *holds = cJSON_GetObjectItemCaseSensitive(o, "holds");
  char p[64];
  snprintf(p, sizeof p, "%s.holds", path);
  if (!holds) return Arch_fail(ld, path, "missing key \"holds\" (expected an array of weights/inputs/outputs)");
  if (!cJSON_IsArray(holds)) return Arch_expected(ld, p, "an array of \"weights\", \"inputs\", \"outputs\"", holds);
  lv->holds = 0;
  int k = 0;
  for (const cJSON *h = holds->child; h; h = h->next, k++) {
    char hp[80];
    snprintf(hp, sizeof hp, "%s[%d]", p, k);
    int v = 0;
    while (v < OPND_COUNT && !(cJSON_IsString(h) && strcmp(h->valuestring, Operand_names[v]) == 0)) v++;
    if (v == OPND_COUNT) return Arch_expected(ld, hp, "one of \"weights\", \"inputs\", \"outputs\"", h);
    if (lv->holds & (1u << v)) return Arch_fail(ld, hp, "\"%s\" listed twice", Operand_names[v]);
    lv->holds |= 1u << v;
  }
  lv->mesh_x = 0; /* 0: not given (derived in Arch_root) */
  if ((st = Arch_int(ld, o, path, "mesh_x", false, 1, 1 << 20, &lv->mesh_x))) return st;
  if (lv->mesh_x && lv->instances % lv->mesh_x)
    return Arch_fail(ld, path, "mesh_x %lld must divide instances %lld (the copies form mesh_x columns)",
                     (long long)lv->mesh_x, (long long)lv->instances);
  if ((st = Arch_num(ld, o, path, "bandwidth", 1e-6, 1e9, &lv->bandwidth))) return st;
  if ((st = Arch_num(ld, o, path, "read_pj", 0, 1e6, &lv->read_pj))) return st;
  if ((st = Arch_num(ld, o, path, "write_pj", 0, 1e6, &lv->write_pj))) return st;
  return SP_OK;
}

static Status Arch_root(ArchLoader *ld, const cJSON *root, Arch *a) {
  Status st;
  if ((st = Arch_object(ld, root, "(root)"))) return st;
  char format[32] = "";
  if ((st = Arch_str(ld, root, "(root)", "format", true, format, sizeof format))) return st;
  if (strcmp(format, "spadmap-arch") != 0)
    return Arch_fail(ld, "format", "expected \"spadmap-arch\", got \"%s\"", format);
  int64_t version = 0;
  if ((st = Arch_int(ld, root, "(root)", "version", true, 1, 1, &version))) return st;
  if ((st = Arch_str(ld, root, "(root)", "name", true, a->name, sizeof a->name))) return st;
  if ((st = Arch_str(ld, root, "(root)", "source", true, a->source, sizeof a->source))) return st;
  if ((st = Arch_int(ld, root, "(root)", "macs", true, 1, 1 << 24, &a->macs))) return st;
  if ((st = Arch_num(ld, root, "(root)", "mac_pj", 0, 1e6, &a->mac_pj))) return st;
  const cJSON *prec = cJSON_GetObjectItemCaseSensitive(root, "precision");
  if (!prec) return Arch_fail(ld, "(root)", "missing key \"precision\" (expected {\"weights\": 1, \"inputs\": 1, \"outputs\": 3})");
  if ((st = Arch_object(ld, prec, "precision"))) return st;
  for (int v = 0; v < OPND_COUNT; v++) {
    int64_t b = 0;
    if ((st = Arch_int(ld, prec, "precision", Operand_names[v], true, 1, 8, &b))) return st;
    a->precision[v] = (int)b;
  }
  const cJSON *levels = cJSON_GetObjectItemCaseSensitive(root, "levels");
  if (!levels) return Arch_fail(ld, "(root)", "missing key \"levels\" (innermost first, DRAM last)");
  if (!cJSON_IsArray(levels)) return Arch_expected(ld, "levels", "an array of levels", levels);
  int n = cJSON_GetArraySize(levels);
  if (n < 2 || n > ARCH_MAX_LEVELS)
    return Arch_fail(ld, "levels", "expected 2..%d levels, got %d", ARCH_MAX_LEVELS, n);
  a->nlevels = n;
  int i = 0;
  for (const cJSON *o = levels->child; o; o = o->next, i++)
    if ((st = Arch_level(ld, o, i, i == n - 1, &a->level[i]))) return st;
  for (i = 0; i < n; i++) {
    ArchLevel *lv = &a->level[i];
    char path[32];
    snprintf(path, sizeof path, "levels[%d]", i);
    for (int j = 0; j < i; j++)
      if (strcmp(a->level[j].name, lv->name) == 0)
        return Arch_fail(ld, path, "name \"%s\" is also levels[%d]'s", lv->name, j);
    int64_t below = i == 0 ? a->macs : a->level[i - 1].instances;
    if (below % lv->instances)
      return Arch_fail(ld, path,
                       "instances %lld must divide the %s below (%lld): each copy feeds a whole number of them",
                       (long long)lv->instances, i == 0 ? "MAC count" : "instances of the level", (long long)below);
    lv->fanout = below / lv->instances;
  }
  ArchLevel *top = &a->level[n - 1];
  if (top->holds != 7u || top->instances != 1)
    return Arch_fail(ld, "levels[last]", "the outermost level (\"%s\") must hold weights, inputs and outputs and have "
                     "1 instance", top->name);
  /* the mesh, outermost first: a level without mesh_x keeps the Y extent above */
  for (i = n - 1; i >= 0; i--) {
    ArchLevel *lv = &a->level[i];
    int64_t above_y = i == n - 1 ? 1 : a->level[i + 1].mesh_y;
    char path[32];
    snprintf(path, sizeof path, "levels[%d]", i);
    if (!lv->mesh_x) {
      if (lv->instances % above_y)
        return Arch_fail(ld, path, "instances %lld cannot keep the %lld rows of the level above: give mesh_x",
                         (long long)lv->instances, (long long)above_y);
      lv->mesh_x = lv->instances / above_y;
    }
    lv->mesh_y = lv->instances / lv->mesh_x;
    if (i < n - 1) {
      ArchLevel *up = &a->level[i + 1];
      if (lv->mesh_x % up->mesh_x || lv->mesh_y % up->mesh_y)
        return Arch_fail(ld, path, "mesh %lldx%lld does not split evenly among the %lldx%lld copies of %s above",
                         (long long)lv->mesh_x, (long long)lv->mesh_y, (long long)up->mesh_x, (long long)up->mesh_y,
                         up->name);
      up->fanout_x = lv->mesh_x / up->mesh_x;
      up->fanout_y = lv->mesh_y / up->mesh_y;
    }
  }
  a->level[0].fanout_x = a->level[0].fanout; /* the MACs extend level 0's mesh along X */
  a->level[0].fanout_y = 1;
  a->noc_level = -1;
  for (i = n - 1; i >= 0; i--)
    if (a->level[i].fanout > 1) {
      a->noc_level = i;
      break;
    }
  return SP_OK;
}

Status Arch_parse(const char *text, size_t len, const char *label, Arch *out, SpError *err) {
  memset(out, 0, sizeof *out);
  cJSON *root = NULL;
  Status st = Json_parse(text, len, label, &root, err);
  if (st) return st;
  ArchLoader ld = {label, err};
  st = Arch_root(&ld, root, out);
  cJSON_Delete(root);
  return st;
}

Status Arch_load(const char *path, Arch *out, SpError *err) {
  char *text = NULL;
  size_t len = 0;
  memset(out, 0, sizeof *out);
  if (!path || !*path) return SpError_set(err, SP_ERR_IO, "architecture file: the path is empty");
  Status st = FileIO_read(path, FILE_ARCH, &text, &len, err);
  if (st) return st;
  st = Arch_parse(text, len, path, out, err);
  free(text);
  return st;
}

/* Plan <-> JSON in the contract's "spadmap-plan" format. Written one placement
 * per line so plans diff well; cJSON does the quoting. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json.h"
#include "plan.h"

typedef struct {
  char *buf;
  size_t len, cap;
  bool failed;
} Text;

static void Text_add(Text *t, const char *s) {
  size_t n = strlen(s);
  if (t->failed) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    while (t->len + n + 1 > cap) cap *= 2;
    char *b = realloc(t->buf, cap);
    if (!b) {
      t->failed = true;
      return;
    }
    t->buf = b;
    t->cap = cap;
  }
  memcpy(t->buf + t->len, s, n + 1);
  t->len += n;
}

/* Appends s as a JSON string exactly as cJSON prints it (\" \\ \b \f \n \r \t,
 * other bytes below 0x20 as \u00xx, everything else as is), without building
 * a cJSON node: the schedule and the placements hold one name each. */
static void Text_string(Text *t, const char *s) {
  char buf[256];
  size_t n = 0;
  if (t->failed) return;
  buf[n++] = '"';
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (n + 8 > sizeof buf) {
      buf[n] = '\0';
      Text_add(t, buf);
      n = 0;
    }
    unsigned char c = *p;
    if (c >= 0x20 && c != '"' && c != '\\') {
      buf[n++] = (char)c;
      continue;
    }
    buf[n++] = '\\';
    switch (c) {
    case '"': buf[n++] = '"'; break;
    case '\\': buf[n++] = '\\'; break;
    case '\b': buf[n++] = 'b'; break;
    case '\f': buf[n++] = 'f'; break;
    case '\n': buf[n++] = 'n'; break;
    case '\r': buf[n++] = 'r'; break;
    case '\t': buf[n++] = 't'; break;
    default: n += (size_t)snprintf(buf + n, sizeof buf - n, "u%04x", c); break;
    }
  }
  buf[n++] = '"';
  buf[n] = '\0';
  Text_add(t, buf);
}

/* Appends a cJSON value compactly and deletes it. */
static void Text_json(Text *t, cJSON *v) {
  char *s = v ? cJSON_PrintUnformatted(v) : NULL;
  if (!s) t->failed = true;
  else Text_add(t, s);
  cJSON_free(s);
  cJSON_Delete(v);
}

static cJSON *Plan_metricsJSON(const Metrics *m) {
  cJSON *o = cJSON_CreateObject();
  /* byte counts at full 64-bit width (a double holds only 53 bits) */
  cJSON_AddItemToObject(o, "noncompulsory_bytes", Json_createInt(m->noncompulsory_bytes));
  cJSON_AddItemToObject(o, "compulsory_bytes", Json_createInt(m->compulsory_bytes));
  cJSON_AddItemToObject(o, "peak_bytes", Json_createInt(m->peak_bytes));
  cJSON_AddItemToObject(o, "footprint_bytes", Json_createInt(m->footprint_bytes));
  cJSON_AddNumberToObject(o, "spills", m->spills);
  cJSON_AddNumberToObject(o, "retrievals", m->retrievals);
  return o;
}

char *Plan_toJSON(const Plan *p, const Net *net) {
  Text t = {0};
  char num[128];
  Text_add(&t, "{\"format\": \"spadmap-plan\", \"version\": 1,\n \"network\": ");
  Text_json(&t, cJSON_CreateString(p->network));
  snprintf(num, sizeof num, ", \"params\": %s, \"budget\": %lld,\n", p->params ? "true" : "false",
           (long long)p->budget);
  Text_add(&t, num);
  cJSON *pol = cJSON_CreateObject();
  cJSON_AddStringToObject(pol, "schedule", p->schedule_policy);
  cJSON_AddStringToObject(pol, "replacement", p->replacement_policy);
  cJSON_AddStringToObject(pol, "allocator", p->allocator_policy);
  Text_add(&t, " \"policies\": ");
  Text_json(&t, pol);
  Text_add(&t, ",\n \"schedule\": [");
  for (int s = 0; s < p->nsteps; s++) {
    Text_add(&t, s ? (s % 8 ? ", " : ",\n   ") : "\n   ");
    Text_string(&t, net->ops[p->order[s]].name);
  }
  Text_add(&t, "],\n \"placements\": [");
  for (int i = 0; i < p->nstays; i++) {
    /* what cJSON_PrintUnformatted gave for the same object, built directly */
    const Stay *s = &p->stays[i];
    Text_add(&t, i ? ",\n   {\"tensor\":" : "\n   {\"tensor\":");
    Text_string(&t, net->tensors[s->tensor].name);
    snprintf(num, sizeof num, ",\"offset\":%" PRId64 ",\"start\":%d,\"end\":%d,\"in\":", s->offset, s->start, s->end);
    Text_add(&t, num);
    Text_string(&t, StayIn_name(s->in));
    Text_add(&t, ",\"out\":");
    Text_string(&t, StayOut_name(s->out));
    Text_add(&t, "}");
  }
  Text_add(&t, "],\n \"metrics\": ");
  Text_json(&t, Plan_metricsJSON(&p->metrics));
  if (p->solver.status != SOLVER_NONE) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "status", SolverStatus_name(p->solver.status));
    cJSON_AddNumberToObject(o, "seconds", p->solver.seconds);
    if (p->solver.has_objective) cJSON_AddNumberToObject(o, "objective", p->solver.objective);
    if (p->solver.has_bound) cJSON_AddNumberToObject(o, "bound", p->solver.bound);
    Text_add(&t, ",\n \"solver\": ");
    Text_json(&t, o);
  }
  if (net->import_json) { /* how the model was opened (import.h): not in the contract, ignored by its readers */
    Text_add(&t, ",\n \"import\": ");
    Text_add(&t, net->import_json);
  }
  Text_add(&t, "}\n");
  if (t.failed) {
    free(t.buf);
    return NULL;
  }
  return t.buf;
}

Status Plan_write(const Plan *p, const Net *net, const char *path, SpError *err) {
  char *s = Plan_toJSON(p, net);
  if (!s) return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory writing the plan", path);
  Status st = FileIO_write(path, s, strlen(s), err);
  free(s);
  return st;
}

/* ---- reading ---- */

typedef struct {
  const char *label;
  SpError *err;
} PlanReader;

static Status Reader_fail(PlanReader *r, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static const char *Reader_kind(const cJSON *v) {
  return cJSON_IsString(v) ? "a string" : cJSON_IsBool(v) ? "a boolean" : cJSON_IsNull(v) ? "null"
         : cJSON_IsArray(v) ? "an array" : cJSON_IsObject(v) ? "an object" : cJSON_IsNumber(v) ? "a number" : "a value";
}
static Status Reader_fail(PlanReader *r, const char *path, const char *fmt, ...) {
  char what[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return SpError_set(r->err, SP_ERR_FORMAT, "%s: %s: %s", r->label, path, what);
}

/* An integer in lo..hi, read at full 64-bit width (never through a double). */
static Status Reader_intKey(PlanReader *r, const cJSON *obj, const char *key, const char *path, int64_t lo,
                            int64_t hi, int64_t *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return Reader_fail(r, path, "missing key \"%s\" (expected an integer)", key);
  if (!cJSON_IsNumber(v)) return Reader_fail(r, path, "\"%s\": expected an integer, got %s", key, Reader_kind(v));
  if (!Json_exactInt(v, out))
    return Reader_fail(r, path, "\"%s\": expected an integer that fits in 64 bits, got %s", key,
                       Json_numberText(v) ? Json_numberText(v) : "a fraction or a huge number");
  if (*out < lo || *out > hi) {
    if (hi == INT64_MAX)
      return Reader_fail(r, path, "\"%s\": expected an integer >= %lld, got %lld", key, (long long)lo, (long long)*out);
    return Reader_fail(r, path, "\"%s\": expected an integer in %lld..%lld, got %lld", key, (long long)lo,
                       (long long)hi, (long long)*out);
  }
  return SP_OK;
}

/* An optional finite number (solver figures); absent leaves *has false. */
static Status Reader_numberKey(PlanReader *r, const cJSON *obj, const char *key, const char *path, double *out,
                               bool *has) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (has) *has = false;
  if (!v) return SP_OK;
  if (!cJSON_IsNumber(v)) return Reader_fail(r, path, "\"%s\": expected a number, got %s", key, Reader_kind(v));
  double d = v->valuedouble;
  if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
    return Reader_fail(r, path, "\"%s\": expected a finite number", key);
  *out = d;
  if (has) *has = true;
  return SP_OK;
}

static Status Reader_enum(PlanReader *r, const cJSON *obj, const char *key, const char *path,
                          const char *const *names, int count, int *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsString(v)) return Reader_fail(r, path, "\"%s\": expected a string", key);
  for (int i = 0; i < count; i++)
    if (strcmp(v->valuestring, names[i]) == 0) {
      *out = i;
      return SP_OK;
    }
  return Reader_fail(r, path, "\"%s\": unknown value \"%s\"", key, v->valuestring);
}

static Status Reader_metrics(PlanReader *r, const cJSON *root, Metrics *m) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "metrics");
  if (!cJSON_IsObject(o)) return Reader_fail(r, "metrics", "expected an object");
  const char *dup = Json_duplicateKey(o);
  if (dup) return Reader_fail(r, "metrics", "duplicate key \"%s\"", dup);
  int64_t spills, retrievals;
  Status st;
  if ((st = Reader_intKey(r, o, "noncompulsory_bytes", "metrics", 0, INT64_MAX, &m->noncompulsory_bytes)) ||
      (st = Reader_intKey(r, o, "compulsory_bytes", "metrics", 0, INT64_MAX, &m->compulsory_bytes)) ||
      (st = Reader_intKey(r, o, "peak_bytes", "metrics", 0, INT64_MAX, &m->peak_bytes)) ||
      (st = Reader_intKey(r, o, "footprint_bytes", "metrics", 0, INT64_MAX, &m->footprint_bytes)) ||
      (st = Reader_intKey(r, o, "spills", "metrics", 0, INT32_MAX, &spills)) ||
      (st = Reader_intKey(r, o, "retrievals", "metrics", 0, INT32_MAX, &retrievals)))
    return st;
  m->spills = (int)spills; /* in range: checked above, never taken modulo 2^32 */
  m->retrievals = (int)retrievals;
  return SP_OK;
}

static Status Reader_solver(PlanReader *r, const cJSON *root, SolverInfo *s) {
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "solver");
  if (!o) return SP_OK;
  if (!cJSON_IsObject(o)) return Reader_fail(r, "solver", "expected an object");
  const char *dup = Json_duplicateKey(o);
  if (dup) return Reader_fail(r, "solver", "duplicate key \"%s\"", dup);
  int status = 0;
  Status st = Reader_enum(r, o, "status", "solver", SolverStatus_names + 1, SOLVER_STATUS_COUNT - 1, &status);
  if (st) return st;
  s->status = (SolverStatus)(status + 1);
  bool has_seconds;
  if ((st = Reader_numberKey(r, o, "seconds", "solver", &s->seconds, &has_seconds)) ||
      (st = Reader_numberKey(r, o, "objective", "solver", &s->objective, &s->has_objective)) ||
      (st = Reader_numberKey(r, o, "bound", "solver", &s->bound, &s->has_bound)))
    return st;
  if (has_seconds && s->seconds < 0) return Reader_fail(r, "solver", "\"seconds\": expected a number >= 0");
  return SP_OK;
}

static Status Reader_body(PlanReader *r, const cJSON *root, const Net *net, Plan *p) {
  const char *dup = Json_duplicateKey(root);
  if (dup) return Reader_fail(r, "$", "duplicate key \"%s\"", dup);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "format");
  if (!cJSON_IsString(v) || strcmp(v->valuestring, "spadmap-plan") != 0)
    return Reader_fail(r, "format", "expected \"spadmap-plan\"");
  int64_t version;
  if (!Json_exactInt(cJSON_GetObjectItemCaseSensitive(root, "version"), &version) || version != 1)
    return Reader_fail(r, "version", "expected the integer 1");
  v = cJSON_GetObjectItemCaseSensitive(root, "network");
  if (!cJSON_IsString(v)) return Reader_fail(r, "network", "expected a string");
  free(p->network);
  p->network = strdup(v->valuestring);
  if (!p->network) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  v = cJSON_GetObjectItemCaseSensitive(root, "params");
  if (v && !cJSON_IsBool(v)) return Reader_fail(r, "params", "expected true or false");
  p->params = v && cJSON_IsTrue(v);
  Status st = Reader_intKey(r, root, "budget", "$", 0, INT64_MAX, &p->budget);
  if (st) return st;
  const cJSON *pol = cJSON_GetObjectItemCaseSensitive(root, "policies");
  if (pol) {
    if (!cJSON_IsObject(pol)) return Reader_fail(r, "policies", "expected an object");
    if ((dup = Json_duplicateKey(pol))) return Reader_fail(r, "policies", "duplicate key \"%s\"", dup);
    const char *names[3] = {"", "", ""}, *keys[3] = {"schedule", "replacement", "allocator"};
    for (int i = 0; i < 3; i++) {
      v = cJSON_GetObjectItemCaseSensitive(pol, keys[i]);
      if (v && !cJSON_IsString(v)) return Reader_fail(r, "policies", "\"%s\": expected a string", keys[i]);
      if (v) names[i] = v->valuestring;
    }
    if (Plan_setPolicies(p, names[0], names[1], names[2])) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  }
  const cJSON *sched = cJSON_GetObjectItemCaseSensitive(root, "schedule");
  if (!cJSON_IsArray(sched)) return Reader_fail(r, "schedule", "expected an array of op names");
  int n = cJSON_GetArraySize(sched);
  free(p->order);
  p->order = calloc((size_t)(n ? n : 1), sizeof(int));
  if (!p->order) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  p->nsteps = n;
  int i = 0;
  for (v = sched->child; v; v = v->next, i++) {
    p->order[i] = cJSON_IsString(v) ? Net_findOp(net, v->valuestring) : -1;
    if (p->order[i] >= 0) continue; /* the path is formatted only for a message */
    char path[48];
    snprintf(path, sizeof path, "schedule[%d]", i);
    if (!cJSON_IsString(v)) return Reader_fail(r, path, "expected an op name");
    return Reader_fail(r, path, "unknown op \"%s\"", v->valuestring);
  }
  const cJSON *pl = cJSON_GetObjectItemCaseSensitive(root, "placements");
  if (!cJSON_IsArray(pl)) return Reader_fail(r, "placements", "expected an array");
  i = 0;
  for (v = pl->child; v; v = v->next, i++) {
    char path[48];
    Json_pathIndex(path, sizeof path, "placements", i);
    if (!cJSON_IsObject(v)) return Reader_fail(r, path, "expected an object");
    if ((dup = Json_duplicateKey(v))) return Reader_fail(r, path, "duplicate key \"%s\"", dup);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(v, "tensor");
    if (!cJSON_IsString(name)) return Reader_fail(r, path, "\"tensor\": expected a tensor name");
    Stay s = {.tensor = Net_findTensor(net, name->valuestring)};
    if (s.tensor < 0) return Reader_fail(r, path, "unknown tensor \"%s\"", name->valuestring);
    int64_t start, end;
    int in = 0, out = 0;
    if ((st = Reader_intKey(r, v, "offset", path, INT64_MIN, INT64_MAX, &s.offset)) ||
        (st = Reader_intKey(r, v, "start", path, INT32_MIN, INT32_MAX, &start)) ||
        (st = Reader_intKey(r, v, "end", path, INT32_MIN, INT32_MAX, &end)) ||
        (st = Reader_enum(r, v, "in", path, StayIn_names, 3, &in)) ||
        (st = Reader_enum(r, v, "out", path, StayOut_names, 4, &out)))
      return st;
    s.start = (int)start, s.end = (int)end, s.in = (StayIn)in, s.out = (StayOut)out;
    if (Plan_addStay(p, s)) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  }
  if ((st = Reader_metrics(r, root, &p->metrics))) return st;
  return Reader_solver(r, root, &p->solver);
}

Status Plan_parse(const char *text, size_t len, const char *label, const Net *net, Plan **out, SpError *err) {
  *out = NULL;
  cJSON *root;
  Status parsed = Json_parseArena(text, len, label, &root, err);
  if (parsed) return parsed;
  PlanReader r = {label, err};
  Plan *p = Plan_new(net, false, 0);
  Status st = p ? SP_OK : SpError_set(err, SP_ERR_NOMEM, "out of memory");
  if (!st && !cJSON_IsObject(root)) st = Reader_fail(&r, "$", "expected an object");
  if (!st) st = Reader_body(&r, root, net, p);
  Json_freeArena(root);
  if (st) {
    Plan_free(p);
    return st;
  }
  *out = p;
  return SP_OK;
}

Status Plan_load(const char *path, const Net *net, Plan **out, SpError *err) {
  char *text;
  size_t len;
  *out = NULL;
  Status st = FileIO_read(path, FILE_PLAN, &text, &len, err);
  if (st) return st;
  st = Plan_parse(text, len, path, net, out, err);
  free(text);
  return st;
}

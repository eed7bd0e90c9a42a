/* import: format detection and the one open every front end uses (import.h). */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json.h"
#include "onnx_graph.h"

void ImportOptions_init(ImportOptions *o) { memset(o, 0, sizeof *o); }

Status ImportOptions_addDim(ImportOptions *o, const char *text, SpError *err) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text)
    return SpError_set(err, SP_ERR_ARG, "--dim \"%.80s\": expected NAME=SIZE, e.g. --dim batch=1", text);
  char *end;
  errno = 0;
  long long v = strtoll(eq + 1, &end, 10);
  if (errno || end == eq + 1 || *end || v < 1)
    return SpError_set(err, SP_ERR_ARG, "--dim \"%.80s\": the size must be a positive integer", text);
  if (o->ndims >= IMPORT_MAX_DIMS)
    return SpError_set(err, SP_ERR_ARG, "--dim: at most %d dimensions", IMPORT_MAX_DIMS);
  size_t n = (size_t)(eq - text);
  if (n >= sizeof o->dims[0].name) return SpError_set(err, SP_ERR_ARG, "--dim: the name \"%.80s\" is too long", text);
  memcpy(o->dims[o->ndims].name, text, n);
  o->dims[o->ndims].name[n] = '\0';
  o->dims[o->ndims].value = v;
  o->ndims++;
  return SP_OK;
}

/* One integer of a --value list: the whole token, within int64. */
static bool ImportOptions_int(const char *s, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno || end == s || *end) return false;
  *v = x;
  return true;
}

Status ImportOptions_addValues(ImportOptions *o, const char *text, SpError *err) {
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
    return SpError_set(err, SP_ERR_ARG, "--value: the list is too long (at most %d characters)", (int)sizeof buf - 1);
  int cur = -1; /* the value the next bare number belongs to */
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    const char *num = tok;
    if (eq) {
      size_t n = (size_t)(eq - tok);
      if (n == 0) return SpError_set(err, SP_ERR_ARG, "--value \"%.80s\": expected NAME=V[,V...], e.g. --value size=10", text);
      if (n >= sizeof o->values[0].name)
        return SpError_set(err, SP_ERR_ARG, "--value: the name \"%.80s\" is too long", tok);
      for (int i = 0; i < o->nvalues; i++)
        if (strlen(o->values[i].name) == n && memcmp(o->values[i].name, tok, n) == 0)
          return SpError_set(err, SP_ERR_ARG, "--value: \"%.*s\" is given twice", (int)n, tok);
      if (o->nvalues >= IMPORT_MAX_VALUES)
        return SpError_set(err, SP_ERR_ARG, "--value: at most %d graph inputs", IMPORT_MAX_VALUES);
      cur = o->nvalues++;
      memcpy(o->values[cur].name, tok, n);
      o->values[cur].name[n] = '\0';
      o->values[cur].n = 0;
      num = eq + 1;
    }
    if (cur < 0) return SpError_set(err, SP_ERR_ARG, "--value \"%.80s\": expected NAME=V[,V...], e.g. --value size=10", text);
    int64_t v;
    if (!ImportOptions_int(num, &v))
      return SpError_set(err, SP_ERR_ARG, "--value %.60s: \"%.40s\" is not an integer", o->values[cur].name, num);
    if (o->values[cur].n >= IMPORT_MAX_VALUE_ELEMS)
      return SpError_set(err, SP_ERR_ARG, "--value %.60s: at most %d elements", o->values[cur].name, IMPORT_MAX_VALUE_ELEMS);
    o->values[cur].v[o->values[cur].n++] = v;
  }
  if (cur < 0) return SpError_set(err, SP_ERR_ARG, "--value \"%.80s\": expected NAME=V[,V...], e.g. --value size=10", text);
  return SP_OK;
}

const char *ImportFormat_name(ImportFormat f) {
  switch (f) {
  case IMPORT_ONNX: return "onnx";
  case IMPORT_DAG: return "cosma-dag";
  default: return "spadmap-network";
  }
}

static bool Import_endsWith(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* By content: JSON starts with '{' (after blanks); an ONNX ModelProto starts with
 * a protobuf field tag (ir_version is field 1: byte 0x08). A JSON object with
 * "dag" and "tensor_sizes" and no "format" is the COSMA authors' DAG. */
static ImportFormat Import_sniff(const char *path, const char *text, size_t len) {
  size_t i = 0;
  while (i < len && isspace((unsigned char)text[i])) i++;
  if (i == len || text[i] != '{') {
    if (Import_endsWith(path, ".onnx") || (len > 0 && (unsigned char)text[0] == 0x08)) return IMPORT_ONNX;
    return IMPORT_SPADMAP; /* the JSON loader says what is wrong */
  }
  /* the contract's files say so in their first line: no second parse for them */
  static const char tag[] = "\"spadmap-network\"";
  size_t head = len < 4096 ? len : 4096;
  for (size_t k = i; k + sizeof tag - 1 <= head; k++)
    if (text[k] == '"' && memcmp(text + k, tag, sizeof tag - 1) == 0) return IMPORT_SPADMAP;
  /* Json_parse, not cJSON's own: it counts the values before it builds a node
   * (JSON_MAX_VALUES), so 256 MiB of "[1,1,..." is not 8 GB of nodes */
  cJSON *root = NULL;
  SpError ignored;
  if (Json_parse(text, len, path, &root, &ignored)) return IMPORT_SPADMAP; /* the network loader says why */
  ImportFormat f = IMPORT_SPADMAP;
  if (cJSON_IsObject(root) && !cJSON_GetObjectItemCaseSensitive(root, "format") &&
      cJSON_GetObjectItemCaseSensitive(root, "dag") && cJSON_GetObjectItemCaseSensitive(root, "tensor_sizes"))
    f = IMPORT_DAG;
  cJSON_Delete(root);
  return f;
}

/* The size cap a file gets before it is read: an ONNX model's (weights and
 * all) when its name or first byte says protobuf, as Import_sniff decides. */
static FileKind Import_kind(const char *path) {
  if (Import_endsWith(path, ".onnx")) return FILE_ONNX;
  FILE *f = fopen(path, "rb");
  int c = f ? getc(f) : EOF;
  if (f) fclose(f);
  return c == 0x08 ? FILE_ONNX : FILE_NETWORK; /* FileIO_read says why a file cannot be opened */
}

Status Import_detect(const char *path, ImportFormat *format, SpError *err) {
  char *text;
  size_t len;
  Status st = FileIO_read(path, Import_kind(path), &text, &len, err);
  if (st) return st;
  *format = Import_sniff(path, text, len);
  free(text);
  return SP_OK;
}

/* ---- the import record ---- */

const char *ImportOptions_dtype(const char *name) {
  static const char *const names[] = {"int8", "uint8", "int16", "fp16", "bf16", "int32", "fp32"};
  for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
    if (strcmp(names[i], name) == 0) return names[i];
  return NULL;
}

char *Import_recordJson(ImportFormat f, const char *path, const ImportOptions *o) {
  ImportOptions none;
  if (!o) ImportOptions_init(&none), o = &none;
  cJSON *r = cJSON_CreateObject(), *dims = cJSON_CreateObject();
  const char *base = strrchr(path, '/');
  cJSON_AddStringToObject(r, "format", ImportFormat_name(f));
  cJSON_AddStringToObject(r, "file", base ? base + 1 : path);
  cJSON_AddBoolToObject(r, "fold", o->fold);
  if (o->dtype) cJSON_AddStringToObject(r, "dtype", o->dtype);
  else cJSON_AddNullToObject(r, "dtype");
  for (int i = 0; i < o->ndims; i++) cJSON_AddItemToObject(dims, o->dims[i].name, Json_createInt(o->dims[i].value));
  cJSON_AddItemToObject(r, "dims", dims);
  if (o->nvalues > 0) { /* only when given: records written before --value read the same */
    cJSON *values = cJSON_CreateObject();
    for (int i = 0; i < o->nvalues; i++) {
      cJSON *list = cJSON_CreateArray();
      for (int k = 0; k < o->values[i].n; k++) cJSON_AddItemToArray(list, Json_createInt(o->values[i].v[k]));
      cJSON_AddItemToObject(values, o->values[i].name, list);
    }
    cJSON_AddItemToObject(r, "values", values);
  }
  char *text = cJSON_PrintUnformatted(r);
  cJSON_Delete(r);
  if (!text) return NULL;
  char *copy = strdup(text); /* the caller frees with free(), whatever cJSON's hooks are */
  cJSON_free(text);
  return copy;
}

Status Import_recordOptions(const char *record_json, ImportOptions *o, ImportFormat *format, SpError *err) {
  ImportOptions_init(o);
  *format = IMPORT_SPADMAP;
  cJSON *r = NULL;
  Status st = Json_parse(record_json, strlen(record_json), "import record", &r, err);
  if (st) return st;
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(r, "format"), *fold = cJSON_GetObjectItemCaseSensitive(r, "fold"),
              *dtype = cJSON_GetObjectItemCaseSensitive(r, "dtype"), *dims = cJSON_GetObjectItemCaseSensitive(r, "dims"),
              *values = cJSON_GetObjectItemCaseSensitive(r, "values");
  if (!cJSON_IsObject(r) || !cJSON_IsString(fmt)) st = SpError_set(err, SP_ERR_FORMAT, "import: expected an object with a \"format\" string");
  else if (strcmp(fmt->valuestring, "onnx") == 0) *format = IMPORT_ONNX;
  else if (strcmp(fmt->valuestring, "cosma-dag") == 0) *format = IMPORT_DAG;
  else if (strcmp(fmt->valuestring, "spadmap-network") != 0)
    st = SpError_set(err, SP_ERR_FORMAT, "import.format: expected \"onnx\", \"cosma-dag\" or \"spadmap-network\", got \"%.60s\"",
                     fmt->valuestring);
  if (!st && fold && !cJSON_IsBool(fold)) st = SpError_set(err, SP_ERR_FORMAT, "import.fold: expected true or false");
  if (!st) o->fold = cJSON_IsTrue(fold);
  if (!st && dtype && !cJSON_IsNull(dtype) && !(o->dtype = ImportOptions_dtype(cJSON_GetStringValue(dtype))))
    st = SpError_set(err, SP_ERR_FORMAT, "import.dtype: expected null or one of int8 uint8 int16 fp16 bf16 int32 fp32");
  if (!st && dims && !cJSON_IsObject(dims)) st = SpError_set(err, SP_ERR_FORMAT, "import.dims: expected an object (NAME: SIZE)");
  const cJSON *d;
  if (!st && dims)
    cJSON_ArrayForEach(d, dims) {
      int64_t v;
      char text[128];
      if (!Json_exactInt(d, &v) || v < 1) {
        st = SpError_set(err, SP_ERR_FORMAT, "import.dims.%.60s: expected a positive integer", d->string);
        break;
      }
      snprintf(text, sizeof text, "%.80s=%lld", d->string, (long long)v);
      if ((st = ImportOptions_addDim(o, text, err))) break;
    }
  if (!st && values && !cJSON_IsObject(values))
    st = SpError_set(err, SP_ERR_FORMAT, "import.values: expected an object (NAME: [V, ...])");
  if (!st && values)
    cJSON_ArrayForEach(d, values) {
      char text[1024];
      size_t k = (size_t)snprintf(text, sizeof text, "%.60s=", d->string);
      const cJSON *e;
      int n = 0;
      if (!cJSON_IsArray(d) || cJSON_GetArraySize(d) < 1) {
        st = SpError_set(err, SP_ERR_FORMAT, "import.values.%.60s: expected a list of integers", d->string);
        break;
      }
      cJSON_ArrayForEach(e, d) {
        int64_t v;
        if (!Json_exactInt(e, &v)) {
          st = SpError_set(err, SP_ERR_FORMAT, "import.values.%.60s[%d]: expected an integer", d->string, n);
          break;
        }
        if (k < sizeof text) k += (size_t)snprintf(text + k, sizeof text - k, "%s%lld", n ? "," : "", (long long)v);
        n++;
      }
      if (st) break;
      if (strchr(d->string, '=') || strchr(d->string, ',')) {
        st = SpError_set(err, SP_ERR_FORMAT, "import.values.%.60s: a name with '=' or ','", d->string);
        break;
      }
      if ((st = ImportOptions_addValues(o, text, err))) break;
    }
  cJSON_Delete(r);
  return st;
}

Status Import_planRecord(const char *plan_path, ImportOptions *o, bool *found, SpError *err) {
  ImportOptions_init(o);
  *found = false;
  char *text;
  size_t len;
  Status st = FileIO_read(plan_path, FILE_PLAN, &text, &len, err);
  if (st) return st;
  cJSON *root = NULL;
  st = Json_parse(text, len, plan_path, &root, err);
  free(text);
  if (st) return st; /* the plan loader says the same, in its words, when it reads the file */
  const cJSON *rec = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "import") : NULL;
  if (rec) {
    char *json = cJSON_PrintUnformatted(rec);
    ImportFormat f;
    SpError why;
    if (!json) st = SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", plan_path);
    else if (Import_recordOptions(json, o, &f, &why)) st = SpError_set(err, SP_ERR_FORMAT, "%s: %s", plan_path, why.text);
    else *found = true;
    cJSON_free(json);
  }
  cJSON_Delete(root);
  return st;
}

const char *ImportOptions_describe(const ImportOptions *o, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  if (o->fold) k += (size_t)snprintf(buf + k, n - k, "--fold");
  if (o->dtype && k < n) k += (size_t)snprintf(buf + k, n - k, "%s--dtype %s", k ? " " : "", o->dtype);
  for (int i = 0; i < o->ndims && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", i ? "," : k ? " --dim " : "--dim ", o->dims[i].name,
                          (long long)o->dims[i].value);
  for (int i = 0; i < o->nvalues && k < n; i++) {
    k += (size_t)snprintf(buf + k, n - k, "%s%s=", i ? "," : k ? " --value " : "--value ", o->values[i].name);
    for (int e = 0; e < o->values[i].n && k < n; e++)
      k += (size_t)snprintf(buf + k, n - k, "%s%lld", e ? "," : "", (long long)o->values[i].v[e]);
  }
  if (!buf[0]) snprintf(buf, n, "no options");
  return buf;
}

bool ImportOptions_equal(const ImportOptions *a, const ImportOptions *b) {
  if (a->fold != b->fold || a->ndims != b->ndims) return false;
  if ((a->dtype == NULL) != (b->dtype == NULL) || (a->dtype && strcmp(a->dtype, b->dtype) != 0)) return false;
  for (int i = 0; i < a->ndims; i++) {
    int j = 0;
    while (j < b->ndims && (strcmp(a->dims[i].name, b->dims[j].name) != 0 || a->dims[i].value != b->dims[j].value)) j++;
    if (j == b->ndims) return false;
  }
  if (a->nvalues != b->nvalues) return false;
  for (int i = 0; i < a->nvalues; i++) {
    int j = 0;
    while (j < b->nvalues && (strcmp(a->values[i].name, b->values[j].name) != 0 || a->values[i].n != b->values[j].n ||
                              memcmp(a->values[i].v, b->values[j].v, (size_t)a->values[i].n * sizeof(int64_t)) != 0))
      j++;
    if (j == b->nvalues) return false;
  }
  return true;
}

/* Puts the record before the translated network's closing brace. */
static Status Import_addRecord(char **json, size_t *json_len, ImportFormat f, const char *path, const ImportOptions *o,
                               SpError *err) {
  char *rec = Import_recordJson(f, path, o);
  size_t end = *json_len;
  while (end > 0 && (*json)[end - 1] != '}') end--;
  if (!rec || end == 0) {
    free(rec);
    return SpError_set(err, rec ? SP_ERR_FORMAT : SP_ERR_NOMEM, "%s: %s", path, rec ? "the translation is not an object" : "out of memory");
  }
  size_t body = end - 1; /* what comes before the closing brace, less its trailing blanks */
  while (body > 0 && isspace((unsigned char)(*json)[body - 1])) body--;
  size_t rlen = strlen(rec), n = body + rlen + 16;
  char *out = malloc(n + 1);
  if (!out) {
    free(rec);
    return SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", path);
  }
  int w = snprintf(out, n + 1, "%.*s,\n \"import\": %s\n}\n", (int)body, *json, rec);
  free(rec);
  free(*json);
  *json = out;
  *json_len = (size_t)w;
  return SP_OK;
}

static Status Import_translate(const char *path, const char *text, size_t len, const ImportOptions *opts,
                               ImportFormat *format, char **json, size_t *json_len, SpError *err) {
  *format = Import_sniff(path, text, len);
  Status st;
  switch (*format) {
  case IMPORT_ONNX: st = Import_onnxJson(text, len, path, opts, json, json_len, err); break;
  case IMPORT_DAG: st = Import_dagJson(text, len, path, opts, json, json_len, err); break;
  default: return SP_OK;
  }
  return st ? st : Import_addRecord(json, json_len, *format, path, opts, err);
}

Status Import_open(const char *path, const ImportOptions *opts, Net **out, SpError *err) {
  *out = NULL;
  char *text, *json = NULL;
  size_t len, json_len = 0;
  Status st = FileIO_read(path, Import_kind(path), &text, &len, err);
  if (st) return st;
  ImportFormat f;
  st = Import_translate(path, text, len, opts, &f, &json, &json_len, err);
  if (!st) st = f == IMPORT_SPADMAP ? Net_parse(text, len, path, out, err) : Net_parse(json, json_len, path, out, err);
  free(text);
  free(json);
  return st;
}

Status Import_toJson(const char *path, const ImportOptions *opts, char **json, size_t *len, SpError *err) {
  *json = NULL;
  *len = 0;
  char *text;
  size_t tlen;
  Status st = FileIO_read(path, Import_kind(path), &text, &tlen, err);
  if (st) return st;
  ImportFormat f;
  st = Import_translate(path, text, tlen, opts, &f, json, len, err);
  if (!st && f == IMPORT_SPADMAP) { /* already the contract: check it, hand it back */
    *json = text, *len = tlen, text = NULL;
  }
  Net *net = NULL;
  if (!st) st = Net_parse(*json, *len, path, &net, err);
  Net_free(net);
  free(text);
  if (st) {
    free(*json);
    *json = NULL;
    *len = 0;
  }
  return st;
}

bool Import_haveOnnx(void) { return OnnxGraph_available() != 0; }

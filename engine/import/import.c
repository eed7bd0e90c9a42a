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

static Status Import_translate(const char *path, const char *text, size_t len, const ImportOptions *opts,
                               ImportFormat *format, char **json, size_t *json_len, SpError *err) {
  *format = Import_sniff(path, text, len);
  switch (*format) {
  case IMPORT_ONNX: return Import_onnxJson(text, len, path, opts, json, json_len, err);
  case IMPORT_DAG: return Import_dagJson(text, len, path, opts, json, json_len, err);
  default: return SP_OK;
  }
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

/* Reading a "spadmap-offchip" plan; every error names the JSON path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json.h"
#include "tiles.h"

typedef struct {
  const char *label;
  SpError *err;
} Reader;

static Status Reader_fail(Reader *rd, const char *path, const char *expected) {
  return SpError_set(rd->err, SP_ERR_FORMAT, "%s: %s: expected %s", rd->label, path, expected);
}

static Status Reader_int(Reader *rd, const cJSON *obj, const char *key, const char *path, int64_t min, int64_t *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  char p[256];
  snprintf(p, sizeof p, "%s.%s", path, key);
  if (!v || !Json_exactInt(v, out) || *out < min) {
    char want[64];
    snprintf(want, sizeof want, "an integer >= %lld", (long long)min);
    return Reader_fail(rd, p, want);
  }
  return SP_OK;
}

static Status Reader_str(Reader *rd, const cJSON *obj, const char *key, const char *path, bool nullable, char **out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  char p[256];
  snprintf(p, sizeof p, "%s.%s", path, key);
  *out = NULL;
  if (nullable && (!v || cJSON_IsNull(v))) return SP_OK;
  if (!cJSON_IsString(v)) return Reader_fail(rd, p, "a string");
  size_t n = strlen(v->valuestring) + 1;
  if (!(*out = malloc(n))) return SpError_set(rd->err, SP_ERR_NOMEM, "out of memory");
  memcpy(*out, v->valuestring, n);
  return SP_OK;
}

static Status Reader_ints(Reader *rd, const cJSON *obj, const char *key, const char *path, int rank, int64_t min,
                          int64_t *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  char p[256];
  snprintf(p, sizeof p, "%s.%s", path, key);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != rank) {
    char want[64];
    snprintf(want, sizeof want, "an array of %d integers", rank);
    return Reader_fail(rd, p, want);
  }
  int i = 0;
  for (const cJSON *e = v->child; e; e = e->next, i++)
    if (!Json_exactInt(e, &out[i]) || out[i] < min) return Reader_fail(rd, p, min ? "positive integers" : "non-negative integers");
  return SP_OK;
}

static Status Reader_tile(Reader *rd, const cJSON *obj, const char *path, int tensor, OffchipPlanTile *t) {
  if (!cJSON_IsObject(obj)) return Reader_fail(rd, path, "an object");
  const char *dup = Json_duplicateKey(obj);
  if (dup) return SpError_set(rd->err, SP_ERR_FORMAT, "%s: %s: duplicate key \"%s\"", rd->label, path, dup);
  t->tensor = tensor;
  const cJSON *role = cJSON_GetObjectItemCaseSensitive(obj, "role");
  char p[256];
  snprintf(p, sizeof p, "%s.role", path);
  int r = 0;
  while (r < TILES_ROLE_COUNT && !(cJSON_IsString(role) && strcmp(role->valuestring, TilesRole_name((TilesRole)r)) == 0))
    r++;
  if (r == TILES_ROLE_COUNT) return Reader_fail(rd, p, "\"out\", \"whole\" or \"in\"");
  t->role = (TilesRole)r;
  int64_t v, rank;
  Status st;
  if ((st = Reader_int(rd, obj, "index", path, 0, &v))) return st;
  t->index = v > 1 << 30 ? 1 << 30 : (int)v;
  if ((st = Reader_int(rd, obj, "of", path, 1, &v))) return st;
  t->count = v > 1 << 30 ? 1 << 30 : (int)v;
  if ((st = Reader_str(rd, obj, "op", path, true, &t->op))) return st;
  if ((st = Reader_int(rd, obj, "first", path, 0, &t->first))) return st;
  if ((st = Reader_int(rd, obj, "last", path, 0, &t->last))) return st;
  if ((st = Reader_int(rd, obj, "esize", path, 1, &t->view.esize))) return st;
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(obj, "shape");
  rank = cJSON_IsArray(shape) ? cJSON_GetArraySize(shape) : 0;
  snprintf(p, sizeof p, "%s.shape", path);
  if (rank < 1 || rank > TILES_MAX_RANK) return Reader_fail(rd, p, "an array of 1 to 8 positive integers");
  t->view.rank = (int)rank;
  if ((st = Reader_ints(rd, obj, "shape", path, t->view.rank, 1, t->view.shape))) return st;
  if ((st = Reader_ints(rd, obj, "origin", path, t->view.rank, 0, t->view.origin))) return st;
  if ((st = Reader_ints(rd, obj, "strides", path, t->view.rank, 0, t->view.strides))) return st;
  const cJSON *chunks = cJSON_GetObjectItemCaseSensitive(obj, "chunks");
  snprintf(p, sizeof p, "%s.chunks", path);
  if (!cJSON_IsArray(chunks)) return Reader_fail(rd, p, "an array of [offset, size] pairs");
  int n = cJSON_GetArraySize(chunks);
  t->chunks = malloc(sizeof(TilesChunk) * (size_t)(n ? n : 1));
  if (!t->chunks) return SpError_set(rd->err, SP_ERR_NOMEM, "out of memory");
  int i = 0;
  for (const cJSON *c = chunks->child; c; c = c->next, i++) {
    snprintf(p, sizeof p, "%s.chunks[%d]", path, i);
    if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 2 || !Json_exactInt(c->child, &t->chunks[i].offset) ||
        !Json_exactInt(c->child->next, &t->chunks[i].size) || t->chunks[i].offset < 0 || t->chunks[i].size < 1)
      return Reader_fail(rd, p, "[offset >= 0, size >= 1]");
  }
  t->nchunks = n;
  return SP_OK;
}

Status OffchipPlan_parse(const char *text, size_t len, const char *label, OffchipPlan **out, SpError *err) {
  *out = NULL;
  cJSON *root;
  Status st = Json_parse(text, len, label, &root, err);
  if (st) return st;
  Reader rd = {label, err};
  OffchipPlan *p = calloc(1, sizeof *p);
  if (!p) {
    cJSON_Delete(root);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  int64_t version;
  if (!cJSON_IsObject(root)) {
    st = Reader_fail(&rd, "(document)", "an object");
    goto out;
  }
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "spadmap-offchip") != 0) {
    st = Reader_fail(&rd, "format", "\"spadmap-offchip\"");
    goto out;
  }
  if ((st = Reader_int(&rd, root, "version", "(document)", 1, &version))) goto out;
  if (version != 1) {
    st = Reader_fail(&rd, "version", "1");
    goto out;
  }
  if ((st = Reader_str(&rd, root, "network", "(document)", false, &p->network))) goto out;
  if ((st = Reader_str(&rd, root, "method", "(document)", false, &p->method))) goto out;
  if ((st = Reader_str(&rd, root, "order", "(document)", false, &p->order))) goto out;
  if ((st = Reader_int(&rd, root, "onchip_budget", "(document)", 0, &p->capacity))) goto out;
  if ((st = Reader_int(&rd, root, "ticks", "(document)", 1, &p->nticks))) goto out;
  if ((st = Reader_int(&rd, root, "peak_bytes", "(document)", 0, &p->peak_bytes))) goto out;
  const cJSON *layout = cJSON_GetObjectItemCaseSensitive(root, "layout");
  p->layout = TILES_LAYOUT_ROW_MAJOR;
  if (layout && !(cJSON_IsString(layout) && TilesLayout_parse(layout->valuestring, &p->layout))) {
    st = Reader_fail(&rd, "layout", "\"nchw\" or \"nhwc\"");
    goto out;
  }
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(root, "tile_shape");
  p->shape = TILES_SHAPE_ROWS; /* plans written before the option cut rows */
  if (shape && !(cJSON_IsString(shape) && TilesShape_parse(shape->valuestring, &p->shape))) {
    st = Reader_fail(&rd, "tile_shape", "\"rows\" or \"outer\"");
    goto out;
  }
  const cJSON *fb = cJSON_GetObjectItemCaseSensitive(root, "fallback");
  if (!cJSON_IsBool(fb)) {
    st = Reader_fail(&rd, "fallback", "true or false");
    goto out;
  }
  p->fallback = cJSON_IsTrue(fb);
  OffchipMethod meth;
  if (!OffchipMethod_parse(p->method, &meth)) { /* it echoed any name ("off-chip plan (zzz)") */
    st = Reader_fail(&rd, "method", "taa, so-size, so-breadth, so-improved or offset-size");
    goto out;
  }
  const cJSON *secs = cJSON_GetObjectItemCaseSensitive(root, "seconds");
  /* "fast" was taken as 0; 1e308 was read, then written as 309 digits no reader takes back */
  if (secs && !(cJSON_IsNumber(secs) && secs->valuedouble >= 0 && secs->valuedouble <= 1e9)) {
    st = Reader_fail(&rd, "seconds", "a number of seconds from 0 to 1e9");
    goto out;
  }
  p->seconds = secs ? secs->valuedouble : 0;
  const cJSON *tensors = cJSON_GetObjectItemCaseSensitive(root, "tensors");
  if (!cJSON_IsArray(tensors)) {
    st = Reader_fail(&rd, "tensors", "an array");
    goto out;
  }
  int nt = cJSON_GetArraySize(tensors), total = 0;
  for (const cJSON *t = tensors->child; t; t = t->next) {
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(t, "tiles");
    total += cJSON_IsArray(tl) ? cJSON_GetArraySize(tl) : 0;
  }
  p->tensors = calloc((size_t)(nt ? nt : 1), sizeof *p->tensors);
  p->tiles = calloc((size_t)(total ? total : 1), sizeof *p->tiles);
  if (!p->tensors || !p->tiles) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  int i = 0;
  for (const cJSON *t = tensors->child; t; t = t->next, i++) {
    char path[64];
    snprintf(path, sizeof path, "tensors[%d]", i);
    if (!cJSON_IsObject(t)) {
      st = Reader_fail(&rd, path, "an object");
      goto out;
    }
    OffchipPlanTensor *pt = &p->tensors[i];
    p->ntensors = i + 1;
    if ((st = Reader_str(&rd, t, "tensor", path, false, &pt->name))) goto out;
    if ((st = Reader_int(&rd, t, "base", path, 0, &pt->base))) goto out;
    if ((st = Reader_int(&rd, t, "bytes", path, 1, &pt->bytes))) goto out;
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(t, "tiles");
    if (!cJSON_IsArray(tl) || !cJSON_GetArraySize(tl)) {
      snprintf(path + strlen(path), sizeof path - strlen(path), ".tiles");
      st = Reader_fail(&rd, path, "a non-empty array of tiles");
      goto out;
    }
    pt->tile0 = p->ntiles;
    int k = 0;
    for (const cJSON *x = tl->child; x; x = x->next, k++) {
      char tp[96];
      snprintf(tp, sizeof tp, "tensors[%d].tiles[%d]", i, k);
      p->ntiles++;
      if ((st = Reader_tile(&rd, x, tp, i, &p->tiles[p->ntiles - 1]))) goto out;
    }
    pt->ntiles = k;
  }
out:
  cJSON_Delete(root);
  if (st) {
    OffchipPlan_free(p);
    return st;
  }
  *out = p;
  return SP_OK;
}

Status OffchipPlan_load(const char *path, OffchipPlan **out, SpError *err) {
  char *text;
  size_t len;
  *out = NULL;
  Status st = FileIO_read(path, FILE_OFFCHIP, &text, &len, err);
  if (st) return st;
  st = OffchipPlan_parse(text, len, path, out, err);
  free(text);
  return st;
}

/* The answer without parsing, from the first key alone: 1 (yes) or -1 (no)
 * when the object's first key is "format" with a plain string value, 0 when
 * only a parse can tell. cJSON finds the first "format", so a file whose first
 * key says so is what it says, valid or not. Parsing a 50k-op plan only to say
 * no took longer than validating it; reading a 300 MiB file only to say yes
 * read it past the plan cap. */
static int OffchipPlan_sniffFirstKey(const char *text, size_t len) {
  size_t i = 0;
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) i = 3; /* cJSON skips a BOM too */
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
  if (i >= len) return 0;
  if (text[i++] != '{') return -1; /* not a JSON object: not an off-chip plan */
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
  static const char key[] = "\"format\"";
  if (len - i < sizeof key - 1 || memcmp(text + i, key, sizeof key - 1) != 0) return 0;
  i += sizeof key - 1;
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
  if (i >= len || text[i++] != ':') return 0;
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
  if (i >= len || text[i++] != '"') return 0;
  size_t start = i;
  while (i < len && text[i] != '"' && text[i] != '\\' && text[i] != '\0') i++;
  if (i >= len || text[i] != '"') return 0; /* an escape or a cut: let cJSON decide */
  static const char yes[] = "spadmap-offchip";
  return i - start == sizeof yes - 1 && memcmp(text + start, yes, sizeof yes - 1) == 0 ? 1 : -1;
}

bool OffchipPlan_sniff(const char *text, size_t len) {
  int first = OffchipPlan_sniffFirstKey(text, len);
  if (first) return first > 0;
  cJSON *root = NULL; /* Json_parse: memory bounded (JSON_MAX_VALUES), unlike cJSON's own */
  SpError ignored;
  if (Json_parse(text, len, "", &root, &ignored)) return false;
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  bool yes = cJSON_IsString(fmt) && strcmp(fmt->valuestring, "spadmap-offchip") == 0;
  cJSON_Delete(root);
  return yes;
}

bool Offchip_isPlanFile(const char *path) {
  char head[4096];
  FILE *f = fopen(path, "rb");
  if (!f) return false; /* the plan loader says why */
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  int first = OffchipPlan_sniffFirstKey(head, got);
  if (first) return first > 0; /* every plan either kind we write: the file is read once, by its own loader */
  char *text;
  size_t len;
  SpError err;
  if (FileIO_read(path, FILE_OFFCHIP, &text, &len, &err)) return false;
  bool yes = OffchipPlan_sniff(text, len);
  free(text);
  return yes;
}

/* pack_csv: google/minimalloc's CSV instances (id,lower,upper,size[,offset]). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "pack.h"

enum { COL_ID, COL_LOWER, COL_UPPER, COL_SIZE, COL_OFFSET, COL_ALIGN, COL_COUNT };
static const char *const Csv_columns[COL_COUNT] = {"id", "lower", "upper", "size", "offset", "alignment"};

void PackInstance_free(PackInstance *inst) {
  if (!inst) return;
  for (int i = 0; inst->ids && i < inst->n; i++) free(inst->ids[i]);
  free(inst->ids);
  free(inst->buffers);
  free(inst->offsets);
  memset(inst, 0, sizeof *inst);
}

typedef struct {
  const char *name, *text;
  size_t pos;
  SpError *err;
} CsvReader;

/* fmt is always a literal here: field text goes in as an argument (it was
 * pasted into the format, so "%s%s%s" in a CSV field crashed the reader). */
__attribute__((format(printf, 3, 4))) static Status Csv_fail(const CsvReader *c, size_t at, const char *fmt, ...) {
  int line, col;
  FileIO_lineColumn(c->text, at, &line, &col);
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return SpError_set(c->err, SP_ERR_FORMAT, "%s:%d:%d: %s", c->name, line, col, msg);
}

/* The next field of the current row: [*start, *end), trimmed of spaces. Returns
 * the character that ended it (',' '\n' or '\0'). */
static char Csv_field(CsvReader *c, size_t *start, size_t *end) {
  while (c->text[c->pos] == ' ' || c->text[c->pos] == '\t') c->pos++;
  *start = c->pos;
  while (c->text[c->pos] && c->text[c->pos] != ',' && c->text[c->pos] != '\n' && c->text[c->pos] != '\r') c->pos++;
  *end = c->pos;
  while (*end > *start && (c->text[*end - 1] == ' ' || c->text[*end - 1] == '\t')) (*end)--;
  if (c->text[c->pos] == '\r') c->pos++;
  char stop = c->text[c->pos];
  if (stop) c->pos++;
  return stop == '\r' ? '\n' : stop;
}

static Status Csv_int(CsvReader *c, size_t a, size_t z, const char *col, int64_t *v) {
  char buf[64];
  if (z == a) return Csv_fail(c, a, "expected an integer for '%s', found an empty field", col);
  if (z - a >= sizeof buf) return Csv_fail(c, a, "expected an integer for '%s', found a too long field", col);
  memcpy(buf, c->text + a, z - a);
  buf[z - a] = '\0';
  char *endp;
  errno = 0;
  long long x = strtoll(buf, &endp, 10);
  if (*endp || endp == buf) return Csv_fail(c, a, "expected an integer for '%s', found \"%s\"", col, buf);
  if (errno == ERANGE || x > INT64_MAX / 4 || x < -(INT64_MAX / 4))
    return Csv_fail(c, a, "integer out of range for '%s'", col);
  *v = x;
  return SP_OK;
}

/* The ids seen so far, for refusing a repeated one: open addressing on an FNV-1a
 * hash, slots hold row index + 1 (0: empty), the table kept at most half full. */
typedef struct {
  int *slot;
  size_t cap;
} CsvIds;

static uint64_t Csv_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* Adds row n's id; false on no memory; *dup = the earlier row with the same id, or -1. */
static bool CsvIds_add(CsvIds *t, char *const *ids, int n, int *dup) {
  *dup = -1;
  if ((size_t)(n + 1) * 2 > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 128;
    int *slot = calloc(cap, sizeof *slot);
    if (!slot) return false;
    for (size_t i = 0; i < t->cap; i++)
      if (t->slot[i]) {
        size_t k = Csv_hash(ids[t->slot[i] - 1]) & (cap - 1);
        while (slot[k]) k = (k + 1) & (cap - 1);
        slot[k] = t->slot[i];
      }
    free(t->slot);
    t->slot = slot, t->cap = cap;
  }
  size_t k = Csv_hash(ids[n]) & (t->cap - 1);
  for (; t->slot[k]; k = (k + 1) & (t->cap - 1))
    if (strcmp(ids[t->slot[k] - 1], ids[n]) == 0) return *dup = t->slot[k] - 1, true;
  t->slot[k] = n + 1;
  return true;
}

Status PackInstance_parseCsv(const char *name, const char *text, PackInstance *inst, SpError *err) {
  memset(inst, 0, sizeof *inst);
  CsvIds seen = {NULL, 0};
  /* a UTF-8 byte order mark (spreadsheets write one) is not part of the header */
  size_t bom = strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  CsvReader c = {name, text, bom, err};
  int where[16]; /* column number -> field kind (-1: ignored) */
  int have[COL_COUNT];
  for (int k = 0; k < COL_COUNT; k++) have[k] = -1;
  int ncols = 0;
  char stop;
  do {
    size_t a, z;
    stop = Csv_field(&c, &a, &z);
    if (ncols >= 16) return Csv_fail(&c, a, "%s", "too many columns (at most 16)");
    where[ncols] = -1;
    for (int k = 0; k < COL_COUNT; k++)
      if (z - a == strlen(Csv_columns[k]) && strncmp(text + a, Csv_columns[k], z - a) == 0) {
        if (have[k] >= 0) return Csv_fail(&c, a, "column '%s' appears twice", Csv_columns[k]);
        have[k] = ncols;
        where[ncols] = k;
      }
    ncols++;
  } while (stop == ',');
  for (int k = 0; k <= COL_SIZE; k++)
    if (have[k] < 0) {
      char msg[160];
      snprintf(msg, sizeof msg, "the header has no '%%s' column (expected id,lower,upper,size[,offset])");
      return Csv_fail(&c, 0, msg, Csv_columns[k]);
    }
  int cap = 64;
  inst->buffers = malloc(sizeof *inst->buffers * (size_t)cap);
  inst->ids = malloc(sizeof *inst->ids * (size_t)cap);
  inst->offsets = have[COL_OFFSET] >= 0 ? malloc(sizeof *inst->offsets * (size_t)cap) : NULL;
  if (!inst->buffers || !inst->ids || (have[COL_OFFSET] >= 0 && !inst->offsets)) goto nomem;
  Status st = SP_OK;
  while (text[c.pos]) {
    size_t row_start = c.pos;
    /* skip blank lines */
    size_t p = c.pos;
    while (text[p] == ' ' || text[p] == '\t' || text[p] == '\r') p++;
    if (text[p] == '\n' || !text[p]) {
      c.pos = text[p] ? p + 1 : p;
      continue;
    }
    if (inst->n == cap) {
      cap *= 2;
      PackBuffer *nb = realloc(inst->buffers, sizeof *nb * (size_t)cap);
      if (!nb) goto nomem;
      inst->buffers = nb;
      char **ni = realloc(inst->ids, sizeof *ni * (size_t)cap);
      if (!ni) goto nomem;
      inst->ids = ni;
      if (inst->offsets) {
        int64_t *no = realloc(inst->offsets, sizeof *no * (size_t)cap);
        if (!no) goto nomem;
        inst->offsets = no;
      }
    }
    PackBuffer b = {0, 0, 0, 0};
    int64_t off = 0;
    char *id = NULL;
    int col = 0;
    size_t field_at[COL_COUNT] = {0};
    do {
      size_t a, z;
      stop = Csv_field(&c, &a, &z);
      if (col >= ncols) {
        free(id);
        st = Csv_fail(&c, a, "more fields than the header has columns%s", "");
        goto fail;
      }
      int k = where[col++];
      if (k < 0) continue;
      field_at[k] = a;
      if (k == COL_ID) {
        if (z == a) {
          st = Csv_fail(&c, a, "expected a buffer id, found %s", "an empty field");
          goto fail;
        }
        id = malloc(z - a + 1);
        if (!id) goto nomem;
        memcpy(id, text + a, z - a);
        id[z - a] = '\0';
        continue;
      }
      int64_t v = 0;
      st = Csv_int(&c, a, z, Csv_columns[k], &v);
      if (st != SP_OK) {
        free(id);
        goto fail;
      }
      if (k == COL_LOWER) b.lower = v;
      else if (k == COL_UPPER) b.upper = v;
      else if (k == COL_SIZE) b.size = v;
      else if (k == COL_OFFSET) off = v;
      else b.align = v;
    } while (stop == ',');
    if (col < ncols) {
      free(id);
      int line, lc;
      FileIO_lineColumn(text, row_start, &line, &lc);
      st = SpError_set(err, SP_ERR_FORMAT, "%s:%d:%d: expected %d fields as in the header, found %d", name, line, lc,
                       ncols, col);
      goto fail;
    }
    if (b.size <= 0) {
      free(id);
      st = Csv_fail(&c, field_at[COL_SIZE], "expected a positive %s", "size");
      goto fail;
    }
    if (b.lower < 0) {
      free(id);
      st = Csv_fail(&c, field_at[COL_LOWER], "expected a non-negative %s", "lower");
      goto fail;
    }
    if (b.lower >= b.upper) {
      free(id);
      st = Csv_fail(&c, field_at[COL_UPPER], "expected upper > lower (the lifetime is [lower, upper))%s", "");
      goto fail;
    }
    if (have[COL_ALIGN] >= 0 && b.align < 0) {
      free(id);
      st = Csv_fail(&c, field_at[COL_ALIGN], "expected a non-negative %s", "alignment");
      goto fail;
    }
    if (inst->offsets && off < 0) {
      free(id);
      st = Csv_fail(&c, field_at[COL_OFFSET], "expected a non-negative %s", "offset");
      goto fail;
    }
    inst->buffers[inst->n] = b;
    inst->ids[inst->n] = id;
    if (inst->offsets) inst->offsets[inst->n] = off;
    /* a repeated id: the solution's rows could not be told apart (it was accepted) */
    int dup;
    if (!CsvIds_add(&seen, inst->ids, inst->n, &dup)) {
      free(id);
      goto nomem;
    }
    if (dup >= 0) {
      free(id);
      st = Csv_fail(&c, field_at[COL_ID], "id \"%.64s\" appears twice (buffers %d and %d): expected one id per buffer",
                    inst->ids[dup], dup + 1, inst->n + 1);
      goto fail;
    }
    inst->n++;
  }
  free(seen.slot);
  return SP_OK;
nomem:
  st = SpError_set(err, SP_ERR_NOMEM, "%s: out of memory", name);
fail:
  free(seen.slot);
  PackInstance_free(inst);
  return st;
}

Status PackInstance_readCsv(const char *path, PackInstance *inst, SpError *err) {
  char *text;
  size_t len;
  memset(inst, 0, sizeof *inst);
  Status st = FileIO_read(path, FILE_CSV, &text, &len, err);
  if (st != SP_OK) return st;
  if (strlen(text) != len) {
    free(text);
    return SpError_set(err, SP_ERR_FORMAT, "%s: a NUL byte in the file (expected CSV text)", path);
  }
  st = PackInstance_parseCsv(path, text, inst, err);
  free(text);
  return st;
}

Status PackInstance_writeCsv(const char *path, const PackInstance *inst, const int64_t *offsets, SpError *err) {
  bool align = false;
  for (int i = 0; i < inst->n; i++) align |= inst->buffers[i].align > 1;
  size_t cap = 64, len = 0;
  char *out = malloc(cap);
  if (!out) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  for (int i = -1; i < inst->n; i++) {
    char row[512];
    int k;
    if (i < 0) {
      k = snprintf(row, sizeof row, "id,lower,upper,size%s%s\n", align ? ",alignment" : "", offsets ? ",offset" : "");
    } else {
      const PackBuffer *b = &inst->buffers[i];
      char extra[64] = "", offs[32] = "";
      if (align) snprintf(extra, sizeof extra, ",%lld", (long long)b->align);
      if (offsets) snprintf(offs, sizeof offs, ",%lld", (long long)offsets[i]);
      k = snprintf(row, sizeof row, "%.300s,%lld,%lld,%lld%s%s\n", inst->ids ? inst->ids[i] : "?",
                   (long long)b->lower, (long long)b->upper, (long long)b->size, extra, offs);
    }
    if (k < 0) k = 0;
    if ((size_t)k >= sizeof row) k = (int)sizeof row - 1;
    if (len + (size_t)k + 1 > cap) {
      while (len + (size_t)k + 1 > cap) cap *= 2;
      char *n2 = realloc(out, cap);
      if (!n2) {
        free(out);
        return SpError_set(err, SP_ERR_NOMEM, "out of memory");
      }
      out = n2;
    }
    memcpy(out + len, row, (size_t)k);
    len += (size_t)k;
  }
  Status st = FileIO_write(path, out, len, err);
  free(out);
  return st;
}

/* Tiles_tiledNet: a network whose ops are the sub-steps of a tiled schedule and
 * whose tensors are the row pieces those sub-steps read and write, so the
 * ordinary solver, validator and map handle budgets below the original M_R:
 * the on-chip plan of the tiled network stages the tiles. Built as a
 * "spadmap-network" text and loaded by the one loader, so it obeys the contract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "strbuf.h"
#include "tiles.h"
#include "tiles_internal.h"

/* Row boundaries of a tensor: every tiling that touches it cuts it. */
typedef struct {
  int64_t *cut; /* ascending, cut[0] = 0, cut[n] = ext */
  int n;        /* pieces */
} TnPieces;

static int Tn_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The op's tiles actually used on the tiled network: never more than its
 * largest output's extent (a tile must write something). */
static int Tn_opTiles(const Net *net, const TilesModel *m, int op) {
  int64_t ext = 1;
  for (int k = 0; k < net->ops[op].noutputs; k++) {
    const Tensor *t = &net->tensors[net->ops[op].outputs[k]];
    int a = Tiles_tensorAxis(t, m->layout, m->shape);
    if (a >= 0 && t->shape[a] > ext) ext = t->shape[a];
  }
  return m->ops[op].ntiles < ext ? m->ops[op].ntiles : (int)ext;
}

/* The piece holding row r. */
static int Tn_pieceOf(const TnPieces *p, int64_t r) {
  int lo = 0, hi = p->n - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (p->cut[mid] <= r) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

static void Tn_pieceName(StrBuf *b, const Tensor *t, const TnPieces *p, int i) {
  if (p->n == 1) {
    StrBuf_jsonString(b, t->name);
    return;
  }
  char buf[1024];
  snprintf(buf, sizeof buf, "%s[%lld:%lld]", t->name, (long long)p->cut[i], (long long)p->cut[i + 1]);
  StrBuf_jsonString(b, buf);
}

static void Tn_opName(StrBuf *b, const Op *op, int j, int K) {
  if (K == 1) {
    StrBuf_jsonString(b, op->name);
    return;
  }
  char buf[1024];
  snprintf(buf, sizeof buf, "%s#%d", op->name, j);
  StrBuf_jsonString(b, buf);
}

/* The pieces tile j of K covers: [*first, *last]. An empty row range (more tiles
 * than rows) reads the piece holding its row. */
static void Tn_range(const TnPieces *p, int64_t ext, int j, int K, int *first, int *last) {
  int64_t r0 = ext * j / K, r1 = ext * (j + 1) / K;
  if (r0 >= ext) r0 = ext - 1;
  *first = Tn_pieceOf(p, r0);
  *last = r1 > r0 ? Tn_pieceOf(p, r1 - 1) : *first;
}

/* A pass's progress in one count: the tensors (Tiles_buildReport), then the ops
 * written (Tn_text), then the check. */
typedef struct {
  const TilesOptions *o;
  TilesProgress p;
  int64_t ntensors;
} TnReport;

static void Tn_report(TnReport *r, int64_t done) {
  if (!r || !r->o->progress) return;
  r->p.done = done;
  r->o->progress(&r->p, r->o->progress_user);
}
static void Tn_reportBuild(int64_t done, int64_t total, void *user) {
  (void)total;
  Tn_report(user, done);
}

static Status Tn_text(const Net *net, const TilesModel *m, const int *order, int64_t budget, TnReport *rep, char **out,
                      SpError *err) {
  TnPieces *pc = calloc((size_t)(net->ntensors ? net->ntensors : 1), sizeof *pc);
  int *axis = malloc(sizeof(int) * (size_t)(net->ntensors ? net->ntensors : 1));
  StrBuf b = {0};
  Status st = SP_OK;
  if (!pc || !axis) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    goto out;
  }
  for (int t = 0; t < net->ntensors; t++) {
    const Tensor *T = &net->tensors[t];
    axis[t] = T->kind == TK_PARAM ? -1 : Tiles_tensorAxis(T, m->layout, m->shape);
    int64_t ext = axis[t] < 0 ? 1 : T->shape[axis[t]];
    int ncuts = 2;
    if (axis[t] >= 0) {
      if (T->producer >= 0) ncuts += Tn_opTiles(net, m, T->producer);
      for (int k = 0; k < T->nconsumers; k++) ncuts += Tn_opTiles(net, m, T->consumers[k]);
    }
    int64_t *cut = malloc(sizeof(int64_t) * (size_t)ncuts);
    if (!cut) {
      st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
      goto out;
    }
    int n = 0;
    cut[n++] = 0;
    cut[n++] = ext;
    if (axis[t] >= 0) {
      for (int k = -1; k < T->nconsumers; k++) {
        int op = k < 0 ? T->producer : T->consumers[k];
        if (op < 0) continue;
        int K = Tn_opTiles(net, m, op);
        for (int j = 1; j < K; j++) cut[n++] = ext * j / K;
      }
    }
    qsort(cut, (size_t)n, sizeof *cut, Tn_cmp);
    int w = 0;
    for (int i = 0; i < n; i++)
      if (!w || cut[i] != cut[w - 1]) cut[w++] = cut[i];
    pc[t].cut = cut;
    pc[t].n = w - 1;
  }
  StrBuf_printf(&b, "{\n\"format\": \"spadmap-network\", \"version\": 1,\n\"name\": ");
  char label[1200];
  snprintf(label, sizeof label, "%s@%lld", net->name, (long long)budget);
  StrBuf_jsonString(&b, label);
  snprintf(label, sizeof label,
           "%s tiled by engine/tiles for an on-chip budget of %lld bytes: one op per tile, one tensor per row piece",
           net->name, (long long)budget);
  StrBuf_printf(&b, ",\n\"source\": ");
  StrBuf_jsonString(&b, label);
  StrBuf_printf(&b, ",\n\"tensors\": [\n");
  bool first = true;
  static const char *const kinds[] = {"activation", "input", "param", "output"};
  for (int t = 0; t < net->ntensors; t++) {
    const Tensor *T = &net->tensors[t];
    for (int i = 0; i < pc[t].n; i++) {
      StrBuf_printf(&b, "%s{\"name\": ", first ? "" : ",\n");
      first = false;
      Tn_pieceName(&b, T, &pc[t], i);
      StrBuf_printf(&b, ", \"shape\": [");
      for (int d = 0; d < T->rank; d++)
        StrBuf_printf(&b, "%s%lld", d ? ", " : "",
                  (long long)(d == axis[t] ? pc[t].cut[i + 1] - pc[t].cut[i] : T->shape[d]));
      StrBuf_printf(&b, "], \"dtype\": \"%s\", \"kind\": \"%s\"", T->dtype, kinds[T->kind]);
      if (T->kind == TK_PARAM || pc[t].n == 1) { /* keep a size override where the tensor is not cut */
        int64_t full = T->elem_bytes;
        for (int d = 0; d < T->rank; d++) full *= T->shape[d];
        if (full != T->bytes) StrBuf_printf(&b, ", \"bytes\": %lld", (long long)T->bytes);
      }
      StrBuf_printf(&b, "}");
    }
  }
  StrBuf_printf(&b, "\n],\n\"ops\": [\n");
  first = true;
  for (int s = 0; s < net->nops; s++) {
    if (rep) Tn_report(rep, rep->ntensors + s);
    int o = order ? order[s] : s;
    const Op *op = &net->ops[o];
    int K = Tn_opTiles(net, m, o);
    for (int j = 0; j < K; j++) {
      StrBuf_printf(&b, "%s{\"name\": ", first ? "" : ",\n");
      first = false;
      Tn_opName(&b, op, j, K);
      StrBuf_printf(&b, ", \"type\": ");
      StrBuf_jsonString(&b, op->type);
      for (int pass = 0; pass < 2; pass++) {
        StrBuf_printf(&b, pass ? "], \"outputs\": [" : ", \"inputs\": [");
        const int *list = pass ? op->outputs : op->inputs;
        int n = pass ? op->noutputs : op->ninputs, written = 0;
        for (int k = 0; k < n; k++) {
          int t = list[k];
          bool dup = false;
          for (int q = 0; q < k; q++) dup |= list[q] == t;
          if (dup) continue;
          int64_t ext = axis[t] < 0 ? 1 : net->tensors[t].shape[axis[t]];
          int f = 0, l = pc[t].n - 1;
          if (axis[t] >= 0) Tn_range(&pc[t], ext, j, K, &f, &l);
          if (pass && axis[t] >= 0 && ext * (j + 1) / K <= ext * j / K) continue; /* writes no row of it */
          if (pass && axis[t] < 0 && j != K - 1) continue; /* an unsplittable output: the last tile writes it */
          for (int i = f; i <= l; i++) {
            StrBuf_printf(&b, "%s", written++ ? ", " : "");
            Tn_pieceName(&b, &net->tensors[t], &pc[t], i);
          }
        }
      }
      StrBuf_printf(&b, "]");
      if (op->attrs_json) StrBuf_printf(&b, ", \"attrs\": %s", op->attrs_json);
      StrBuf_printf(&b, "}");
    }
  }
  StrBuf_printf(&b, "\n]\n}\n");
  if (b.nomem) {
    free(b.s);
    b.s = NULL;
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory writing the tiled network");
  }
  *out = b.s;
out:
  for (int t = 0; pc && t < net->ntensors; t++) free(pc[t].cut);
  free(pc);
  free(axis);
  return st;
}

Status Tiles_tiledNet(const Net *net, const TilesOptions *o, Net **out, char **text_out, SpError *err) {
  return Tiles_tiledNetUsed(net, o, out, text_out, NULL, err);
}

Status Tiles_tiledNetUsed(const Net *net, const TilesOptions *o, Net **out, char **text_out, TilesOptions *used,
                          SpError *err) {
  *out = NULL;
  if (text_out) *text_out = NULL;
  int64_t target = o->capacity;
  if (target <= 0) return SpError_set(err, SP_ERR_ARG, "a tiled network needs an on-chip budget (got %lld)", (long long)target);
  TilesOptions to = *o;
  to.file_tiles_at_least = true; /* a file's tile count must not keep a tile over the budget */
  /* The rule aims at the budget; row pieces and rounding can leave a tile a
   * little over it, so aim lower until every tile fits (or tiling is exhausted). */
  int64_t last_mr = -1;
  for (int round = 0; round < 16; round++) {
    TnReport rep = {.o = o, .p = {.pass = round + 1, .total = (int64_t)net->ntensors + net->nops + 1},
                    .ntensors = net->ntensors};
    TilesModel *m;
    Status st = Tiles_buildReport(net, &to, o->progress ? Tn_reportBuild : NULL, &rep, &m, err);
    if (st) return st;
    char *text;
    st = Tn_text(net, m, o->order, target, &rep, &text, err);
    Tiles_free(m);
    if (st) return st;
    Net *tn;
    st = Net_parse(text, strlen(text), "tiled network", &tn, err);
    if (st) {
      free(text);
      return st;
    }
    Tn_report(&rep, rep.p.total - 1); /* written: the check follows */
    int64_t mr = Figures_minRequired(tn, false);
    Tn_report(&rep, rep.p.total);
    if (mr <= target || mr == last_mr) {
      if (mr > target) {
        Net_free(tn);
        free(text);
        return SpError_set(err, SP_ERR_INFEASIBLE,
                           "%s cannot be tiled under %lld bytes: its largest tile still needs %lld (rows cannot be cut finer, or parameters alone exceed it)",
                           net->name, (long long)target, (long long)mr);
      }
      *out = tn;
      if (used) *used = to;
      if (text_out)
        *text_out = text;
      else
        free(text);
      return SP_OK;
    }
    last_mr = mr;
    Net_free(tn);
    free(text);
    int64_t next = (int64_t)((double)to.capacity * (double)target / (double)mr) - 1;
    to.capacity = next < 1 ? 1 : next;
  }
  return SpError_set(err, SP_ERR_INFEASIBLE, "%s: no tiling under %lld bytes found", net->name, (long long)target);
}

/* minpeak_split: weight-only ops taken out, and cut ops (see minpeak_split.h). */
#include "minpeak_split.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bitset.h"

/* One output only: an op that makes several tensors at once (DnC's "enter" op of a
 * segment) makes each of them live from that step, not from its own first reader,
 * so taking it out would lower M_P (the search then failed its own check, and every
 * joint solve of such a segment ran without its M_P order: issue 35). */
static bool Reduce_removable(const Net *net, int v) {
  const Op *op = &net->ops[v];
  if (op->noutputs != 1) return false;
  for (int k = 0; k < op->ninputs; k++)
    if (net->tensors[op->inputs[k]].kind != TK_PARAM) return false;
  for (int k = 0; k < op->noutputs; k++)
    if (net->tensors[op->outputs[k]].nconsumers == 0) return false;
  return op->noutputs > 0;
}

/* A removed op that copies one param into one output at least as large. */
static bool Reduce_copy(const Net *net, int v) {
  const Op *op = &net->ops[v];
  return op->ninputs == 1 && op->noutputs == 1 &&
         net->tensors[op->outputs[0]].bytes >= net->tensors[op->inputs[0]].bytes;
}

/* Adds u to the ascending list c of n entries unless present; returns the new n. */
static int Reduce_addSorted(int *c, int n, int u) {
  int k = n;
  while (k > 0 && c[k - 1] > u) k--;
  if (k > 0 && c[k - 1] == u) return n;
  memmove(c + k + 1, c + k, sizeof(int) * (size_t)(n - k));
  c[k] = u;
  return n + 1;
}

bool MinPeakReduced_make(MinPeakReduced *r, const Net *net, bool take, bool fold) {
  memset(r, 0, sizeof *r);
  int n = net->nops, nt = net->ntensors;
  int *newidx = malloc(sizeof(int) * (size_t)(n + 1));
  r->orig = malloc(sizeof(int) * (size_t)(n + 1));
  r->removed = malloc(sizeof(int) * (size_t)(n + 1));
  if (!newidx || !r->orig || !r->removed) {
    free(newidx);
    MinPeakReduced_free(r);
    return false;
  }
  int kept = 0;
  for (int v = 0; v < n; v++) {
    if (take && Reduce_removable(net, v)) {
      newidx[v] = -1;
      r->removed[r->nremoved++] = v;
    } else {
      newidx[v] = kept;
      r->orig[kept++] = v;
    }
  }
  for (int i = 0; fold && i < r->nremoved; i++)
    if (!Reduce_copy(net, r->removed[i])) r->nremoved = 0;
  r->net = *net;
  if (r->nremoved == 0) {
    for (int v = 0; v < n; v++) r->orig[v] = v;
    free(newidx);
    return true;
  }
  long ncons = 0;
  for (int t = 0; t < nt; t++) ncons += net->tensors[t].nconsumers;
  r->tensors = malloc(sizeof(Tensor) * (size_t)(nt + 1));
  r->ops = malloc(sizeof(Op) * (size_t)(kept + 1));
  r->consumers = malloc(sizeof(int) * (size_t)(ncons + 1));
  if (!r->tensors || !r->ops || !r->consumers) {
    free(newidx);
    MinPeakReduced_free(r);
    return false;
  }
  /* alias[t]: the param a folded copy t stands for (else t) */
  int *alias = malloc(sizeof(int) * (size_t)(nt + 1));
  long nin = 0;
  for (int v = 0; v < n; v++) nin += net->ops[v].ninputs;
  r->inputs = fold ? malloc(sizeof(int) * (size_t)(nin + 1)) : NULL;
  if (!alias || (fold && !r->inputs)) {
    free(newidx), free(alias);
    MinPeakReduced_free(r);
    return false;
  }
  for (int t = 0; t < nt; t++) alias[t] = t;
  for (int i = 0; fold && i < r->nremoved; i++) {
    const Op *op = &net->ops[r->removed[i]];
    alias[op->outputs[0]] = op->inputs[0];
  }
  long at = 0;
  for (int t = 0; t < nt; t++) {
    Tensor *x = &r->tensors[t];
    *x = net->tensors[t];
    if (x->producer >= 0 && newidx[x->producer] < 0) x->kind = TK_INPUT, x->producer = -1;
    else if (x->producer >= 0) x->producer = newidx[x->producer];
    x->consumers = r->consumers + at;
    x->nconsumers = 0;
    if (alias[t] != t) continue; /* folded: its readers read the param */
    int *c = r->consumers + at, nc = 0;
    for (int k = 0; k < net->tensors[t].nconsumers; k++) {
      int u = newidx[net->tensors[t].consumers[k]];
      if (u >= 0) c[nc++] = u;
    }
    for (int i = 0; fold && i < r->nremoved; i++) { /* the copies' readers read this param */
      const Op *op = &net->ops[r->removed[i]];
      if (op->inputs[0] != t) continue;
      const Tensor *w = &net->tensors[op->outputs[0]];
      for (int k = 0; k < w->nconsumers; k++) nc = Reduce_addSorted(c, nc, newidx[w->consumers[k]]);
    }
    x->nconsumers = nc;
    at += nc;
  }
  long in_at = 0;
  for (int v = 0; v < kept; v++) {
    r->ops[v] = net->ops[r->orig[v]];
    if (!fold) continue;
    int *in = r->inputs + in_at;
    for (int k = 0; k < r->ops[v].ninputs; k++) in[k] = alias[r->ops[v].inputs[k]];
    r->ops[v].inputs = in;
    in_at += r->ops[v].ninputs;
  }
  free(alias);
  r->net.tensors = r->tensors;
  r->net.ops = r->ops;
  r->net.nops = kept;
  free(newidx);
  return true;
}

void MinPeakReduced_free(MinPeakReduced *r) {
  free(r->orig), free(r->removed), free(r->tensors), free(r->ops), free(r->consumers), free(r->inputs);
  memset(r, 0, sizeof *r);
}

void MinPeakReduced_expand(const MinPeakReduced *r, const Net *net, const int *order, int *full) {
  int n = net->nops, kept = r->net.nops;
  if (r->nremoved == 0) {
    memcpy(full, order, sizeof(int) * (size_t)n);
    return;
  }
  /* pos: step of each kept original op in the reduced order; first[v]: the step
   * of a removed op's first reader */
  int *pos = malloc(sizeof(int) * (size_t)n), *first = malloc(sizeof(int) * (size_t)n);
  if (!pos || !first) { /* cannot happen after make; keep a valid order anyway */
    for (int v = 0; v < n; v++) full[v] = v;
    free(pos), free(first);
    return;
  }
  for (int v = 0; v < n; v++) pos[v] = -1;
  for (int q = 0; q < kept; q++) pos[r->orig[order[q]]] = q;
  int k = 0;
  for (int i = 0; i < r->nremoved; i++) {
    const Op *op = &net->ops[r->removed[i]];
    int f = kept;
    for (int o = 0; o < op->noutputs; o++) {
      const Tensor *t = &net->tensors[op->outputs[o]];
      for (int c = 0; c < t->nconsumers; c++) {
        int p = pos[t->consumers[c]];
        if (p >= 0 && p < f) f = p;
      }
    }
    first[r->removed[i]] = f;
  }
  for (int q = 0; q <= kept; q++) {
    for (int i = 0; i < r->nremoved; i++)
      if (first[r->removed[i]] == q) full[k++] = r->removed[i];
    if (q < kept) full[k++] = r->orig[order[q]];
  }
  free(pos), free(first);
}

int MinPeak_segments(const Net *net, const uint64_t *anc, int *seg_end) {
  int n = net->nops, words = Bitset_words(n), nseg = 0;
  /* common: the ancestors every later op shares, built from the last op back */
  uint64_t *common = malloc(sizeof(uint64_t) * (size_t)(words + 1));
  unsigned char *cut = calloc((size_t)n + 1, 1);
  if (!common || !cut) {
    free(common), free(cut);
    return 0;
  }
  for (int w = 0; w < words; w++) common[w] = ~(uint64_t)0;
  for (int v = n - 1; v >= 0; v--) {
    const uint64_t *a = anc + (size_t)v * (size_t)words;
    int cnt = 0;
    for (int w = 0; w < words; w++) cnt += __builtin_popcountll(a[w]);
    /* the file order is topological: every earlier op an ancestor, every later one a descendant */
    cut[v] = cnt == v && Bitset_has(common, v);
    for (int w = 0; w < words; w++) common[w] &= a[w];
  }
  for (int v = 0; v < n; v++)
    if (cut[v] || v == n - 1) seg_end[nseg++] = v + 1;
  free(common), free(cut);
  return nseg;
}

#include "figures.h"

#include <stdlib.h>
#include <string.h>

#include "bitset.h"

static bool Figures_seenBefore(const int *list, int k) {
  for (int j = 0; j < k; j++)
    if (list[j] == list[k]) return true;
  return false;
}

int64_t Figures_opBytes(const Net *net, int o, bool params) {
  const Op *op = &net->ops[o];
  int64_t sum = 0;
  for (int k = 0; k < op->ninputs; k++)
    if (Net_onChip(net, op->inputs[k], params) && !Figures_seenBefore(op->inputs, k))
      sum += net->tensors[op->inputs[k]].bytes;
  for (int k = 0; k < op->noutputs; k++) sum += net->tensors[op->outputs[k]].bytes;
  return sum;
}

int64_t Figures_minRequired(const Net *net, bool params) {
  int64_t best = 0;
  for (int o = 0; o < net->nops; o++) {
    int64_t b = Figures_opBytes(net, o, params);
    if (b > best) best = b;
  }
  return best;
}

int64_t Figures_peak(const Net *net, bool params, const int *order, int *peak_step) {
  int n = net->nops;
  int *pos = malloc(sizeof(int) * (size_t)n);
  int64_t *diff = calloc((size_t)n + 1, sizeof(int64_t));
  int64_t peak = -1;
  if (!pos || !diff) goto done;
  for (int s = 0; s < n; s++) pos[order[s]] = s;
  for (int i = 0; i < net->ntensors; i++) {
    const Tensor *t = &net->tensors[i];
    if (!Net_onChip(net, i, params)) continue;
    int first = n, last = -1;
    if (t->producer >= 0) first = pos[t->producer];
    for (int c = 0; c < t->nconsumers; c++) {
      int p = pos[t->consumers[c]];
      if (t->producer < 0 && p < first) first = p;
      if (p > last) last = p;
    }
    if (first == n) continue; /* an input nobody reads never comes on chip */
    if (last < first) last = first;
    diff[first] += t->bytes;
    diff[last + 1] -= t->bytes;
  }
  int64_t live = 0;
  peak = 0;
  if (peak_step) *peak_step = 0;
  for (int s = 0; s < n; s++) {
    live += diff[s];
    if (live > peak) {
      peak = live;
      if (peak_step) *peak_step = s;
    }
  }
done:
  free(pos);
  free(diff);
  return peak;
}

uint64_t *Figures_ancestors(const Net *net, int words) {
  uint64_t *anc = calloc((size_t)net->nops * (size_t)words, sizeof(uint64_t));
  if (!anc) return NULL;
  for (int o = 0; o < net->nops; o++) {
    uint64_t *a = anc + (size_t)o * (size_t)words;
    const Op *op = &net->ops[o];
    for (int k = 0; k < op->ninputs; k++) {
      int p = net->tensors[op->inputs[k]].producer;
      if (p < 0) continue;
      const uint64_t *pa = anc + (size_t)p * (size_t)words;
      for (int w = 0; w < words; w++) a[w] |= pa[w];
      Bitset_set(a, p);
    }
  }
  return anc;
}

int64_t Figures_peakLowerBound(const Net *net, bool params) { return Figures_opLowerBounds(net, params, NULL); }

int64_t Figures_opLowerBounds(const Net *net, bool params, int64_t *per_op) {
  int n = net->nops, words = Bitset_words(n);
  uint64_t *anc = Figures_ancestors(net, words);
  if (!anc) {
    for (int v = 0; per_op && v < n; v++) per_op[v] = Figures_opBytes(net, v, params);
    return Figures_minRequired(net, params);
  }
  int64_t best = 0;
  for (int v = 0; v < n; v++) {
    const uint64_t *av = anc + (size_t)v * (size_t)words;
    int64_t sum = Figures_opBytes(net, v, params);
    for (int i = 0; i < net->ntensors; i++) {
      const Tensor *t = &net->tensors[i];
      if (!Net_onChip(net, i, params) || t->nconsumers == 0 || t->producer == v) continue;
      bool read_by_v = false, before = t->producer >= 0 && Bitset_has(av, t->producer), after = false;
      for (int c = 0; c < t->nconsumers; c++) {
        int u = t->consumers[c];
        if (u == v) read_by_v = true;
        else if (Bitset_has(av, u)) before = true;
        else if (Bitset_has(anc + (size_t)u * (size_t)words, v)) after = true;
      }
      /* Made (or first loaded) by an ancestor and still needed by a descendant. */
      if (!read_by_v && before && after) sum += t->bytes;
    }
    if (per_op) per_op[v] = sum;
    if (sum > best) best = sum;
  }
  free(anc);
  return best;
}

Status Figures_compute(const Net *net, bool params, NetFigures *f, int *mp_order, SpError *err) {
  return Figures_computeWith(net, params, NULL, f, mp_order, err);
}

Status Figures_computeWith(const Net *net, bool params, const MinPeakOptions *mopt, NetFigures *f, int *mp_order,
                           SpError *err) {
  memset(f, 0, sizeof *f);
  f->m_r = Figures_minRequired(net, params);
  int *def = calloc((size_t)net->nops + 1, sizeof(int));
  int *order = mp_order ? mp_order : malloc(sizeof(int) * (size_t)net->nops);
  if (!def || !order) {
    free(def);
    if (!mp_order) free(order);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory computing figures");
  }
  for (int s = 0; s < net->nops; s++) def[s] = s;
  f->default_peak = Figures_peak(net, params, def, NULL);
  free(def);
  MinPeakOptions opt;
  MinPeakOptions_init(&opt);
  Status st = Figures_minPeak(net, params, mopt ? mopt : &opt, order, &f->search, err);
  if (!mp_order) free(order);
  if (st && st != SP_ERR_LIMIT) return st;
  f->m_p = f->search.peak;
  f->m_p_exact = st == SP_OK;
  f->m_h = (f->m_r + f->m_p) / 2;
  return SP_OK;
}

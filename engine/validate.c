#include "validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static void Report_add(ValidateReport *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void Report_add(ValidateReport *r, const char *fmt, ...) {
  r->count++;
  if (r->nlines >= VALIDATE_MAX_LINES) return;
  char raw[512], buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  Text_escape(raw, buf, sizeof buf); /* lines quote names from the files */
  char *s = malloc(strlen(buf) + 1);
  if (!s) return;
  strcpy(s, buf);
  r->lines[r->nlines++] = s;
}

void ValidateReport_free(ValidateReport *r) {
  for (int i = 0; i < r->nlines; i++) free(r->lines[i]);
  r->nlines = 0;
}

/* Each op once, inputs made at earlier steps. Fills pos (op -> step); false if broken. */
static bool Validate_schedule(const Net *net, const Plan *p, int *pos, ValidateReport *r) {
  bool ok = true;
  for (int o = 0; o < net->nops; o++) pos[o] = -1;
  for (int s = 0; s < p->nsteps; s++) {
    int o = p->order[s];
    if (o < 0 || o >= net->nops) {
      Report_add(r, "schedule[%d]: not an op of the network", s);
      ok = false;
    } else if (pos[o] >= 0) {
      Report_add(r, "schedule[%d]: op \"%s\" already runs at step %d", s, net->ops[o].name, pos[o]);
      ok = false;
    } else {
      pos[o] = s;
    }
  }
  for (int o = 0; o < net->nops; o++)
    if (pos[o] < 0) Report_add(r, "schedule: op \"%s\" never runs", net->ops[o].name), ok = false;
  if (!ok) return false;
  for (int o = 0; o < net->nops; o++)
    for (int k = 0; k < net->ops[o].ninputs; k++) {
      int prod = net->tensors[net->ops[o].inputs[k]].producer;
      if (prod >= 0 && pos[prod] >= pos[o]) {
        Report_add(r, "schedule[%d]: op \"%s\" reads \"%s\" before op \"%s\" makes it (step %d)", pos[o],
                   net->ops[o].name, net->tensors[net->ops[o].inputs[k]].name, net->ops[prod].name, pos[prod]);
        ok = false;
      }
    }
  return ok;
}

typedef struct {
  int tensor, start, stay;
} StayKey;

static int StayKey_cmp(const void *a, const void *b) {
  const StayKey *x = a, *y = b;
  if (x->tensor != y->tensor) return x->tensor < y->tensor ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->stay < y->stay ? -1 : (x->stay > y->stay);
}

/* Per-placement rules that need no other placement. Returns true when the stay
 * has a step range and an address inside [0, budget): only such stays take part
 * in the address sweep (a stay outside is reported here, once). */
static bool Validate_stayShape(const Net *net, const Plan *p, int i, ValidateReport *r) {
  const Stay *s = &p->stays[i];
  const Tensor *t = &net->tensors[s->tensor];
  bool ok = true;
  if (!Net_onChip(net, s->tensor, p->params))
    Report_add(r, "placements[%d]: \"%s\" is a param, but the plan has params off", i, t->name);
  if (s->start < 0 || s->end >= p->nsteps || s->start > s->end)
    Report_add(r, "placements[%d]: \"%s\" steps %d..%d are not a range inside 0..%d", i, t->name, s->start, s->end,
               p->nsteps - 1),
        ok = false;
  int64_t last_offset; /* the highest offset that still fits: budget - bytes, computed without overflow */
  if (__builtin_sub_overflow(p->budget, t->bytes, &last_offset)) last_offset = -1;
  if (s->offset < 0 || s->offset > last_offset) {
    int64_t top;
    if (__builtin_add_overflow(s->offset, t->bytes, &top))
      Report_add(r, "placements[%d]: \"%s\" at offset %lld + %lld bytes passes 2^63, outside [0, budget %lld)", i,
                 t->name, (long long)s->offset, (long long)t->bytes, (long long)p->budget);
    else
      Report_add(r, "placements[%d]: \"%s\" at [%lld, %lld) lies outside [0, budget %lld)", i, t->name,
                 (long long)s->offset, (long long)top, (long long)p->budget);
    ok = false;
  }
  return ok;
}

/* sum += add, or a report and a saturated sum when it would pass int64. */
static void Metric_add(ValidateReport *r, int64_t *sum, int64_t add, const char *what, const char *tensor) {
  if (!__builtin_add_overflow(*sum, add, sum)) return;
  if (*sum != INT64_MAX)
    Report_add(r, "metrics: the %s overflow 64 bits (adding \"%s\")", what, tensor);
  *sum = INT64_MAX;
}

/* Host-copy bookkeeping and the in/out rules along one tensor's stays (sorted by start). */
static void Validate_tensorStays(const Net *net, const Plan *p, const int *pos, const int *idx, int n,
                                 ValidateReport *r, Metrics *m) {
  const int ti = p->stays[idx[0]].tensor;
  const Tensor *t = &net->tensors[ti];
  bool host = t->kind == TK_INPUT || t->kind == TK_PARAM; /* a host copy exists */
  bool output_home = false;
  int last_use = -1;
  for (int c = 0; c < t->nconsumers; c++)
    if (pos[t->consumers[c]] > last_use) last_use = pos[t->consumers[c]];
  for (int k = 0; k < n; k++) {
    const int i = idx[k];
    const Stay *s = &p->stays[i];
    if (k > 0 && s->start <= p->stays[idx[k - 1]].end)
      Report_add(r, "placements[%d]: \"%s\" steps %d..%d overlap another stay of it (placements[%d], steps %d..%d)", i,
                 t->name, s->start, s->end, idx[k - 1], p->stays[idx[k - 1]].start, p->stays[idx[k - 1]].end);
    switch (s->in) {
    case STAY_CREATE:
      if (t->producer < 0) Report_add(r, "placements[%d]: \"%s\" is a graph %s; it is loaded, not created", i, t->name, TensorKind_name(t->kind));
      else if (k > 0) Report_add(r, "placements[%d]: \"%s\" is created twice or after another stay", i, t->name);
      else if (s->start != pos[t->producer])
        Report_add(r, "placements[%d]: \"%s\" is created at step %d, but its producer \"%s\" runs at step %d", i,
                   t->name, s->start, net->ops[t->producer].name, pos[t->producer]);
      break;
    case STAY_LOAD:
      if (t->producer >= 0) Report_add(r, "placements[%d]: \"%s\" is made by an op; only inputs/params are loaded", i, t->name);
      else if (k > 0) Report_add(r, "placements[%d]: \"%s\" is loaded again; later loads are retrievals", i, t->name);
      Metric_add(r, &m->compulsory_bytes, t->bytes, "compulsory bytes", t->name);
      break;
    case STAY_RETRIEVE:
      if (k == 0)
        Report_add(r, "placements[%d]: \"%s\" is retrieved before it was ever %s", i, t->name,
                   t->producer >= 0 ? "created" : "loaded");
      else if (!host) Report_add(r, "placements[%d]: \"%s\" is retrieved at step %d, but the host has no copy of it", i, t->name, s->start);
      Metric_add(r, &m->noncompulsory_bytes, t->bytes, "non-compulsory bytes", t->name);
      m->retrievals++;
      break;
    }
    switch (s->out) {
    case STAY_FREE:
      if (last_use > s->end || k + 1 < n)
        Report_add(r, "placements[%d]: \"%s\" is freed after step %d but used again at step %d", i, t->name, s->end,
                   last_use);
      break;
    case STAY_SPILL:
      if (host) Report_add(r, "placements[%d]: \"%s\" is spilled after step %d, but the host already has a copy (drop it)", i, t->name, s->end);
      host = true;
      if (t->kind == TK_OUTPUT) {
        output_home = true;
        Metric_add(r, &m->compulsory_bytes, t->bytes, "compulsory bytes", t->name);
      } else {
        Metric_add(r, &m->noncompulsory_bytes, t->bytes, "non-compulsory bytes", t->name);
        m->spills++;
      }
      break;
    case STAY_DROP:
      if (!host) Report_add(r, "placements[%d]: \"%s\" is dropped after step %d without a host copy (data lost)", i, t->name, s->end);
      break;
    case STAY_STORE:
      if (t->kind != TK_OUTPUT) Report_add(r, "placements[%d]: \"%s\" is stored, but only outputs are stored", i, t->name);
      else if (output_home) Report_add(r, "placements[%d]: output \"%s\" is stored twice", i, t->name);
      else Metric_add(r, &m->compulsory_bytes, t->bytes, "compulsory bytes", t->name);
      output_home = host = true;
      break;
    }
  }
  if (t->kind == TK_OUTPUT && !output_home)
    Report_add(r, "output \"%s\" never reaches host memory (no store or spill)", t->name);
}

/* The last of a tensor's stays (sorted by start) starting at or before step, or
 * lo - 1 when none does. */
static int Validate_lastStartingBy(const Plan *p, const int *idx, int lo, int hi, int step) {
  int found = lo - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (p->stays[idx[mid]].start <= step) found = mid, lo = mid + 1;
    else hi = mid;
  }
  return found;
}

/* Inputs covered at each op's step, outputs created there. A binary search per
 * read, so a tensor with many stays and many readers stays cheap. (Stays of one
 * tensor that overlap in time are reported on their own.) */
static void Validate_coverage(const Net *net, const Plan *p, const int *pos, const int *idx, const int *first,
                              ValidateReport *r) {
  for (int o = 0; o < net->nops; o++) {
    const Op *op = &net->ops[o];
    int s = pos[o];
    for (int k = 0; k < op->ninputs; k++) {
      int ti = op->inputs[k];
      if (!Net_onChip(net, ti, p->params)) continue;
      int j = Validate_lastStartingBy(p, idx, first[ti], first[ti + 1], s);
      bool covered = j >= first[ti] && p->stays[idx[j]].end >= s;
      if (!covered)
        Report_add(r, "step %d: op \"%s\" reads \"%s\", which is not in the scratchpad then", s, op->name,
                   net->tensors[ti].name);
    }
    for (int k = 0; k < op->noutputs; k++) {
      int ti = op->outputs[k];
      bool created = false;
      for (int j = Validate_lastStartingBy(p, idx, first[ti], first[ti + 1], s);
           j >= first[ti] && p->stays[idx[j]].start == s && !created; j--)
        created = p->stays[idx[j]].in == STAY_CREATE;
      if (!created)
        Report_add(r, "step %d: op \"%s\" makes \"%s\", but no placement creates it at that step", s, op->name,
                   net->tensors[ti].name);
    }
  }
}

/* ---- addresses: one sweep over time, the resident stays kept in a treap
 * ordered by offset. Memory is linear in the plan, time n log n. ---- */

typedef struct {
  const Net *net;
  const Plan *p;
  int *left, *right;
  uint32_t *prio;
  int root;
} Treap;

static bool Treap_less(const Treap *t, int a, int b) { /* by offset, then placement index */
  int64_t x = t->p->stays[a].offset, y = t->p->stays[b].offset;
  return x != y ? x < y : a < b;
}

/* Splits tree n into keys < key (*l) and >= key (*r). */
static void Treap_split(Treap *t, int n, int key, int *l, int *r) {
  if (n < 0) {
    *l = *r = -1;
  } else if (Treap_less(t, n, key)) {
    Treap_split(t, t->right[n], key, &t->right[n], r);
    *l = n;
  } else {
    Treap_split(t, t->left[n], key, l, &t->left[n]);
    *r = n;
  }
}

static int Treap_merge(Treap *t, int a, int b) {
  if (a < 0) return b;
  if (b < 0) return a;
  if (t->prio[a] > t->prio[b]) {
    t->right[a] = Treap_merge(t, t->right[a], b);
    return a;
  }
  t->left[b] = Treap_merge(t, a, t->left[b]);
  return b;
}

static void Treap_insert(Treap *t, int x) {
  int l, r;
  t->left[x] = t->right[x] = -1;
  Treap_split(t, t->root, x, &l, &r);
  t->root = Treap_merge(t, Treap_merge(t, l, x), r);
}

static void Treap_erase(Treap *t, int x) {
  int l, m, r;
  Treap_split(t, t->root, x, &l, &m);
  /* m starts with x (the smallest key >= x); drop it */
  int *link = &m, n = m;
  while (n >= 0 && n != x) link = &t->left[n], n = t->left[n];
  if (n == x) *link = t->right[x];
  r = m;
  t->root = Treap_merge(t, l, r);
}

/* Resident neighbours of x by offset: the greatest key below and the least above. */
static void Treap_neighbours(const Treap *t, int x, int *below, int *above) {
  *below = *above = -1;
  for (int n = t->root; n >= 0;)
    if (Treap_less(t, n, x)) *below = n, n = t->right[n];
    else *above = n, n = t->left[n];
}

typedef struct {
  int stay, step;
} StayEvent;

static int StayEvent_cmp(const void *a, const void *b) {
  const StayEvent *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  return (x->stay > y->stay) - (x->stay < y->stay);
}

static int64_t Stay_top(const Net *net, const Stay *s) { return s->offset + net->tensors[s->tensor].bytes; }

static void Validate_overlap(const Net *net, const Plan *p, int step, int a, int b, ValidateReport *r) {
  const Stay *x = &p->stays[a], *y = &p->stays[b];
  if (y->offset < x->offset) {
    const Stay *tmp = x;
    x = y, y = tmp;
  }
  int through = x->end < y->end ? x->end : y->end;
  Report_add(r, "step %d: \"%s\" [%lld, %lld) overlaps \"%s\" [%lld, %lld) in the scratchpad%s%.0d%s", step,
             net->tensors[y->tensor].name, (long long)y->offset, (long long)Stay_top(net, y),
             net->tensors[x->tensor].name, (long long)x->offset, (long long)Stay_top(net, x),
             through > step ? " (through step " : "", through > step ? through : 0, through > step ? ")" : "");
}

/* At every step the resident stays (those with `placed` set: a range and an
 * address inside the budget) are pairwise disjoint; also peak and footprint. A
 * stay that overlaps a resident one is reported and left out of the set, so the
 * set stays disjoint and the neighbour test stays exact. */
static Status Validate_addresses(const Net *net, const Plan *p, const bool *placed, ValidateReport *r, Metrics *m) {
  size_t n = p->nstays > 0 ? (size_t)p->nstays : 0, steps = p->nsteps > 0 ? (size_t)p->nsteps : 0;
  Treap t = {net, p, malloc(sizeof(int) * (n ? n : 1)), malloc(sizeof(int) * (n ? n : 1)),
             malloc(sizeof(uint32_t) * (n ? n : 1)), -1};
  StayEvent *starts = malloc(sizeof(StayEvent) * (n ? n : 1)), *ends = malloc(sizeof(StayEvent) * (n ? n : 1));
  bool *in = calloc(n ? n : 1, sizeof(bool));
  __int128 *diff = calloc(steps + 1, sizeof(__int128)); /* resident bytes: + at start, - after end */
  Status st = SP_OK;
  if (!t.left || !t.right || !t.prio || !starts || !ends || !in || !diff) {
    st = SP_ERR_NOMEM;
    goto done;
  }
  size_t ns = 0;
  uint32_t seed = 2463534242u;
  for (size_t i = 0; i < n; i++) {
    const Stay *s = &p->stays[i];
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5; /* xorshift: fixed, so reports repeat */
    t.prio[i] = seed;
    if (s->start < 0 || s->end >= p->nsteps || s->start > s->end) continue;
    diff[s->start] += net->tensors[s->tensor].bytes;
    diff[s->end + 1] -= net->tensors[s->tensor].bytes;
    if (!placed[i]) continue;
    if (Stay_top(net, s) > m->footprint_bytes) m->footprint_bytes = Stay_top(net, s);
    starts[ns] = (StayEvent){(int)i, s->start};
    ends[ns++] = (StayEvent){(int)i, s->end + 1};
  }
  __int128 live = 0, peak = 0;
  for (size_t s = 0; s < steps; s++) {
    live += diff[s];
    if (live > peak) peak = live;
  }
  if (peak > INT64_MAX) {
    Report_add(r, "the resident bytes at some step overflow 64 bits");
    m->peak_bytes = INT64_MAX;
  } else {
    m->peak_bytes = (int64_t)peak;
  }
  qsort(starts, ns, sizeof *starts, StayEvent_cmp);
  qsort(ends, ns, sizeof *ends, StayEvent_cmp);
  int reported = 0;
  for (size_t a = 0, e = 0; a < ns; a++) {
    int step = starts[a].step, x = starts[a].stay;
    for (; e < ns && ends[e].step <= step; e++)
      if (in[ends[e].stay]) Treap_erase(&t, ends[e].stay), in[ends[e].stay] = false;
    int below, above;
    Treap_neighbours(&t, x, &below, &above);
    const Stay *s = &p->stays[x];
    int clash = below >= 0 && Stay_top(net, &p->stays[below]) > s->offset ? below
                : above >= 0 && p->stays[above].offset < Stay_top(net, s) ? above
                                                                           : -1;
    if (clash >= 0) {
      if (reported < 50) Validate_overlap(net, p, step, clash, x, r);
      else r->count++;
      reported++;
    } else {
      Treap_insert(&t, x);
      in[x] = true;
    }
  }
done:
  free(t.left), free(t.right), free(t.prio), free(starts), free(ends), free(in), free(diff);
  return st;
}

static void Validate_metrics(const Plan *p, const Metrics *m, ValidateReport *r) {
  const Metrics *c = &p->metrics;
#define CHECK(field)                                                                                     \
  if (c->field != m->field)                                                                              \
    Report_add(r, "metrics." #field " is %lld, but the placements imply %lld", (long long)c->field, \
               (long long)m->field);
  CHECK(noncompulsory_bytes)
  CHECK(compulsory_bytes)
  CHECK(peak_bytes)
  CHECK(footprint_bytes)
  CHECK(spills)
  CHECK(retrievals)
#undef CHECK
}

Status Validate_plan(const Net *net, const Plan *p, ValidateReport *r) {
  memset(r, 0, sizeof *r);
  if (strcmp(p->network, net->name) != 0)
    Report_add(r, "network: plan is for \"%s\", the network is \"%s\"", p->network, net->name);
  if (p->budget < 0) Report_add(r, "budget: %lld is negative", (long long)p->budget);
  size_t nalloc = p->nstays > 0 ? (size_t)p->nstays : 1;
  int *pos = malloc(sizeof(int) * (size_t)net->nops);
  int *idx = malloc(sizeof(int) * nalloc);
  int *first = calloc((size_t)net->ntensors + 1, sizeof(int));
  bool *placed = NULL;
  Status st = SP_OK;
  if (!pos || !idx || !first) {
    st = SP_ERR_NOMEM;
    goto done;
  }
  if (!Validate_schedule(net, p, pos, r)) goto done; /* nothing below means anything without a schedule */
  Metrics m = {0};
  placed = malloc(sizeof(bool) * nalloc);
  if (!placed) {
    st = SP_ERR_NOMEM;
    goto done;
  }
  for (int i = 0; i < p->nstays; i++) {
    idx[i] = i;
    placed[i] = Validate_stayShape(net, p, i, r);
  }
  StayKey *keys = malloc(sizeof(StayKey) * nalloc);
  if (!keys) {
    st = SP_ERR_NOMEM;
    goto done;
  }
  for (int i = 0; i < p->nstays; i++) keys[i] = (StayKey){p->stays[i].tensor, p->stays[i].start, i};
  qsort(keys, (size_t)p->nstays, sizeof(StayKey), StayKey_cmp);
  for (int i = 0; i < p->nstays; i++) idx[i] = keys[i].stay;
  free(keys);
  for (int i = 0; i < p->nstays; i++) first[p->stays[idx[i]].tensor + 1]++;
  for (int t = 0; t < net->ntensors; t++) first[t + 1] += first[t];
  for (int t = 0; t < net->ntensors; t++)
    if (first[t + 1] > first[t]) Validate_tensorStays(net, p, pos, idx + first[t], first[t + 1] - first[t], r, &m);
    else if (net->tensors[t].kind == TK_OUTPUT)
      Report_add(r, "output \"%s\" never reaches host memory (no placement)", net->tensors[t].name);
  Validate_coverage(net, p, pos, idx, first, r);
  if ((st = Validate_addresses(net, p, placed, r, &m))) goto done;
  r->metrics = m;
  r->metrics_known = true;
  Validate_metrics(p, &m, r);
done:
  free(pos), free(idx), free(first), free(placed);
  if (st) return st;
  return r->count ? SP_ERR_FORMAT : SP_OK;
}

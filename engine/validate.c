#include "validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void Report_add(ValidateReport *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void Report_add(ValidateReport *r, const char *fmt, ...) {
  r->count++;
  if (r->nlines >= VALIDATE_MAX_LINES) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
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

/* Per-placement rules that need no other placement. */
static bool Validate_stayShape(const Net *net, const Plan *p, int i, ValidateReport *r) {
  const Stay *s = &p->stays[i];
  const Tensor *t = &net->tensors[s->tensor];
  bool ok = true;
  if (!Net_onChip(net, s->tensor, p->params))
    Report_add(r, "placements[%d]: \"%s\" is a param, but the plan has params off", i, t->name), ok = false;
  if (s->start < 0 || s->end >= p->nsteps || s->start > s->end)
    Report_add(r, "placements[%d]: \"%s\" steps %d..%d are not a range inside 0..%d", i, t->name, s->start, s->end,
               p->nsteps - 1),
        ok = false;
  if (s->offset < 0 || s->offset > p->budget - t->bytes)
    Report_add(r, "placements[%d]: \"%s\" at [%lld, %lld) lies outside [0, budget %lld)", i, t->name,
               (long long)s->offset, (long long)(s->offset + t->bytes), (long long)p->budget),
        ok = false;
  return ok;
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
      m->compulsory_bytes += t->bytes;
      break;
    case STAY_RETRIEVE:
      if (k == 0)
        Report_add(r, "placements[%d]: \"%s\" is retrieved before it was ever %s", i, t->name,
                   t->producer >= 0 ? "created" : "loaded");
      else if (!host) Report_add(r, "placements[%d]: \"%s\" is retrieved at step %d, but the host has no copy of it", i, t->name, s->start);
      m->noncompulsory_bytes += t->bytes;
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
        m->compulsory_bytes += t->bytes;
      } else {
        m->noncompulsory_bytes += t->bytes;
        m->spills++;
      }
      break;
    case STAY_DROP:
      if (!host) Report_add(r, "placements[%d]: \"%s\" is dropped after step %d without a host copy (data lost)", i, t->name, s->end);
      break;
    case STAY_STORE:
      if (t->kind != TK_OUTPUT) Report_add(r, "placements[%d]: \"%s\" is stored, but only outputs are stored", i, t->name);
      else if (output_home) Report_add(r, "placements[%d]: output \"%s\" is stored twice", i, t->name);
      else m->compulsory_bytes += t->bytes;
      output_home = host = true;
      break;
    }
  }
  if (t->kind == TK_OUTPUT && !output_home)
    Report_add(r, "output \"%s\" never reaches host memory (no store or spill)", t->name);
}

/* Inputs covered at each op's step, outputs created there. */
static void Validate_coverage(const Net *net, const Plan *p, const int *pos, const int *idx, const int *first,
                              ValidateReport *r) {
  for (int o = 0; o < net->nops; o++) {
    const Op *op = &net->ops[o];
    int s = pos[o];
    for (int k = 0; k < op->ninputs; k++) {
      int ti = op->inputs[k];
      if (!Net_onChip(net, ti, p->params)) continue;
      bool covered = false;
      for (int j = first[ti]; j < first[ti + 1] && !covered; j++)
        covered = p->stays[idx[j]].start <= s && s <= p->stays[idx[j]].end;
      if (!covered)
        Report_add(r, "step %d: op \"%s\" reads \"%s\", which is not in the scratchpad then", s, op->name,
                   net->tensors[ti].name);
    }
    for (int k = 0; k < op->noutputs; k++) {
      int ti = op->outputs[k];
      bool created = false;
      for (int j = first[ti]; j < first[ti + 1] && !created; j++)
        created = p->stays[idx[j]].in == STAY_CREATE && p->stays[idx[j]].start == s;
      if (!created)
        Report_add(r, "step %d: op \"%s\" makes \"%s\", but no placement creates it at that step", s, op->name,
                   net->tensors[ti].name);
    }
  }
}

typedef struct {
  int64_t lo, hi;
  int stay;
} Span;

static int Span_cmp(const void *a, const void *b) {
  const Span *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return x->stay < y->stay ? -1 : (x->stay > y->stay);
}

/* At every step the resident stays are pairwise disjoint; also peak and footprint. */
static Status Validate_addresses(const Net *net, const Plan *p, ValidateReport *r, Metrics *m) {
  int n = p->nsteps;
  int *count = calloc((size_t)n + 1, sizeof(int));
  if (!count) return SP_ERR_NOMEM;
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    if (s->start < 0 || s->end >= n || s->start > s->end) continue;
    for (int step = s->start; step <= s->end; step++) count[step]++;
  }
  int maxc = 0;
  for (int step = 0; step < n; step++) maxc = count[step] > maxc ? count[step] : maxc;
  /* Bucket stays by step (stays are short, so this is linear in their total length). */
  int *start = calloc((size_t)n + 1, sizeof(int));
  if (!start) {
    free(count);
    return SP_ERR_NOMEM;
  }
  long total = 0;
  for (int step = 0; step < n; step++) start[step] = (int)total, total += count[step];
  start[n] = (int)total;
  int *members = malloc(sizeof(int) * (size_t)(total ? total : 1));
  Span *spans = malloc(sizeof(Span) * (size_t)(maxc ? maxc : 1));
  if (!start || !members || !spans) {
    free(count), free(start), free(members), free(spans);
    return SP_ERR_NOMEM;
  }
  memset(count, 0, sizeof(int) * (size_t)n);
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    if (s->start < 0 || s->end >= n || s->start > s->end) continue;
    for (int step = s->start; step <= s->end; step++) members[start[step] + count[step]++] = i;
    int64_t top = s->offset + net->tensors[s->tensor].bytes;
    if (top > m->footprint_bytes) m->footprint_bytes = top;
  }
  int reported = 0;
  for (int step = 0; step < n; step++) {
    int k = count[step];
    int64_t live = 0;
    for (int j = 0; j < k; j++) {
      const Stay *s = &p->stays[members[start[step] + j]];
      spans[j] = (Span){s->offset, s->offset + net->tensors[s->tensor].bytes, members[start[step] + j]};
      live += net->tensors[s->tensor].bytes;
    }
    if (live > m->peak_bytes) m->peak_bytes = live;
    qsort(spans, (size_t)k, sizeof(Span), Span_cmp);
    int64_t reach = -1;
    int reach_stay = -1;
    for (int j = 0; j < k; j++) {
      if (spans[j].lo < reach && reported < 50) {
        const Stay *a = &p->stays[reach_stay], *b = &p->stays[spans[j].stay];
        Report_add(r, "step %d: \"%s\" [%lld, %lld) overlaps \"%s\" [%lld, %lld) in the scratchpad", step,
                   net->tensors[b->tensor].name, (long long)b->offset,
                   (long long)(b->offset + net->tensors[b->tensor].bytes), net->tensors[a->tensor].name,
                   (long long)a->offset, (long long)(a->offset + net->tensors[a->tensor].bytes));
        reported++;
      }
      if (spans[j].hi > reach) reach = spans[j].hi, reach_stay = spans[j].stay;
    }
  }
  free(count), free(start), free(members), free(spans);
  return SP_OK;
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
  int *pos = malloc(sizeof(int) * (size_t)net->nops);
  int *idx = malloc(sizeof(int) * (size_t)(p->nstays ? p->nstays : 1));
  int *first = calloc((size_t)net->ntensors + 1, sizeof(int));
  Status st = SP_OK;
  if (!pos || !idx || !first) {
    st = SP_ERR_NOMEM;
    goto done;
  }
  if (!Validate_schedule(net, p, pos, r)) goto done; /* nothing below means anything without a schedule */
  Metrics m = {0};
  for (int i = 0; i < p->nstays; i++) {
    idx[i] = i;
    Validate_stayShape(net, p, i, r);
  }
  StayKey *keys = malloc(sizeof(StayKey) * (size_t)(p->nstays ? p->nstays : 1));
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
  if ((st = Validate_addresses(net, p, r, &m))) goto done;
  r->metrics = m;
  r->metrics_known = true;
  Validate_metrics(p, &m, r);
done:
  free(pos), free(idx), free(first);
  if (st) return st;
  return r->count ? SP_ERR_FORMAT : SP_OK;
}

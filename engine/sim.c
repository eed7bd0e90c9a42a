/* The simulator: see sim.h. Each step pins the op's inputs and outputs, brings
 * missing inputs back (load or retrieve) and creates the outputs; a block that
 * finds no gap evicts the best-scored unpinned tensor (spill if the host has no
 * copy, else drop) and tries again, or with a window policy (greedy) evicts the
 * cheapest set of unpinned blocks that frees a contiguous gap and goes there. If
 * even an empty-but-pinned scratchpad has no gap (fragmentation by the pinned
 * inputs themselves), the step is redone with those inputs evicted and re-placed,
 * which always fits when budget >= M_R. */
#include "sim.h"

#include "figures.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const Net *net;
  bool params;
  int64_t budget;
  const int *order;
  int n;
  const PolicyInfo *rp, *al;
  Plan *plan;
  int *use_start, *uses, *use_cur; /* per tensor: its read steps, ascending */
  int *open;                       /* tensor -> open stay index, or -1 */
  bool *host, *loaded;
  int *last_access, *pinned;       /* pinned[t] == step: needed now */
  Block *blocks;                   /* resident blocks sorted by offset */
  int *block_tensor;
  int nblocks;
  int *todo;
  SimTrace *trace;                 /* NULL: no eviction records (the usual, fast case) */
  int for_tensor;                  /* the block being placed (for the trace) */
  int group_first;                 /* the trace record of the first eviction made for it, or -1: every
                                      eviction for one block is explained from the state before the first */
} Sim;

static void Sim_release(Sim *m) {
  free(m->use_start), free(m->uses), free(m->use_cur), free(m->open), free(m->host), free(m->loaded);
  free(m->last_access), free(m->pinned), free(m->blocks), free(m->block_tensor), free(m->todo);
}

static bool Sim_prepare(Sim *m) {
  const Net *net = m->net;
  int nt = net->ntensors;
  m->use_start = calloc((size_t)nt + 1, sizeof(int));
  m->use_cur = calloc((size_t)nt, sizeof(int));
  m->open = malloc(sizeof(int) * (size_t)nt);
  m->host = calloc((size_t)nt, sizeof(bool));
  m->loaded = calloc((size_t)nt, sizeof(bool));
  m->last_access = calloc((size_t)nt, sizeof(int));
  m->pinned = malloc(sizeof(int) * (size_t)nt);
  m->blocks = malloc(sizeof(Block) * (size_t)(nt + 1));
  m->block_tensor = malloc(sizeof(int) * (size_t)(nt + 1));
  m->todo = malloc(sizeof(int) * (size_t)(nt + 1));
  if (!m->use_start || !m->use_cur || !m->open || !m->host || !m->loaded || !m->last_access || !m->pinned ||
      !m->blocks || !m->block_tensor || !m->todo)
    return false;
  for (int t = 0; t < nt; t++) {
    m->open[t] = -1;
    m->pinned[t] = -1;
    m->host[t] = net->tensors[t].kind == TK_INPUT || net->tensors[t].kind == TK_PARAM; /* they start on the host */
    m->use_start[t + 1] = m->use_start[t] + net->tensors[t].nconsumers;
  }
  m->uses = malloc(sizeof(int) * (size_t)(m->use_start[nt] + 1));
  if (!m->uses) return false;
  for (int s = 0; s < m->n; s++) {
    const Op *op = &net->ops[m->order[s]];
    for (int k = 0; k < op->ninputs; k++) {
      int t = op->inputs[k];
      int at = m->use_start[t] + m->use_cur[t];
      if (m->use_cur[t] > 0 && m->uses[at - 1] == s) continue; /* read twice by one op */
      m->uses[at] = s;
      m->use_cur[t]++;
    }
  }
  /* Ops listing an input twice leave a shorter list; mark the end with INT32_MAX. */
  for (int t = 0; t < nt; t++) {
    for (int k = m->use_cur[t]; k < net->tensors[t].nconsumers; k++) m->uses[m->use_start[t] + k] = INT32_MAX;
    m->use_cur[t] = 0;
  }
  return true;
}

/* First read of t after step s (INT32_MAX: none). */
static int Sim_nextUse(Sim *m, int t, int s) {
  int end = m->use_start[t + 1];
  while (m->use_start[t] + m->use_cur[t] < end && m->uses[m->use_start[t] + m->use_cur[t]] <= s) m->use_cur[t]++;
  int at = m->use_start[t] + m->use_cur[t];
  return at < end ? m->uses[at] : INT32_MAX;
}

static void Sim_removeBlock(Sim *m, int t) {
  for (int i = 0; i < m->nblocks; i++)
    if (m->block_tensor[i] == t) {
      memmove(m->blocks + i, m->blocks + i + 1, sizeof(Block) * (size_t)(m->nblocks - i - 1));
      memmove(m->block_tensor + i, m->block_tensor + i + 1, sizeof(int) * (size_t)(m->nblocks - i - 1));
      m->nblocks--;
      return;
    }
}

static void Sim_insertBlock(Sim *m, int t, int64_t offset) {
  int i = m->nblocks;
  while (i > 0 && m->blocks[i - 1].offset > offset) i--;
  memmove(m->blocks + i + 1, m->blocks + i, sizeof(Block) * (size_t)(m->nblocks - i));
  memmove(m->block_tensor + i + 1, m->block_tensor + i, sizeof(int) * (size_t)(m->nblocks - i));
  m->blocks[i] = (Block){offset, m->net->tensors[t].bytes};
  m->block_tensor[i] = t;
  m->nblocks++;
}

/* Ends t's open stay after step `end` with the given way out. */
static void Sim_close(Sim *m, int t, int end, StayOut out) {
  Stay *s = &m->plan->stays[m->open[t]];
  s->end = end;
  s->out = out;
  if (out == STAY_SPILL || out == STAY_STORE) m->host[t] = true;
  Sim_removeBlock(m, t);
  m->open[t] = -1;
}

static int Sim_nextUse(Sim *m, int t, int s);

/* Records why t is evicted at step s (trace only). */
static void Sim_note(Sim *m, int t, int s, bool window, double weight) {
  SimTrace *tr = m->trace;
  if (tr->n == tr->cap) {
    int cap = tr->cap ? tr->cap * 2 : 64;
    SimEviction *ev = realloc(tr->ev, sizeof *ev * (size_t)cap);
    if (!ev) return; /* the trace is an explanation: a missing record loses no plan */
    tr->ev = ev, tr->cap = cap;
  }
  int64_t gap = 0, free_bytes;
  if (m->group_first >= 0 && m->group_first < tr->n) { /* co-evicted: the state the first one saw */
    gap = tr->ev[m->group_first].largest_gap;
    free_bytes = tr->ev[m->group_first].free_bytes;
  } else {
    int64_t at = 0, used = 0;
    for (int i = 0; i < m->nblocks; i++) {
      if (m->blocks[i].offset - at > gap) gap = m->blocks[i].offset - at;
      if (m->blocks[i].offset + m->blocks[i].bytes > at) at = m->blocks[i].offset + m->blocks[i].bytes;
      used += m->blocks[i].bytes;
    }
    if (m->budget - at > gap) gap = m->budget - at;
    free_bytes = m->budget - used;
    m->group_first = tr->n;
  }
  int f = m->for_tensor;
  tr->ev[tr->n++] = (SimEviction){s, t, f, f >= 0 ? m->net->tensors[f].bytes : 0, gap, free_bytes, window,
                                  weight, Sim_nextUse(m, t, s - 1)};
}

/* Evicts t to make room at step s: its stay ends at s - 1. */
static void Sim_evict(Sim *m, int t, int s) { Sim_close(m, t, s - 1, m->host[t] ? STAY_DROP : STAY_SPILL); }

/* The unpinned resident tensor the replacement policy evicts first, or -1. */
static int Sim_victim(Sim *m, int s) {
  int best = -1;
  double best_score = 0;
  for (int i = 0; i < m->nblocks; i++) {
    int t = m->block_tensor[i];
    if (m->pinned[t] == s) continue;
    EvictCandidate c = {t, m->net->tensors[t].bytes, s, Sim_nextUse(m, t, s - 1), m->last_access[t]};
    double score = m->rp->evict_score(&c);
    if (best < 0 || score > best_score ||
        (score == best_score && (c.bytes > m->net->tensors[best].bytes ||
                                 (c.bytes == m->net->tensors[best].bytes && t < best))))
      best = t, best_score = score;
  }
  return best;
}

/* Non-compulsory bytes that evicting t at step s causes: a retrieval if it is
 * read again, plus a spill if it is an activation with no host copy (an output's
 * store is compulsory anyway; inputs and params are dropped). */
static int64_t Sim_evictCost(Sim *m, int t, int s) {
  const Tensor *tt = &m->net->tensors[t];
  if (Sim_nextUse(m, t, s - 1) == INT32_MAX) return 0;
  return tt->kind == TK_ACTIVATION && !m->host[t] ? 2 * tt->bytes : tt->bytes;
}

/* greedy (COSMA's greedy baseline): evicts the unpinned blocks overlapping the
 * window [a, a + bytes) within the budget that is cheapest to clear (ties: fewer
 * evicted bytes, then lower a) and returns a; -1 if every window overlaps a
 * pinned block. Sliding any window down until its start meets 0 or a block end
 * only drops victims, so trying those starts is an exact local optimum: what the
 * paper's ILP computes, without an ILP. */
static int64_t Sim_evictWindow(Sim *m, int64_t bytes, int s) {
  int64_t best = -1, best_cost = 0, best_freed = 0;
  for (int c = -1; c < m->nblocks; c++) {
    int64_t a = c < 0 ? 0 : m->blocks[c].offset + m->blocks[c].bytes;
    if (a > m->budget - bytes) continue;
    int64_t cost = 0, freed = 0;
    bool ok = true;
    for (int i = 0; i < m->nblocks && ok && m->blocks[i].offset < a + bytes; i++) {
      if (m->blocks[i].offset + m->blocks[i].bytes <= a) continue;
      int t = m->block_tensor[i];
      ok = m->pinned[t] != s;
      cost += Sim_evictCost(m, t, s), freed += m->blocks[i].bytes;
    }
    if (ok && (best < 0 || cost < best_cost ||
               (cost == best_cost && (freed < best_freed || (freed == best_freed && a < best)))))
      best = a, best_cost = cost, best_freed = freed;
  }
  for (int i = 0; best >= 0 && i < m->nblocks && m->blocks[i].offset < best + bytes;) {
    if (m->blocks[i].offset + m->blocks[i].bytes <= best) i++;
    else {
      if (m->trace) Sim_note(m, m->block_tensor[i], s, true, (double)best_cost);
      Sim_evict(m, m->block_tensor[i], s); /* removes block i: the next one moves up */
    }
  }
  return best;
}

/* Opens a stay of t at step s at `off`. */
static bool Sim_addStay(Sim *m, int t, int s, int64_t off) {
  const Tensor *tt = &m->net->tensors[t];
  StayIn in;
  if (tt->producer >= 0) in = m->plan->order[s] == tt->producer ? STAY_CREATE : STAY_RETRIEVE;
  else in = m->loaded[t] ? STAY_RETRIEVE : STAY_LOAD;
  if (in == STAY_LOAD) m->loaded[t] = true;
  if (Plan_addStay(m->plan, (Stay){t, off, s, s, in, STAY_FREE})) return false;
  m->open[t] = m->plan->nstays - 1;
  Sim_insertBlock(m, t, off);
  return true;
}

static bool Sim_placeOne(Sim *m, int t, int s) {
  const Tensor *tt = &m->net->tensors[t];
  m->for_tensor = t;
  m->group_first = -1;
  for (;;) {
    int64_t off = m->al->place(m->blocks, m->nblocks, tt->bytes, m->budget);
    if (off < 0 && m->rp->window_evict) {
      off = Sim_evictWindow(m, tt->bytes, s);
      if (off < 0) return false;
    }
    if (off >= 0) return Sim_addStay(m, t, s, off);
    int victim = Sim_victim(m, s);
    if (victim < 0) return false;
    if (m->trace) {
      EvictCandidate c = {victim, m->net->tensors[victim].bytes, s, Sim_nextUse(m, victim, s - 1), m->last_access[victim]};
      Sim_note(m, victim, s, false, m->rp->evict_score(&c));
    }
    Sim_evict(m, victim, s);
  }
}

static int Sim_bySizeDesc(const void *a, const void *b, const Net *net) {
  int64_t x = net->tensors[*(const int *)a].bytes, y = net->tensors[*(const int *)b].bytes;
  if (x != y) return x > y ? -1 : 1;
  return *(const int *)a - *(const int *)b;
}

/* Places the step's missing inputs and its outputs. false: no room even after
 * evicting every unpinned tensor. `joint` (window policies, last resort): one
 * cheapest window for all of them, packed in order, so a block chosen alone
 * cannot split the room the next one needs. */
static bool Sim_placeStep(Sim *m, int s, const Op *op, bool joint) {
  int k = 0;
  for (int i = 0; i < op->ninputs; i++) {
    int t = op->inputs[i];
    if (!Net_onChip(m->net, t, m->params) || m->open[t] >= 0) continue;
    bool dup = false;
    for (int j = 0; j < k && !dup; j++) dup = m->todo[j] == t;
    if (!dup) m->todo[k++] = t;
  }
  for (int i = 0; i < op->noutputs; i++) m->todo[k++] = op->outputs[i];
  if (m->al->size_order) /* insertion sort: a step has few blocks */
    for (int i = 1; i < k; i++)
      for (int j = i; j > 0 && Sim_bySizeDesc(&m->todo[j], &m->todo[j - 1], m->net) < 0; j--) {
        int tmp = m->todo[j];
        m->todo[j] = m->todo[j - 1];
        m->todo[j - 1] = tmp;
      }
  if (joint) {
    int64_t total = 0;
    m->for_tensor = -1;
    m->group_first = -1;
    for (int i = 0; i < k; i++) total += m->net->tensors[m->todo[i]].bytes;
    int64_t off = Sim_evictWindow(m, total, s);
    for (int i = 0; i < k && off >= 0; i++) {
      if (!Sim_addStay(m, m->todo[i], s, off)) return false;
      off += m->net->tensors[m->todo[i]].bytes;
    }
    return off >= 0;
  }
  for (int i = 0; i < k; i++)
    if (!Sim_placeOne(m, m->todo[i], s)) return false;
  return true;
}

/* Takes back the placements step s made since the plan had `before` stays. */
static void Sim_undoStep(Sim *m, int before) {
  for (int i = before; i < m->plan->nstays; i++) {
    const Stay *st = &m->plan->stays[i];
    if (st->in == STAY_LOAD) m->loaded[st->tensor] = false;
    Sim_removeBlock(m, st->tensor);
    m->open[st->tensor] = -1;
  }
  m->plan->nstays = before;
}

static Status Sim_step(Sim *m, int s, SpError *err) {
  const Net *net = m->net;
  const Op *op = &net->ops[m->order[s]];
  for (int i = 0; i < op->ninputs; i++)
    if (Net_onChip(net, op->inputs[i], m->params)) m->pinned[op->inputs[i]] = s;
  for (int i = 0; i < op->noutputs; i++) m->pinned[op->outputs[i]] = s;
  int before = m->plan->nstays;
  if (!Sim_placeStep(m, s, op, false)) {
    /* Undo this step's placements. A window policy first tries one window for
     * all of the step's blocks around the pinned inputs. Then evict the pinned
     * inputs too and place again into an empty-but-unpinned scratchpad (for a
     * window policy as one window, which always fits when budget >= M_R: its
     * blocks' window at 0 overlaps nothing pinned). */
    bool joint = m->rp->window_evict, placed = false;
    Sim_undoStep(m, before);
    if (joint) {
      placed = Sim_placeStep(m, s, op, true);
      if (!placed) Sim_undoStep(m, before);
    }
    if (!placed) {
      m->for_tensor = -1;
      m->group_first = -1;
      for (int i = 0; i < op->ninputs; i++) {
        int t = op->inputs[i];
        if (Net_onChip(net, t, m->params) && m->open[t] >= 0) {
          if (m->trace) Sim_note(m, t, s, false, 0);
          Sim_evict(m, t, s);
        }
      }
      placed = Sim_placeStep(m, s, op, joint);
    }
    if (!placed)
      return SpError_set(err, SP_ERR_INFEASIBLE, "infeasible: step %d (op \"%s\") needs %lld bytes, budget is %lld",
                         s, op->name, (long long)Figures_opBytes(net, m->order[s], m->params), (long long)m->budget);
  }
  /* Free what is not read again. */
  for (int pass = 0; pass < 2; pass++) {
    int count = pass ? op->noutputs : op->ninputs;
    const int *list = pass ? op->outputs : op->inputs;
    for (int i = 0; i < count; i++) {
      int t = list[i];
      if (!Net_onChip(net, t, m->params) || m->open[t] < 0) continue;
      m->last_access[t] = s;
      if (Sim_nextUse(m, t, s) != INT32_MAX) continue;
      bool store = net->tensors[t].kind == TK_OUTPUT && !m->host[t];
      Sim_close(m, t, s, store ? STAY_STORE : STAY_FREE);
    }
  }
  return SP_OK;
}

Status Plan_computeMetrics(Plan *p, const Net *net) {
  Metrics m = {0};
  int64_t *diff = calloc((size_t)p->nsteps + 1, sizeof(int64_t));
  bool *stored = calloc((size_t)net->ntensors + 1, sizeof(bool));
  if (!diff || !stored) {
    free(diff);
    free(stored);
    return SP_ERR_NOMEM;
  }
  for (int i = 0; i < p->nstays; i++) {
    const Stay *s = &p->stays[i];
    const Tensor *t = &net->tensors[s->tensor];
    if (s->in == STAY_LOAD) m.compulsory_bytes += t->bytes;
    if (s->in == STAY_RETRIEVE) m.noncompulsory_bytes += t->bytes, m.retrievals++;
    bool to_host = s->out == STAY_SPILL || s->out == STAY_STORE;
    if (to_host && t->kind == TK_OUTPUT) {
      if (!stored[s->tensor]) m.compulsory_bytes += t->bytes;
      stored[s->tensor] = true;
    } else if (s->out == STAY_SPILL) {
      m.noncompulsory_bytes += t->bytes, m.spills++;
    }
    if (s->offset + t->bytes > m.footprint_bytes) m.footprint_bytes = s->offset + t->bytes;
    if (s->start >= 0 && s->end < p->nsteps && s->start <= s->end) {
      diff[s->start] += t->bytes;
      diff[s->end + 1] -= t->bytes;
    }
  }
  int64_t live = 0;
  for (int s = 0; s < p->nsteps; s++) {
    live += diff[s];
    if (live > m.peak_bytes) m.peak_bytes = live;
  }
  free(diff);
  free(stored);
  p->metrics = m;
  return SP_OK;
}

void SimTrace_free(SimTrace *trace) {
  free(trace->ev);
  memset(trace, 0, sizeof *trace);
}

Status Sim_run(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *rp,
               const PolicyInfo *al, Plan **out, SpError *err) {
  return Sim_runTraced(net, params, budget, order, rp, al, out, NULL, err);
}

Status Sim_runTraced(const Net *net, bool params, int64_t budget, const int *order, const PolicyInfo *rp,
                     const PolicyInfo *al, Plan **out, SimTrace *trace, SpError *err) {
  *out = NULL;
  if (!rp || (!rp->evict_score && !rp->window_evict))
    return SpError_set(err, SP_ERR_ARG, "the simulator needs a scored or window replacement policy");
  if (!al || !al->place) return SpError_set(err, SP_ERR_ARG, "the simulator needs an allocator");
  Sim m = {.group_first = -1, .net = net, .params = params, .budget = budget, .order = order, .n = net->nops, .rp = rp, .al = al,
           .trace = trace};
  Status st = SP_OK;
  m.plan = Plan_new(net, params, budget);
  if (!m.plan || !Sim_prepare(&m)) {
    st = SpError_set(err, SP_ERR_NOMEM, "out of memory in the simulator");
    goto done;
  }
  memcpy(m.plan->order, order, sizeof(int) * (size_t)net->nops);
  for (int s = 0; s < m.n && !st; s++) st = Sim_step(&m, s, err);
  if (!st && Plan_computeMetrics(m.plan, net)) st = SpError_set(err, SP_ERR_NOMEM, "out of memory in the simulator");
  if (!st) {
    *out = m.plan;
    m.plan = NULL;
  }
done:
  Plan_free(m.plan);
  Sim_release(&m);
  return st;
}

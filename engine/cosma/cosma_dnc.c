/* COSMA's divide and conquer (section IV of the paper): cut the graph at a chain
 * of "break nodes", solve each segment's schedule with the joint model
 * (Cosma_joint), concatenate the segment orders and run the fixed-schedule
 * pipeline (Cosma_replacement) on the whole network for the final allocation
 * and replacement.
 *
 * Segments. Break nodes b1..bk form a chain (each an ancestor of the next). With
 * A(v) = v and all its ancestors, segment i = A(b_i) minus A(b_{i-1}) (the chain
 * makes A(b_1) ⊂ A(b_2) ⊂ ...), and the last segment is everything outside
 * A(b_k). Each A(b_i) is closed under predecessors, so every producer of an op's
 * inputs lies in the op's own segment or an earlier one: concatenating the
 * segments, each in a topological order of its own, is a topological order of
 * the whole graph.
 *
 * Sub-networks. A segment is written as a contract network (JSON through the real
 * loader, so it obeys every rule of the format). The paper treats "the output
 * tensors of these break nodes ... as the final output tensors of its sub-graph,
 * and as the input tensors for the following connected sub-graphs"; solved that
 * way, a segment's ILP never sees the tensors that are live across its
 * boundaries (a graph input costs nothing until its first use, an output nothing
 * after its creation), so every zero-traffic order looks equally good and the one
 * it returns can raise the whole order's peak (darts at M_R: 1 MB of traffic,
 * against 0 for the file order). So the boundaries are modelled:
 *  - an "enter" op (no inputs) makes the tensors carried in: made by an earlier
 *    segment, read here or by a later segment. They are activations, so evicting
 *    one costs a spill and a retrieval, as it would in the whole network;
 *  - a "leave" op reads every tensor a later segment needs (and makes a 1-byte
 *    output), so those stay live, or are paid for, up to the segment's end.
 * Either op holds at most the budget (tensors that do not fit fall back to the
 * paper's inputs and outputs), so a segment's M_R never exceeds the network's.
 * With s->paper_model the segments are exactly the paper's sub-graphs. At M_R
 * with 30 s, modelling the boundaries (against the paper's sub-graphs, both solved
 * by the same pipeline) gives darts 0 bytes instead of 1.05 MB and amoebanet_d
 * 2.5 MB instead of 2.7 MB (nasnet_a is 8% worse: 2.87 against 2.66 MB).
 *
 * Final stage. The paper stitches the per-segment plans, which stores and reloads
 * every tensor crossing a cut. Here only the segment orders are kept and the
 * fixed-schedule pipeline maps the whole network in that order, so a tensor may
 * stay resident across a cut. When that search completes it is optimal for the
 * order, hence at least as good as any stitched plan; cut short by the time limit
 * it is its best plan so far (never worse than the best simulated policy on the
 * order). */
#include "cosma.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "clock.h"
#include "workclock.h"
#include "figures.h"
#include "testhook.h"

/* Segment size of the automatic break nodes. The joint ILP of a 60-op segment
 * (two NAS cells) is solved or nearly so within a second or two; at M_R with 30 s,
 * 40-op segments fix too much of the order (amoebanet_d 14 MB, pnasnet5 3.0 MB,
 * against 2.5 and 2.3 MB) and 120-op ones leave the joint ILPs at large gaps. */
enum { DNC_MAX_SEGMENT = 60 };
/* Share of the time limit kept for the whole-network pipeline. */
static const double Dnc_finalShare = 0.3;
/* Least time given to one ILP stage (0 would mean "no limit"). */
static const double Dnc_minLimit = 0.05;

/* ============ reachability ============ */

/* up[v]: v and its ancestors; down[v]: v and its descendants (bit rows of n bits). */
typedef struct {
  int n, words;
  uint64_t *up, *down;
  int *nup, *ndown;
} Dag;

static uint64_t *Dag_up(const Dag *d, int v) { return d->up + (size_t)v * (size_t)d->words; }
static uint64_t *Dag_down(const Dag *d, int v) { return d->down + (size_t)v * (size_t)d->words; }

static void Dag_free(Dag *d) { free(d->up), free(d->down), free(d->nup), free(d->ndown); }

static void Dag_or(uint64_t *dst, const uint64_t *src, int words) {
  for (int w = 0; w < words; w++) dst[w] |= src[w];
}

static int Dag_count(const uint64_t *row, int words) {
  int c = 0;
  for (int w = 0; w < words; w++) c += __builtin_popcountll(row[w]);
  return c;
}

static bool Dag_init(Dag *d, const Net *net) {
  int n = net->nops, words = Bitset_words(n);
  *d = (Dag){.n = n, .words = words};
  d->up = calloc((size_t)n * (size_t)words, sizeof(uint64_t));
  d->down = calloc((size_t)n * (size_t)words, sizeof(uint64_t));
  d->nup = malloc(sizeof(int) * (size_t)n);
  d->ndown = malloc(sizeof(int) * (size_t)n);
  if (!d->up || !d->down || !d->nup || !d->ndown) return false;
  for (int v = 0; v < n; v++) { /* the file order is topological (the loader checks it) */
    const Op *op = &net->ops[v];
    Bitset_set(Dag_up(d, v), v);
    for (int k = 0; k < op->ninputs; k++) {
      int p = net->tensors[op->inputs[k]].producer;
      if (p >= 0) Dag_or(Dag_up(d, v), Dag_up(d, p), words);
    }
  }
  for (int v = n - 1; v >= 0; v--) {
    const Op *op = &net->ops[v];
    Bitset_set(Dag_down(d, v), v);
    for (int k = 0; k < op->noutputs; k++) {
      const Tensor *t = &net->tensors[op->outputs[k]];
      for (int c = 0; c < t->nconsumers; c++) Dag_or(Dag_down(d, v), Dag_down(d, t->consumers[c]), words);
    }
  }
  for (int v = 0; v < n; v++) d->nup[v] = Dag_count(Dag_up(d, v), words), d->ndown[v] = Dag_count(Dag_down(d, v), words);
  return true;
}

/* Ops neither before nor after v: cutting at v forces them after it. */
static int Dag_loose(const Dag *d, int v) { return d->n + 1 - d->nup[v] - d->ndown[v]; }

/* Bytes of the tensors made inside A(v) and read outside it: what crosses a cut at v. */
static int64_t Dag_cutBytes(const Dag *d, const Net *net, int v) {
  const uint64_t *a = Dag_up(d, v);
  int64_t sum = 0;
  for (int t = 0; t < net->ntensors; t++) {
    const Tensor *tt = &net->tensors[t];
    if (tt->producer < 0 || !Bitset_has(a, tt->producer)) continue;
    for (int c = 0; c < tt->nconsumers; c++)
      if (!Bitset_has(a, tt->consumers[c])) {
        sum += tt->bytes;
        break;
      }
  }
  return sum;
}

/* ============ choosing break nodes ============ */

typedef struct {
  int op, size, loose;
  int64_t bytes;
} Cut;

/* Is a preferred to b? Normally least lost freedom, then fewest crossing bytes,
 * then the larger segment (fewer segments); `smallest` puts the size first. */
static bool Cut_better(const Cut *a, const Cut *b, bool smallest) {
  if (smallest && a->size != b->size) return a->size < b->size;
  if (a->loose != b->loose) return a->loose < b->loose;
  if (a->bytes != b->bytes) return a->bytes < b->bytes;
  if (a->size != b->size) return a->size > b->size;
  return a->op < b->op;
}

/* The best next break node after prev (-1: none yet) whose segment has lo..hi ops. */
static int Dnc_pick(const Dag *d, const Net *net, int prev, int lo, int hi, bool smallest) {
  int covered = prev >= 0 ? d->nup[prev] : 0;
  Cut best = {.op = -1};
  for (int v = 0; v < d->n; v++) {
    if (prev >= 0 && (v == prev || !Bitset_has(Dag_down(d, prev), v))) continue;
    int size = d->nup[v] - covered;
    if (d->nup[v] == d->n || size < lo || size > hi) continue; /* A(v) = everything: nothing to cut off */
    Cut c = {.op = v, .size = size, .loose = Dag_loose(d, v), .bytes = -1};
    if (best.op >= 0 && (smallest ? c.size > best.size : c.loose > best.loose)) continue; /* skip the byte count */
    c.bytes = Dag_cutBytes(d, net, v);
    if (best.op < 0 || Cut_better(&c, &best, smallest)) best = c;
  }
  return best.op;
}

/* s (or NULL: no limit): each pick scans every op, hundreds of picks on a large
 * network take seconds, so past the segments' share of the time limit or on
 * Ctrl-C the picking stops (the rest is one segment, left in file order). */
static bool Dnc_segmentsDone(const SolveSettings *s, double w0);
static void Dnc_autoBreaks(const Dag *d, const Net *net, int max_segment, int *nodes, int *count,
                          const SolveSettings *s, double w0) {
  int prev = -1, lo = (max_segment + 1) / 2;
  *count = 0;
  while (d->n - (prev >= 0 ? d->nup[prev] : 0) > max_segment) {
    if (s) Testhook_at("dnc.breaks", s->cancel);
    if (s && ((s->cancel && atomic_load(s->cancel)) || Dnc_segmentsDone(s, w0))) break;
    WorkClock_add(2e-8 * d->n); /* a pick scans every op (up to three times): about 10 ns each, doubled */
    int v = Dnc_pick(d, net, prev, lo, max_segment, false);
    if (v < 0) v = Dnc_pick(d, net, prev, 1, max_segment, false);
    if (v < 0) v = Dnc_pick(d, net, prev, 1, d->n, true);
    if (v < 0) break; /* every later op depends on everything: no cut is left */
    nodes[(*count)++] = prev = v;
  }
}

/* Automatic break nodes, greedily along the graph: while the ops not yet in a
 * segment number more than max_segment, the next break node v is a descendant of
 * the previous one (any op for the first) whose segment A(v) \ A(prev) has
 * between max_segment/2 and max_segment ops, preferring
 *   1. the fewest ops incomparable to v (n - 1 - |ancestors| - |descendants|):
 *      those are forced after the cut, so this is the scheduling freedom it loses
 *      (0: v is an articulation op that every order passes through alone);
 *   2. the fewest bytes of tensors made inside A(v) and read outside it (what is
 *      live across the cut);
 *   3. the larger segment (fewer segments).
 * If no segment size lands in that window, 1..max_segment; if none is within the
 * cap at all, the smallest segment possible. params does not change the rule
 * (params are never made by an op, so they never cross a cut). */
Status Cosma_breakNodes(const Net *net, bool params, int max_segment, int *nodes, int *count, SpError *err) {
  (void)params;
  *count = 0;
  if (max_segment < 1) return SpError_set(err, SP_ERR_ARG, "break nodes: segment size %d (expected at least 1)", max_segment);
  Dag d;
  bool ok = Dag_init(&d, net);
  if (ok) Dnc_autoBreaks(&d, net, max_segment, nodes, count, NULL, 0);
  Dag_free(&d);
  return ok ? SP_OK : SpError_set(err, SP_ERR_NOMEM, "out of memory");
}

/* s->break_nodes: "a,b,c" (spaces around names ignored), checked to be a chain. */
static Status Dnc_parseBreaks(const Net *net, const Dag *d, const char *text, int *nodes, int *count, SpError *err) {
  *count = 0;
  for (const char *p = text;; p++) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    const char *a = p, *b = end;
    while (a < b && isspace((unsigned char)*a)) a++;
    while (b > a && isspace((unsigned char)b[-1])) b--;
    if (a == b) return SpError_set(err, SP_ERR_ARG, "break nodes \"%s\": empty op name", text);
    char *name = malloc((size_t)(b - a) + 1);
    if (!name) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
    memcpy(name, a, (size_t)(b - a));
    name[b - a] = '\0';
    int op = Net_findOp(net, name);
    Status st = SP_OK;
    if (op < 0) st = SpError_set(err, SP_ERR_ARG, "break node \"%s\": no such op", name);
    for (int i = 0; !st && i < *count; i++)
      if (nodes[i] == op) st = SpError_set(err, SP_ERR_ARG, "break node \"%s\" is listed twice", name);
    if (!st && d->nup[op] == d->n) /* A(op) is every op: nothing is left after it */
      st = SpError_set(err, SP_ERR_ARG,
                       "break node \"%s\" separates nothing: every other op runs before it in every order", name);
    if (!st && *count > 0 && !Bitset_has(Dag_down(d, nodes[*count - 1]), op))
      st = SpError_set(err, SP_ERR_ARG, "break node \"%s\" is not a descendant of \"%s\"", name,
                       net->ops[nodes[*count - 1]].name);
    free(name);
    if (st) return st;
    nodes[(*count)++] = op;
    if (!*end) return SP_OK;
    p = end;
  }
}

/* seg[v]: the first i with v in A(b_i), else k (the rest). */
static void Dnc_assign(const Dag *d, const int *breaks, int k, int *seg) {
  for (int v = 0; v < d->n; v++) {
    seg[v] = k;
    for (int i = k - 1; i >= 0; i--)
      if (Bitset_has(Dag_up(d, breaks[i]), v)) seg[v] = i;
  }
}

/* ============ one segment as a network ============ */

/* What tensor t is to a segment's network. */
typedef enum {
  ROLE_NONE,   /* not in it */
  ROLE_GRAPH,  /* a graph input or param it reads: as in the network */
  ROLE_INPUT,  /* made by an earlier segment: a graph input */
  ROLE_ENTER,  /* made by an earlier segment and carried in: made by the "enter" op */
  ROLE_MADE,   /* made by one of its ops */
} DncRole;

typedef struct {
  unsigned char *role; /* DncRole per tensor */
  bool *leave;         /* read by the "leave" op (needed by a later segment) */
  bool enter_op, leave_op;
  char enter_name[64], leave_name[64], dummy_name[64];
} DncSub;

/* One run of the policy. */
typedef struct {
  const Net *net;
  const SolveSettings *s;
  double t0, w0;       /* the start on the wall clock (seconds reported) and the work clock (shares) */
  int *seg;            /* op -> segment */
  int *tmp;            /* nops scratch */
  int *scratch;        /* ntensors scratch */
  bool *want, *keep;   /* ntensors scratch */
  DncSub sub;
  int nseg;
  bool cancelled;
} Dnc;

static bool Dnc_readBy(const Net *net, const int *seg, int t, int lo, int hi) {
  const Tensor *tt = &net->tensors[t];
  for (int c = 0; c < tt->nconsumers; c++)
    if (seg[tt->consumers[c]] >= lo && seg[tt->consumers[c]] <= hi) return true;
  return false;
}

/* Flags the wanted tensors, in index order, while their bytes fit in room; any flagged? */
static bool Dnc_fit(const Net *net, bool *flag, const bool *want, int64_t room) {
  int64_t used = 0;
  bool any = false;
  for (int t = 0; t < net->ntensors; t++) {
    if (!want[t]) continue;
    flag[t] = used + net->tensors[t].bytes <= room;
    if (flag[t]) used += net->tensors[t].bytes, any = true;
  }
  return any;
}

static void Dnc_uniqueName(const Net *net, char *buf, size_t n, const char *base) {
  snprintf(buf, n, "%s", base);
  for (int i = 2; Net_findOp(net, buf) >= 0 || Net_findTensor(net, buf) >= 0; i++) snprintf(buf, n, "%s%d", base, i);
}

/* The roles of every tensor for segment si. With carry, tensors live across the
 * segment's boundaries are modelled as such (see Dnc_segmentJson); want and keep
 * are per-tensor scratch. */
static void Dnc_roles(const Dnc *dc, int si, const int *ops, int cnt, bool carry, DncSub *sub, bool *want, bool *keep) {
  const Net *net = dc->net;
  const int *seg = dc->seg;
  memset(sub->role, ROLE_NONE, (size_t)net->ntensors);
  for (int j = 0; j < cnt; j++) {
    const Op *op = &net->ops[ops[j]];
    for (int k = 0; k < op->ninputs; k++) {
      int t = op->inputs[k], p = net->tensors[t].producer;
      sub->role[t] = p < 0 ? ROLE_GRAPH : seg[p] < si ? ROLE_INPUT : ROLE_MADE;
    }
    for (int k = 0; k < op->noutputs; k++) sub->role[op->outputs[k]] = ROLE_MADE;
  }
  memset(sub->leave, 0, sizeof(bool) * (size_t)net->ntensors);
  sub->enter_op = sub->leave_op = false;
  if (!carry) return;
  /* leave: every made tensor a later segment reads, within budget - 1 (its dummy output) */
  for (int t = 0; t < net->ntensors; t++) {
    int p = net->tensors[t].producer;
    want[t] = p >= 0 && seg[p] <= si && Dnc_readBy(net, seg, t, si + 1, dc->nseg);
  }
  sub->leave_op = Dnc_fit(net, sub->leave, want, dc->s->budget - 1);
  /* enter: made earlier and read here (those first) or by leave, within the budget */
  memset(keep, 0, sizeof(bool) * (size_t)net->ntensors);
  int64_t used = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int t = 0; t < net->ntensors; t++) {
      int p = net->tensors[t].producer;
      bool here = sub->role[t] == ROLE_INPUT;
      if (p < 0 || seg[p] >= si || (pass == 0 ? !here : here || !sub->leave[t])) continue;
      if (used + net->tensors[t].bytes <= dc->s->budget) keep[t] = true, used += net->tensors[t].bytes;
    }
  for (int t = 0; t < net->ntensors; t++) {
    if (keep[t]) sub->role[t] = ROLE_ENTER, sub->enter_op = true;
    else if (sub->leave[t] && sub->role[t] == ROLE_NONE) sub->role[t] = ROLE_INPUT; /* passes over, not carried in */
  }
  Dnc_uniqueName(net, sub->enter_name, sizeof sub->enter_name, "dnc.enter");
  Dnc_uniqueName(net, sub->leave_name, sizeof sub->leave_name, "dnc.leave");
  Dnc_uniqueName(net, sub->dummy_name, sizeof sub->dummy_name, "dnc.left");
}

/* The segment network's kind for tensor t. */
static const char *Dnc_kind(const Dnc *dc, const DncSub *sub, int si, int t) {
  if (sub->role[t] == ROLE_INPUT) return "input";
  if (sub->role[t] == ROLE_MADE && !sub->leave[t] && Dnc_readBy(dc->net, dc->seg, t, si + 1, dc->nseg))
    return "output"; /* handed on to a later segment */
  return TensorKind_name(dc->net->tensors[t].kind);
}

static cJSON *Dnc_tensorJson(const Dnc *dc, const DncSub *sub, int si, int t) {
  const Tensor *tt = &dc->net->tensors[t];
  cJSON *o = cJSON_CreateObject(), *shape = cJSON_AddArrayToObject(o, "shape");
  bool ok = shape && cJSON_AddStringToObject(o, "name", tt->name) && cJSON_AddStringToObject(o, "dtype", tt->dtype) &&
            cJSON_AddNumberToObject(o, "bytes", (double)tt->bytes) &&
            cJSON_AddStringToObject(o, "kind", Dnc_kind(dc, sub, si, t));
  for (int r = 0; ok && r < tt->rank; r++) ok = cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)tt->shape[r]));
  if (!ok) cJSON_Delete(o), o = NULL;
  return o;
}

/* One op: inputs are in[0..nin) then the tensors flagged in in_flag (may be NULL),
 * outputs outs[0..nout) then out_name (may be NULL). */
static cJSON *Dnc_opJson(const Net *net, const char *name, const char *type, const int *in, int nin, const bool *in_flag,
                         const int *outs, int nout, const char *out_name) {
  cJSON *o = cJSON_CreateObject(), *ins = cJSON_AddArrayToObject(o, "inputs"), *outv = cJSON_AddArrayToObject(o, "outputs");
  bool ok = ins && outv && cJSON_AddStringToObject(o, "name", name) && cJSON_AddStringToObject(o, "type", type);
  for (int i = 0; ok && i < nin; i++) ok = cJSON_AddItemToArray(ins, cJSON_CreateString(net->tensors[in[i]].name));
  for (int t = 0; ok && in_flag && t < net->ntensors; t++)
    if (in_flag[t]) ok = cJSON_AddItemToArray(ins, cJSON_CreateString(net->tensors[t].name));
  for (int i = 0; ok && i < nout; i++) ok = cJSON_AddItemToArray(outv, cJSON_CreateString(net->tensors[outs[i]].name));
  if (ok && out_name) ok = cJSON_AddItemToArray(outv, cJSON_CreateString(out_name));
  if (!ok) cJSON_Delete(o), o = NULL;
  return o;
}

/* Contract JSON of segment si (ops[0..cnt), in a topological order): its ops,
 * with `enter` first (it makes the ROLE_ENTER tensors) and `leave` last (it reads
 * the sub->leave tensors and makes a 1-byte output) when they have tensors. */
static char *Dnc_segmentJson(const Dnc *dc, const DncSub *sub, int si, const int *ops, int cnt, int *scratch) {
  const Net *net = dc->net;
  char name[300];
  snprintf(name, sizeof name, "%s dnc segment %d/%d", net->name, si + 1, dc->nseg);
  cJSON *root = cJSON_CreateObject(), *tensors = cJSON_AddArrayToObject(root, "tensors"),
        *opsj = cJSON_AddArrayToObject(root, "ops");
  bool ok = tensors && opsj && cJSON_AddStringToObject(root, "format", "spadmap-network") &&
            cJSON_AddNumberToObject(root, "version", 1) && cJSON_AddStringToObject(root, "name", name);
  int nenter = 0;
  for (int t = 0; ok && t < net->ntensors; t++) {
    if (sub->role[t] == ROLE_NONE) continue;
    ok = cJSON_AddItemToArray(tensors, Dnc_tensorJson(dc, sub, si, t));
    if (sub->role[t] == ROLE_ENTER) scratch[nenter++] = t;
  }
  if (ok && sub->leave_op) {
    cJSON *d = cJSON_CreateObject(), *shape = cJSON_AddArrayToObject(d, "shape");
    ok = cJSON_AddItemToArray(tensors, d) && shape && cJSON_AddStringToObject(d, "name", sub->dummy_name) &&
         cJSON_AddStringToObject(d, "kind", "output") && cJSON_AddItemToArray(shape, cJSON_CreateNumber(1));
  }
  if (ok && sub->enter_op)
    ok = cJSON_AddItemToArray(opsj, Dnc_opJson(net, sub->enter_name, "dnc", NULL, 0, NULL, scratch, nenter, NULL));
  for (int j = 0; ok && j < cnt; j++) {
    const Op *op = &net->ops[ops[j]];
    ok = cJSON_AddItemToArray(opsj, Dnc_opJson(net, op->name, op->type, op->inputs, op->ninputs, NULL, op->outputs,
                                               op->noutputs, NULL));
  }
  if (ok && sub->leave_op)
    ok = cJSON_AddItemToArray(opsj, Dnc_opJson(net, sub->leave_name, "dnc", NULL, 0, sub->leave, NULL, 0, sub->dummy_name));
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}

/* ============ the policy ============ */

/* Relays a stage's progress under a "dnc ..." prefix, with time since dnc began. */
typedef struct {
  const SolveSettings *s;
  double t0;
  char prefix[64];
  bool final;
} DncRelay;

static void Dnc_progress(const SolveProgress *p, void *user) {
  const DncRelay *r = user;
  char stage[128];
  snprintf(stage, sizeof stage, "%s: %s", r->prefix, p->stage ? p->stage : "");
  SolveProgress q = *p;
  q.stage = stage;
  q.elapsed = Clock_now() - r->t0;
  q.has_bound = false; /* a segment's or a fixed order's bound says nothing about the whole problem */
  q.gap = -1;
  if (!r->final) q.has_incumbent = false; /* a segment's bytes are not the plan's */
  r->s->progress(&q, r->s->progress_user);
}

static void Dnc_report(const DncRelay *r, const char *stage) {
  SolveProgress p = {.stage = stage, .gap = -1};
  if (r->s->progress) Dnc_progress(&p, (void *)r);
}

static bool Dnc_cancelled(const SolveSettings *s) { return s->cancel && atomic_load(s->cancel); }

/* The limit for a segment of cnt ops, out of `left_ops` still to solve: its share
 * of what is left of the segments' part of the time limit (unused time rolls on),
 * counted on the work clock from w0. */
static double Dnc_segmentLimit(const SolveSettings *s, double w0, int cnt, int left_ops) {
  if (s->time_limit <= 0) return 0;
  double left = s->time_limit * (1 - Dnc_finalShare) - (WorkClock_now() - w0);
  double share = left * cnt / left_ops;
  return share > Dnc_minLimit ? share : Dnc_minLimit;
}

/* The segments' part of the time limit is spent: the segments not solved keep
 * their file order (each would otherwise still take Dnc_minLimit: hundreds of
 * segments on a large network ran tens of seconds past the limit). */
static bool Dnc_segmentsDone(const SolveSettings *s, double w0) {
  Testhook_at("dnc.segments", s->cancel);
  return (s->time_limit > 0 && WorkClock_now() - w0 >= s->time_limit * (1 - Dnc_finalShare)) ||
         (s->deadline > 0 && Clock_now() >= s->deadline); /* the wall clock: the run stops (outer) */
}

/* Maps the segment network's order back to global ops (skipping enter and leave)
 * into the slice ops[0..cnt). */
static Status Dnc_mapOrder(Dnc *dc, const Plan *plan, int *ops, int cnt, const char *label, SpError *err) {
  int first = dc->sub.enter_op, nsub = cnt + first + dc->sub.leave_op, at = 0;
  if (plan->nsteps != nsub)
    return SpError_set(err, SP_ERR_SOLVER, "%s: the joint model returned %d steps for %d ops", label, plan->nsteps, nsub);
  for (int j = 0; j < nsub; j++) {
    int v = plan->order[j] - first; /* segment network op first + i is ops[i] */
    if (v >= 0 && v < cnt && at < cnt) dc->tmp[at++] = ops[v];
  }
  if (at != cnt) return SpError_set(err, SP_ERR_SOLVER, "%s: the joint model's order misses ops", label);
  memcpy(ops, dc->tmp, sizeof(int) * (size_t)cnt);
  return SP_OK;
}

/* Solves segment si (ops = its slice of the global order, file order on entry)
 * with the joint model and writes the order it finds back into the slice. */
static Status Dnc_solveSegment(Dnc *dc, int si, int *ops, int cnt, int left_ops, SpError *err) {
  Dnc_roles(dc, si, ops, cnt, !dc->s->paper_model, &dc->sub, dc->want, dc->keep);
  char *json = Dnc_segmentJson(dc, &dc->sub, si, ops, cnt, dc->scratch);
  if (!json) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  char label[64];
  snprintf(label, sizeof label, "dnc segment %d/%d", si + 1, dc->nseg);
  Net *sub = NULL;
  SpError e;
  Status st = Net_parse(json, strlen(json), label, &sub, &e);
  cJSON_free(json);
  if (st) return SpError_set(err, st, "%s", e.text);
  DncRelay relay = {.s = dc->s, .t0 = dc->t0};
  snprintf(relay.prefix, sizeof relay.prefix, "%s", label);
  Dnc_report(&relay, "joint model");
  SolveSettings ss = *dc->s;
  ss.time_limit = Dnc_segmentLimit(dc->s, dc->w0, cnt, left_ops);
  ss.order = NULL;
  ss.break_nodes = NULL;
  ss.progress = dc->s->progress ? Dnc_progress : NULL;
  ss.progress_user = &relay;
  Plan *plan = NULL;
  st = Cosma_joint(sub, &ss, &plan, NULL, &e);
  if (st == SP_ERR_CANCELLED || st == SP_ERR_LIMIT) {
    /* no order in time (or the paper's model as written is too large): the file order stays */
    dc->cancelled |= st == SP_ERR_CANCELLED;
    st = SP_OK;
  } else if (st) {
    SpError_set(err, st, "%s: %s", label, e.text);
  } else {
    st = Dnc_mapOrder(dc, plan, ops, cnt, label, err);
    dc->cancelled |= plan->solver.status == SOLVER_CANCELLED;
  }
  Plan_free(plan);
  Net_free(sub);
  return st;
}

/* The concatenated orders must be a schedule: a permutation in dependency order. */
static Status Dnc_checkOrder(const Net *net, const int *order, int *pos, SpError *err) {
  for (int v = 0; v < net->nops; v++) pos[v] = -1;
  for (int i = 0; i < net->nops; i++) {
    if (order[i] < 0 || order[i] >= net->nops || pos[order[i]] >= 0)
      return SpError_set(err, SP_ERR_SOLVER, "dnc: the segment orders are not a permutation of the ops");
    pos[order[i]] = i;
  }
  for (int v = 0; v < net->nops; v++)
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p >= 0 && pos[p] > pos[v])
        return SpError_set(err, SP_ERR_SOLVER, "dnc: the segment orders run \"%s\" before its input's producer \"%s\"",
                           net->ops[v].name, net->ops[p].name);
    }
  return SP_OK;
}

/* The break nodes (s->break_nodes or automatic), the segments, and the order with
 * each segment's ops in file order (a valid schedule to start from). */
static Status Dnc_segments(Dnc *dc, int *order, int *starts, SpError *err) {
  const Net *net = dc->net;
  Dag d;
  int *breaks = malloc(sizeof(int) * (size_t)net->nops), k = 0;
  Status st = SP_OK;
  if (!Dag_init(&d, net) || !breaks) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
  else if (dc->s->break_nodes && dc->s->break_nodes[0]) st = Dnc_parseBreaks(net, &d, dc->s->break_nodes, breaks, &k, err);
  else Dnc_autoBreaks(&d, net, DNC_MAX_SEGMENT, breaks, &k, dc->s, dc->w0);
  if (!st) {
    Dnc_assign(&d, breaks, k, dc->seg);
    int at = 0;
    dc->nseg = 0;
    for (int i = 0; i <= k; i++) {
      starts[dc->nseg] = at;
      for (int v = 0; v < net->nops; v++)
        if (dc->seg[v] == i) order[at++] = v;
      if (at > starts[dc->nseg]) dc->nseg++; /* the rest is empty when the last break node reaches every op */
    }
    starts[dc->nseg] = at;
  }
  free(breaks);
  Dag_free(&d);
  return st;
}

static void Dnc_free(Dnc *dc) {
  free(dc->seg), free(dc->tmp), free(dc->scratch), free(dc->want), free(dc->keep);
  free(dc->sub.role), free(dc->sub.leave);
}

static bool Dnc_init(Dnc *dc, const Net *net, const SolveSettings *s) {
  size_t n = (size_t)net->nops, nt = (size_t)(net->ntensors ? net->ntensors : 1);
  *dc = (Dnc){.net = net, .s = s, .t0 = Clock_now(), .w0 = WorkClock_now()};
  dc->seg = malloc(sizeof(int) * n);
  dc->tmp = malloc(sizeof(int) * n);
  dc->scratch = malloc(sizeof(int) * nt);
  dc->want = malloc(sizeof(bool) * nt);
  dc->keep = malloc(sizeof(bool) * nt);
  dc->sub.role = malloc(nt);
  dc->sub.leave = malloc(sizeof(bool) * nt);
  return dc->seg && dc->tmp && dc->scratch && dc->want && dc->keep && dc->sub.role && dc->sub.leave;
}

/* The fixed-schedule pipeline on the whole network, with what is left of the time. */
static Status Dnc_final(const Dnc *dc, const int *order, Plan **plan, SpError *err) {
  const SolveSettings *s = dc->s;
  DncRelay relay = {.s = s, .t0 = dc->t0, .prefix = "dnc final", .final = true};
  SolveSettings fs = *s;
  fs.order = NULL;
  fs.progress = s->progress ? Dnc_progress : NULL;
  fs.progress_user = &relay;
  if (s->time_limit > 0) {
    fs.time_limit = s->time_limit - (WorkClock_now() - dc->w0);
    if (fs.time_limit < Dnc_minLimit) fs.time_limit = Dnc_minLimit;
  }
  return Cosma_replacement(dc->net, &fs, order, NULL, plan, NULL, err);
}

/* The plan's policies, solver block (a D&C plan is not proven optimal unless it
 * has no traffic) and the last progress report. */
static Status Dnc_finish(const Dnc *dc, Plan *plan, SpError *err) {
  if (Plan_setPolicies(plan, "dnc", "dnc", "dnc")) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  int64_t cost = plan->metrics.noncompulsory_bytes;
  bool cancelled = dc->cancelled || plan->solver.status == SOLVER_CANCELLED || Dnc_cancelled(dc->s);
  plan->solver = (SolverInfo){.status = cost == 0 ? SOLVER_OPTIMAL : cancelled ? SOLVER_CANCELLED : SOLVER_FEASIBLE,
                              .seconds = Clock_now() - dc->t0, .objective = (double)cost, .has_objective = true,
                              .bound = 0, .has_bound = cost == 0};
  if (dc->s->progress) {
    SolveProgress p = {.stage = "done", .incumbent = (double)cost, .has_incumbent = true, .gap = -1,
                       .elapsed = plan->solver.seconds};
    dc->s->progress(&p, dc->s->progress_user);
  }
  return SP_OK;
}

Status Cosma_dncPlan(const Net *net, const SolveSettings *s, Plan **out, SpError *err) {
  *out = NULL;
  int64_t m_r = Figures_minRequired(net, s->params);
  if (s->budget < m_r)
    return SpError_set(err, SP_ERR_INFEASIBLE, "infeasible: budget %lld < M_R = %lld bytes", (long long)s->budget,
                       (long long)m_r);
  int n = net->nops;
  int *order = malloc(sizeof(int) * (size_t)n), *starts = malloc(sizeof(int) * ((size_t)n + 2));
  Dnc dc;
  Status st = SP_OK;
  if (!Dnc_init(&dc, net, s) || !order || !starts) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
  if (!st) st = Dnc_segments(&dc, order, starts, err);
  for (int i = 0; !st && i < dc.nseg && !(dc.cancelled |= Dnc_cancelled(s)) && !Dnc_segmentsDone(s, dc.w0); i++)
    st = Dnc_solveSegment(&dc, i, order + starts[i], starts[i + 1] - starts[i], n - starts[i], err);
  if (!st) st = Dnc_checkOrder(net, order, dc.tmp, err);
  Plan *plan = NULL;
  if (!st) st = Dnc_final(&dc, order, &plan, err);
  if (!st) st = Dnc_finish(&dc, plan, err);
  if (!st) *out = plan, plan = NULL;
  Plan_free(plan);
  free(order), free(starts);
  Dnc_free(&dc);
  return st;
}

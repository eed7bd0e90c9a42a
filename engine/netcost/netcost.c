/* netcost: a network's latency and energy on an architecture at a scratchpad
 * budget (netcost.h; the model: docs/design/cost.md). */
#include "netcost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "tiles/tiles.h"

/* ---- the mappings ------------------------------------------------------- */

typedef struct {
  Layer shape;
  Status st;
  SpError err;
  LayerMapResult r;
} MapEntry;

struct NetCostMapper {
  Arch arch;
  const LayerMethod *method;
  LayerMapOptions o;
  MapEntry *e;
  int n, cap;
};

Status NetCostMapper_new(const Arch *arch, const LayerMethod *method, const LayerMapOptions *o, NetCostMapper **out,
                         SpError *err) {
  *out = calloc(1, sizeof **out);
  if (!*out) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  (*out)->arch = *arch;
  (*out)->method = method;
  (*out)->o = *o;
  return SP_OK;
}

void NetCostMapper_free(NetCostMapper *m) {
  if (!m) return;
  free(m->e);
  free(m);
}

const Arch *NetCostMapper_arch(const NetCostMapper *m) { return &m->arch; }
const char *NetCostMapper_method(const NetCostMapper *m) { return m->method->name; }
int NetCostMapper_count(const NetCostMapper *m) { return m->n; }

Status NetCostMapper_map(NetCostMapper *m, const Layer *l, const LayerMapResult **out, SpError *err) {
  for (int i = 0; i < m->n; i++)
    if (Layer_sameShape(&m->e[i].shape, l)) {
      if (m->e[i].st) {
        if (err) *err = m->e[i].err;
        return m->e[i].st;
      }
      *out = &m->e[i].r;
      return SP_OK;
    }
  if (m->n == m->cap) {
    int cap = m->cap ? 2 * m->cap : 16;
    MapEntry *e = realloc(m->e, sizeof *e * (size_t)cap);
    if (!e) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
    m->e = e, m->cap = cap;
  }
  MapEntry *e = &m->e[m->n];
  memset(e, 0, sizeof *e);
  e->shape = *l;
  e->st = m->method->fn(&m->arch, l, &m->o, &e->r, &e->err);
  if (e->st == SP_ERR_CANCELLED) { /* not a property of the shape: asked again, it maps again */
    if (err) *err = e->err;
    return SP_ERR_CANCELLED;
  }
  m->n++;
  if (e->st) {
    char name[64];
    SpError_set(&e->err, e->st, "layer %s (op \"%s\") on %s by %s: %s", Layer_cosaName(l, name, sizeof name), l->name,
                m->arch.name, m->method->name, e->err.text);
    if (err) *err = e->err;
    return e->st;
  }
  *out = &e->r;
  return SP_OK;
}

/* ---- the stage ------------------------------------------------------------ */

void NetCostStage_free(NetCostStage *st) {
  if (!st) return;
  Net_free(st->tiled);
  free(st->op_of);
  memset(st, 0, sizeof *st);
}

Status NetCostStage_build(const Net *orig, bool params, int64_t budget, NetCostStage *out, SpError *err) {
  memset(out, 0, sizeof *out);
  out->budget = budget;
  out->m_r = Figures_minRequired(orig, params);
  out->orig = orig;
  out->net = orig;
  if (budget >= out->m_r) {
    out->op_of = malloc(sizeof(int) * (size_t)(orig->nops ? orig->nops : 1));
    if (!out->op_of) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
    for (int i = 0; i < orig->nops; i++) out->op_of[i] = i;
    return SP_OK;
  }
  if (budget <= 0) return SpError_set(err, SP_ERR_ARG, "budget %lld: expected a positive number of bytes", (long long)budget);
  TilesOptions to, used;
  TilesOptions_init(&to);
  to.capacity = budget;
  Net *tn = NULL;
  Status st = Tiles_tiledNetUsed(orig, &to, &tn, NULL, &used, err);
  if (st) return st;
  TilesModel *m = NULL;
  if ((st = Tiles_build(orig, &used, &m, err))) {
    Net_free(tn);
    return st;
  }
  if (m->nsubsteps != tn->nops) { /* the contract of Tiles_tiledNetUsed */
    Tiles_free(m);
    Net_free(tn);
    return SpError_set(err, SP_ERR_FORMAT, "tiled network: %d ops, but the tiling has %d sub-steps", tn->nops,
                       m->nsubsteps);
  }
  out->op_of = malloc(sizeof(int) * (size_t)(tn->nops ? tn->nops : 1));
  if (!out->op_of) {
    Tiles_free(m);
    Net_free(tn);
    return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < orig->nops; i++)
    for (int k = 0; k < m->ops[i].ntiles; k++) out->op_of[m->ops[i].substep0 + k] = i;
  Tiles_free(m);
  out->tiled = tn;
  out->net = tn;
  return SP_OK;
}

/* ---- the cost ------------------------------------------------------------- */

static int64_t NetCost_elems(const Tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->rank; d++) n *= t->shape[d];
  return n;
}

static int64_t NetCost_ceilDiv(double num, double den) {
  double q = ceil(num / den - 1e-9); /* bytes / bandwidth: whole cycles, not 1 more for rounding noise */
  return q < 0 ? 0 : (int64_t)q;
}

/* Has tensor t appeared among op's inputs before position k? (inputs may repeat) */
static bool NetCost_seen(const Op *op, int k) {
  for (int j = 0; j < k; j++)
    if (op->inputs[j] == op->inputs[k]) return true;
  return false;
}

/* Compute, weights and on-chip energy of op i (plan bytes come later). */
static Status NetCost_opBase(const Net *net, int i, bool params, NetCostMapper *mapper, NetCostOp *c, SpError *err) {
  const Arch *a = &mapper->arch;
  const Op *op = &net->ops[i];
  const int L = a->nlevels - 1; /* DRAM: the arch's outermost level */
  c->name = op->name;
  c->op = i;
  Layer l;
  SpError ignore;
  int weight = -1; /* the input the mapping's weight operand is, when it is a parameter */
  if (Layer_fromOp(net, i, &l, &ignore) == SP_OK) {
    const LayerMapResult *r;
    Status st = NetCostMapper_map(mapper, &l, &r, err);
    if (st) return st;
    c->mapped = true;
    c->compute_cycles = (int64_t)llround(r->cost.compute_cycles);
    double onchip = r->cost.compute_cycles; /* the on-chip levels' bounds: the DRAM level is the plan's */
    for (int lv = 0; lv < L; lv++)
      if (r->cost.transfer_cycles[lv] > onchip) onchip = r->cost.transfer_cycles[lv];
    c->onchip_cycles = NetCost_ceilDiv(onchip, 1);
    double outer_pj = 0;
    for (int v = 0; v < OPND_COUNT; v++)
      outer_pj += (r->cost.reads[L][v] * a->level[L].read_pj + r->cost.writes[L][v] * a->level[L].write_pj) *
                  a->precision[v];
    c->energy_pj = r->cost.energy_pj - outer_pj;
    if (op->ninputs >= 2 && net->tensors[op->inputs[1]].kind == TK_PARAM && !params) {
      weight = op->inputs[1];
      c->weight_bytes = (int64_t)llround((r->cost.reads[L][OPND_W] + r->cost.writes[L][OPND_W]) * a->precision[OPND_W]);
    }
  } else {
    int64_t rd = 0, wr = 0;
    for (int k = 0; k < op->ninputs; k++)
      if (!NetCost_seen(op, k)) rd += NetCost_elems(&net->tensors[op->inputs[k]]);
    for (int k = 0; k < op->noutputs; k++) wr += NetCost_elems(&net->tensors[op->outputs[k]]);
    int64_t work = rd > wr ? rd : wr;
    c->compute_cycles = (work + a->macs - 1) / a->macs;
    c->onchip_cycles = c->compute_cycles;
    c->energy_pj = (double)work * a->mac_pj;
  }
  if (!params) /* parameters other than a mapping's weights: read once */
    for (int k = 0; k < op->ninputs; k++) {
      int t = op->inputs[k];
      if (net->tensors[t].kind == TK_PARAM && t != weight && !NetCost_seen(op, k)) c->weight_bytes += net->tensors[t].bytes;
    }
  c->read_bytes = c->weight_bytes;
  return SP_OK;
}

void NetCost_free(NetCost *c) {
  if (!c) return;
  free(c->ops);
  memset(c, 0, sizeof *c);
}

Status NetCost_evaluate(const NetCostStage *stage, const Plan *plan, bool params, NetCostMapper *mapper, NetCost *out,
                        SpError *err) {
  memset(out, 0, sizeof *out);
  if (!mapper) return SpError_set(err, SP_ERR_ARG, "a network's cost needs an architecture and a layer mapper");
  const Net *orig = stage->orig, *pn = stage->net;
  const Arch *a = &mapper->arch;
  const ArchLevel *dram = &a->level[a->nlevels - 1];
  if (plan->nsteps != pn->nops)
    return SpError_set(err, SP_ERR_ARG, "plan of %d steps for a network of %d ops", plan->nsteps, pn->nops);
  int n = orig->nops;
  NetCostOp *ops = calloc((size_t)(n ? n : 1), sizeof *ops);
  int *pos = malloc(sizeof(int) * (size_t)(n ? n : 1));
  bool *stored = calloc((size_t)(pn->ntensors ? pn->ntensors : 1), sizeof(bool));
  out->ops = calloc((size_t)(n ? n : 1), sizeof *out->ops);
  Status st = SP_OK;
  if (!ops || !pos || !stored || !out->ops) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n && !st; i++) st = NetCost_opBase(orig, i, params, mapper, &ops[i], err);
  for (int k = 0; k < plan->nstays && !st; k++) {
    const Stay *s = &plan->stays[k];
    if (s->start < 0 || s->end >= plan->nsteps || s->start > s->end || s->tensor < 0 || s->tensor >= pn->ntensors) {
      st = SpError_set(err, SP_ERR_ARG, "plan placement %d: steps %d..%d outside the plan's %d steps", k, s->start,
                       s->end, plan->nsteps);
      break;
    }
    const Tensor *t = &pn->tensors[s->tensor];
    if (s->in == STAY_LOAD || s->in == STAY_RETRIEVE) { /* read before the op at its first step */
      NetCostOp *c = &ops[stage->op_of[plan->order[s->start]]];
      c->plan_bytes += t->bytes, c->read_bytes += t->bytes;
    }
    bool to_host = s->out == STAY_SPILL || s->out == STAY_STORE, write = false;
    if (to_host && t->kind == TK_OUTPUT) write = !stored[s->tensor], stored[s->tensor] = true;
    else write = s->out == STAY_SPILL;
    if (write) { /* written after the op at its last step */
      NetCostOp *c = &ops[stage->op_of[plan->order[s->end]]];
      c->plan_bytes += t->bytes, c->write_bytes += t->bytes;
    }
  }
  if (!st) {
    for (int i = 0; i < n; i++) pos[i] = -1;
    int k = 0;
    for (int u = 0; u < plan->nsteps; u++) {
      int i = stage->op_of[plan->order[u]];
      if (pos[i] < 0) pos[i] = k++;
    }
    for (int i = 0; i < n; i++) {
      NetCostOp *c = &ops[i];
      c->dram_bytes = c->plan_bytes + c->weight_bytes;
      c->dram_cycles = NetCost_ceilDiv((double)c->dram_bytes, dram->bandwidth * (double)dram->instances);
      c->cycles = c->onchip_cycles > c->dram_cycles ? c->onchip_cycles : c->dram_cycles;
      c->energy_pj += (double)c->read_bytes * dram->read_pj + (double)c->write_bytes * dram->write_pj;
      out->ops[pos[i] >= 0 ? pos[i] : i] = *c; /* every op has a step: pos is a permutation */
      out->cycles += c->cycles;
      out->compute_cycles += c->compute_cycles;
      out->onchip_cycles += c->onchip_cycles;
      out->dram_cycles += c->dram_cycles;
      out->dram_bytes += c->dram_bytes;
      out->plan_bytes += c->plan_bytes;
      out->weight_bytes += c->weight_bytes;
      out->energy_pj += c->energy_pj;
      if (c->mapped) out->mapped++;
      else out->roofline++;
    }
    out->nops = n;
    out->tiled = stage->tiled != NULL;
  }
  free(ops);
  free(pos);
  free(stored);
  if (st) NetCost_free(out);
  return st;
}

Status NetCost_run(const Net *net, const SolveSettings *s, NetCostMapper *mapper, NetCost *out, NetCostStage *stage_out,
                   Plan **plan_out, SpError *err) {
  memset(out, 0, sizeof *out);
  if (plan_out) *plan_out = NULL;
  NetCostStage stage;
  Status st = NetCostStage_build(net, s->params, s->budget, &stage, err);
  if (st) return st;
  SolveSettings ss = *s;
  if (stage.tiled) ss.order = NULL; /* an order of the original's ops does not fit the tiles */
  Plan *plan = NULL;
  st = Solve_run(stage.net, &ss, &plan, err);
  if (!st) st = NetCost_evaluate(&stage, plan, s->params, mapper, out, err);
  if (plan_out && !st) *plan_out = plan;
  else Plan_free(plan);
  if (stage_out && !st) *stage_out = stage;
  else NetCostStage_free(&stage);
  return st;
}

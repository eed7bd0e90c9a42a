/* Shared pieces of the COSMA models: see cosma_model.h. */
#include "cosma_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitset.h"
#include "clock.h"
#include "sim.h"
#include "testhook.h"

int64_t Cosma_gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}



void Row_add(Row *r, int col, double coef) {
  if (col < 0) return;
  if (r->n == r->cap) {
    int cap = r->cap ? r->cap * 2 : 16;
    int *c = realloc(r->cols, sizeof(int) * (size_t)cap);
    if (c) r->cols = c;
    double *v = realloc(r->coef, sizeof(double) * (size_t)cap);
    if (v) r->coef = v;
    if (!c || !v) {
      r->nomem = true;
      return;
    }
    r->cap = cap;
  }
  r->cols[r->n] = col;
  r->coef[r->n++] = coef;
}

void Row_commit(IlpModel *m, Row *r, double lo, double hi) {
  if (!r->nomem) IlpModel_addRow(m, lo, hi, r->n, r->cols, r->coef);
  r->n = 0;
}

void Row_free(Row *r) { free(r->cols), free(r->coef); }



void Relay_report(Relay *r, const char *stage, bool has_inc, double inc, bool has_bnd, double bnd, long nodes) {
  if (!r->s->progress) return;
  if (r->has_incumbent && (!has_inc || r->incumbent < inc)) inc = r->incumbent, has_inc = true;
  if (r->has_bound && (!has_bnd || r->bound > bnd)) bnd = r->bound, has_bnd = true;
  SolveProgress p = {.stage = stage, .incumbent = inc * r->scale, .bound = bnd * r->scale, .gap = -1,
                     .has_incumbent = has_inc, .has_bound = has_bnd, .nodes = nodes, .elapsed = Clock_now() - r->t0};
  if (has_inc && has_bnd) p.gap = inc > 0 ? fmax(0, (inc - bnd) / inc) : 0;
  r->s->progress(&p, r->s->progress_user);
}

void Relay_ilp(const IlpProgress *p, void *user) {
  Relay *r = user;
  if (strcmp(p->stage, "done") == 0) return; /* the pipeline reports its own stages */
  /* a relaxation's solutions are no plans: only its bound counts (the incumbent shown is one that exists) */
  bool plan = p->has_incumbent && !strstr(p->stage, "relaxation");
  Relay_report(r, p->stage, plan, p->incumbent, p->has_bound, p->bound, p->nodes);
}

double Cosma_wallLeft(const SolveSettings *s) {
  if (s->deadline <= 0) return 0;
  double left = s->deadline - Clock_now();
  return left > 0.01 ? left : 0.01;
}

void Cosma_ilpOptions(IlpOptions *o, const SolveSettings *s, Relay *relay, double time_limit, const char *label) {
  IlpOptions_init(o);
  o->work_seconds = time_limit;
  o->time_limit = Cosma_wallLeft(s);
  o->cancel = s->cancel;
  o->progress = s->progress ? Relay_ilp : NULL;
  o->user = relay;
  o->label = label;
  o->integral_objective = true;
}

double Cosma_proximity(const IlpModel *m, double stage_seconds) {
  /* Off (issue 32): GLPK's proximity search runs on the wall clock (ps_tm_lim) with
   * no other limit, so what it finds when that clock stops it depends on the
   * machine's load. It was on between 500 and 50,000 columns for half the stage's
   * seconds (at most 5 s). */
  (void)m, (void)stage_seconds;
  return 0;
}

void Cosma_bestSimulated(const Net *net, const SolveSettings *s, const int *order, const char *prefix, Plan **best,
                         char *policy, size_t n) {
  for (int ri = 0; ri < Policy_count(POLICY_REPLACEMENT); ri++)
    for (int ai = 0; ai < Policy_count(POLICY_ALLOCATOR); ai++) {
      const PolicyInfo *rp = Policy_at(POLICY_REPLACEMENT, ri), *ap = Policy_at(POLICY_ALLOCATOR, ai);
      Plan *p = NULL;
      SpError e2;
      if (Solve_simulate(net, s->params, s->budget, order, rp, ap, &p, &e2)) continue; /* a pair may not fit: skip it */
      if (!*best || p->metrics.noncompulsory_bytes < (*best)->metrics.noncompulsory_bytes) {
        Plan_free(*best);
        *best = p;
        snprintf(policy, n, "%s%s%s/%s", prefix ? prefix : "", prefix ? "/" : "", rp->name, ap->name);
      } else {
        Plan_free(p);
      }
    }
}

void Cosma_finish(Plan *plan, SolverStatus status, int64_t bound, double seconds, Relay *relay) {
  int64_t cost = plan->metrics.noncompulsory_bytes;
  if (status == SOLVER_OPTIMAL || bound > cost) bound = cost;
  plan->solver = (SolverInfo){.status = status, .seconds = seconds, .objective = (double)cost, .bound = (double)bound,
                              .has_objective = true, .has_bound = true};
  relay->incumbent = (double)cost / relay->scale, relay->bound = (double)bound / relay->scale;
  relay->has_incumbent = relay->has_bound = true;
  Relay_report(relay, "done", true, relay->incumbent, true, relay->bound, 0);
}

SolverStatus Cosma_status(IlpStatus st) {
  switch (st) {
  case ILP_OPTIMAL: return SOLVER_OPTIMAL;
  case ILP_FEASIBLE: return SOLVER_FEASIBLE;
  case ILP_TIMEOUT: return SOLVER_TIMEOUT;
  case ILP_CANCELLED: return SOLVER_CANCELLED;
  case ILP_INFEASIBLE: return SOLVER_INFEASIBLE;
  default: return SOLVER_NONE;
  }
}

/* ASAP (number of ancestors) and ALAP (n - 1 - number of descendants) of every op. */
bool Cosma_windows(const Net *net, int *asap, int *alap) {
  int n = net->nops, w = Bitset_words(n);
  uint64_t *anc = calloc((size_t)n * (size_t)w, sizeof(uint64_t));
  uint64_t *desc = calloc((size_t)n * (size_t)w, sizeof(uint64_t));
  if (!anc || !desc) {
    free(anc), free(desc);
    return false;
  }
  for (int v = 0; v < n; v++) /* file order is topological */
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p < 0) continue;
      for (int i = 0; i < w; i++) anc[(size_t)v * w + i] |= anc[(size_t)p * w + i];
      Bitset_set(anc + (size_t)v * w, p);
    }
  for (int v = n - 1; v >= 0; v--)
    for (int k = 0; k < net->ops[v].ninputs; k++) {
      int p = net->tensors[net->ops[v].inputs[k]].producer;
      if (p < 0) continue;
      for (int i = 0; i < w; i++) desc[(size_t)p * w + i] |= desc[(size_t)v * w + i];
      Bitset_set(desc + (size_t)p * w, v);
    }
  for (int v = 0; v < n; v++) {
    int a = 0, d = 0;
    for (int i = 0; i < w; i++)
      a += __builtin_popcountll(anc[(size_t)v * w + i]), d += __builtin_popcountll(desc[(size_t)v * w + i]);
    asap[v] = a;
    alap[v] = n - 1 - d;
  }
  free(anc), free(desc);
  return true;
}

void CosmaBuildLimit_set(CosmaBuildLimit *l, double deadline, double seconds, atomic_int *cancel) {
  /* seconds: nominal (a share of the time limit): max_nnz is a count, the same on any machine */
  l->deadline = deadline;
  l->max_nnz = seconds > 0 ? (long)(seconds / Ilp_estimateSeconds(1, 0, 0)) + 1 : 0;
  l->cancel = cancel;
  l->hit = false;
  l->stage = "cosma.model";
}

bool CosmaBuildLimit_over(CosmaBuildLimit *l, const IlpModel *m) {
  if (!l->hit) Testhook_at(l->stage, l->cancel);
  if (!l->hit)
    l->hit = (l->deadline > 0 && Clock_now() > l->deadline) || (l->max_nnz > 0 && IlpModel_nnz(m) > l->max_nnz) ||
             (l->cancel && atomic_load(l->cancel));
  return l->hit;
}

/* steps: the step semantics shared by every strategy (Definitions 2, 3 and 16)
 * and the heuristic orders (S1-baseline, Row-by-Row, ZigZag). The ILP grouping
 * is in steps_ilp.c, the functional check in steps_exec.c. */
#include "steps.h"

#include <stdlib.h>
#include <string.h>

#include "steps_internal.h"
#include "testhook.h"

void StepsOptions_init(StepsOptions *o) {
  memset(o, 0, sizeof *o);
  o->nbop_pe = 0;
  o->group_size = 0;
  o->tl = o->tw = o->tacc = 1;
  o->max_loads = 2;
  o->groups = 0;
  o->time_limit = 10;
}

const char *Steps_strategyName(StepsStrategy s) {
  static const char *const names[STEPS_STRATEGIES] = {"s1", "row", "zigzag", "ilp"};
  return s >= 0 && s < STEPS_STRATEGIES ? names[s] : "?";
}

Status Steps_checkLayer(const Layer *l, SpError *err) {
  if (l->groups > 1)
    return SpError_set(err, SP_ERR_ARG, "%s: grouped convolutions are not covered by the steps model",
                       l->name);
  if (l->R < 1 || l->S < 1 || l->P < 1 || l->Q < 1 || l->C < 1 || l->K < 1 || l->stride_h < 1 ||
      l->stride_w < 1)
    return SpError_set(err, SP_ERR_ARG, "%s: a dimension or stride below 1", l->name);
  /* P, Q first: the padded input is at least P x Q, and computing it from a huge P overflows */
  int64_t hin = l->P > 4096 ? l->P : Layer_inH(l, l->P), win = l->Q > 4096 ? l->Q : Layer_inW(l, l->Q);
  if (hin > 4096 || win > 4096 || l->C > 1 << 20 || l->K > 1 << 20 || l->R > 1 << 10 ||
      l->S > 1 << 10)
    return SpError_set(err, SP_ERR_ARG, "%s: too large for the step model (input %lldx%lld)", l->name,
                       (long long)hin, (long long)win);
  return SP_OK;
}

/* a * b + c, false on an int64 overflow (the arguments are >= 0) */
static bool Steps_mulAdd(int64_t a, int64_t b, int64_t c, int64_t *out) {
  int64_t m;
  return !__builtin_mul_overflow(a, b, &m) && !__builtin_add_overflow(m, c, out);
}

/* Every count and duration of any plan of l under o's cycles fits int64: bounded
 * for every grouping at once, so the ILP and the search (which price with the same
 * tl, tw, tacc) are covered too. A step loads at most the hk*wk pixels of each of
 * its patches, so the plan loads at most patches * hk*wk*Cin input elements, the
 * kernels once, writes each output once, and takes at most one step per patch. */
static Status Steps_checkRange(const Layer *l, const StepsOptions *o, SpError *err) {
  if (o->tl < 0 || o->tw < 0 || o->tacc < 0)
    return SpError_set(err, SP_ERR_ARG, "cycles tl %lld, tw %lld, tacc %lld: each must be 0 or more", (long long)o->tl,
                       (long long)o->tw, (long long)o->tacc);
  const int64_t npatch = l->P * l->Q, npix = Layer_inH(l, l->P) * Layer_inW(l, l->Q);
  int64_t ker, macs, in, out, foot, d;
  bool counts = Steps_mulAdd(l->K * l->C, l->R * l->S, 0, &ker) && Steps_mulAdd(npatch, ker, 0, &macs) &&
                Steps_mulAdd(npatch * l->R * l->S, l->C, 0, &in) && Steps_mulAdd(npatch, l->K, 0, &out) &&
                Steps_mulAdd(npix, l->C, ker, &foot) && !__builtin_add_overflow(foot, out, &foot);
  if (!counts)
    return SpError_set(err, SP_ERR_ARG, "%s: %lld patches of %lld MACs: the element counts overflow 64 bits", l->name,
                       (long long)npatch, (long long)(l->K * l->C * l->R * l->S));
  /* duration <= (in + ker) * tl + out * tw + npatch * tacc; Eq. 15's objective is less */
  bool cycles = !__builtin_add_overflow(in, ker, &d) && Steps_mulAdd(d, o->tl, 0, &d) &&
                Steps_mulAdd(out, o->tw, d, &d) && Steps_mulAdd(npatch, o->tacc, d, &d);
  if (!cycles)
    return SpError_set(err, SP_ERR_ARG,
                       "%s: with tl %lld, tw %lld, tacc %lld cycles a plan can last more than 2^63 cycles "
                       "(64-bit overflow): give fewer cycles per element",
                       l->name, (long long)o->tl, (long long)o->tw, (long long)o->tacc);
  return SP_OK;
}

Status Steps_groupSize(const Layer *l, const StepsOptions *o, int *g, SpError *err) {
  if (o->group_size > 0) {
    *g = o->group_size;
    return SP_OK;
  }
  int64_t per_patch = l->C * l->R * l->S * l->K; /* Property 1: nb_op_value * Cout */
  if (o->nbop_pe <= 0)
    return SpError_set(err, SP_ERR_ARG, "give the PE's MACs per step (nbopPE) or a group size");
  int64_t n = o->nbop_pe / per_patch;
  if (n < 1)
    return SpError_set(err, SP_ERR_INFEASIBLE,
                       "%s: one patch needs %lld MACs (Cin*HK*WK*Cout), more than nbopPE = %lld",
                       l->name, (long long)per_patch, (long long)o->nbop_pe);
  *g = n > 1 << 20 ? 1 << 20 : (int)n;
  return SP_OK;
}

void StepsPlan_free(StepsPlan *p) {
  free(p->steps);
  free(p->order);
  free(p->loaded);
  free(p->slots);
  free(p->freed);
  memset(p, 0, sizeof *p);
}

/* A growable int array. */
typedef struct {
  int *v;
  int64_t n, cap;
} IntVec;

static bool IntVec_push(IntVec *a, int x) {
  if (a->n == a->cap) {
    int64_t cap = a->cap ? a->cap * 2 : 256;
    int *grown = realloc(a->v, sizeof(int) * (size_t)cap);
    if (!grown) return false;
    a->v = grown;
    a->cap = cap;
  }
  a->v[a->n++] = x;
  return true;
}

Status Steps_fromGroups(const Layer *l, const StepsOptions *o, const int *order, const int *sizes,
                        int ngroups, StepsPlan *p, SpError *err) {
  memset(p, 0, sizeof *p);
  Status st = Steps_checkLayer(l, err);
  if (st == SP_OK) st = Steps_checkRange(l, o, err);
  if (st != SP_OK) return st;
  p->cin = (int)l->C, p->cout = (int)l->K, p->hk = (int)l->R, p->wk = (int)l->S;
  p->sh = l->stride_h, p->sw = l->stride_w;
  p->hout = (int)l->P, p->wout = (int)l->Q;
  p->hin = (int)Layer_inH(l, l->P), p->win = (int)Layer_inW(l, l->Q);
  p->warm_objective = -1;
  p->ilp_status = ILP_STATUS_COUNT;
  int npatch = p->hout * p->wout, npix = p->hin * p->win;

  /* the order must be a permutation cut into non-empty groups */
  int64_t total = 0;
  for (int k = 0; k < ngroups; k++) {
    if (sizes[k] < 1) return SpError_set(err, SP_ERR_ARG, "group %d is empty", k);
    total += sizes[k];
  }
  if (total != npatch)
    return SpError_set(err, SP_ERR_ARG, "the groups hold %lld patches, the layer has %d", (long long)total,
                       npatch);
  p->order = malloc(sizeof(int) * (size_t)npatch);
  p->steps = calloc((size_t)ngroups, sizeof(Step));
  int *stamp = malloc(sizeof(int) * (size_t)npix);
  int *slot_of = malloc(sizeof(int) * (size_t)npix);
  int *loads = calloc((size_t)npix, sizeof(int));
  int *resident = malloc(sizeof(int) * (size_t)npix), nres = 0; /* on-chip pixels */
  int *free_slots = malloc(sizeof(int) * (size_t)npix), nfree = 0, next_slot = 0;
  bool *seen = calloc((size_t)npatch, sizeof(bool));
  int64_t *off = malloc(sizeof(int64_t) * 3 * (size_t)ngroups); /* loaded, freed offsets */
  IntVec loaded = {0}, slots = {0}, freed = {0};
  if (!p->order || !p->steps || !stamp || !slot_of || !loads || !resident || !free_slots ||
      !seen || !off) {
    st = SpError_set(err, SP_ERR_NOMEM, "step plan");
    goto done;
  }
  for (int i = 0; i < npatch; i++) {
    if (order[i] < 0 || order[i] >= npatch || seen[order[i]]) {
      st = SpError_set(err, SP_ERR_ARG, "the order lists patch %d twice or out of range", order[i]);
      goto done;
    }
    seen[order[i]] = true;
    p->order[i] = order[i];
  }
  for (int x = 0; x < npix; x++) stamp[x] = slot_of[x] = -1; /* slot_of >= 0: on chip */
  const int64_t ker = (int64_t)p->cout * p->cin * p->hk * p->wk;
  p->nsteps = ngroups;
  p->fits = true;
  int at = 0;
  for (int k = 0; k < ngroups; k++) {
    /* a layer of millions of steps takes seconds: the caller may stop it */
    if ((k & 0xfff) == 0xfff) Testhook_at("steps.plan", o->cancel);
    if ((k & 0xfff) == 0xfff && o->cancel && atomic_load(o->cancel)) {
      st = SpError_set(err, SP_ERR_CANCELLED, "step plan cancelled at step %d of %d", k + 1, ngroups);
      goto done;
    }
    Step *s = &p->steps[k];
    s->npatches = sizes[k];
    /* the union of the group's patches */
    for (int q = at; q < at + sizes[k]; q++) {
      int pi = p->order[q] / p->wout, pj = p->order[q] % p->wout;
      for (int h = pi * p->sh; h < pi * p->sh + p->hk; h++)
        for (int w = pj * p->sw; w < pj * p->sw + p->wk; w++) stamp[h * p->win + w] = k;
    }
    /* a1: free what this group does not use (S1 keeps nothing else) */
    off[3 * k + 1] = freed.n;
    for (int r = 0; r < nres;) {
      int x = resident[r];
      if (stamp[x] == k) { /* used by this group: kept */
        r++;
        continue;
      }
      if (!IntVec_push(&freed, x)) goto nomem;
      free_slots[nfree++] = slot_of[x];
      resident[r] = resident[--nres];
      slot_of[x] = -1;
    }
    s->nfreed = (int)(freed.n - off[3 * k + 1]);
    s->free_in = (int64_t)s->nfreed * p->cin;
    /* a3: the previous step's outputs go back to DRAM */
    s->write_out = k > 0 ? (int64_t)sizes[k - 1] * p->cout : 0;
    /* a4: load the slice, lowest address first for a compact map */
    off[3 * k] = loaded.n;
    for (int q = at; q < at + sizes[k]; q++) {
      int pi = p->order[q] / p->wout, pj = p->order[q] % p->wout;
      for (int h = pi * p->sh; h < pi * p->sh + p->hk; h++)
        for (int w = pj * p->sw; w < pj * p->sw + p->wk; w++) {
          int x = h * p->win + w;
          if (stamp[x] != k) continue; /* handled already in this step */
          stamp[x] = k + ngroups;      /* handled; never equal to a later group's k */
          if (slot_of[x] >= 0) continue; /* kept from the previous step */
          int slot = nfree ? free_slots[--nfree] : next_slot++;
          if (!IntVec_push(&loaded, x) || !IntVec_push(&slots, slot)) goto nomem;
          slot_of[x] = slot;
          resident[nres++] = x;
          loads[x]++;
        }
    }
    s->nloaded = (int)(loaded.n - off[3 * k]);
    s->load_in = (int64_t)s->nloaded * p->cin;
    s->load_ker = k == 0 ? ker : 0;
    s->free_ker = 0;
    /* a6: compute */
    s->macs = (int64_t)sizes[k] * p->cout * p->cin * p->hk * p->wk;
    s->foot_in = (int64_t)nres * p->cin;
    s->foot_ker = ker;
    s->foot_out = (int64_t)sizes[k] * p->cout;
    s->footprint = s->foot_in + s->foot_ker + s->foot_out;
    s->duration = (s->load_in + s->load_ker) * o->tl + s->write_out * o->tw + o->tacc;
    if (s->footprint > p->peak) p->peak = s->footprint;
    p->duration += s->duration;
    p->objective += s->load_in * o->tl + o->tacc;
    p->loaded_in += s->load_in;
    p->loaded_pixels += s->nloaded;
    p->written += s->write_out;
    off[3 * k + 2] = at;
    at += sizes[k];
  }
  /* the end: the last outputs go back, everything is freed */
  p->final_write = (int64_t)sizes[ngroups - 1] * p->cout;
  p->written += p->final_write;
  p->duration += p->final_write * o->tw;
  p->input_slots = next_slot;
  for (int x = 0; x < npix; x++)
    if (loads[x] > p->max_loads) p->max_loads = loads[x];
  p->fits = o->size_mem <= 0 || p->peak <= o->size_mem;
  p->loaded = loaded.v, p->slots = slots.v, p->freed = freed.v;
  loaded.v = slots.v = freed.v = NULL;
  for (int k = 0; k < ngroups; k++) {
    Step *s = &p->steps[k];
    s->patches = p->order + off[3 * k + 2];
    s->loaded = p->loaded ? p->loaded + off[3 * k] : NULL;
    s->loaded_slot = p->slots ? p->slots + off[3 * k] : NULL;
    s->freed = p->freed ? p->freed + off[3 * k + 1] : NULL;
  }
  goto done;
nomem:
  st = SpError_set(err, SP_ERR_NOMEM, "step plan");
done:
  free(stamp);
  free(slot_of);
  free(loads);
  free(resident);
  free(free_slots);
  free(seen);
  free(off);
  free(loaded.v);
  free(slots.v);
  free(freed.v);
  if (st != SP_OK) StepsPlan_free(p);
  return st;
}

void Steps_heuristicOrder(int hout, int wout, bool zigzag, int *order) {
  int n = 0;
  for (int i = 0; i < hout; i++)
    for (int j = 0; j < wout; j++) order[n++] = i * wout + (zigzag && i % 2 ? wout - 1 - j : j);
}

void Steps_stripOrder(int hout, int wout, int a, bool snake_cols, int *order) {
  int n = 0;
  for (int s0 = 0, strip = 0; s0 < hout; s0 += a, strip++) {
    int rows = hout - s0 < a ? hout - s0 : a;
    for (int t = 0; t < wout; t++) {
      int j = strip % 2 ? wout - 1 - t : t; /* strips alternate direction */
      for (int u = 0; u < rows; u++) {
        int i = s0 + (snake_cols && t % 2 ? rows - 1 - u : u); /* columns up and down, or all down */
        order[n++] = i * wout + j;
      }
    }
  }
}

Status Steps_copyGroups(const Layer *l, const StepsOptions *o, const StepsPlan *src, StepsPlan *p, SpError *err) {
  int *sizes = malloc(sizeof(int) * (size_t)(src->nsteps > 0 ? src->nsteps : 1));
  if (!sizes) return SpError_set(err, SP_ERR_NOMEM, "step plan");
  for (int k = 0; k < src->nsteps; k++) sizes[k] = src->steps[k].npatches;
  Status st = Steps_fromGroups(l, o, src->order, sizes, src->nsteps, p, err);
  free(sizes);
  return st;
}

/* A fixed order cut into groups of g (the last one shorter), or into ng groups of
 * near-equal sizes when ng is more than that takes (the ILP's start for --steps). */
static Status Steps_chunked(const Layer *l, const StepsOptions *o, const int *order, int npatch, int g, int ng,
                            StepsPlan *p, SpError *err) {
  int kmin = (npatch + g - 1) / g;
  if (ng <= kmin || ng > npatch) ng = kmin;
  int *sizes = malloc(sizeof(int) * (size_t)ng);
  if (!sizes) return SpError_set(err, SP_ERR_NOMEM, "step plan");
  for (int k = 0; k < ng; k++)
    sizes[k] = ng == kmin ? (k < ng - 1 ? g : npatch - g * (ng - 1)) : npatch / ng + (k < npatch % ng);
  Status st = Steps_fromGroups(l, o, order, sizes, ng, p, err);
  free(sizes);
  return st;
}

Status Steps_plan(const Layer *l, const StepsOptions *o, StepsStrategy s, StepsPlan *p, SpError *err) {
  memset(p, 0, sizeof *p);
  Status st = Steps_checkLayer(l, err);
  if (st == SP_OK) st = Steps_checkRange(l, o, err);
  if (st != SP_OK) return st;
  int g = 1;
  if (s != STEPS_S1_BASELINE) {
    st = Steps_groupSize(l, o, &g, err);
    if (st != SP_OK) return st;
  }
  int npatch = (int)(l->P * l->Q);
  if (g > npatch) g = npatch;
  int *order = malloc(sizeof(int) * (size_t)npatch);
  if (!order) return SpError_set(err, SP_ERR_NOMEM, "step plan");
  if (s == STEPS_ILP) {
    /* the MIP start (as the paper's, from the heuristics): the best plan that keeps
     * Eq. 9 and Eq. 12 among Row-by-Row, ZigZag and the strip snakes of 2..G rows,
     * their columns snaking or all taken downwards (downwards wins some layers: 11x11
     * at G = 5, strips of 5 rows, Eq. 15's objective 154 against 170) */
    StepsPlan best = {0}, cand;
    bool have = false, best_ok = false;
    int max_strip = (int)(l->P < g ? l->P : g);
    for (int v = -1; v <= 2 * max_strip && st == SP_OK; v++) {
      if (v == 0 || v == max_strip + 1) continue; /* strips of 1 row taken down: ZigZag again */
      if (v < 0) Steps_heuristicOrder((int)l->P, (int)l->Q, false, order); /* Row-by-Row */
      else if (v <= max_strip) Steps_stripOrder((int)l->P, (int)l->Q, v, true, order); /* v = 1: ZigZag */
      else Steps_stripOrder((int)l->P, (int)l->Q, v - max_strip, false, order);
      st = Steps_chunked(l, o, order, npatch, g, o->groups, &cand, err);
      if (st != SP_OK) break;
      bool ok = (o->max_loads <= 0 || cand.max_loads <= o->max_loads) && cand.fits;
      if (!have || (ok && !best_ok) || (ok == best_ok && cand.objective < best.objective)) {
        if (have) StepsPlan_free(&best);
        best = cand, have = true, best_ok = ok;
      } else StepsPlan_free(&cand);
    }
    if (st == SP_OK) st = Steps_solveIlp(l, o, g, &best, p, err);
    if (have) StepsPlan_free(&best);
  } else {
    Steps_heuristicOrder((int)l->P, (int)l->Q, s == STEPS_ZIGZAG, order);
    st = Steps_chunked(l, o, order, npatch, g, 0, p, err);
  }
  free(order);
  if (st == SP_OK) {
    p->strategy = s;
    p->group_size = g;
  }
  return st;
}

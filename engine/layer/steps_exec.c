/* steps_exec: the functional check. Replays a step plan on random integers with
 * a model of the on-chip memory (input slots of Cin values, the kernels, the
 * step's outputs) using only the plan's action lists -- what is freed, written,
 * loaded into which slot, which patches are computed -- and compares the
 * written-back output with the direct convolution. Exact in 64-bit integers. */
#include "steps.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "testhook.h"

/* splitmix64: small, seedable, the same on every machine */
static uint64_t Exec_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int32_t Exec_value(uint64_t *s) { return (int32_t)(Exec_next(s) % 2001) - 1000; }

/* The cancel flag is read every EXEC_POLL multiply-adds or copies (about a
 * millisecond), not only between steps: one step of a big layer can take seconds. */
#define EXEC_POLL ((int64_t)1 << 20)

typedef struct {
  atomic_int *cancel;
  int64_t work;    /* done since the flag was last read */
  double deadline; /* Clock_now() past which the check stops (0: none) */
  bool timed_out;
  const char *stage; /* the test hook's name: steps.check.start before the steps, then steps.check */
} ExecPoll;

/* The cancel flag and the time limit, both read at the same rate (the check
 * of a big layer ran for minutes past --time-limit: it was not bounded). */
static bool Exec_cancelled(ExecPoll *c, int64_t work) {
  if ((c->work += work) < EXEC_POLL) return false;
  c->work = 0;
  Testhook_at(c->stage, c->cancel);
  if (c->deadline > 0 && Clock_now() > c->deadline) return c->timed_out = true;
  return c->cancel && atomic_load_explicit(c->cancel, memory_order_relaxed);
}

/* The elements of the check's buffers (its DRAM and on-chip copies, the slot
 * maps), or -1 past int64. */
static int64_t Exec_elements(const StepsPlan *p, int nslots, int max_group) {
  const int64_t npix = (int64_t)p->hin * p->win, npatch = (int64_t)p->hout * p->wout;
  int64_t ker, t[6];
  if (__builtin_mul_overflow((int64_t)p->cout * p->cin, (int64_t)p->hk * p->wk, &ker) ||
      __builtin_mul_overflow(npix, (int64_t)p->cin, &t[0]) || __builtin_mul_overflow(npatch, (int64_t)p->cout, &t[1]) ||
      __builtin_mul_overflow((int64_t)nslots, (int64_t)p->cin, &t[2]) ||
      __builtin_mul_overflow((int64_t)max_group, (int64_t)p->cout, &t[3]) || __builtin_mul_overflow(ker, 2, &t[4]))
    return -1;
  t[5] = npix + npatch + nslots;
  int64_t total = 0;
  for (int i = 0; i < 6; i++)
    if (__builtin_add_overflow(total, t[i], &total)) return -1;
  return total;
}

Status Steps_execute(const Layer *l, const StepsOptions *o, const StepsPlan *p, uint64_t seed, SpError *err) {
  (void)l;
  const int cin = p->cin, cout = p->cout, hk = p->hk, wk = p->wk, win = p->win;
  const int npix = p->hin * p->win, npatch = p->hout * p->wout;
  const int64_t ker = (int64_t)cout * cin * hk * wk;
  int nslots = p->input_slots > 0 ? p->input_slots : 1;
  int max_group = 1;
  for (int k = 0; k < p->nsteps; k++)
    if (p->steps[k].npatches > max_group) max_group = p->steps[k].npatches;
  const double t0 = Clock_now();
  ExecPoll poll = {o->cancel, EXEC_POLL, o->time_limit > 0 ? t0 + o->time_limit : 0, false,
                 "steps.check.start"}; /* the first call reads the flag */
  if (Exec_cancelled(&poll, 0)) /* a time limit already past is no cancel (it said "cancelled", exit 3) */
    return poll.timed_out ? SpError_set(err, SP_ERR_LIMIT, "skipped (the check passed the time limit of %g s before step 1 of %d)",
                                        o->time_limit, p->nsteps)
                          : SpError_set(err, SP_ERR_CANCELLED, "cancelled before step 1 of %d", p->nsteps);
  /* a simulation of every element: past the cap it would take gigabytes and hours */
  int64_t elements = Exec_elements(p, nslots, max_group);
  if (elements < 0)
    return SpError_set(err, SP_ERR_LIMIT, "skipped (the layer is too large to simulate: its buffers pass 2^63)");
  if (elements > STEPS_EXEC_MAX_ELEMENTS)
    return SpError_set(err, SP_ERR_LIMIT,
                       "skipped (the layer is too large to simulate: %lld elements of buffers, more than the "
                       "check's cap of %lld = 2^28)",
                       (long long)elements, (long long)STEPS_EXEC_MAX_ELEMENTS);
  int32_t *dram_in = malloc(sizeof(int32_t) * (size_t)npix * (size_t)cin);
  int32_t *dram_ker = malloc(sizeof(int32_t) * (size_t)ker);
  int64_t *dram_out = malloc(sizeof(int64_t) * (size_t)npatch * (size_t)cout);
  bool *written = calloc((size_t)npatch, sizeof(bool));
  int32_t *chip_in = malloc(sizeof(int32_t) * (size_t)nslots * (size_t)cin);
  int *slot_owner = malloc(sizeof(int) * (size_t)nslots); /* pixel in a slot, -1 */
  int *slot_of = malloc(sizeof(int) * (size_t)npix);
  int32_t *chip_ker = malloc(sizeof(int32_t) * (size_t)ker);
  int64_t *chip_out = malloc(sizeof(int64_t) * (size_t)max_group * (size_t)cout);
  Status st = SP_OK;
  int step = 0; /* where a cancel stopped: 0 before the steps, nsteps + 1 after */
  if (!dram_in || !dram_ker || !dram_out || !written || !chip_in || !slot_owner || !slot_of || !chip_ker ||
      !chip_out) {
    st = SpError_set(err, SP_ERR_NOMEM, "skipped (not enough memory for its %lld elements of buffers)",
                     (long long)elements);
    goto done;
  }
  uint64_t s = seed;
  for (int64_t i = 0; i < (int64_t)npix * cin; i++) {
    if (i % EXEC_POLL == 0 && Exec_cancelled(&poll, EXEC_POLL)) goto cancelled;
    dram_in[i] = Exec_value(&s);
  }
  for (int64_t i = 0; i < ker; i++) {
    if (i % EXEC_POLL == 0 && Exec_cancelled(&poll, EXEC_POLL)) goto cancelled;
    dram_ker[i] = Exec_value(&s);
  }
  for (int i = 0; i < nslots; i++) slot_owner[i] = -1;
  for (int i = 0; i < npix; i++) slot_of[i] = -1;
  bool ker_on_chip = false;
  int resident = 0, prev_n = 0;
  const int *prev_patches = NULL;
  poll.stage = "steps.check";
  for (int k = 0; k < p->nsteps && st == SP_OK; k++) {
    const Step *sp = &p->steps[k];
    step = k + 1;
    if (Exec_cancelled(&poll, EXEC_POLL)) goto cancelled; /* every step reads the flag */
    /* a1: free (the values are poisoned: a later read of them would show) */
    for (int f = 0; f < sp->nfreed; f++) {
      int x = sp->freed[f];
      if (x < 0 || x >= npix || slot_of[x] < 0) {
        st = SpError_set(err, SP_ERR_FORMAT, "step %d frees pixel %d, which is not on chip", k + 1, x);
        goto done;
      }
      int sl = slot_of[x];
      if (Exec_cancelled(&poll, cin)) goto cancelled;
      for (int c = 0; c < cin; c++) chip_in[(int64_t)sl * cin + c] = INT32_MIN;
      slot_owner[sl] = -1;
      slot_of[x] = -1;
      resident--;
    }
    /* a3: write back the previous step's outputs */
    for (int q = 0; q < prev_n; q++) {
      int pt = prev_patches[q];
      if (Exec_cancelled(&poll, cout)) goto cancelled;
      for (int m = 0; m < cout; m++) dram_out[(int64_t)pt * cout + m] = chip_out[(int64_t)q * cout + m];
      written[pt] = true;
    }
    /* a4 + a5: load the slice into its slots, the kernels in the first step */
    for (int a = 0; a < sp->nloaded; a++) {
      int x = sp->loaded[a], sl = sp->loaded_slot[a];
      if (x < 0 || x >= npix || sl < 0 || sl >= nslots || slot_owner[sl] >= 0 || slot_of[x] >= 0) {
        st = SpError_set(err, SP_ERR_FORMAT, "step %d loads pixel %d into slot %d, which is taken", k + 1, x, sl);
        goto done;
      }
      if (Exec_cancelled(&poll, cin)) goto cancelled;
      memcpy(chip_in + (int64_t)sl * cin, dram_in + (int64_t)x * cin, sizeof(int32_t) * (size_t)cin);
      slot_owner[sl] = x;
      slot_of[x] = sl;
      resident++;
    }
    if (sp->load_ker > 0) {
      memcpy(chip_ker, dram_ker, sizeof(int32_t) * (size_t)ker);
      ker_on_chip = true;
    }
    int64_t foot = (int64_t)resident * cin + (ker_on_chip ? ker : 0) + (int64_t)sp->npatches * cout;
    if (o->size_mem > 0 && foot > o->size_mem) {
      st = SpError_set(err, SP_ERR_FORMAT, "step %d holds %lld elements, more than sizeMEM = %lld", k + 1,
                       (long long)foot, (long long)o->size_mem);
      goto done;
    }
    if (!ker_on_chip) {
      st = SpError_set(err, SP_ERR_FORMAT, "step %d computes before the kernels are loaded", k + 1);
      goto done;
    }
    /* a6: compute every patch of the group from on-chip data only */
    for (int q = 0; q < sp->npatches; q++) {
      int pt = sp->patches[q], pi = pt / p->wout, pj = pt % p->wout;
      for (int m = 0; m < cout; m++) {
        int64_t acc = 0;
        for (int h = 0; h < hk; h++)
          for (int w = 0; w < wk; w++) {
            int x = (pi * p->sh + h) * win + (pj * p->sw + w);
            if (slot_of[x] < 0) {
              st = SpError_set(err, SP_ERR_FORMAT, "step %d computes patch (%d,%d) but pixel (%d,%d) is not on chip",
                               k + 1, pi, pj, pi * p->sh + h, pj * p->sw + w);
              goto done;
            }
            if (Exec_cancelled(&poll, cin)) goto cancelled;
            const int32_t *in = chip_in + (int64_t)slot_of[x] * cin;
            for (int c = 0; c < cin; c++)
              acc += (int64_t)in[c] * chip_ker[(((int64_t)m * cin + c) * hk + h) * wk + w];
          }
        chip_out[(int64_t)q * cout + m] = acc;
      }
    }
    prev_n = sp->npatches;
    prev_patches = sp->patches;
  }
  step = p->nsteps + 1;
  /* the final write-back */
  for (int q = 0; q < prev_n; q++) {
    int pt = prev_patches[q];
    for (int m = 0; m < cout; m++) dram_out[(int64_t)pt * cout + m] = chip_out[(int64_t)q * cout + m];
    written[pt] = true;
  }
  /* the direct convolution, from DRAM */
  for (int pt = 0; pt < npatch && st == SP_OK; pt++) {
    if (!written[pt]) {
      st = SpError_set(err, SP_ERR_FORMAT, "output position %d is never written back", pt);
      break;
    }
    int pi = pt / p->wout, pj = pt % p->wout;
    for (int m = 0; m < cout; m++) {
      int64_t acc = 0;
      for (int c = 0; c < cin; c++) {
        if (Exec_cancelled(&poll, (int64_t)hk * wk)) goto cancelled;
        for (int h = 0; h < hk; h++)
          for (int w = 0; w < wk; w++)
            acc += (int64_t)dram_in[((int64_t)(pi * p->sh + h) * win + (pj * p->sw + w)) * cin + c] *
                   dram_ker[(((int64_t)m * cin + c) * hk + h) * wk + w];
      }
      if (acc != dram_out[(int64_t)pt * cout + m]) {
        st = SpError_set(err, SP_ERR_FORMAT, "output (%d,%d,%d): steps give %lld, the convolution %lld", m, pi,
                         pj, (long long)dram_out[(int64_t)pt * cout + m], (long long)acc);
        break;
      }
    }
  }
  goto done;
cancelled:
  if (poll.timed_out && step == 0)
    st = SpError_set(err, SP_ERR_LIMIT, "skipped (the check passed the time limit of %g s before step 1 of %d)",
                     o->time_limit, p->nsteps);
  else if (poll.timed_out)
    st = SpError_set(err, SP_ERR_LIMIT, "skipped (the check passed the time limit of %g s %s %d of %d)",
                     o->time_limit, step > p->nsteps ? "comparing, after step" : "at step",
                     step > p->nsteps ? p->nsteps : step, p->nsteps);
  else if (step == 0) st = SpError_set(err, SP_ERR_CANCELLED, "cancelled before step 1 of %d", p->nsteps);
  else if (step <= p->nsteps) st = SpError_set(err, SP_ERR_CANCELLED, "cancelled at step %d of %d", step, p->nsteps);
  else st = SpError_set(err, SP_ERR_CANCELLED, "cancelled after the %d steps, comparing with the direct convolution",
                        p->nsteps);
done:
  free(dram_in);
  free(dram_ker);
  free(dram_out);
  free(written);
  free(chip_in);
  free(slot_owner);
  free(slot_of);
  free(chip_ker);
  free(chip_out);
  return st;
}

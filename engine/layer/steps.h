/* steps: a convolution offloaded to an accelerator in steps (the "offloading
 * steps" paper, Definitions 1-3 and 12-16, Section 5). The on-chip memory holds
 * sizeMEM elements; each step frees input pixels and kernels, writes back the
 * previous step's outputs, loads an input slice (and, in the first step, all the
 * kernels: strategy S1), and computes a group of patches -- a patch being the
 * input window of one output position across all input channels.
 *
 * The layer comes from layer.h with the input taken as already padded (the
 * paper's Remark 2): Hin = (P-1)*stride_h + R, Win = (Q-1)*stride_w + S; Cin = C,
 * Cout = K; one image (N is ignored) and groups = 1.
 *
 * Units: sizes and traffic are counted in elements; the paper's Example 2 counts
 * spatial positions (pixels) for its durations, which is elements / Cin for the
 * input and elements / Cout for the outputs (Steps_plan gives both). */
#ifndef SPADMAP_STEPS_H
#define SPADMAP_STEPS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ilp.h"
#include "layer.h"
#include "status.h"

typedef enum {
  STEPS_S1_BASELINE, /* one patch per step, row-major order ([23]'s S1) */
  STEPS_ROW,         /* groups of G patches in row-major order (Row-by-Row) */
  STEPS_ZIGZAG,      /* groups of G patches, even rows left to right, odd rows back */
  STEPS_ILP,         /* the grouping of Section 5, solved with GLPK */
  STEPS_STRATEGIES
} StepsStrategy;

/* How STEPS_ILP proves its plan. */
typedef enum {
  STEPS_MODEL_EXACT, /* the trivial bound, then the exact search (steps_exact.c, up to 128
                        patches, 256 pixels, 64 steps), then the paper's MIP with the time left
                        (default) */
  STEPS_MODEL_PAPER  /* the paper's MIP (Section 5) alone */
} StepsModel;

typedef struct {
  int64_t size_mem;   /* on-chip elements; 0: unbounded (the footprint is still reported) */
  int64_t nbop_pe;    /* MACs the PE does per step; sets G = nbop_pe / (Cin*HK*WK*Cout) */
  int group_size;     /* > 0: G directly (nb_patches_max_S1), overriding nbop_pe */
  int64_t tl, tw, tacc; /* cycles per loaded / written element, per computation (1, 1, 1) */
  /* ILP only */
  int max_loads;      /* Eq. 9's nb_data_reload: a pixel is loaded at most this many
                         times (2: the paper's Section 2.3, "at most twice"); 0: no bound */
  int groups;         /* number of groups n; 0: Kmin = ceil(|X| / G) as in the paper */
  double time_limit;  /* seconds (default 10), for the search and the MIP together: their work
                         budget (nodes, GLPK iterations: the same answer on any machine) and,
                         unless wall_limit, the wall-clock stop */
  double wall_limit;  /* > 0: the wall-clock stop instead (seconds) */
  StepsModel model;
  int threads;        /* threads of the exact search; 0: one per online processor (at most 2, its lanes; the answer does not depend on it) */
  void (*progress)(const IlpProgress *p, void *user);
  void *user;
  atomic_int *cancel;  /* building a plan, the ILP and the functional check stop when it is non-zero */
} StepsOptions;

/* One step (Definition 2, actions a1..a6) and its cost (Definition 3). */
typedef struct {
  int npatches;
  const int *patches;       /* the group: patch ids i * Wout + j (into StepsPlan.order) */
  int nloaded, nfreed;
  const int *loaded;        /* pixel ids h * Win + w loaded in this step (I_slice) */
  const int *loaded_slot;   /* the on-chip input slot each was put in */
  const int *freed;         /* pixel ids freed in this step (F_inp) */
  int64_t load_in, load_ker;  /* elements loaded: input slice, kernels */
  int64_t free_in, free_ker;  /* elements freed */
  int64_t write_out;          /* elements written back (W_i: the previous step's outputs) */
  int64_t foot_in, foot_ker, foot_out, footprint; /* on chip after the step's loads + compute */
  int64_t macs;
  int64_t duration;           /* (load_in + load_ker) * tl + write_out * tw + tacc */
} Step;

typedef struct {
  StepsStrategy strategy;
  int cin, cout, hk, wk, sh, sw, hin, win, hout, wout;
  int group_size;             /* G */
  int nsteps;                 /* compute steps; the final write-back is extra (final_write) */
  Step *steps;
  int64_t final_write;        /* elements written back after the last step */
  int64_t duration;           /* sum of step durations + final_write * tw */
  int64_t objective;          /* Eq. 15: tl * sum(load_in) + n * tacc */
  int64_t loaded_in, loaded_pixels, written;
  int64_t peak;               /* largest footprint */
  int input_slots;            /* input slots used (pixel blocks of Cin elements) */
  int max_loads;              /* most times any pixel is loaded */
  bool fits;                  /* peak <= size_mem (or size_mem = 0) */
  /* ILP only */
  IlpStatus ilp_status;
  double ilp_seconds, ilp_bound, ilp_gap;
  long ilp_nodes;
  const char *proven_by;      /* what proved ilp_status optimal: "bound" (every pixel loaded
                                 once), "search" (the exact search), "mip" (GLPK); else NULL */
  double search_seconds;      /* time in the exact search (0 if it did not run) */
  long search_nodes;
  int search_threads;         /* threads it ran on */
  bool wall_stopped;          /* the wall clock (time limit), not the work budget, stopped the search
                                 or the MIP: the plan may differ on a faster or idler machine */
  int64_t warm_objective;     /* the heuristic start's Eq. 15 objective (-1 if it broke a
                                 constraint); a timeout before GLPK took it returns that plan */
  /* storage */
  int *order, *loaded, *slots, *freed;
} StepsPlan;

void StepsOptions_init(StepsOptions *o);
const char *Steps_strategyName(StepsStrategy s); /* "s1", "row", "zigzag", "ilp" */
/* G for a layer under o; SP_ERR_INFEASIBLE when not even one patch fits nbop_pe. */
Status Steps_groupSize(const Layer *l, const StepsOptions *o, int *g, SpError *err);

/* The plan of a strategy. SP_ERR_ARG for a layer the model does not cover
 * (groups, N > 1 is allowed and ignored), or whose element counts or durations
 * under o's cycles could pass int64 (negative cycles too); STEPS_ILP: SP_OK with ilp_status
 * telling how the solve ended (optimal, time limit with the best plan found,
 * ...), SP_ERR_INFEASIBLE when no grouping fits. */
Status Steps_plan(const Layer *l, const StepsOptions *o, StepsStrategy s, StepsPlan *plan, SpError *err);
/* The plan of an explicit order of patches cut into groups of sizes[k] (sum = all
 * patches, each once): the semantics every strategy shares. SP_ERR_ARG as Steps_plan. */
Status Steps_fromGroups(const Layer *l, const StepsOptions *o, const int *order, const int *sizes,
                        int ngroups, StepsPlan *plan, SpError *err);
void StepsPlan_free(StepsPlan *plan);

/* The most elements (int32 or int64 each) the functional check's buffers may
 * hold, 2^28 (1 to 2 GiB): past it the check is refused, not attempted. */
#define STEPS_EXEC_MAX_ELEMENTS ((int64_t)1 << 28)

/* The functional check: runs the plan on random integers (seeded) through a model
 * on-chip memory -- loads copy from DRAM, a compute reads only what is on chip,
 * frees really forget -- and compares the written-back output with the direct
 * convolution. SP_OK when every output matches; SP_ERR_FORMAT naming the first
 * step that reads a pixel not on chip, overflows size_mem or the first wrong
 * output. The check did not run, which says nothing against the plan:
 * SP_ERR_LIMIT when its buffers would pass STEPS_EXEC_MAX_ELEMENTS or it runs
 * past o->time_limit seconds (> 0; measured from this call: a caller bounding the
 * whole run passes what is left), SP_ERR_NOMEM when they cannot be allocated
 * (all three messages begin "skipped (");
 * SP_ERR_CANCELLED when o->cancel is set (read about every millisecond). */
Status Steps_execute(const Layer *l, const StepsOptions *o, const StepsPlan *plan, uint64_t seed,
                     SpError *err);

#endif

/* plan: one mapping of a network onto the scratchpad (the contract's
 * "spadmap-plan"): a schedule, the stays of tensors at addresses, the metrics
 * they imply and the solver's status. */
#ifndef SPADMAP_PLAN_H
#define SPADMAP_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "net.h"
#include "status.h"

typedef enum { STAY_CREATE, STAY_LOAD, STAY_RETRIEVE } StayIn;
typedef enum { STAY_FREE, STAY_SPILL, STAY_DROP, STAY_STORE } StayOut;

/* One stay: tensor resident at [offset, offset + bytes) over steps start..end. */
typedef struct {
  int tensor;
  int64_t offset;
  int start, end;
  StayIn in;
  StayOut out;
} Stay;

typedef struct {
  int64_t noncompulsory_bytes; /* non-output spills + retrievals */
  int64_t compulsory_bytes;    /* first loads + output stores */
  int64_t peak_bytes;          /* max over steps of resident bytes */
  int64_t footprint_bytes;     /* highest address in use + 1 */
  int spills, retrievals;      /* non-compulsory events */
} Metrics;

typedef enum {
  SOLVER_NONE, SOLVER_OPTIMAL, SOLVER_FEASIBLE, SOLVER_INFEASIBLE, SOLVER_TIMEOUT, SOLVER_CANCELLED, SOLVER_HEURISTIC,
  SOLVER_STATUS_COUNT
} SolverStatus;

typedef struct {
  SolverStatus status;
  double seconds;
  double objective;
  double bound;
  bool has_objective, has_bound;
  char note[200];   /* what a front end should tell the user besides the status (e.g. "M_P search:
                       not proven ..."); not part of the plan file; "" when nothing to say */
} SolverInfo;

typedef struct {
  char *network;
  bool params;
  int64_t budget;
  char *schedule_policy, *replacement_policy, *allocator_policy;
  int nsteps;
  int *order;          /* order[step] = op index */
  Stay *stays;
  int nstays, capstays;
  Metrics metrics;
  SolverInfo solver;
} Plan;

Plan *Plan_new(const Net *net, bool params, int64_t budget);
void Plan_free(Plan *plan);
Status Plan_setPolicies(Plan *plan, const char *schedule, const char *replacement, const char *allocator);
Status Plan_addStay(Plan *plan, Stay stay);

extern const char *const StayIn_names[3];
extern const char *const StayOut_names[4];
extern const char *const SolverStatus_names[SOLVER_STATUS_COUNT];
const char *StayIn_name(StayIn in);
const char *StayOut_name(StayOut out);
const char *SolverStatus_name(SolverStatus s);

/* JSON text of the plan in the contract's format (caller frees with free()). */
char *Plan_toJSON(const Plan *plan, const Net *net);
Status Plan_write(const Plan *plan, const Net *net, const char *path, SpError *err);
/* Reads a plan file for net. Names are resolved against net; shape errors (types,
 * unknown names, bad enum values) are reported like the network loader's. */
Status Plan_load(const char *path, const Net *net, Plan **out, SpError *err);
Status Plan_parse(const char *text, size_t len, const char *label, const Net *net, Plan **out, SpError *err);

#endif

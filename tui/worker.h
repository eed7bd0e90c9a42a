/* worker: the thread that owns every solve, so the UI never blocks on one. The
 * UI posts a job (a copy of the settings); a newer job cancels and supersedes an
 * older one; the UI polls for the newest finished result each loop iteration. */
#ifndef SPADMAP_WORKER_H
#define SPADMAP_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>

#include "net.h"
#include "plan.h"
#include "solve.h"

typedef struct {
  long seq;            /* increasing per post; results carry it back */
  SolveSettings s;     /* policy names point into the policy table; s.order, if set,
                          must stay valid until the worker stops; s.cancel is ignored */
} SolveJob;

typedef struct {
  long seq;
  Status status;
  Plan *plan;          /* owned by the receiver; NULL on failure */
  char error[SP_ERROR_TEXT];
} SolveResult;

typedef struct Worker Worker;

/* Runs one job on the calling thread (snapshot mode, and the worker's body). */
void Worker_solve(const Net *net, const SolveJob *job, atomic_int *cancel, SolveResult *out);

Worker *Worker_start(const Net *net); /* NULL if no thread could be started */
void Worker_post(Worker *w, const SolveJob *job);
/* The newest finished result, if any arrived since the last poll. */
bool Worker_poll(Worker *w, SolveResult *out);
bool Worker_busy(Worker *w);
/* The running search's newest progress report (searching policies only), if a
 * new one arrived since the last call; stage is copied into stage[n]. */
bool Worker_progress(Worker *w, SolveProgress *out, char *stage, int n);
/* Sets the running job's cancel flag (the user's cancel key); its result still
 * arrives through Worker_poll (a plan found so far, or SP_ERR_CANCELLED). */
void Worker_cancel(Worker *w);
/* Stores a progress report as if the running search had made it (the solve's
 * progress callback; tests feed fake reports through it). */
void Worker_report(Worker *w, const SolveProgress *p);
/* Asks for the network's figures (M_R, M_H, M_P and the M_P order) for one params
 * setting; they are computed on the worker thread before the next solve job. */
void Worker_postFigures(Worker *w, bool params);
/* Takes computed figures, if they arrived: *order (nops entries, or NULL when
 * the search failed) is then owned by the caller. Returns Figures_compute's status. */
bool Worker_takeFigures(Worker *w, bool params, NetFigures *f, int **order, Status *st);
/* Cancels the running job, joins the thread, frees unclaimed results. */
void Worker_stop(Worker *w);

#endif

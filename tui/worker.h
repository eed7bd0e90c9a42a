/* worker: the thread that owns every solve, so the UI never blocks on one. The
 * UI posts a job (a copy of the settings); a newer job cancels and supersedes an
 * older one; the UI polls for the newest finished result each loop iteration.
 *
 * A stage that cannot be interrupted (GLPK building a model, the exact M_P
 * search) must never hold the UI: a worker started on a SharedNet can be
 * abandoned (Worker_stop waits a few ms, then detaches). Its thread then runs
 * to its end on its own reference to the network and to the worker, and its
 * result is discarded; nothing it touches is freed under it. */
#ifndef SPADMAP_WORKER_H
#define SPADMAP_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>

#include "net.h"
#include "plan.h"
#include "solve.h"

/* A network shared by the UI and by workers, freed when the last holder lets go. */
typedef struct SharedNet SharedNet;
SharedNet *SharedNet_new(Net *net); /* takes net (freed with the last release); NULL: no memory */
void SharedNet_retain(SharedNet *s);
void SharedNet_release(SharedNet *s);

typedef struct {
  long seq;            /* increasing per post; results carry it back */
  SolveSettings s;     /* policy names point into the policy table; s.order, if set,
                          is copied by Worker_post; s.cancel is ignored */
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

/* A worker on a network the caller keeps alive until Worker_stop returns
 * (Worker_stop then joins). NULL if no thread could be started. */
Worker *Worker_start(const Net *net);
/* A worker holding its own reference to net: Worker_stop never waits more than
 * WORKER_GRACE_MS for it. */
Worker *Worker_startShared(SharedNet *net);
enum { WORKER_GRACE_MS = 40 };
void Worker_post(Worker *w, const SolveJob *job);
/* The newest finished result, if any arrived since the last poll. */
bool Worker_poll(Worker *w, SolveResult *out);
bool Worker_busy(Worker *w);
/* True when the running job was told to stop (cancel, or a newer job) more than
 * ms milliseconds ago and is still running: a stage that does not listen. */
bool Worker_stuck(Worker *w, int ms);
/* The running search's newest progress report (searching policies only), if a
 * new one arrived since the last call; stage is copied into stage[n]. */
bool Worker_progress(Worker *w, SolveProgress *out, char *stage, int n);
/* Sets the running job's cancel flag (the user's cancel key); its result still
 * arrives through Worker_poll (a plan found so far, or SP_ERR_CANCELLED). A job
 * posted but not started never starts: its result, SP_ERR_CANCELLED, is ready at once. */
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
/* Cancels the running job and stops the thread: joins it (Worker_start), or
 * waits at most WORKER_GRACE_MS and then abandons it (Worker_startShared). */
void Worker_stop(Worker *w);
/* Threads abandoned by Worker_stop that are still running (the process should
 * leave with _exit rather than run exit handlers under them). */
int Worker_abandoned(void);

#endif

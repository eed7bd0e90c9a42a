#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

struct SharedNet {
  Net *net;
  atomic_int refs;
};

SharedNet *SharedNet_new(Net *net) {
  SharedNet *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->net = net;
  atomic_init(&s->refs, 1);
  return s;
}
void SharedNet_retain(SharedNet *s) {
  if (s) atomic_fetch_add(&s->refs, 1);
}
void SharedNet_release(SharedNet *s) {
  if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
    Net_free(s->net);
    free(s);
  }
}

static atomic_int Worker_abandonedCount;
int Worker_abandoned(void) { return atomic_load(&Worker_abandonedCount); }

struct Worker {
  const Net *net;
  SharedNet *shared;    /* NULL: the caller keeps net alive and Worker_stop joins */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;     /* work for the thread */
  pthread_cond_t exited; /* the thread left its loop */
  int refs;             /* the owner + the thread, under mu */
  bool thread_done, abandoned;
  SolveJob pending;
  int *pending_order;   /* the pending job's copy of s.order */
  bool has_pending, running, quit;
  long latest;          /* seq of the newest job posted */
  atomic_int cancel;    /* the running job's cancel flag */
  double cancel_at;     /* when cancel was set on the running job, 0: not set */
  SolveResult done;     /* newest finished, unclaimed */
  bool has_done;
  SolveProgress progress; /* newest report of the running job */
  char stage[64];
  bool has_progress;
  bool fig_want[2], fig_done[2]; /* figures requests per params setting */
  NetFigures fig[2];
  int *fig_order[2];
  Status fig_status[2];
};

/* Drops one reference (mu held); the last frees everything. Returns true if freed. */
static bool Worker_unref(Worker *w) {
  if (--w->refs > 0) return false;
  pthread_mutex_unlock(&w->mu);
  if (w->has_done) Plan_free(w->done.plan);
  free(w->pending_order);
  free(w->fig_order[0]);
  free(w->fig_order[1]);
  SharedNet_release(w->shared);
  pthread_cond_destroy(&w->cv);
  pthread_cond_destroy(&w->exited);
  pthread_mutex_destroy(&w->mu);
  free(w);
  return true;
}

void Worker_report(Worker *w, const SolveProgress *p) {
  pthread_mutex_lock(&w->mu);
  w->progress = *p;
  snprintf(w->stage, sizeof w->stage, "%s", p->stage ? p->stage : "");
  w->progress.stage = NULL;
  w->has_progress = true;
  pthread_mutex_unlock(&w->mu);
}

/* Called on the worker thread by searching policies. */
static void Worker_onProgress(const SolveProgress *p, void *user) { Worker_report(user, p); }

bool Worker_progress(Worker *w, SolveProgress *out, char *stage, int n) {
  pthread_mutex_lock(&w->mu);
  bool got = w->has_progress;
  if (got) {
    *out = w->progress;
    snprintf(stage, (size_t)n, "%s", w->stage);
    out->stage = stage;
    w->has_progress = false;
  }
  pthread_mutex_unlock(&w->mu);
  return got;
}

void Worker_solve(const Net *net, const SolveJob *job, atomic_int *cancel, SolveResult *out) {
  memset(out, 0, sizeof *out);
  out->seq = job->seq;
  SolveSettings s = job->s;
  s.cancel = cancel;
  SpError err;
  SpError_clear(&err);
  out->status = Solve_run(net, &s, &out->plan, &err);
  if (out->status) {
    snprintf(out->error, sizeof out->error, "%s", err.text[0] ? err.text : Status_message(out->status));
    out->plan = NULL;
  }
}

/* Sets the running job's cancel flag (mu held) and notes when. */
static void Worker_flagCancel(Worker *w) {
  if (w->running && !atomic_load(&w->cancel)) w->cancel_at = Clock_now();
  atomic_store(&w->cancel, 1);
}

static void *Worker_main(void *arg) {
  Worker *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->has_pending && !w->fig_want[0] && !w->fig_want[1] && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
    if (w->quit) break;
    if (w->fig_want[0] || w->fig_want[1]) { /* figures first: they are short and presets wait on them */
      bool p = !w->fig_want[0];
      w->fig_want[p] = false;
      pthread_mutex_unlock(&w->mu);
      NetFigures f;
      SpError err;
      memset(&f, 0, sizeof f);
      int *order = malloc(sizeof(int) * (size_t)(w->net->nops ? w->net->nops : 1));
      Status st = order ? Figures_compute(w->net, p, &f, order, &err) : SP_ERR_NOMEM;
      if (st) {
        free(order);
        order = NULL;
      }
      pthread_mutex_lock(&w->mu);
      free(w->fig_order[p]);
      w->fig[p] = f;
      w->fig_order[p] = order;
      w->fig_status[p] = st;
      w->fig_done[p] = true;
      continue;
    }
    SolveJob job = w->pending;
    int *order = w->pending_order; /* this job's own copy: nothing the UI frees */
    w->pending_order = NULL;
    job.s.order = order;
    w->has_pending = false;
    w->running = true;
    atomic_store(&w->cancel, 0);
    w->cancel_at = 0;
    pthread_mutex_unlock(&w->mu);

    SolveResult r;
    job.s.progress = Worker_onProgress;
    job.s.progress_user = w;
    Worker_solve(w->net, &job, &w->cancel, &r);
    free(order);

    pthread_mutex_lock(&w->mu);
    w->running = false;
    w->cancel_at = 0;
    w->has_progress = false;
    if (r.seq < w->latest || w->quit) { /* superseded while it ran */
      Plan_free(r.plan);
      continue;
    }
    if (w->has_done) Plan_free(w->done.plan);
    w->done = r;
    w->has_done = true;
  }
  w->thread_done = true;
  pthread_cond_broadcast(&w->exited);
  if (w->abandoned) atomic_fetch_sub(&Worker_abandonedCount, 1);
  if (!Worker_unref(w)) pthread_mutex_unlock(&w->mu);
  return NULL;
}

static Worker *Worker_new(const Net *net, SharedNet *shared) {
  Worker *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->net = net;
  w->shared = shared;
  w->refs = 2; /* the owner and the thread */
  atomic_init(&w->cancel, 0);
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  pthread_cond_init(&w->exited, NULL);
  if (pthread_create(&w->thread, NULL, Worker_main, w)) {
    pthread_cond_destroy(&w->cv);
    pthread_cond_destroy(&w->exited);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return NULL;
  }
  SharedNet_retain(shared);
  return w;
}

Worker *Worker_start(const Net *net) { return Worker_new(net, NULL); }

Worker *Worker_startShared(SharedNet *net) {
  if (!net) return NULL;
  /* the reference is taken before the thread can run: Worker_new retains after
   * create, but the thread only reads net->net, which the caller holds meanwhile */
  return Worker_new(net->net, net);
}

void Worker_post(Worker *w, const SolveJob *job) {
  int *copy = NULL;
  int nops = w->net->nops;
  if (job->s.order && (copy = malloc(sizeof(int) * (size_t)(nops ? nops : 1))))
    memcpy(copy, job->s.order, sizeof(int) * (size_t)nops);
  pthread_mutex_lock(&w->mu);
  w->pending = *job;
  w->pending.s.order = NULL;
  free(w->pending_order);
  w->pending_order = copy; /* NULL (no memory): the schedule policy runs instead */
  w->has_pending = true;
  w->latest = job->seq;
  Worker_flagCancel(w); /* the running job, if any, is now stale */
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

bool Worker_poll(Worker *w, SolveResult *out) {
  pthread_mutex_lock(&w->mu);
  bool got = w->has_done;
  if (got) {
    *out = w->done;
    w->has_done = false;
  }
  pthread_mutex_unlock(&w->mu);
  return got;
}

void Worker_cancel(Worker *w) {
  pthread_mutex_lock(&w->mu);
  if (w->has_pending) {
    /* not started yet (the thread is on figures, or on a stale job winding
     * down): it never starts; its result is "cancelled", so the receiver stops
     * waiting at once instead of after the job, which may be deaf to cancel */
    if (w->has_done) Plan_free(w->done.plan);
    memset(&w->done, 0, sizeof w->done);
    w->done.seq = w->pending.seq;
    w->done.status = SP_ERR_CANCELLED;
    snprintf(w->done.error, sizeof w->done.error, "%s", Status_message(SP_ERR_CANCELLED));
    w->has_done = true;
    w->has_pending = false;
    free(w->pending_order);
    w->pending_order = NULL;
  }
  if (w->running) Worker_flagCancel(w);
  pthread_mutex_unlock(&w->mu);
}

bool Worker_stuck(Worker *w, int ms) {
  pthread_mutex_lock(&w->mu);
  bool stuck = w->running && w->cancel_at > 0 && Clock_now() - w->cancel_at > ms * 1e-3;
  pthread_mutex_unlock(&w->mu);
  return stuck;
}

void Worker_postFigures(Worker *w, bool params) {
  pthread_mutex_lock(&w->mu);
  w->fig_want[params] = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

bool Worker_takeFigures(Worker *w, bool params, NetFigures *f, int **order, Status *st) {
  pthread_mutex_lock(&w->mu);
  bool got = w->fig_done[params];
  if (got) {
    *f = w->fig[params];
    *order = w->fig_order[params];
    *st = w->fig_status[params];
    w->fig_order[params] = NULL;
    w->fig_done[params] = false;
  }
  pthread_mutex_unlock(&w->mu);
  return got;
}

bool Worker_busy(Worker *w) {
  pthread_mutex_lock(&w->mu);
  bool busy = w->running || w->has_pending;
  pthread_mutex_unlock(&w->mu);
  return busy;
}

void Worker_stop(Worker *w) {
  if (!w) return;
  pthread_mutex_lock(&w->mu);
  w->quit = true;
  Worker_flagCancel(w);
  pthread_cond_signal(&w->cv);
  if (!w->shared) { /* the caller's network: wait for the thread, however long */
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_mutex_lock(&w->mu);
    Worker_unref(w);
    return;
  }
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += (long)WORKER_GRACE_MS * 1000000L;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  while (!w->thread_done)
    if (pthread_cond_timedwait(&w->exited, &w->mu, &until) == ETIMEDOUT) break;
  if (w->thread_done) {
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_mutex_lock(&w->mu);
  } else { /* a stage that does not listen: leave it to finish on its own references */
    pthread_detach(w->thread);
    w->abandoned = true;
    atomic_fetch_add(&Worker_abandonedCount, 1);
  }
  if (!Worker_unref(w)) pthread_mutex_unlock(&w->mu);
}

#include <stdatomic.h>
#include "worker.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Worker {
  const Net *net;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  SolveJob pending;
  bool has_pending, running, quit;
  long latest;          /* seq of the newest job posted */
  atomic_int cancel;  /* the running job's cancel flag */
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
    w->has_pending = false;
    w->running = true;
    w->cancel = 0;
    pthread_mutex_unlock(&w->mu);

    SolveResult r;
    job.s.progress = Worker_onProgress;
    job.s.progress_user = w;
    Worker_solve(w->net, &job, &w->cancel, &r);

    pthread_mutex_lock(&w->mu);
    w->running = false;
    w->has_progress = false;
    if (r.seq < w->latest || w->quit) { /* superseded while it ran */
      Plan_free(r.plan);
      continue;
    }
    if (w->has_done) Plan_free(w->done.plan);
    w->done = r;
    w->has_done = true;
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

Worker *Worker_start(const Net *net) {
  Worker *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->net = net;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  if (pthread_create(&w->thread, NULL, Worker_main, w)) {
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return NULL;
  }
  return w;
}

void Worker_post(Worker *w, const SolveJob *job) {
  pthread_mutex_lock(&w->mu);
  w->pending = *job;
  w->has_pending = true;
  w->latest = job->seq;
  w->cancel = 1; /* the running job, if any, is now stale */
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
  if (w->running && !w->has_pending) w->cancel = 1;
  pthread_mutex_unlock(&w->mu);
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
  w->cancel = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  if (w->has_done) Plan_free(w->done.plan);
  free(w->fig_order[0]);
  free(w->fig_order[1]);
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

/* staging: the tiled network for budgets below M_R (staging.h). */
#include "staging.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "figures.h"
#include "import.h"
#include "tiles/tiles.h"

/* Loads the network in text through a temporary file (App_load reads files). */
static Status Staging_load(App *app, const char *text, SpError *err) {
  char path[] = "/tmp/spadmap-tiled-XXXXXX.json";
  int fd = mkstemps(path, 5);
  if (fd < 0) return SpError_set(err, SP_ERR_IO, "cannot create a temporary file for the tiled network");
  size_t len = strlen(text), done = 0;
  while (done < len) {
    ssize_t n = write(fd, text + done, len - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  close(fd);
  Status st = done == len ? App_load(app, path, err) : SpError_set(err, SP_ERR_IO, "cannot write %s", path);
  unlink(path);
  return st;
}

/* A budget no tiling reaches: nothing is loaded or solved, the last good plan
 * stays on screen (the status line marks it), and the reason is the tiler's
 * ("its largest tile still needs ..."), not the solver's "budget < M_R". */
static bool Staging_refuse(App *app, int64_t b, const SpError *err) {
  char b1[16];
  app->set.budget = b;
  app->seq++; /* a solve still running for an older budget is dropped */
  app->solving = false;
  snprintf(app->error, sizeof app->error, "budget %s is too small: %s", App_bytes(b, b1, sizeof b1), err->text);
  App_setMessage(app, true, "%s", app->error);
  return true;
}

/* Figures carried across a load of the same original network (they are the
 * presets' meaning below M_R, and need not be computed again). */
typedef struct {
  NetFigures fig[2];
  bool ok[2];
  Worker *figworker; /* still computing them for the original, or NULL */
} StagingFigures;

static void Staging_keepFigures(App *app, StagingFigures *k, bool from_untiled) {
  if (!app->worker && !from_untiled) /* no worker (snapshots): both settings now, as the worker would */
    for (int p = 0; p < 2; p++)
      if (!app->fig_ok[p]) {
        bool was = app->set.params;
        app->set.params = p;
        App_figures(app);
        app->set.params = was;
      }
  for (int p = 0; p < 2; p++) {
    k->fig[p] = from_untiled ? app->untiled_fig[p] : app->fig[p];
    k->ok[p] = from_untiled ? app->untiled_fig_ok[p] : app->fig_ok[p];
  }
  /* the original's figure worker keeps computing on its own reference to the
   * original network: App_load would stop it, so it is taken out first */
  if (from_untiled) {
    k->figworker = app->untiled_figworker;
    app->untiled_figworker = NULL;
  } else if (app->figworker && (!app->fig_ok[0] || !app->fig_ok[1])) {
    k->figworker = app->figworker;
    app->figworker = NULL;
  } else k->figworker = NULL;
}

/* The tiling of a switch, run on a thread of its own in a terminal session
 * (below M_R the tiler searched up to 1.5 s for amoebanet_d at 1K before it
 * refused, the UI frozen). The UI polls it (Staging_poll); a newer budget, C
 * or closing abandons it: the thread then frees it (its own reference to the
 * network keeps that alive). */
typedef struct {
  int64_t b, mr;
  char name[256];
  TilesOptions to;
  Status st;
  SpError err;
  Net *tn;
  char *text;
  TilesOptions used;
  /* the thread's side */
  const Net *orig;
  Net *own;               /* the original opened for this job (freed with it), or NULL */
  SharedNet *shared;      /* the reference that keeps orig alive, or NULL */
  App *app;
  const Net *net_then;    /* the app's network when it started: another one since drops the result */
  pthread_t thread;
  pthread_mutex_t mu;
  bool finished, abandoned; /* under mu */
  TilesProgress prog;     /* the newest figure kept (under mu), new since the UI took one */
  bool prog_new;
  TilesProgress shown;    /* the UI's copy (UI thread), shown.pass 0: none yet */
  double prog_last;       /* the thread's: when it last kept a figure */
} StagingJob;

static StagingJob *Staging_job; /* the running job (one app per process has a terminal) */

/* ncdu's way: the tiler reports every tensor and op (thousands a second); a
 * figure is kept at most every Staging_every seconds, and the UI shows the
 * newest at its next poll. Tests set 0 and a hook (Staging_testHooks). */
static double Staging_every = STAGING_PROGRESS_MS / 1000.0;
static void (*Staging_hook)(const TilesProgress *p, void *user);
static void *Staging_hookUser;

void Staging_testHooks(double every, void (*hook)(const TilesProgress *p, void *user), void *user) {
  Staging_every = every < 0 ? STAGING_PROGRESS_MS / 1000.0 : every;
  Staging_hook = hook;
  Staging_hookUser = user;
}

static void Staging_onProgress(const TilesProgress *p, void *user) {
  StagingJob *j = user;
  double now = Clock_now();
  if (j->prog_last > 0 && now - j->prog_last < Staging_every) return;
  j->prog_last = now;
  pthread_mutex_lock(&j->mu);
  bool abandoned = j->abandoned; /* nobody looks: no figure, no hook */
  j->prog = *p;
  j->prog_new = true;
  pthread_mutex_unlock(&j->mu);
  if (Staging_hook && !abandoned) Staging_hook(p, Staging_hookUser);
}

bool Staging_figure(const App *app, TilesProgress *out) {
  const StagingJob *j = Staging_job;
  if (!j || j->app != app) return false;
  *out = j->shown;
  return true;
}

static void StagingJob_free(StagingJob *j) {
  Net_free(j->tn);
  free(j->text);
  Net_free(j->own);
  if (j->shared) SharedNet_release(j->shared);
  pthread_mutex_destroy(&j->mu);
  free(j);
}

static void *Staging_thread(void *arg) {
  StagingJob *j = arg;
  j->to.progress = Staging_onProgress, j->to.progress_user = j;
  j->st = Tiles_tiledNetUsed(j->orig, &j->to, &j->tn, &j->text, &j->used, &j->err);
  Net_free(j->own), j->own = NULL;
  if (j->shared) SharedNet_release(j->shared), j->shared = NULL;
  pthread_mutex_lock(&j->mu);
  j->finished = true;
  bool abandoned = j->abandoned;
  pthread_mutex_unlock(&j->mu);
  if (abandoned) StagingJob_free(j); /* the UI let go: the last holder frees */
  return NULL;
}

/* Lets the running job go (it ends on its own); true if there was one. */
static bool Staging_abandon(App *app) {
  StagingJob *j = Staging_job;
  if (!j || j->app != app) return false;
  Staging_job = NULL;
  pthread_mutex_lock(&j->mu);
  bool finished = j->finished;
  j->abandoned = true;
  pthread_mutex_unlock(&j->mu);
  if (finished) StagingJob_free(j);
  return true;
}

static bool Staging_finish(App *app, StagingJob *job);

static bool Staging_start(App *app, const Net *orig, Net *own, const TilesOptions *to, int64_t mr) {
  StagingJob *j = calloc(1, sizeof *j);
  if (!j) {
    Net_free(own);
    return false;
  }
  j->b = to->capacity, j->mr = mr, j->to = *to, j->orig = orig, j->own = own, j->app = app, j->net_then = app->net;
  snprintf(j->name, sizeof j->name, "%s", orig->name);
  if (!own && app->shared) SharedNet_retain(app->shared), j->shared = app->shared;
  pthread_mutex_init(&j->mu, NULL);
  if (pthread_create(&j->thread, NULL, Staging_thread, j) != 0) { /* no thread: here, as in a snapshot */
    Staging_thread(j);
    bool done = Staging_finish(app, j);
    j->text = NULL, j->tn = NULL; /* Staging_finish took them */
    StagingJob_free(j);
    return done;
  }
  pthread_detach(j->thread);
  Staging_job = j;
  char b1[16];
  app->seq++; /* a solve still running for an older budget is dropped */
  app->solving = true;
  app->has_progress = false;
  app->solve_t0 = Clock_now();
  App_setMessage(app, false, "tiling %s below M_R for %s... (C cancels; the last plan stays)", j->name,
                 App_bytes(j->b, b1, sizeof b1));
  return true;
}

bool Staging_poll(App *app) {
  StagingJob *j = Staging_job;
  if (!j || j->app != app) return false;
  pthread_mutex_lock(&j->mu);
  bool finished = j->finished, fresh = j->prog_new;
  if (fresh) j->shown = j->prog, j->prog_new = false;
  pthread_mutex_unlock(&j->mu);
  if (!finished) return fresh; /* a new figure: the status line moves */
  Staging_job = NULL;
  if (app->net != j->net_then) { /* another network was opened meanwhile */
    StagingJob_free(j);
    return false;
  }
  app->solving = false;
  app->staging = true; /* the solve Staging_finish starts takes the tiled network as it is */
  Staging_finish(app, j);
  app->staging = false;
  j->text = NULL, j->tn = NULL; /* Staging_finish took them */
  StagingJob_free(j);
  return true;
}

bool Staging_cancel(App *app) {
  if (!Staging_abandon(app)) return false;
  app->solving = false;
  app->cancelled = true;
  App_setMessage(app, false, "tiling cancelled: the last plan stays");
  return true;
}

void Staging_drop(App *app) { Staging_abandon(app); }

static bool Staging_switch(App *app) {
  int64_t b = app->set.budget;
  SpError err;
  Net *orig = app->net, *own = NULL;
  if (app->untiled_path[0]) { /* a tiled network is shown */
    char path[sizeof app->untiled_path];
    snprintf(path, sizeof path, "%s", app->untiled_path);
    if (b >= app->untiled_mr) { /* the original comes back, with the figures it had */
      StagingFigures k;
      Staging_keepFigures(app, &k, true);
      Worker_stop(k.figworker);
      if (App_load(app, path, &err)) {
        App_setMessage(app, true, "%s", err.text);
        return false;
      }
      for (int p = 0; p < 2; p++)
        if (k.ok[p]) app->fig[p] = k.fig[p], app->fig_ok[p] = true;
      app->set.budget = b;
      App_resolve(app);
      App_setMessage(app, false, "budget >= M_R: %s untiled again", app->net->name);
      return true;
    }
    /* its tiles no longer fit: tile finer. Tiling splits activations only, so
     * the tiles' M_R is taken without params: with params on, the weights of
     * one op may stay above the budget however fine the tiles (the solve then
     * says the budget is infeasible; re-tiling again would never end) */
    if (b >= Figures_minRequired(app->net, false)) return false;
    /* the original is opened beside the tiled one: if no tiling reaches the
     * budget, the tiled network and its plan stay on screen */
    if (Import_open(path, &app->import, &own, &err)) {
      App_setMessage(app, true, "%s", err.text);
      return false;
    }
    orig = own;
  } else if (b >= App_figures(app)->m_r || b <= 0) return false;
  int64_t mr = app->untiled_path[0] ? app->untiled_mr : App_figures(app)->m_r;
  TilesOptions to;
  TilesOptions_init(&to);
  to.capacity = b;
  if (app->worker && (own || app->shared)) /* off the UI thread: the tiler may take a second */
    return Staging_start(app, orig, own, &to, mr);
  StagingJob job = {.b = b, .mr = mr, .to = to};
  snprintf(job.name, sizeof job.name, "%s", orig->name);
  job.st = Tiles_tiledNetUsed(orig, &to, &job.tn, &job.text, &job.used, &job.err);
  Net_free(own);
  return Staging_finish(app, &job);
}

/* The second half of a switch, on the UI thread once the tiling is done:
 * refuse, or load the tiled network (job's text becomes the app's) and solve it. */
static bool Staging_finish(App *app, StagingJob *job) {
  int64_t b = job->b, mr = job->mr;
  SpError err = job->err;
  Net *tn = job->tn;
  char *text = job->text;
  TilesOptions used = job->used;
  char name[256];
  snprintf(name, sizeof name, "%s", job->name);
  if (job->st) return Staging_refuse(app, b, &err);
  int ops = tn->nops;
  Net_free(tn);
  char path[sizeof app->untiled_path], stem[sizeof app->stem];
  bool was_tiled = app->untiled_path[0] != '\0';
  snprintf(path, sizeof path, "%s", was_tiled ? app->untiled_path : app->path);
  if (was_tiled) {
    snprintf(stem, sizeof stem, "%s", app->stem);
    size_t n = strlen(stem);
    if (n > 6 && strcmp(stem + n - 6, ".tiled") == 0) stem[n - 6] = '\0';
  } else snprintf(stem, sizeof stem, "%s", app->stem);
  StagingFigures k; /* the original's, for r/h/p and b M_P while tiled */
  Staging_keepFigures(app, &k, was_tiled);
  Status st = Staging_load(app, text, &err);
  if (st) {
    free(text);
    Worker_stop(k.figworker);
    App_setMessage(app, true, "%s", err.text);
    return false;
  }
  /* files the explorer writes are named after the network opened, and a plan is
   * saved with this network (its temporary file is gone) */
  app->tiled_text = text;
  size_t n = strlen(stem);
  if (n + 7 > sizeof stem) n = sizeof stem - 7;
  snprintf(app->stem, sizeof app->stem, "%.*s.tiled", (int)n, stem);
  snprintf(app->untiled_path, sizeof app->untiled_path, "%s", path);
  app->untiled_mr = mr;
  app->untiled_capacity = used.capacity;
  for (int p = 0; p < 2; p++) app->untiled_fig[p] = k.fig[p], app->untiled_fig_ok[p] = k.ok[p];
  app->untiled_figworker = k.figworker;
  app->set.budget = b;
  App_resolve(app);
  int64_t tiled_mr = Figures_minRequired(app->net, app->set.params);
  char b1[32];
  if (tiled_mr > b) /* params on: one op's weights are not split (the solve says infeasible) */
    App_setMessage(app, true, "params on: weights are not tiled; the %d tiles need %s (w: params off)", ops,
                   App_bytes(tiled_mr, b1, sizeof b1));
  else
    App_setMessage(app, false, "below M_R: %s runs in %d tiles (ops \"op#j\", pieces \"t[r0:r1]\"); budget >= M_R returns",
                   name, ops);
  return true;
}

bool Staging_apply(App *app) {
  /* the solve of a network just switched to (App_resolve inside Staging_switch)
   * takes it as it is: staging again from there could only repeat itself */
  if (app->staging) return false;
  Staging_abandon(app); /* a newer budget: the running tiling is for an older one */
  app->staging = true;
  bool done = Staging_switch(app);
  app->staging = false;
  return done;
}

/* staging: the tiled network for budgets below M_R (staging.h). */
#include "staging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  Net *tn;
  char *text;
  TilesOptions used;
  Status tst = Tiles_tiledNetUsed(orig, &to, &tn, &text, &used, &err);
  char name[256];
  snprintf(name, sizeof name, "%s", orig->name);
  Net_free(own);
  if (tst) return Staging_refuse(app, b, &err);
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
  app->staging = true;
  bool done = Staging_switch(app);
  app->staging = false;
  return done;
}

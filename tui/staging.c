/* staging: the tiled network for budgets below M_R (staging.h). */
#include "staging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "figures.h"
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

static bool Staging_switch(App *app) {
  int64_t b = app->set.budget;
  SpError err;
  if (app->untiled_path[0]) { /* a tiled network is shown */
    /* its tiles no longer fit: tile finer. Tiling splits activations only, so
     * the tiles' M_R is taken without params: with params on, the weights of
     * one op may stay above the budget however fine the tiles (the solve then
     * says the budget is infeasible; re-tiling again would never end) */
    bool retile = b < app->untiled_mr && b < Figures_minRequired(app->net, false);
    if (b < app->untiled_mr && !retile) return false;
    char path[sizeof app->untiled_path];
    snprintf(path, sizeof path, "%s", app->untiled_path);
    if (App_load(app, path, &err)) {
      App_setMessage(app, true, "%s", err.text);
      return false;
    }
    app->set.budget = b;
    if (!retile) {
      App_resolve(app);
      App_setMessage(app, false, "budget >= M_R: %s untiled again", app->net->name);
      return true;
    }
  }
  int64_t mr = App_figures(app)->m_r;
  if (b >= mr || b <= 0) return false;
  NetFigures fig[2] = {app->fig[0], app->fig[1]}; /* the original's, for r/h/p while tiled */
  bool fig_ok[2] = {app->fig_ok[0], app->fig_ok[1]};
  TilesOptions to;
  TilesOptions_init(&to);
  to.capacity = b;
  Net *tn;
  char *text;
  TilesOptions used;
  if (Tiles_tiledNetUsed(app->net, &to, &tn, &text, &used, &err)) return false; /* the solve reports the budget as infeasible */
  int ops = tn->nops;
  Net_free(tn);
  char orig[sizeof app->untiled_path], name[256];
  snprintf(orig, sizeof orig, "%s", app->path);
  snprintf(name, sizeof name, "%s", app->net->name);
  char stem[sizeof app->stem];
  snprintf(stem, sizeof stem, "%s", app->stem);
  Status st = Staging_load(app, text, &err);
  if (st) {
    free(text);
    App_setMessage(app, true, "%s", err.text);
    return false;
  }
  /* files the explorer writes are named after the network opened, and a plan is
   * saved with this network (its temporary file is gone) */
  app->tiled_text = text;
  size_t n = strlen(stem);
  if (n + 7 > sizeof stem) n = sizeof stem - 7;
  snprintf(app->stem, sizeof app->stem, "%.*s.tiled", (int)n, stem);
  snprintf(app->untiled_path, sizeof app->untiled_path, "%s", orig);
  app->untiled_mr = mr;
  app->untiled_capacity = used.capacity;
  for (int p = 0; p < 2; p++) app->untiled_fig[p] = fig[p], app->untiled_fig_ok[p] = fig_ok[p];
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

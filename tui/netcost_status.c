/* netcost_status: the network's cycles on the status line (netcost_status.h). */
#include "words.h"
#include "netcost_status.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer/arch.h"
#include "layer/layer.h"
#include "netcost/netcost.h"
#include "import.h"
#include "worker.h"

struct NetStatus {
  NetCostMapper *mapper;
  Layer *layers;          /* the network's distinct shapes */
  int nlayers;
  atomic_int mapped;      /* shapes mapped so far */
  atomic_int cancel;
  Status st;              /* the first mapping failure (under mu once finished) */
  SpError err;
  SharedNet *shared;      /* the thread's reference */
  const Net *net;         /* the network shown (below M_R: its tiled network) */
  Net *orig;              /* below M_R: the network opened, whose layers are mapped (as `cost` maps them) */
  char orig_path[1024];   /* its file */
  char why[160];          /* below M_R, when the plan shown is not `cost`'s: why no figure */
  bool cut_for;           /* the figure is for tiles cut for another budget than the plan's */
  int64_t cut_capacity;
  pthread_t thread;
  bool threaded;
  pthread_mutex_t mu;
  bool finished, closed;  /* under mu */
  bool reported;          /* NetStatus_poll said so */
  const Plan *plan;       /* what `cost` answers */
  NetCost cost;
  Status cost_st;
  char arch[64];
};

static void NetStatus_release(NetStatus *s) {
  if (s->shared) SharedNet_release(s->shared);
  NetCostMapper_free(s->mapper);
  NetCost_free(&s->cost);
  Net_free(s->orig);
  free(s->layers);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

/* Maps every shape; true when the UI let go meanwhile (the caller, the thread, then frees). Finishing
 * and reading `closed` are one step under mu: else both sides could free, or neither. */
static bool NetStatus_mapAll(NetStatus *s) {
  Status st = SP_OK;
  SpError err = {0};
  for (int i = 0; i < s->nlayers && !st && !atomic_load(&s->cancel); i++) {
    const LayerMapResult *r;
    st = NetCostMapper_map(s->mapper, &s->layers[i], &r, &err);
    atomic_store(&s->mapped, i + 1);
  }
  if (!st && atomic_load(&s->cancel)) st = SpError_set(&err, SP_ERR_CANCELLED, "cancelled");
  pthread_mutex_lock(&s->mu);
  s->st = st;
  s->err = err;
  s->finished = true;
  bool closed = s->closed;
  pthread_mutex_unlock(&s->mu);
  return closed;
}

static void *NetStatus_main(void *arg) {
  NetStatus *s = arg;
  if (NetStatus_mapAll(s)) NetStatus_release(s); /* the UI let go while it ran */
  return NULL;
}

void NetStatus_free(App *app) {
  NetStatus *s = app->netstatus;
  app->netstatus = NULL;
  if (!s) return;
  if (s->threaded) {
    atomic_store(&s->cancel, 1); /* a MIP stops at its next callback */
    pthread_mutex_lock(&s->mu);
    s->closed = true;
    bool finished = s->finished;
    if (!finished) pthread_detach(s->thread);
    pthread_mutex_unlock(&s->mu);
    if (!finished) return; /* the thread frees it */
    pthread_join(s->thread, NULL);
  }
  NetStatus_release(s);
}

void NetStatus_start(App *app) {
  NetStatus_free(app);
  if (!app->layer_arch[0] || !app->net) return; /* no arch */
  Arch a;
  SpError err;
  if (Arch_load(app->layer_arch, &a, &err)) return; /* the layer view says why when it opens */
  /* below M_R the tiled network is shown: its tiles are costed as the opened network's ops,
   * as `spadmap cost` does (engine/netcost), so the layers mapped are the opened network's */
  Net *orig = NULL;
  if (app->untiled_path[0] && Import_open(app->untiled_path, &app->import, &orig, &err)) return;
  NetStatus *s = calloc(1, sizeof *s);
  if (!s) {
    Net_free(orig);
    return;
  }
  s->orig = orig;
  snprintf(s->orig_path, sizeof s->orig_path, "%s", app->untiled_path);
  pthread_mutex_init(&s->mu, NULL);
  atomic_init(&s->mapped, 0);
  atomic_init(&s->cancel, 0);
  snprintf(s->arch, sizeof s->arch, "%s", a.name);
  LayerMapOptions o;
  LayerMapOptions_init(&o);
  o.cancel = &s->cancel;
  int *count = NULL;
  s->net = app->net;
  if (NetCostMapper_new(&a, LayerMap_find("cosa"), &o, &s->mapper, &err) ||
      Layer_unique(orig ? orig : app->net, &s->layers, &count, &s->nlayers, &err)) {
    free(count);
    NetStatus_release(s);
    return;
  }
  free(count);
  app->netstatus = s;
  if (app->worker && app->shared) {
    s->shared = app->shared;
    SharedNet_retain(s->shared);
    if (pthread_create(&s->thread, NULL, NetStatus_main, s) == 0) {
      s->threaded = true;
      return;
    }
    SharedNet_release(s->shared);
    s->shared = NULL;
  }
  (void)NetStatus_mapAll(s); /* snapshots: here, deterministically (nobody closes it meanwhile) */
}

bool NetStatus_poll(App *app) {
  NetStatus *s = app->netstatus;
  if (!s || s->reported) return false;
  pthread_mutex_lock(&s->mu);
  bool finished = s->finished;
  pthread_mutex_unlock(&s->mu);
  if (finished) s->reported = true;
  return finished;
}

void NetStatus_format(const NetCost *c, const char *arch, char *out, size_t n) {
  char cy[48], en[32];
  snprintf(out, n, "%s cycles, %s on %s (cosa)", Words_count((double)c->cycles, cy, sizeof cy),
           Words_energy(c->energy_pj, en, sizeof en), arch);
}

/* The same network, op for op and tensor for tensor (the tiles shown and the ones `cost` cuts). */
static bool NetStatus_sameNet(const Net *a, const Net *b) {
  if (a->nops != b->nops || a->ntensors != b->ntensors) return false;
  for (int i = 0; i < a->nops; i++)
    if (strcmp(a->ops[i].name, b->ops[i].name) != 0) return false;
  for (int i = 0; i < a->ntensors; i++)
    if (a->tensors[i].bytes != b->tensors[i].bytes || strcmp(a->tensors[i].name, b->tensors[i].name) != 0) return false;
  return true;
}

/* Below M_R: the plan shown costed as the opened network's. `cost --budget B` tiles for
 * B; the tiles shown were cut for B too, unless the budget went down while they still
 * fitted (staging.c keeps them): then they are costed as cut, and the text says for what. */
static Status NetStatus_costTiled(App *app, NetStatus *s) {
  SpError err;
  int64_t tries[2] = {app->plan->budget, app->untiled_capacity};
  s->why[0] = '\0';
  s->cut_for = false;
  for (int k = 0; k < 2; k++) {
    if (k && tries[1] == tries[0]) break;
    NetCostStage stage;
    Status st = NetCostStage_build(s->orig, app->plan->params, tries[k], &stage, &err);
    if (!st && (!stage.tiled || !NetStatus_sameNet(stage.net, app->net))) st = SP_ERR_ARG;
    if (!st) st = NetCost_evaluate(&stage, app->plan, app->plan->params, s->mapper, &s->cost, &err);
    NetCostStage_free(&stage);
    if (!st) {
      s->cut_for = k == 1, s->cut_capacity = tries[1];
      return SP_OK;
    }
  }
  char b1[16];
  snprintf(s->why, sizeof s->why, "cycles on %s: not for these tiles (cut for another budget; spadmap cost tiles for %s)",
           s->arch, App_bytes(app->plan->budget, b1, sizeof b1));
  return SP_ERR_ARG;
}

void NetStatus_text(App *app, char *out, size_t n) {
  out[0] = 0;
  if (!app->netstatus_on || !app->net) return;
  NetStatus *s = app->netstatus;
  if (s && s->net != app->net && s->orig && app->untiled_path[0] && strcmp(s->orig_path, app->untiled_path) == 0) {
    s->net = app->net; /* tiled again, finer: the opened network's layers stay mapped */
    s->plan = NULL;
  }
  if (!s || s->net != app->net) NetStatus_start(app); /* a network opened since */
  s = app->netstatus;
  if (!s || !app->plan) return;
  pthread_mutex_lock(&s->mu);
  bool finished = s->finished;
  pthread_mutex_unlock(&s->mu);
  if (!finished) {
    snprintf(out, n, "cycles on %s: mapping %d/%d layers", s->arch, atomic_load(&s->mapped), s->nlayers);
    return;
  }
  if (s->st) {
    snprintf(out, n, "cycles on %s: %s", s->arch, s->st == SP_ERR_CANCELLED ? "cancelled" : "a layer does not map");
    return;
  }
  if (s->plan != app->plan) { /* every shape is mapped: this only looks them up */
    NetCost_free(&s->cost);
    if (s->orig) s->cost_st = NetStatus_costTiled(app, s);
    else {
      NetCostStage stage;
      SpError err;
      s->cost_st = NetCostStage_build(app->net, app->plan->params, app->plan->budget, &stage, &err);
      if (!s->cost_st && stage.tiled) s->cost_st = SP_ERR_ARG; /* cannot happen: a plan exists at this budget */
      if (!s->cost_st) s->cost_st = NetCost_evaluate(&stage, app->plan, app->plan->params, s->mapper, &s->cost, &err);
      NetCostStage_free(&stage);
    }
    s->plan = app->plan;
  }
  if (s->cost_st) {
    if (s->why[0]) snprintf(out, n, "%s", s->why);
    return;
  }
  NetStatus_format(&s->cost, s->arch, out, n);
  if (s->cut_for) {
    char b1[16];
    size_t len = strlen(out);
    snprintf(out + len, n - len, ", tiles cut for %s", App_bytes(s->cut_capacity, b1, sizeof b1));
  }
}

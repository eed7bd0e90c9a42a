/* shuttle_pane: see shuttle_pane.h. */
#include "shuttle_pane.h"

#include <stdio.h>
#include <stdlib.h>

#include "datadir.h"
#include "layer/arch.h"
#include "layer/shuttle.h"
#include "layer/steps.h"
#include "shuttle_methods.h"
#include "steps_view.h"

struct ShuttlePaneResult {
  bool steps;
  Layer layer;
  ShuttleOptions sopt;
  ShuttleLayer shuttle;
  StepsPlan plan;
  StepsViewState cursor;
  char check[SP_ERROR_TEXT + 64]; /* the functional check's verdict */
};

const char *ShuttlePane_methodName(int which) {
  return which >= 0 && which < SHUTTLE_PANE_METHODS ? ShuttleMethod_names[which] : "?";
}

ShuttlePaneResult *ShuttlePane_solve(int which, const Layer *l, int group_size, atomic_int *cancel,
                                     void (*progress)(const IlpProgress *p, void *user), void *user, char *err,
                                     int errlen) {
  ShuttlePaneResult *r = calloc(1, sizeof *r);
  SpError e = {0};
  if (!r) {
    snprintf(err, (size_t)errlen, "out of memory");
    return NULL;
  }
  r->layer = *l;
  Status st;
  if (which == 0) {
    Arch arch;
    ShuttleOptions_init(&r->sopt);
    r->sopt.cancel = cancel;
    st = Arch_load(Data_file("arch/smartshuttle.json"), &arch, &e);
    if (st == SP_OK) st = Shuttle_optionsFromArch(&arch, &r->sopt, &e);
    if (st == SP_OK) st = Shuttle_analyze(l, &r->sopt, &r->shuttle, &e);
  } else {
    static const StepsStrategy strategies[] = {STEPS_S1_BASELINE, STEPS_ROW, STEPS_ZIGZAG, STEPS_ILP};
    StepsOptions o;
    StepsOptions_init(&o);
    o.group_size = group_size;
    o.cancel = cancel;
    o.progress = progress, o.user = user;
    r->steps = true;
    /* the map replays the steps at every redraw (and a plan of millions of
     * steps takes gigabytes): past SHUTTLE_PANE_MAX_STEPS the command line's
     * table is the place for it */
    int64_t per = which == 1 ? 1 : group_size > 0 ? group_size : 1;
    int64_t nsteps = (l->P * l->Q + per - 1) / per;
    if (nsteps > SHUTTLE_PANE_MAX_STEPS) {
      snprintf(err, (size_t)errlen,
               "%lld steps (%lld x %lld patches, %lld a step): more than the %d this map shows; `spadmap layer "
               "... --method %s` gives the plan's figures",
               (long long)nsteps, (long long)l->P, (long long)l->Q, (long long)per, SHUTTLE_PANE_MAX_STEPS,
               ShuttleMethod_names[which]);
      free(r);
      return NULL;
    }
    st = Steps_plan(l, &o, strategies[which - 1], &r->plan, &e);
    if (st == SP_OK) {
      SpError ce = {0};
      StepsOptions co = o; /* the explorer's check stops on the cancel key, not on a clock (a busy machine
                              then changed the screen: the snapshot tests) */
      co.time_limit = 0;
      co.progress = NULL; /* the plan is made: its check is no search */
      snprintf(r->check, sizeof r->check, "functional check: %s",
               Steps_execute(l, &co, &r->plan, 1, &ce) == SP_OK ? "ok (same output as the direct convolution)" : ce.text);
    }
  }
  if (st != SP_OK) {
    snprintf(err, (size_t)errlen, "%s", e.text);
    free(r);
    return NULL;
  }
  return r;
}

void ShuttlePaneResult_free(ShuttlePaneResult *r) {
  if (!r) return;
  if (r->steps) StepsPlan_free(&r->plan);
  free(r);
}

bool ShuttlePane_move(ShuttlePaneResult *r, int delta) {
  return r && r->steps && StepsView_move(&r->cursor, &r->plan, delta);
}

void ShuttlePane_draw(Grid *g, int x, int y, int w, int h, const ShuttlePaneResult *r) {
  if (!r) return;
  if (!r->steps) {
    ShuttleView_draw(g, x, y, w, h, &r->layer, &r->sopt, &r->shuttle);
    return;
  }
  StepsView_draw(g, x, y, w, h - 1, &r->plan, &r->cursor);
  if (r->plan.strategy == STEPS_ILP)
    Grid_printf(g, x, y + h - 1, w, ROLE_DIM, 0, "ILP %s in %.1f s; %s", IlpStatus_name(r->plan.ilp_status),
                r->plan.ilp_seconds, r->check);
  else Grid_text(g, x, y + h - 1, w, ROLE_DIM, 0, r->check);
}

bool ShuttlePane_figures(const ShuttlePaneResult *r, int *steps, long long *duration, int *group, double *rule_macs,
                         double *oracle_macs) {
  *steps = 0, *duration = 0, *group = 0, *rule_macs = 0, *oracle_macs = 0;
  if (r->steps) {
    *steps = r->plan.nsteps;
    *duration = (long long)r->plan.duration;
    *group = r->plan.group_size;
    return true;
  }
  const ShuttleLayer *s = &r->shuttle; /* as shuttle_view.c draws them */
  *rule_macs = (double)s->macs / s->rule_vol[s->rule_scheme].total;
  *oracle_macs = (double)s->macs / s->oracle_vol[s->oracle_scheme].total;
  return false;
}

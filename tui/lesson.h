/* lesson: a prepared walk through the explorer (data/lessons/NAME.json, or a
 * teacher's own file). Each stage declares the state it shows -- network,
 * budget, the policies of the current plan and of a pinned one, the view, the
 * flip, the cursor, a layer and its method -- and that state is set from a fresh
 * explorer whatever the learner did before (a state, not a list of key presses).
 * The text quotes named quantities of named plans ({current.spills},
 * {pinned.traffic}, {layer.cycles}), computed by the engine; "claims" state
 * comparisons between them that `spadmap lesson F --check` verifies. A lesson
 * file cannot run actions, type into prompts, write files or read anything but
 * its networks (lesson_load.c says what it refuses). docs/lessons.md: the format. */
#ifndef SPADMAP_LESSON_H
#define SPADMAP_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "grid.h"
#include "layer_view.h"

/* The settings of one plan a stage shows: NULL fields are the defaults (budget M_R). */
typedef struct {
  char *budget;                     /* Budget_parse's text: "M_R", "M_R*1.15", "10.5K" */
  char *policy[POLICY_KIND_COUNT];  /* policy names (schedule, replacement, allocator) */
} LessonPlan;

/* A layer mapped by a method (the layer view's): NULL fields are the view's defaults. */
typedef struct {
  char *method, *arch;
  int group;                        /* patches per step (steps methods), 0: the default */
} LessonLayer;

typedef enum { LESSON_VIEW_MAP, LESSON_VIEW_LAYER, LESSON_VIEW_OFFCHIP, LESSON_VIEW_SWEEP } LessonView;
typedef enum { LESSON_AT_STEP, LESSON_AT_PEAK, LESSON_AT_SPILL, LESSON_AT_SPILL_OF, LESSON_AT_TENSOR } LessonAt;
typedef enum { CLAIM_LT, CLAIM_LE, CLAIM_EQ, CLAIM_NE, CLAIM_GE, CLAIM_GT } ClaimOp;

/* "a op b": a names a figure, b a figure (times a factor: "pinned.traffic*2") or a
 * literal (a number, or "\"text\""). */
typedef struct {
  char *a, *b;                      /* b NULL: the literal */
  double scale;                     /* b's figure times this ("pinned.traffic*2": 2), else 1 */
  double num;                       /* the literal number (b_text NULL) */
  char *b_text;                     /* the literal text, or NULL */
  ClaimOp op;
  char *says;                       /* the sentence of the text it backs, or NULL */
} LessonClaim;

typedef struct {
  char *title;
  char *network;                    /* the network's path (the lesson's when the stage names none) */
  LessonPlan current, pinned;
  bool has_pinned, flip;
  double time_limit;                /* seconds for the ILP policies (required with one) */
  LessonView view;
  LessonAt at;                      /* where the cursor is */
  int at_n;                         /* LESSON_AT_STEP: the step; LESSON_AT_SPILL: the n-th spill (1 = first) */
  char *at_name;                    /* LESSON_AT_SPILL_OF / LESSON_AT_TENSOR: the tensor */
  char *layer_op;                   /* the op shown as a layer (view "layer"), or NULL */
  LessonLayer layer, pinned_layer;
  bool has_layer, has_pinned_layer;
  char **text;                      /* paragraphs with {plan.quantity} and {key:ACTION} */
  int ntext;
  char *try_action;                 /* the action the learner is invited to press, or NULL */
  LessonClaim *claims;
  int nclaims;
} LessonStage;

typedef struct Lesson {
  char name[64];                    /* the file's stem */
  char path[1024];
  char *title, *summary, *network;  /* network: the resolved path */
  LessonStage *stages;
  int nstages;
  int stage;                        /* the stage shown (-1: none applied yet) */
  int scroll;                       /* the pane's first text line shown (0 on each stage) */
  bool hidden;                      /* the pane folded to its title line (lesson_pane) */
  char error[SP_ERROR_TEXT];        /* the last stage's failure, "" if none */
  bool pinned_layer_ok;             /* the stage shown has a pinned layer: its figures */
  LayerFigures pinned_layer;
  char *frozen[16];                 /* the stage's paragraphs filled as it was set (LessonView_freeze), */
  int frozen_for;                   /* for stage frozen_for - 1 (0: none); NULL: not all its figures yet */
  /* In a terminal a stage's search (an ILP, up to its time_limit) runs on the worker and the
   * stage is set up in steps as its results come (Lesson_poll): the keys work meanwhile. */
  int pending;                      /* 0: the stage is set up; 1: its pinned plan's search runs; 2: its current plan's */
  AppSettings want;                 /* the settings of that search (another key's solve leaves the stage) */
  bool async;                       /* the stage shown is set up in a terminal (with workers) */
  struct Worker *parked;            /* the solve worker, set aside while a stage's heuristics run here */
} Lesson;

/* Reads and checks a lesson file (lesson_load.c): a regular file under the
 * lesson cap, parsed by engine/json.c (duplicate keys, control bytes), every key
 * known, every figure and action named right. Errors are SP_ERR_FORMAT (or
 * SP_ERR_IO) with "FILE: JSON.path: what was expected" or "FILE:line:col: ...". */
Status Lesson_load(const char *path, Lesson **out, SpError *err);
void Lesson_free(Lesson *l);
/* The lesson file for NAME: a path (with a '/' or ending in .json), or
 * data/lessons/NAME.json; NULL when it does not fit in n bytes. */
const char *Lesson_path(const char *name, char *buf, size_t n);
/* Every regular *.json file in data/lessons, sorted (free each and the array). */
int Lesson_listFiles(char ***paths);

/* Opens the lesson's network into app, attaches the lesson and shows stage 0. */
Status Lesson_start(App *app, Lesson *l, bool deterministic, SpError *err);
/* Shows stage k: a fresh explorer on the stage's network, then the stage's state.
 * Heuristic solves run on this thread (milliseconds); with workers (a terminal) a
 * searching one (ILP) is posted to the worker and the stage finishes in Lesson_poll,
 * so the keys (q, C or Esc to cancel) work while it runs and its progress shows. */
Status Lesson_goto(App *app, int k, SpError *err);
/* The stage's search done: the rest of the stage set up (App_poll calls it). True when the screen changed. */
bool Lesson_poll(App *app);

/* A figure's value: its text as the screen prints it, and its number when it has one. */
typedef struct {
  char text[128];
  double num;
  bool numeric;
} LessonValue;
/* "plan.quantity" (lesson_state.c lists them): false when the name is unknown or
 * the stage shown has no such plan. */
bool Lesson_value(App *app, const char *name, LessonValue *v);
bool Lesson_figure(App *app, const char *name, char *out, size_t n);
/* Whether name is a figure's name (any stage); the plan it needs in *plan. */
bool Lesson_isFigure(const char *name, char *plan, size_t n);
/* The text with its {placeholders} filled. */
void Lesson_fill(App *app, const char *text, char *out, size_t n);
/* The claims of the stage shown, and every figure its text quotes: the number
 * that do not hold, each said in report ("stage 2: claim ... is false: ..."). */
int Lesson_check(App *app, char *report, size_t n);

/* Fills the stage's paragraphs now, with the state it declares, and keeps them: what
 * the learner does next (the key the stage invites) changes the screen, not the
 * text's figures. Called after Lesson_start and Lesson_goto; a paragraph whose
 * figures have no value yet is filled when they have. */
void LessonView_freeze(App *app);

/* The narrative pane's rows at the bottom of g (0: no lesson, or no room): the
 * explorer keeps VIEW_LESSON_MIN_H rows above it; 1 when the pane is hidden. */
enum { VIEW_LESSON_MIN_H = 16 };
int LessonView_height(App *app, const Grid *g);
void LessonView_draw(App *app, Grid *g, int y, int h);
/* The pane's text scrolled a page (rows shown less one) down (dir 1) or up (-1),
 * as the lesson_down / lesson_up keys do; ACT_* flags. */
int LessonView_scroll(App *app, int dir);
/* lesson_pane: the pane hidden (its title line stays, saying the key) or shown. */
int LessonView_toggle(App *app);

#endif

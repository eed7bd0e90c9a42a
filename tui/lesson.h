/* lesson: a prepared walk through the explorer (data/lessons/NAME.json). Each
 * stage sets the state through the explorer's own actions (names from the action
 * table, replayed as a user's key presses would run them), then a narrative pane
 * under the screen tells what to look at and which key shows it. The text quotes
 * figures as placeholders ({peak}, {spills}, ...) filled from the state on screen,
 * and a stage may pin figures it relies on ("expect"), so the words and the
 * engine cannot drift apart (tests/test_tui_lessons.c replays every lesson). */
#ifndef SPADMAP_LESSON_H
#define SPADMAP_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"
#include "grid.h"

typedef struct {
  char *name, *value;
} LessonPair;

typedef struct {
  char *title;
  char *network;          /* opened before the actions (NULL: keep the one shown) */
  char **actions;         /* "name" or "name=argument" */
  int nactions;
  char **text;            /* paragraphs with {placeholders} */
  int ntext;
  char *try_action;       /* the action the learner is invited to press, or NULL */
  LessonPair *expect;     /* figure (or capture) -> exact value */
  int nexpect;
  LessonPair *capture;    /* name -> POSIX extended regex with one group, matched on the screen */
  int ncapture;
} LessonStage;

typedef struct Lesson {
  char name[64];          /* the file's stem */
  char path[1024];
  char *title, *summary, *network;
  LessonStage *stages;
  int nstages;
  int stage;              /* the stage shown (-1: none applied yet) */
  int scroll;             /* the pane's first text line shown (0 on each stage) */
  bool hidden;            /* the pane folded to its title line (lesson_pane) */
  char error[SP_ERROR_TEXT]; /* the last replay's failure, "" if none */
} Lesson;

/* Reads and checks a lesson file: bad JSON or a missing or wrong field is
 * SP_ERR_FORMAT with "FILE: JSON.path: what was expected"; unknown action and
 * placeholder names are refused the same way. */
Status Lesson_load(const char *path, Lesson **out, SpError *err);
void Lesson_free(Lesson *l);
/* The lesson file for NAME: a path, or data/lessons/NAME.json. */
const char *Lesson_path(const char *name, char *buf, size_t n);
/* Every .json path in data/lessons, sorted (free each and the array). */
int Lesson_listFiles(char ***paths);

/* Opens the lesson's network into app (App_initWith), attaches the lesson and
 * applies stage 0. */
Status Lesson_start(App *app, Lesson *l, bool deterministic, SpError *err);
/* Shows stage k: forward from the current stage by applying the stages between,
 * backward by replaying from the start. Solves run on this thread (the workers
 * are set aside and started again after), so each action sees the plan the one
 * before it produced. */
Status Lesson_goto(App *app, int k, SpError *err);
/* The value of a named figure as the screen prints it ("777.0K", "11", "lru"); false when
 * the name is unknown or the state has no such figure now. */
bool Lesson_figure(App *app, const char *name, char *out, size_t n);
/* The stage's text with placeholders filled (from Lesson_figure, or captures from grid g). */
void Lesson_fill(App *app, const Grid *g, const char *text, char *out, size_t n);
/* The capture named `name` of the stage shown, from the screen text `screen`. */
bool Lesson_capture(App *app, const char *screen, const char *name, char *out, size_t n);

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

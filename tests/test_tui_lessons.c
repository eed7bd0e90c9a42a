/* The lessons (the JSON files in data/lessons, tui/lesson.c): every lesson replays to its
 * end through the explorer's own actions, and every figure a stage's text quotes
 * ({peak}, {spills}, a capture ...) is on the screen above the narrative pane,
 * where the explorer drew it; the figures a stage pins ("expect") are the
 * engine's. A bad lesson file is refused with its file, JSON path and what was
 * expected. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "app.h"
#include "import.h"
#include "lesson.h"
#include "test.h"
#include "views.h"

enum { W = 140, H = 45 };

/* The explorer's rows above the pane, as text. */
static char *Test_main(App *app, Grid *g) {
  View_draw(app, g);
  int lh = LessonView_height(app, g);
  if (lh > g->h - 16) lh = g->h - 16;
  if (lh < 5) lh = 0;
  int full = g->h;
  g->h -= lh;
  char *t = Grid_toText(g);
  g->h = full;
  return t;
}

/* value occurs in text as a whole figure: not inside a longer number or word */
static bool Test_shows(const char *text, const char *value) {
  size_t n = strlen(value);
  for (const char *p = strstr(text, value); p; p = strstr(p + 1, value)) {
    char before = p == text ? ' ' : p[-1], after = p[n];
    bool bad_before = isalnum((unsigned char)before) || before == '.' || before == '_';
    bool bad_after = isalnum((unsigned char)after) || (after == '.' && isdigit((unsigned char)p[n + 1])) || after == '_';
    if (!bad_before && !bad_after) return true;
  }
  return false;
}

static void Test_stage(App *app, Lesson *l, Grid *g) {
  const LessonStage *s = &l->stages[l->stage];
  CHECK(l->error[0] == '\0');
  if (l->error[0]) printf("  %s stage %d: %s\n", l->name, l->stage + 1, l->error);
  char *screen = Test_main(app, g);
  int quoted = 0;
  for (int i = 0; i < s->ntext; i++)
    for (const char *p = strchr(s->text[i], '{'); p; p = strchr(p + 1, '{')) {
      const char *end = strchr(p, '}');
      char name[96], val[128];
      snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
      if (strncmp(name, "key:", 4) == 0) continue;
      bool known = Lesson_figure(app, name, val, sizeof val) || Lesson_capture(app, screen, name, val, sizeof val);
      if (!known || !Test_shows(screen, val)) {
        printf("  %s stage %d: {%s} = \"%s\" is not on the screen\n", l->name, l->stage + 1, name, known ? val : "(none)");
        CHECK(false);
      }
      quoted++;
    }
  for (int i = 0; i < s->nexpect; i++) {
    char val[128];
    bool known = Lesson_figure(app, s->expect[i].name, val, sizeof val) ||
                 Lesson_capture(app, screen, s->expect[i].name, val, sizeof val);
    if (!known || strcmp(val, s->expect[i].value) != 0) {
      printf("  %s stage %d: expected %s = %s, the engine says %s\n", l->name, l->stage + 1, s->expect[i].name,
             s->expect[i].value, known ? val : "(none)");
      CHECK(false);
    }
  }
  (void)quoted;
  free(screen);
}

TEST(every_lesson_replays_and_its_text_quotes_the_screen) {
  char **paths;
  int n = Lesson_listFiles(&paths);
  CHECK(n >= 8);
  Grid *g = Grid_new(W, H, true);
  int stages = 0, with_figures = 0;
  for (int i = 0; i < n; i++) {
    Lesson *l;
    SpError err;
    Status st = Lesson_load(paths[i], &l, &err);
    if (st) printf("  %s\n", err.text);
    CHECK_EQ(st, SP_OK);
    free(paths[i]);
    if (st) continue;
    App app;
    st = Lesson_start(&app, l, true, &err);
    if (st) printf("  %s\n", err.text);
    CHECK_EQ(st, SP_OK);
    for (int k = 0; !st && k < l->nstages; k++) {
      const char *net = l->stages[k].network;
      size_t nl = net ? strlen(net) : 0;
      if (nl > 5 && strcmp(net + nl - 5, ".onnx") == 0 && !Import_haveOnnx()) {
        printf("  %s stage %d opens %s: skipped, ONNX support is not built in\n", l->name, k + 1, net);
        break;
      }
      if (k > 0) {
        st = Lesson_goto(&app, k, &err);
        if (st) printf("  %s\n", err.text);
        CHECK_EQ(st, SP_OK);
      }
      CHECK_EQ(l->stage, k);
      Test_stage(&app, l, g);
      stages++;
      for (int t = 0; t < l->stages[k].ntext; t++) with_figures += strchr(l->stages[k].text[t], '{') != NULL;
    }
    /* back to the first stage: a replay from the start shows what the first run showed */
    if (!st && l->nstages > 1) {
      App fresh;
      Lesson *l2;
      CHECK_EQ(Lesson_load(l->path, &l2, &err), SP_OK);
      CHECK_EQ(Lesson_start(&fresh, l2, true, &err), SP_OK);
      char *want = Test_main(&fresh, g);
      CHECK_EQ(Lesson_goto(&app, 0, &err), SP_OK);
      char *got = Test_main(&app, g);
      CHECK(strcmp(want, got) == 0);
      free(want);
      free(got);
      fresh.grid = NULL;
      App_free(&fresh);
      Lesson_free(l2);
    }
    app.grid = NULL;
    App_free(&app);
    Lesson_free(l);
  }
  free(paths);
  CHECK(stages >= 16);
  CHECK(with_figures >= 12);
  Grid_free(g);
}

/* The pane's keys are actions of the table (lesson_next, lesson_prev), as bound. */
TEST(the_pane_names_the_bound_keys_and_the_stage_keys_move) {
  char path[1024];
  Lesson *l;
  SpError err;
  CHECK_EQ(Lesson_load(Lesson_path("ilp", path, sizeof path), &l, &err), SP_OK);
  if (!l) return;
  App app;
  CHECK_EQ(Lesson_start(&app, l, true, &err), SP_OK);
  Grid *g = Grid_new(W, H, true);
  View_draw(&app, g);
  char *t = Grid_toText(g);
  CHECK_HAS(t, "lesson ilp, stage 1/2");
  CHECK_HAS(t, "try: press c (pin:");
  CHECK_HAS(t, ". or Enter: next stage");
  free(t);
  CHECK_EQ(Actions_key(&app, '.'), ACT_REDRAW);
  CHECK_EQ(l->stage, 1);
  CHECK(app.plan && app.plan->solver.status == SOLVER_OPTIMAL);
  Actions_key(&app, '.');
  CHECK_EQ(l->stage, 1);
  CHECK_HAS(app.message, "the last stage");
  Actions_key(&app, ',');
  CHECK_EQ(l->stage, 0);
  app.grid = NULL;
  Grid_free(g);
  App_free(&app);
  Lesson_free(l);
}

static void Test_bad(const char *json, const char *want) {
  char path[] = "/tmp/spadmap-test-lesson-XXXXXX.json";
  int fd = mkstemps(path, 5);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK(write(fd, json, strlen(json)) == (ssize_t)strlen(json));
  close(fd);
  Lesson *l = NULL;
  SpError err = {0};
  CHECK_EQ(Lesson_load(path, &l, &err), SP_ERR_FORMAT);
  CHECK(l == NULL);
  CHECK_HAS(err.text, path);
  CHECK_HAS(err.text, want);
  remove(path);
}

TEST(a_bad_lesson_file_says_where_and_what_was_expected) {
  const char *head = "{\"format\": \"spadmap-lesson\", \"title\": \"t\", \"summary\": \"s\", \"network\": \"diamond\", ";
  char buf[1024];
  Test_bad("{\"format\": \"spadmap-lesson\",\n  \"title\": }", ":2:12: not valid JSON");
  Test_bad("{\"format\": \"lesson\"}", "$.format: expected \"spadmap-lesson\"");
  snprintf(buf, sizeof buf, "%s\"stages\": []}", head);
  Test_bad(buf, "$.stages: expected an array of at least one stage");
  snprintf(buf, sizeof buf, "%s\"stages\": [{\"text\": \"x\"}]}", head);
  Test_bad(buf, "$.stages[0].title: missing (expected a string)");
  snprintf(buf, sizeof buf, "%s\"stages\": [{\"title\": \"a\", \"text\": \"x\", \"do\": [\"budget_mr\", \"fly\"]}]}", head);
  Test_bad(buf, "$.stages[0].do[1]: unknown action \"fly\"");
  snprintf(buf, sizeof buf, "%s\"stages\": [{\"title\": \"a\", \"text\": [\"the {peek}\"]}]}", head);
  Test_bad(buf, "$.stages[0].text[0]: {peek}: not a figure");
  snprintf(buf, sizeof buf, "%s\"stages\": [{\"title\": \"a\", \"text\": \"x\", \"expect\": {\"spills\": 3}}]}", head);
  Test_bad(buf, "$.stages[0].expect.spills: expected a string");
  snprintf(buf, sizeof buf, "%s\"stages\": [{\"title\": \"a\", \"text\": \"x\", \"capture\": {\"v\": \"no group\"}}]}", head);
  Test_bad(buf, "$.stages[0].capture.v: expected one (group) holding the value");
}

TEST_MAIN("tui_lessons", T(every_lesson_replays_and_its_text_quotes_the_screen),
          T(the_pane_names_the_bound_keys_and_the_stage_keys_move), T(a_bad_lesson_file_says_where_and_what_was_expected))

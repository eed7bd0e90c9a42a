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
#include "layer_view.h"
#include "lesson.h"
#include "test.h"
#include "views.h"

enum { W = 140, H = 45 };

/* The explorer's rows above the pane, as text. */
static char *Test_main(App *app, Grid *g) {
  View_draw(app, g);
  int lh = LessonView_height(app, g), full = g->h;
  g->h -= lh;
  char *t = Grid_toText(g);
  g->h = full;
  return t;
}

/* The bundled lesson NAME loaded and started on app (its first stage); NULL, said, if either fails. */
static Lesson *Test_open(const char *name, App *app) {
  char path[1024];
  Lesson *l = NULL;
  SpError err;
  CHECK_EQ(Lesson_load(Lesson_path(name, path, sizeof path), &l, &err), SP_OK);
  if (!l) return NULL;
  CHECK_EQ(Lesson_start(app, l, true, &err), SP_OK);
  return l;
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
      char *whole = Grid_toText(g); /* at 140x45 every stage's text fits: nothing to scroll */
      if (strstr(whole, "more \xe2\x86\x93")) printf("  %s stage %d: the pane scrolls at %dx%d\n", l->name, k + 1, W, H);
      CHECK(!strstr(whole, "more \xe2\x86\x93"));
      free(whole);
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
  App app;
  Lesson *l = Test_open("ilp", &app);
  if (!l) return;
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

/* ---- the pane at 80x24 ------------------------------------------------------ */

/* Row r of the screen as text (into out). */
static void Test_row(const char *screen, int r, char *out, size_t n) {
  const char *p = screen;
  for (int i = 0; i < r && p; i++)
    if ((p = strchr(p, '\n'))) p++;
  snprintf(out, n, "%.*s", p ? (int)strcspn(p, "\n") : 0, p ? p : "");
}

/* Words separated by one space; a word split over two lines ("…" at a line's end) joined. */
static void Test_norm(const char *in, char *out, size_t n) {
  size_t k = 0;
  for (const char *p = in; *p && k + 1 < n; p++) {
    if (strncmp(p, "\xe2\x80\xa6\n", 4) == 0) { /* "…" then the next line: the word goes on */
      p += 3;
      continue;
    }
    bool sp = *p == ' ' || *p == '\n';
    if (sp && (k == 0 || out[k - 1] == ' ')) continue;
    out[k++] = sp ? ' ' : *p;
  }
  while (k > 0 && out[k - 1] == ' ') k--;
  out[k] = '\0';
}

/* Everything the pane's text rows show for the stage, read the way a learner
 * reads it: the rows in view, then the scroll key (as bound) while the pane says
 * "more ↓", each page's rows after the ones already read (a page keeps a line of
 * the one before). Returns the text rows joined by newlines (free()); *pages
 * counts the pages seen. */
static char *Test_readPane(App *app, Grid *g, int *pages) {
  static char rows[256][256];
  int nrows = 0;
  *pages = 0;
  for (int press = 0; press < 40; press++) {
    View_draw(app, g);
    int lh = LessonView_height(app, g), top = g->h - lh;
    char *t = Grid_toText(g), title[512], keys[512];
    Test_row(t, top, title, sizeof title);
    Test_row(t, g->h - 1, keys, sizeof keys);
    if (press > 0) CHECK_HAS(title, "more \xe2\x86\x91"); /* scrolled: the title says lines are above */
    char page[64][256];
    int n = 0;
    for (int r = top + 1; r < g->h - 2 && n < 64; r++) {
      char row[512];
      Test_row(t, r, row, sizeof row);
      snprintf(page[n++], sizeof page[0], "%s", row[0] == ' ' && row[1] == ' ' ? row + 2 : row);
    }
    free(t);
    (*pages)++;
    /* where this page starts among the rows read: the longest overlap of their end and its start */
    int skip = 0;
    for (int k = n < nrows ? n : nrows; k > 0 && !skip; k--) {
      bool same = true;
      for (int i = 0; i < k && same; i++) same = strcmp(rows[nrows - k + i], page[i]) == 0;
      if (same) skip = k;
    }
    for (int i = skip; i < n && nrows < 256; i++) snprintf(rows[nrows++], sizeof rows[0], "%s", page[i]);
    if (!strstr(keys, "more \xe2\x86\x93")) break; /* nothing below */
    CHECK(Actions_key(app, Actions_keyOf("lesson_down")) & ACT_REDRAW);
  }
  while (nrows > 0 && !rows[nrows - 1][0]) nrows--;
  size_t len = 1;
  for (int i = 0; i < nrows; i++) len += strlen(rows[i]) + 1;
  char *all = calloc(1, len);
  for (int i = 0; all && i < nrows; i++) strcat(strcat(all, rows[i]), "\n");
  return all;
}

/* At 80x24 the pane shows a few rows; every word of every stage, each quoted
 * figure among them, is read by scrolling it (it showed the first rows and lost
 * the rest: fragmentation's first stage stopped at "too small for the gap's").
 * Each wrapped row holds whole words, and the pane says when more is below. */
TEST(at_80x24_every_stage_reads_whole_by_scrolling_the_pane) {
  char **paths;
  int n = Lesson_listFiles(&paths);
  CHECK(n >= 8);
  Grid *g = Grid_new(80, 24, true);
  int scrolled = 0, figures = 0;
  for (int i = 0; i < n; i++) {
    Lesson *l;
    SpError err;
    Status st = Lesson_load(paths[i], &l, &err);
    free(paths[i]);
    CHECK_EQ(st, SP_OK);
    if (st) continue;
    App app;
    CHECK_EQ(Lesson_start(&app, l, true, &err), SP_OK);
    app.grid = g;
    for (int k = 0; k < l->nstages; k++) {
      if (k > 0) CHECK_EQ(Lesson_goto(&app, k, &err), SP_OK);
      const LessonStage *s = &l->stages[k];
      int pages;
      char *pane = Test_readPane(&app, g, &pages);
      if (!pane) continue;
      scrolled += pages > 1;
      static char normw[4096], normp[16384], filled[4096], all[16384];
      Test_norm(pane, normp, sizeof normp);
      all[0] = '\0';
      for (int t = 0; t < s->ntext; t++) {
        Lesson_fill(&app, g, s->text[t], filled, sizeof filled);
        Test_norm(filled, normw, sizeof normw);
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s ", normw);
        if (!strstr(normp, normw)) {
          printf("  %s stage %d, paragraph %d is not all in the pane at 80x24:\n%s\n", l->name, k + 1, t + 1, pane);
          CHECK(false);
        }
        for (const char *p = strchr(s->text[t], '{'); p; p = strchr(p + 1, '{')) {
          char name[96], val[128];
          snprintf(name, sizeof name, "%.*s", (int)(strchr(p, '}') - p - 1), p + 1);
          if (strncmp(name, "key:", 4) == 0 || !Lesson_figure(&app, name, val, sizeof val)) continue;
          if (!Test_shows(pane, val)) printf("  %s stage %d: {%s} = %s not in the pane\n", l->name, k + 1, name, val);
          CHECK(Test_shows(pane, val));
          figures++;
        }
      }
      /* rows break at spaces: a row's last word and the next row's first are two words of the text */
      for (char *nl = strchr(pane, '\n'); nl && nl[1] && nl[1] != '\n'; nl = strchr(nl + 1, '\n')) {
        if (nl == pane || nl[-1] == '\n' || (nl - pane >= 3 && strncmp(nl - 3, "\xe2\x80\xa6", 3) == 0)) continue;
        char pair[128];
        const char *a = nl - 1;
        while (a > pane && a[-1] != ' ' && a[-1] != '\n') a--;
        snprintf(pair, sizeof pair, "%.*s %.*s", (int)(nl - a), a, (int)strcspn(nl + 1, " \n"), nl + 1);
        CHECK_HAS(all, pair);
      }
      free(pane);
    }
    app.grid = NULL;
    App_free(&app);
    Lesson_free(l);
  }
  free(paths);
  CHECK(scrolled >= 5); /* most stages overflow 80x24's five rows of text */
  CHECK(figures >= 12);
  Grid_free(g);
}

/* A paragraph longer than the pane at 80x24: "more ↓ N lines (Space)" at first,
 * the last paragraph's end after the scroll key, "more ↑" then; the key back up
 * shows the first line again. The hide key gives the explorer the pane's rows
 * (the title line stays, naming the key to show it). */
TEST(at_80x24_the_scroll_and_hide_keys_do_what_the_pane_says) {
  App app;
  Lesson *l = Test_open("fragmentation", &app);
  if (!l) return;
  Grid *g = Grid_new(80, 24, true);
  app.grid = g;
  View_draw(&app, g);
  char *t = Grid_toText(g), down[16], up[16], pane[16], want[64];
  Key_name(Actions_keyOf("lesson_down"), down, sizeof down);
  Key_name(Actions_keyOf("lesson_up"), up, sizeof up);
  Key_name(Actions_keyOf("lesson_pane"), pane, sizeof pane);
  snprintf(want, sizeof want, "lines (%s)", down);
  CHECK_HAS(t, "more \xe2\x86\x93");
  CHECK_HAS(t, want);
  CHECK_HAS(t, "resnet50 at 2.30M (M_R)");
  CHECK(!strstr(t, "below the highest block")); /* the stage's last words: below the pane */
  CHECK_EQ(LessonView_height(&app, g), 8);      /* the explorer keeps 16 rows */
  free(t);
  CHECK_EQ(Actions_key(&app, Actions_keyOf("lesson_down")), ACT_REDRAW);
  View_draw(&app, g);
  t = Grid_toText(g);
  CHECK_HAS(t, "below the highest block.");
  snprintf(want, sizeof want, "(%s)", up);
  CHECK_HAS(t, "more \xe2\x86\x91");
  CHECK_HAS(t, want);
  CHECK(!strstr(t, "more \xe2\x86\x93"));
  free(t);
  Actions_key(&app, Actions_keyOf("lesson_down")); /* at the end: it says so, nothing moves */
  CHECK_HAS(app.message, "the end of this stage's text");
  Actions_key(&app, Actions_keyOf("lesson_up"));
  View_draw(&app, g);
  t = Grid_toText(g);
  CHECK_HAS(t, "resnet50 at 2.30M (M_R)");
  CHECK(!strstr(t, "more \xe2\x86\x91"));
  free(t);
  /* hidden: one title line, the explorer on 23 rows (its key line just above it) */
  CHECK_EQ(Actions_key(&app, Actions_keyOf("lesson_pane")), ACT_REDRAW);
  View_draw(&app, g);
  CHECK_EQ(LessonView_height(&app, g), 1);
  t = Grid_toText(g);
  char row[512];
  Test_row(t, 23, row, sizeof row);
  snprintf(want, sizeof want, "%s: show the text", pane);
  CHECK_HAS(row, "lesson fragmentation, stage 1/3");
  CHECK_HAS(row, want);
  CHECK(!strstr(t, "resnet50 at 2.30M (M_R)"));
  free(t);
  /* the next stage keeps the pane hidden; showing it shows that stage's text from its start */
  Actions_key(&app, Actions_keyOf("lesson_next"));
  Actions_key(&app, Actions_keyOf("lesson_pane"));
  View_draw(&app, g);
  CHECK_EQ(LessonView_height(&app, g), 8);
  t = Grid_toText(g);
  CHECK_HAS(t, "stage 2/3");
  CHECK(!strstr(t, "more \xe2\x86\x91"));
  free(t);
  /* an ASCII terminal: the marks in ASCII */
  Grid *a = Grid_new(80, 24, false);
  app.grid = a;
  Actions_key(&app, Actions_keyOf("lesson_prev"));
  View_draw(&app, a);
  t = Grid_toText(a);
  CHECK_HAS(t, "more v ");
  free(t);
  Actions_key(&app, Actions_keyOf("lesson_down"));
  View_draw(&app, a);
  t = Grid_toText(a);
  CHECK_HAS(t, "more ^ ");
  free(t);
  app.grid = NULL;
  Grid_free(a);
  Grid_free(g);
  App_free(&app);
  Lesson_free(l);
}

/* Lessons open the layer view (loopnest): the pane's keys work over it too ('.'
 * and the scroll key did nothing there), and over the sweep, while the views'
 * own keys stay their own. */
TEST(the_pane_keys_work_over_the_layer_view) {
  App app;
  Lesson *l = Test_open("loopnest", &app);
  if (!l) return;
  Grid *g = Grid_new(80, 24, true);
  app.grid = g;
  View_draw(&app, g);
  CHECK(LayerView_isOpen(&app));
  CHECK_EQ(Actions_key(&app, Actions_keyOf("lesson_down")), ACT_REDRAW);
  CHECK(l->scroll > 0);
  CHECK_EQ(Actions_key(&app, Actions_keyOf("lesson_next")), ACT_REDRAW);
  CHECK_EQ(l->stage, 1);
  CHECK_EQ(l->scroll, 0);
  app.grid = NULL;
  App_free(&app);
  Lesson_free(l);
  /* over the sweep: '.' goes on (it said "no action on . in the sweep"); Enter stays the sweep's */
  l = Test_open("ilp", &app);
  if (!l) return;
  app.grid = g;
  Actions_key(&app, Actions_keyOf("sweep"));
  CHECK(app.sweep_open && app.sweep);
  Actions_key(&app, K_ENTER); /* a sweep point's plan, not the next stage */
  CHECK_EQ(l->stage, 0);
  CHECK(!app.sweep_open);
  Actions_key(&app, Actions_keyOf("sweep"));
  CHECK(app.sweep_open && app.sweep);
  Actions_key(&app, Actions_keyOf("lesson_next"));
  CHECK_EQ(l->stage, 1);
  app.grid = NULL;
  Grid_free(g);
  App_free(&app);
  Lesson_free(l);
}

/* A word wider than the pane's line (a long path) is split with "…" ending its
 * first part and read whole across the two rows; paragraphs past the fifth row
 * are reached by scrolling, and the last one ends the text. */
TEST(a_word_wider_than_the_pane_is_split_with_a_mark) {
  char path[] = "/tmp/spadmap-test-lesson-XXXXXX.json";
  int fd = mkstemps(path, 5);
  CHECK(fd >= 0);
  if (fd < 0) return;
  char word[121];
  for (int i = 0; i < 120; i++) word[i] = (char)('a' + i % 26);
  word[120] = '\0';
  char json[2048];
  snprintf(json, sizeof json,
           "{\"format\": \"spadmap-lesson\", \"title\": \"t\", \"summary\": \"s\", \"network\": \"diamond\", "
           "\"stages\": [{\"title\": \"long\", \"text\": [\"one two %s three\", \"p2\", \"p3\", \"p4\", "
           "\"the peak is {peak} and this is the end\"]}]}", word);
  CHECK(write(fd, json, strlen(json)) == (ssize_t)strlen(json));
  close(fd);
  Lesson *l;
  SpError err;
  CHECK_EQ(Lesson_load(path, &l, &err), SP_OK);
  remove(path);
  if (!l) return;
  App app;
  CHECK_EQ(Lesson_start(&app, l, true, &err), SP_OK);
  Grid *g = Grid_new(80, 24, true);
  app.grid = g;
  int pages;
  char *pane = Test_readPane(&app, g, &pages);
  CHECK(pages > 1);
  CHECK_HAS(pane, "\xe2\x80\xa6\n"); /* the split's mark at a row's end */
  static char norm[8192], want[256];
  Test_norm(pane, norm, sizeof norm);
  snprintf(want, sizeof want, "one two %s three", word);
  CHECK_HAS(norm, want);
  char peak[32];
  CHECK(Lesson_figure(&app, "peak", peak, sizeof peak));
  snprintf(want, sizeof want, "the peak is %s and this is the end", peak);
  CHECK_HAS(norm, want);
  int cols = 0, widest = 0; /* no row wider than the pane's text (76 columns at 80) */
  for (const char *r = pane; *r; r++)
    if (*r == '\n') cols = 0;
    else if ((*r & 0xC0) != 0x80 && ++cols > widest) widest = cols;
  CHECK_EQ(widest, 76);
  free(pane);
  app.grid = NULL;
  Grid_free(g);
  App_free(&app);
  Lesson_free(l);
}

/* In a lesson the help is drawn above the pane, on fewer rows: PgDn reaches
 * every page it has there (it cycled through the full screen's count, 4 of 6,
 * and the lesson keys' own page was never shown). */
TEST(in_a_lesson_at_80x24_pgdn_reaches_every_help_page) {
  App app;
  Lesson *l = Test_open("replacement", &app);
  if (!l) return;
  Grid *g = Grid_new(80, 24, true);
  app.grid = g;
  Actions_key(&app, Actions_keyOf("help"));
  int seen = 0;
  bool names[3] = {false, false, false};
  const char *lesson_actions[3] = {"lesson_down:", "lesson_up:", "lesson_pane:"};
  for (int press = 0; press < 12; press++) {
    View_draw(&app, g);
    char *t = Grid_toText(g);
    for (int i = 0; i < 3; i++) names[i] = names[i] || strstr(t, lesson_actions[i]);
    CHECK_HAS(t, "lesson replacement, stage 1/4"); /* the pane stays under the help */
    free(t);
    seen++;
    Actions_key(&app, K_PGDN);
    if (app.help_page == 0) break; /* back to the first page */
  }
  CHECK(seen > 4); /* more pages above the pane than on the whole screen */
  for (int i = 0; i < 3; i++) {
    if (!names[i]) printf("  %s is on no help page\n", lesson_actions[i]);
    CHECK(names[i]);
  }
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
          T(the_pane_names_the_bound_keys_and_the_stage_keys_move), T(at_80x24_every_stage_reads_whole_by_scrolling_the_pane),
          T(at_80x24_the_scroll_and_hide_keys_do_what_the_pane_says), T(the_pane_keys_work_over_the_layer_view),
          T(in_a_lesson_at_80x24_pgdn_reaches_every_help_page),
          T(a_word_wider_than_the_pane_is_split_with_a_mark), T(a_bad_lesson_file_says_where_and_what_was_expected))

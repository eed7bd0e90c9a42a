/* spadmap lesson [NAME]: the lessons (data/lessons/NAME.json, tui/lesson.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "datadir.h"
#include "fileio.h"
#include "lesson.h"
#include "snapshot.h"
#include "term.h"
#include "views.h"
#include "worker.h"

static const CliOption Lesson_options[] = {
  {"--stage", "K", "start at stage K (1 = the first)"},
  {"--out", "FILE", "no terminal: write stage K's screen to FILE.svg (colours) or FILE.txt, as snapshot does"},
  {"--size", "WxH", "with --out: the screen size (default 140x45)"},
  {"--keys", "KEYS", "with --out: keys to press first, as snapshot's (\" \" scrolls the lesson's text a page)"},
  {"--check", NULL, "show every stage and verify its claims and quoted figures: which one is false (exit 1 then)"},
  {NULL, NULL, NULL},
};

/* One line per lesson: its name, what it shows, on which network. */
static int Lesson_list(void) {
  char **paths;
  int n = Lesson_listFiles(&paths), bad = 0;
  if (n == 0) { /* an install without its data: an error, and no header over an empty list on stdout */
    const char *env = getenv("SPADMAP_DATA");
    fprintf(stderr, "spadmap lesson: no lessons in %s (the data folder%s)\n", Cli_safe(Data_file("lessons")),
            env && *env ? ", set by SPADMAP_DATA" : "");
    return EXIT_INVALID;
  }
  printf("lessons (spadmap lesson NAME opens one in the explorer):\n");
  for (int i = 0; i < n; i++) {
    Lesson *l;
    SpError err;
    if (Lesson_load(paths[i], &l, &err)) {
      fprintf(stderr, "spadmap lesson: %s\n", Cli_safe(err.text));
      bad++;
    } else {
      const char *net = strrchr(l->network, '/');
      char stem[128];
      snprintf(stem, sizeof stem, "%s", net ? net + 1 : l->network);
      stem[strcspn(stem, ".")] = '\0';
      printf("  %-14s %s (%s, %d stage%s)\n", l->name, Cli_safe(l->summary), Cli_safe(stem), l->nstages,
             l->nstages == 1 ? "" : "s");
      Lesson_free(l);
    }
    free(paths[i]);
  }
  free(paths);
  return bad ? EXIT_INVALID : EXIT_OK;
}

/* --check: every stage shown as a learner would reach it directly, its claims
 * and quoted figures verified; one line per claim. Exit 1 when one is false. */
static int Lesson_checkAll(Lesson *l) {
  App app;
  SpError err;
  int bad = 0, claims = 0;
  Status st = Lesson_start(&app, l, true, &err);
  static char report[65536];
  for (int k = 0; k < l->nstages; k++) {
    if (k > 0) st = Lesson_goto(&app, k, &err);
    report[0] = '\0';
    bad += Lesson_check(&app, report, sizeof report);
    claims += l->stages[k].nclaims;
    for (char *line = strtok(report, "\n"); line; line = strtok(NULL, "\n")) printf("%s\n", Cli_safe(line));
    (void)st; /* a stage that fails is in the report (its error) */
  }
  printf("%s: %d stage%s, %d claim%s: %s\n", Cli_safe(l->path), l->nstages, l->nstages == 1 ? "" : "s", claims,
         claims == 1 ? "" : "s", bad ? "FALSE (above: a claim that does not hold, a figure without a value or a stage that failed)" : "all hold");
  app.grid = NULL;
  App_free(&app);
  Lesson_free(l);
  return bad ? EXIT_INVALID : EXIT_OK;
}

static int Lesson_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_lesson;
  int rc = Cli_parse(c, argc, argv, 0, 1, &a);
  if (rc >= 0) return rc;
  if (a.npos == 0) return Lesson_list();
  char path[1024];
  Lesson *l;
  SpError err;
  if (!Lesson_path(a.pos[0], path, sizeof path)) {
    fprintf(stderr, "spadmap lesson: a lesson name or path of %zu bytes (at most 1023)\n", strlen(a.pos[0]));
    return EXIT_USAGE;
  }
  if (access(path, F_OK) != 0 && !strchr(a.pos[0], '/')) {
    fprintf(stderr, "spadmap lesson: no lesson \"%s\" (spadmap lesson lists them)\n", Cli_safe(a.pos[0]));
    return EXIT_USAGE;
  }
  if (Lesson_load(path, &l, &err)) {
    fprintf(stderr, "spadmap lesson: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  long long stage = 1;
  const char *st_text = Cli_value(c, &a, "--stage"), *out = Cli_value(c, &a, "--out");
  if (st_text && !Cli_int(st_text, 1, l->nstages, &stage)) {
    fprintf(stderr, "spadmap lesson: --stage \"%s\": expected a stage from 1 to %d\n", Cli_safe(st_text), l->nstages);
    Lesson_free(l);
    return EXIT_USAGE;
  }
  int w = 140, h = 45;
  const char *size = Cli_value(c, &a, "--size");
  if (size && (sscanf(size, "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 1000 || h > 1000)) {
    fprintf(stderr, "spadmap lesson: --size wants WxH, e.g. 140x45 (got \"%s\")\n", Cli_safe(size));
    Lesson_free(l);
    return EXIT_USAGE;
  }
  if (!out && Cli_value(c, &a, "--keys")) {
    fprintf(stderr, "spadmap lesson: --keys goes with --out (in a terminal, press them)\n");
    Lesson_free(l);
    return EXIT_USAGE;
  }
  if (Cli_value(c, &a, "--check")) {
    if (out || st_text) {
      fprintf(stderr, "spadmap lesson: --check shows every stage itself (no --out, no --stage)\n");
      Lesson_free(l);
      return EXIT_USAGE;
    }
    return Lesson_checkAll(l);
  }
  App app;
  Status st = Lesson_start(&app, l, out != NULL, &err);
  if (!st && stage > 1) st = Lesson_goto(&app, (int)stage - 1, &err);
  if (!st) LessonView_freeze(&app); /* the text's figures: the stage's state, not what --keys does */
  if (st) {
    fprintf(stderr, "spadmap lesson: %s\n", Cli_safe(err.text));
    App_free(&app);
    Lesson_free(l);
    return EXIT_INVALID;
  }
  rc = EXIT_OK;
  if (out) { /* a picture of the stage, without a terminal */
    Grid *g = Grid_new(w, h, true);
    FileOut fo;
    if (!g) rc = EXIT_INVALID;
    else {
      app.grid = g;
      View_draw(&app, g); /* the screen the keys act on (the pane's size) */
      const char *keys = Cli_value(c, &a, "--keys"), *bad = NULL;
      if (keys && !Snapshot_keys(&app, keys, &bad)) {
        fprintf(stderr, "spadmap lesson: unknown key name at \"%s\"\n", Cli_safe(bad));
        rc = EXIT_USAGE;
      }
      View_draw(&app, g);
      size_t len = strlen(out);
      if (!rc && FileIO_open(out, &fo, &err)) {
        fprintf(stderr, "spadmap lesson: %s\n", err.text);
        rc = EXIT_INVALID;
      } else if (!rc) {
        if (len > 4 && strcmp(out + len - 4, ".svg") == 0) Snapshot_writeSVG(g, fo.f);
        else Snapshot_writeText(g, fo.f);
        if (FileIO_commit(&fo, &err)) {
          fprintf(stderr, "spadmap lesson: %s\n", err.text);
          rc = EXIT_INVALID;
        }
      }
      app.grid = NULL;
      Grid_free(g);
    }
  } else rc = Term_run(&app) ? EXIT_INVALID : EXIT_OK;
  App_free(&app);
  Lesson_free(l);
  if (Worker_abandoned()) { /* a solve that does not listen still runs: leave without exit handlers under it */
    fflush(stdout);
    fflush(stderr);
    _exit(rc);
  }
  return rc;
}

const CliCommand Cli_lesson = {"lesson", "[NAME|FILE.json] [--check] [--stage K] [--out F.svg|F.txt --size WxH --keys KEYS]",
                               "Short lessons in the explorer: without NAME, the list; with it, the explorer at the "
                               "lesson's first stage and its narrative pane (. next stage, , back).",
                               Lesson_options, Lesson_run, CLI_IN(FILE_LESSON) | CLI_IN_NET | CLI_IN(FILE_ARCH)};

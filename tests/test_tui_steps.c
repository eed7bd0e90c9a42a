/* The steps map and the scheme table as text snapshots (tests/screens/steps_*.txt,
 * shuttle_*.txt; SPADMAP_UPDATE_SCREENS=1 rewrites them), and the cursor keys. */
#include "steps_view.h"

#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "shuttle_pane.h"
#include "test.h"

static char *Tv_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

/* The grid's text against tests/screens/NAME.txt. */
static void Tv_compare(const Grid *g, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/screens/%s.txt", SPADMAP_TEST_DIR, name);
  char *got = Grid_toText(g);
  if (getenv("SPADMAP_UPDATE_SCREENS")) {
    FILE *f = fopen(path, "wb");
    if (f) fputs(got, f), fclose(f);
  }
  char *want = Tv_read(path);
  CHECK(want != NULL);
  if (want && strcmp(want, got) != 0) {
    printf("  %s differs; got:\n%s\n", path, got);
    CHECK(0);
  }
  free(want);
  free(got);
}

static Layer Tv_example(void) {
  Layer l = {0};
  snprintf(l.name, sizeof l.name, "example2");
  l.C = 2; l.K = 2; l.R = l.S = 3; l.P = l.Q = 3; l.N = 1;
  l.stride_h = l.stride_w = 1;
  l.groups = 1;
  l.op = -1;
  return l;
}

TEST(steps_map_example2) {
  Layer l = Tv_example();
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 2;
  static const StepsStrategy strategies[] = {STEPS_ROW, STEPS_ZIGZAG};
  static const char *const names[] = {"steps_row", "steps_zigzag"};
  for (int i = 0; i < 2; i++) {
    StepsPlan p;
    SpError err;
    CHECK_EQ(Steps_plan(&l, &o, strategies[i], &p, &err), SP_OK);
    StepsViewState s = {0};
    CHECK(StepsView_move(&s, &p, 1));
    CHECK_EQ(s.cursor, 1);
    Grid *g = Grid_new(80, 24, true);
    StepsView_draw(g, 0, 0, 80, 24, &p, &s);
    Tv_compare(g, names[i]);
    /* the keys stop at the ends */
    CHECK(StepsView_move(&s, &p, 1 << 30));
    CHECK(!StepsView_move(&s, &p, 1));
    CHECK_EQ(s.cursor, p.nsteps - 1);
    CHECK(StepsView_move(&s, &p, -(1 << 30)));
    CHECK(!StepsView_move(&s, &p, -1));
    Grid_free(g);
    StepsPlan_free(&p);
  }
}

/* A longer plan scrolls to keep the cursor in view (ASCII glyphs). */
TEST(steps_map_scrolls) {
  Layer l = Tv_example();
  l.C = 1; l.K = 1; l.P = l.Q = 10;
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 1;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ZIGZAG, &p, &err), SP_OK);
  StepsViewState s = {0};
  for (int i = 0; i < 7; i++) StepsView_move(&s, &p, 10);
  CHECK_EQ(s.cursor, 70);
  Grid *g = Grid_new(80, 24, false);
  StepsView_draw(g, 0, 0, 80, 24, &p, &s);
  Tv_compare(g, "steps_scroll");
  Grid_free(g);
  StepsPlan_free(&p);
}

TEST(scheme_table_vgg16_c11) {
  const ShuttlePaperRow *row = &Shuttle_paperVgg16[10];
  Layer l;
  ShuttleOptions o;
  Shuttle_paperLayer(row, &l);
  Shuttle_paperOptions(row, &o);
  ShuttleLayer r;
  SpError err;
  CHECK_EQ(Shuttle_analyze(&l, &o, &r, &err), SP_OK);
  Grid *g = Grid_new(90, 14, true);
  ShuttleView_draw(g, 0, 0, 90, 14, &l, &o, &r);
  Tv_compare(g, "shuttle_vgg16_c11");
  Grid_free(g);
}

/* A patch grid taller and wider than its space scrolls to the step's patches
 * (it showed the top-left corner: the last steps' @ was off the grid). */
TEST(steps_patch_grid_follows_the_step) {
  Layer l = Tv_example();
  l.C = 1; l.K = 1; l.P = l.Q = 40;
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 4;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &p, &err), SP_OK);
  const int moves[] = {-(1 << 30), 1 << 30, -10}; /* Home, End, PgUp */
  StepsViewState s = {0};
  for (int k = 0; k < 3; k++) {
    StepsView_move(&s, &p, moves[k]);
    Grid *g = Grid_new(80, 24, false);
    StepsView_draw(g, 0, 0, 80, 24, &p, &s);
    char *text = Grid_toText(g);
    CHECK(strchr(text, '@') != NULL);
    free(text);
    Grid_free(g);
  }
  StepsPlan_free(&p);
}

/* Addresses past 999,999 are printed whole on the axis (2359296 showed as
 * "235929": the last digit fell off the 6-cell field). */
TEST(steps_map_axis_millions) {
  Layer l = Tv_example();
  l.C = 512; l.K = 512; l.P = l.Q = 2; /* kernels: 512 * 512 * 9 = 2,359,296 elements */
  StepsOptions o;
  StepsOptions_init(&o);
  o.group_size = 2;
  StepsPlan p;
  SpError err;
  CHECK_EQ(Steps_plan(&l, &o, STEPS_ROW, &p, &err), SP_OK);
  StepsViewState s = {0};
  Grid *g = Grid_new(80, 24, false);
  StepsView_draw(g, 0, 0, 80, 24, &p, &s);
  char *text = Grid_toText(g);
  CHECK(strstr(text, " 2.36M") != NULL); /* the input slots start after the kernels */
  CHECK(strstr(text, "235929") == NULL);
  free(text);
  Grid_free(g);
  StepsPlan_free(&p);
}

/* The layer view's steps map refuses a plan it could not replay at every redraw
 * (a 4096x4096 S1 plan: 16.7 M steps, 2.5 GB, seconds a key); at the cap it
 * builds the plan. */
TEST(steps_pane_caps_the_steps) {
  Layer l = Tv_example();
  l.C = 1; l.K = 1; l.R = l.S = 1; l.P = 1024; l.Q = 257; /* 263,168 patches */
  char err[256] = "";
  atomic_int cancel = 0;
  CHECK(ShuttlePane_solve(1, &l, 4, &cancel, NULL, NULL, err, sizeof err) == NULL); /* S1: a patch a step */
  CHECK(strstr(err, "263168 steps") != NULL);
  CHECK(strstr(err, "more than the 262144") != NULL);
  /* row-by-row at G = 4: 65,792 steps, shown */
  ShuttlePaneResult *r = ShuttlePane_solve(2, &l, 4, &cancel, NULL, NULL, err, sizeof err);
  CHECK(r != NULL);
  Grid *g = Grid_new(100, 24, false);
  ShuttlePane_draw(g, 0, 0, 100, 24, r);
  char *text = Grid_toText(g);
  CHECK(strstr(text, "G = 4, 65792 steps") != NULL);
  free(text);
  Grid_free(g);
  ShuttlePaneResult_free(r);
}

TEST_MAIN("tui_steps", T(steps_map_example2), T(steps_map_scrolls), T(scheme_table_vgg16_c11),
          T(steps_map_axis_millions), T(steps_pane_caps_the_steps), T(steps_patch_grid_follows_the_step))

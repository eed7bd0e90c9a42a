/* The layer view (I) as issue 26 point 8 asks: its keys are actions of the one
 * table (rebindable, listed by ? there), an architecture file of the user's
 * (--arch F or the O prompt, data/arch/smartshuttle.json included), one naming
 * of the loop dimensions on screen (CoSA's, the paper's in a legend line), and
 * durations with their unit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "app.h"
#include "layer_view.h"
#include "snapshot.h"
#include "test.h"
#include "tui_test.h"
#include "views.h"

#define NETS SPADMAP_DATA_DIR "/networks/"
#define SMARTSHUTTLE SPADMAP_DATA_DIR "/arch/smartshuttle.json"

/* alexnet's features.10 (a 3x3 convolution) in the layer view. */
static void Test_openLayer(App *app, const char *arch) {
  SpError err;
  CHECK_EQ(App_init(app, NETS "alexnet.json", &err), SP_OK);
  app->deterministic = true;
  if (arch) snprintf(app->layer_arch, sizeof app->layer_arch, "%s", arch);
  App_resolve(app);
  Test_keys(app, "<Right><Right><Right><Right><Right><Right>I");
  CHECK(LayerView_isOpen(app));
}

static bool Test_figure(App *app, const char *name, const char *want) {
  char v[128];
  return LayerView_figure(app, name, v, sizeof v) && strcmp(v, want) == 0;
}

TEST(arch_file_from_the_command_line_and_from_the_prompt) {
  App app;
  Test_openLayer(&app, SMARTSHUTTLE); /* as spadmap NET --arch data/arch/smartshuttle.json */
  CHECK(Test_figure(&app, "arch", "smartshuttle"));
  CHECK(Test_figure(&app, "layer_method", "cosa"));
  char v[64];
  CHECK(LayerView_figure(&app, "latency", v, sizeof v)); /* CoSA mapped the layer on it */
  char *t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "arch smartshuttle");
  free(t);
  /* a: the built-ins, then the user's file again */
  Test_keys(&app, "a");
  CHECK(Test_figure(&app, "arch", "cosa-baseline"));
  Test_keys(&app, "aaa");
  CHECK(Test_figure(&app, "arch", "smartshuttle"));
  App_free(&app);

  /* the prompt (O in the layer view): a bad file says why and keeps the view */
  Test_openLayer(&app, NULL);
  CHECK(Test_figure(&app, "arch", "cosa-baseline"));
  Test_keys(&app, "O");
  CHECK(app.prompt && app.prompt_kind == PROMPT_ARCH);
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "architecture file for the layer view");
  free(t);
  snprintf(app.prompt_buf, sizeof app.prompt_buf, "/nonexistent/arch.json");
  Test_keys(&app, "<Enter>");
  CHECK(app.message_warn);
  CHECK_HAS(app.message, "/nonexistent/arch.json");
  CHECK(LayerView_isOpen(&app));
  CHECK(Test_figure(&app, "arch", "cosa-baseline"));
  Test_keys(&app, "O");
  snprintf(app.prompt_buf, sizeof app.prompt_buf, "%s", SMARTSHUTTLE);
  Test_keys(&app, "<Enter>");
  CHECK(!app.message_warn);
  CHECK(Test_figure(&app, "arch", "smartshuttle"));
  CHECK_EQ(strcmp(app.layer_arch, SMARTSHUTTLE), 0); /* kept for the next layer opened */
  App_free(&app);
}

TEST(layer_keys_are_actions_rebound_and_listed_by_help_there) {
  CHECK(Actions_find("layer_method_next") && Actions_find("layer_arch") && Actions_find("layer_arch_file") &&
        Actions_find("layer_cancel") && Actions_find("layer_group_up") && Actions_find("layer_group_down"));
  CHECK_EQ(Action_scope(Actions_find("layer_arch")), ACT_SCOPE_LAYER);
  CHECK_EQ(Action_scope(Actions_find("allocator")), ACT_SCOPE_MAIN);
  /* a key is unique within its view: layer_arch cannot take the layer view's m */
  CHECK(Actions_configure("layer_arch=m")[0] != '\0');
  CHECK_EQ(Actions_configure("layer_arch=A")[0], '\0');
  App app;
  Test_openLayer(&app, NULL);
  Test_keys(&app, "a"); /* no longer bound in the layer view */
  CHECK(Test_figure(&app, "arch", "cosa-baseline"));
  Test_keys(&app, "A");
  CHECK(Test_figure(&app, "arch", "cosa-4xpe"));
  /* ? over the layer view lists its actions, as bound */
  Test_keys(&app, "?");
  char *t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "layer_arch");
  CHECK_HAS(t, "layer_arch_file");
  CHECK_HAS(t, "layer_group_down");
  CHECK(strstr(t, "budget = M_R") == NULL); /* the explorer's own keys are not its */
  free(t);
  Test_keys(&app, "x"); /* any key closes the help; the view stays */
  CHECK(!app.help && LayerView_isOpen(&app));
  CHECK_EQ(Actions_configure("layer_arch=a")[0], '\0');
  /* a layer action with the view closed says how to open it */
  Test_keys(&app, "<Esc>");
  CHECK(!LayerView_isOpen(&app));
  CHECK_EQ(Actions_find("layer_arch")->run(&app), ACT_REDRAW);
  CHECK_HAS(app.message, "the layer view is not open");
  App_free(&app);
}

TEST(one_naming_on_screen_and_durations_in_cycles) {
  App app;
  Test_openLayer(&app, NULL);
  LayerView_defer(&app, true); /* m passes the mappers without mapping with each */
  for (int i = 0; i < 16 && !Test_figure(&app, "layer_method", "smartshuttle"); i++) Test_keys(&app, "m");
  LayerView_defer(&app, false);
  char *t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "R3 S3 P13 Q13 C256 K256"); /* the title: CoSA's names */
  CHECK_HAS(t, "SmartShuttle: K=256 C=256 P=13 Q=13 R=3");
  CHECK(strstr(t, "M=256") == NULL); /* the paper's M (CoSA's K) on the same screen as CoSA's */
  CHECK_HAS(t, "<TK, TC, TP, TQ>");
  CHECK_HAS(t, "names: CoSA's"); /* and the paper's letters in the legend line */
  CHECK_HAS(t, "<Tm,Tn,Tr,Tc>");
  free(t);
  LayerView_defer(&app, true);
  for (int i = 0; i < 16 && !Test_figure(&app, "layer_method", "steps-zigzag"); i++) Test_keys(&app, "m");
  LayerView_defer(&app, false);
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "duration 752,171 cycles");
  CHECK_HAS(t, "peak 595,456 elements");
  free(t);
  App_free(&app);
}

/* The steps map's cursor keys are actions of the table too (issue 26, point 8:
 * they were hard-wired in steps_view.c): rebound, the new key moves the step,
 * ? over the view lists them, and the old key falls back to the layer view's
 * own binding (Right: the next method). */
TEST(steps_map_keys_are_actions_rebound_and_listed) {
  CHECK_EQ(Action_scope(Actions_find("steps_next")), ACT_SCOPE_STEPS);
  CHECK_EQ(Actions_keyOf("steps_prev"), K_LEFT); /* the defaults are the keys it had */
  CHECK_EQ(Actions_keyOf("steps_last"), K_END);
  CHECK(Actions_configure("steps_next=m")[0] != '\0'); /* would hide the layer view's m */
  CHECK(Actions_configure("steps_next=q")[0] != '\0'); /* would hide quit over the view */
  CHECK(Actions_configure("steps_next=<Left>")[0] != '\0'); /* steps_prev's */
  CHECK_EQ(Actions_configure("steps_next=j,steps_last=J")[0], '\0');
  App app;
  Test_openLayer(&app, NULL);
  LayerView_defer(&app, true);
  for (int i = 0; i < 16 && !Test_figure(&app, "layer_method", "steps-row"); i++) Test_keys(&app, "m");
  LayerView_defer(&app, false);
  CHECK(Test_figure(&app, "layer_method", "steps-row"));
  char *t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "step 1 of 43");
  CHECK_HAS(t, "j: step"); /* the map's legend gives the keys as bound */
  CHECK_HAS(t, "Left/j/PgUp/PgDn/Home/J step");
  free(t);
  Test_keys(&app, "jj");
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "step 3 of 43");
  free(t);
  Test_keys(&app, "J");
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "step 43 of 43");
  free(t);
  Test_keys(&app, "<Left><Home>");
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "step 1 of 43");
  free(t);
  /* ? over the view lists the map's actions with their keys */
  Test_keys(&app, "?");
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "steps_next: steps map: the next step");
  CHECK_HAS(t, "steps_page_prev");
  free(t);
  Test_keys(&app, "x");
  /* Right is no step key now: the layer view's binding of it (the next method) */
  Test_keys(&app, "<Right>");
  CHECK(Test_figure(&app, "layer_method", "steps-zigzag"));
  CHECK_EQ(Actions_configure("steps_next=<Right>,steps_last=<End>")[0], '\0');
  /* by name with another method shown: says so */
  LayerView_defer(&app, true);
  for (int i = 0; i < 16 && !Test_figure(&app, "layer_method", "cosa"); i++) Test_keys(&app, "m");
  LayerView_defer(&app, false);
  CHECK_EQ(Actions_find("steps_next")->run(&app), ACT_REDRAW);
  CHECK_HAS(app.message, "the steps map is not shown");
  App_free(&app);
}

/* The layer view's progress line speaks the tool's one vocabulary (words.c,
 * issue 26 point 9): it printed "cosa MIP round 1: 0.8172 (gap 33.3%) 4.7 s"
 * where the status line says "solving 4.70 s, ..., gap 33.3 %: stage". */
TEST(layer_progress_in_the_words_of_the_status_line) {
  App app;
  Test_openLayer(&app, NULL);
  LayerView_report(&app, "cosa MIP round 1: branch and bound", 0.8172, 0.5448, 1.0 / 3, 4.7);
  char *t = Test_screen(&app, 80, 24); /* whole at 80 columns */
  CHECK_HAS(t, "solving 4.70 s, best 0.8172, bound 0.5448, gap 33.3 %: cosa MIP round 1:");
  CHECK_HAS(t, "branch and bound");
  CHECK(strstr(t, "(gap") == NULL && strstr(t, "33.3%") == NULL);
  free(t);
  /* the random mapper: a best, no bound (-1), under a second; then none drawn yet */
  LayerView_report(&app, "random", 1.25e6, -1, -1, 0.25);
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "solving 250 ms, best 1,250,000: random");
  free(t);
  LayerView_report(&app, "random", INFINITY, -1, -1, 0.25);
  t = Test_screen(&app, 120, 40);
  CHECK_HAS(t, "solving 250 ms: random");
  free(t);
  App_free(&app);
}

TEST_MAIN("tui_layerview", T(arch_file_from_the_command_line_and_from_the_prompt),
          T(layer_keys_are_actions_rebound_and_listed_by_help_there), T(one_naming_on_screen_and_durations_in_cycles),
          T(steps_map_keys_are_actions_rebound_and_listed), T(layer_progress_in_the_words_of_the_status_line))

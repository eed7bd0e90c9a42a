/* Where spadmap finds its bundled data (tui/datadir.c): $SPADMAP_DATA, else the
 * executable's ../share/spadmap, which the build tree has too (a link to data/). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "test.h"

#define CHECK_STR(a, b)                                   \
  do {                                                    \
    CHECK_HAS((a), (b));                                  \
    CHECK(strlen(a) == strlen(b));                        \
  } while (0)

TEST(env_overrides_everything) {
  char out[PATH_MAX];
  Data_resolve("/opt/x", "/usr/bin/spadmap", out, sizeof out);
  CHECK_STR(out, "/opt/x");
  Data_resolve("", "/nonexistent/bin/spadmap", out, sizeof out); /* empty: as unset */
  CHECK_STR(out, "/nonexistent/bin/../share/spadmap");
}

TEST(installed_layout_from_the_executable) {
  char root[] = "/tmp/spadmap-datadir-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  char p[PATH_MAX], exe[PATH_MAX], out[PATH_MAX];
  snprintf(p, sizeof p, "%s/bin", root);
  CHECK_EQ(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/share", root);
  CHECK_EQ(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/share/spadmap", root);
  CHECK_EQ(mkdir(p, 0755), 0);
  snprintf(exe, sizeof exe, "%s/bin/spadmap", root);
  Data_resolve(NULL, exe, out, sizeof out);
  char want[PATH_MAX];
  CHECK(realpath(p, want) != NULL); /* canonical: no bin/.. in messages */
  CHECK_STR(out, want);
  char cwd[PATH_MAX];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK_EQ(chdir(root), 0); /* no folder in the name: the current folder's ../share (none in /tmp) */
  Data_resolve(NULL, "spadmap", out, sizeof out);
  CHECK_STR(out, "./../share/spadmap");
  CHECK_EQ(chdir(cwd), 0);
  rmdir(p);
  snprintf(p, sizeof p, "%s/share", root);
  rmdir(p);
  snprintf(p, sizeof p, "%s/bin", root);
  rmdir(p);
  rmdir(root);
}

TEST(build_tree_finds_the_bundled_data) {
  /* this test runs from build/tests/: build/share/spadmap is the source data/ */
  if (getenv("SPADMAP_DATA")) unsetenv("SPADMAP_DATA");
  char a[PATH_MAX], b[PATH_MAX];
  CHECK(realpath(Data_dir(), a) != NULL);
  CHECK(realpath(SPADMAP_DATA_DIR, b) != NULL);
  CHECK_STR(a, b);
  struct stat st;
  CHECK_EQ(stat(Data_file("networks/resnet50.json"), &st), 0);
  CHECK_EQ(stat(Data_file("arch/cosa_baseline.json"), &st), 0);
}

TEST(bare_network_names_are_bundled_files) {
  struct stat st;
  const char *p = Data_net("resnet50");
  CHECK(strstr(p, "/networks/resnet50.json") != NULL);
  CHECK_EQ(stat(p, &st), 0);
  CHECK_STR(Data_net("no_such_network"), "no_such_network"); /* the loader then says it cannot open it */
  CHECK_STR(Data_net("./resnet50"), "./resnet50");          /* a path stays a path */
  CHECK_STR(Data_net("x.json"), "x.json");
}

TEST_MAIN("tui_datadir", T(env_overrides_everything), T(installed_layout_from_the_executable),
          T(build_tree_finds_the_bundled_data), T(bare_network_names_are_bundled_files))

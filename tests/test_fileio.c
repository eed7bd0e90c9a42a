/* Output files (engine/fileio.c): regular files through a temporary and rename,
 * anything else in place, every error reported, no temporary ever left behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fileio.h"
#include "test.h"

static char dir[256];

static void make_dir(void) {
  if (dir[0]) return;
  const char *t = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/spadmap-fileio-XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(dir)) dir[0] = 0;
}

/* entries in dir whose name starts with ".spadmap-out-" */
static int temporaries(const char *where) {
  DIR *d = opendir(where);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, ".spadmap-out-", 13) == 0;
  closedir(d);
  return n;
}

static char *slurp(const char *path) {
  char *text = NULL;
  size_t len;
  SpError err;
  return FileIO_read(path, FILE_PLAN, &text, &len, &err) ? NULL : text;
}

TEST(regular_file_new_and_replaced_keeps_its_mode) {
  make_dir();
  CHECK(dir[0]);
  char path[512];
  snprintf(path, sizeof path, "%s/plan.json", dir);
  SpError err;
  CHECK_EQ(FileIO_write(path, "one", 3, &err), SP_OK);
  char *s = slurp(path);
  CHECK(s && strcmp(s, "one") == 0);
  free(s);
  CHECK_EQ(chmod(path, 0640), 0);
  CHECK_EQ(FileIO_write(path, "two!", 4, &err), SP_OK);
  s = slurp(path);
  CHECK(s && strcmp(s, "two!") == 0);
  free(s);
  struct stat st;
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_mode & 0777, 0640);
  CHECK_EQ(temporaries(dir), 0);
  unlink(path);
}

TEST(a_255_byte_name_works) {
  make_dir();
  char name[256], path[600];
  memset(name, 'n', 250);
  memcpy(name + 250, ".json", 6); /* 255 bytes */
  snprintf(path, sizeof path, "%s/%s", dir, name);
  SpError err = {0};
  Status st = FileIO_write(path, "{}", 2, &err);
  if (st) printf("  %s\n", err.text);
  CHECK_EQ(st, SP_OK);
  CHECK_EQ(access(path, F_OK), 0);
  CHECK_EQ(temporaries(dir), 0);
  unlink(path);
}

TEST(failures_are_reported_and_leave_no_temporary) {
  make_dir();
  char path[512];
  snprintf(path, sizeof path, "%s/nodir/plan.json", dir);
  SpError err = {0};
  CHECK_EQ(FileIO_write(path, "x", 1, &err), SP_ERR_IO);
  CHECK_HAS(err.text, "cannot write");
  CHECK_HAS(err.text, "nodir/plan.json");
  /* an aborted write: the old file stays, the temporary goes */
  snprintf(path, sizeof path, "%s/keep.json", dir);
  CHECK_EQ(FileIO_write(path, "old", 3, &err), SP_OK);
  FileOut o;
  CHECK_EQ(FileIO_open(path, &o, &err), SP_OK);
  fputs("half a pl", o.f);
  CHECK_EQ(temporaries(dir), 1);
  FileIO_abort(&o);
  CHECK_EQ(temporaries(dir), 0);
  char *s = slurp(path);
  CHECK(s && strcmp(s, "old") == 0);
  free(s);
  unlink(path);
}

TEST(a_fifo_is_written_in_place) {
  make_dir();
  char path[512];
  snprintf(path, sizeof path, "%s/fifo", dir);
  if (mkfifo(path, 0600) != 0) {
    printf("  (no FIFO: %s)\n", strerror(errno));
    return;
  }
  int rd = open(path, O_RDONLY | O_NONBLOCK); /* a reader, so the writer's open does not block */
  CHECK(rd >= 0);
  SpError err = {0};
  CHECK_EQ(FileIO_write(path, "through", 7, &err), SP_OK);
  char buf[16] = {0};
  CHECK_EQ(read(rd, buf, sizeof buf - 1), 7);
  CHECK(strcmp(buf, "through") == 0);
  close(rd);
  struct stat st;
  CHECK_EQ(lstat(path, &st), 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK_EQ(temporaries(dir), 0);
  unlink(path);
}

/* Devices: private nodes (mknod needs root) so a regression cannot touch /dev. */
TEST(devices_in_place_and_enospc_is_an_error) {
  make_dir();
  char full[512], null[512];
  snprintf(full, sizeof full, "%s/full", dir);
  snprintf(null, sizeof null, "%s/null", dir);
  if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) != 0 || mknod(null, S_IFCHR | 0666, makedev(1, 3)) != 0) {
    printf("  (no device nodes: %s)\n", strerror(errno));
    unlink(full);
    return;
  }
  int probe = open(null, O_WRONLY);
  if (probe < 0) { /* a nodev mount */
    printf("  (device nodes unusable here: %s)\n", strerror(errno));
    unlink(full), unlink(null);
    return;
  }
  close(probe);
  SpError err = {0};
  CHECK_EQ(FileIO_write(null, "gone", 4, &err), SP_OK);
  CHECK_EQ(FileIO_write(full, "full", 4, &err), SP_ERR_IO);
  CHECK_HAS(err.text, "No space left on device");
  struct stat st;
  CHECK_EQ(lstat(null, &st), 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK_EQ(lstat(full, &st), 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK_EQ(temporaries(dir), 0);
  unlink(full), unlink(null);
}

TEST(cleanup) {
  if (dir[0]) CHECK_EQ(rmdir(dir), 0);
}

/* FileIO_writeAll (--export-timeloop): all or none. The third name is a
 * directory: the first two keep their old text and no temporary is left; then
 * with all three writable every file is new. */
TEST(write_all_is_all_or_none) {
  make_dir();
  CHECK(dir[0]);
  char a[512], b[512], c[512];
  snprintf(a, sizeof a, "%s/all_a.yaml", dir);
  snprintf(b, sizeof b, "%s/all_b.yaml", dir);
  snprintf(c, sizeof c, "%s/all_c.yaml", dir);
  SpError err;
  CHECK_EQ(FileIO_write(a, "old a", 5, &err), SP_OK);
  CHECK_EQ(FileIO_write(b, "old b", 5, &err), SP_OK);
  CHECK_EQ(mkdir(c, 0777), 0);
  const char *paths[] = {a, b, c}, *texts[] = {"new a", "new b", "new c"};
  CHECK_EQ(FileIO_writeAll(3, paths, texts, &err), SP_ERR_IO);
  CHECK_HAS(err.text, "all_c.yaml: cannot write");
  char *s = slurp(a);
  CHECK(s && strcmp(s, "old a") == 0);
  free(s);
  s = slurp(b);
  CHECK(s && strcmp(s, "old b") == 0);
  free(s);
  CHECK_EQ(temporaries(dir), 0);
  CHECK_EQ(rmdir(c), 0);
  CHECK_EQ(FileIO_writeAll(3, paths, texts, &err), SP_OK);
  for (int i = 0; i < 3; i++) {
    s = slurp(paths[i]);
    CHECK(s && strcmp(s, texts[i]) == 0);
    free(s);
    unlink(paths[i]);
  }
  CHECK_EQ(temporaries(dir), 0);
}

TEST_MAIN("fileio", T(regular_file_new_and_replaced_keeps_its_mode), T(a_255_byte_name_works),
          T(failures_are_reported_and_leave_no_temporary), T(a_fifo_is_written_in_place),
          T(devices_in_place_and_enospc_is_an_error), T(write_all_is_all_or_none), T(cleanup))

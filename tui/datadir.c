/* datadir: the bundled data's folder at run time (see datadir.h). */
#include "datadir.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void Data_resolve(const char *env, const char *exe, char *out, size_t n) {
  if (env && *env) {
    snprintf(out, n, "%s", env);
    return;
  }
  char dir[PATH_MAX] = ".";
  if (exe && *exe) {
    snprintf(dir, sizeof dir, "%s", exe);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
  }
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/../share/spadmap", dir);
  char real[PATH_MAX];
  /* the canonical form when it exists, so messages say /usr/share/spadmap/... */
  snprintf(out, n, "%s", realpath(path, real) ? real : path);
}

static char Data_dirBuf[PATH_MAX];
static pthread_once_t Data_once = PTHREAD_ONCE_INIT;

static void Data_init(void) {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[len > 0 ? len : 0] = '\0';
  Data_resolve(getenv("SPADMAP_DATA"), len > 0 ? exe : NULL, Data_dirBuf, sizeof Data_dirBuf);
}

const char *Data_dir(void) {
  pthread_once(&Data_once, Data_init);
  return Data_dirBuf;
}

static char *Data_buf(void) {
  static _Thread_local char bufs[8][PATH_MAX + 64];
  static _Thread_local int next;
  next = (next + 1) % 8;
  return bufs[next];
}

const char *Data_file(const char *rel) {
  char *b = Data_buf();
  snprintf(b, PATH_MAX + 64, "%s/%s", Data_dir(), rel);
  return b;
}

const char *Data_netMissing(const char *arg, char *buf, size_t n) {
  struct stat st;
  if (!arg || !*arg || strchr(arg, '/') || strchr(arg, '.') || stat(arg, &st) == 0 || Data_net(arg) != arg) return NULL;
  const char *env = getenv("SPADMAP_DATA");
  snprintf(buf, n, "the data folder %s%s has no networks/%s.json", Data_dir(),
           env && *env ? " (set by SPADMAP_DATA)" : "", arg);
  return buf;
}

const char *Data_net(const char *arg) {
  struct stat st;
  if (!arg || !*arg || strchr(arg, '/') || strchr(arg, '.') || stat(arg, &st) == 0) return arg;
  char *b = Data_buf();
  snprintf(b, PATH_MAX + 64, "%s/networks/%s.json", Data_dir(), arg);
  return stat(b, &st) == 0 ? b : arg;
}

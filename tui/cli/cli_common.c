#include <signal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "datadir.h"
#include "words.h"
#include "clock.h"
#include "cli.h"
#include "import.h"
#include "fileio.h"
#include "grid.h"
#include "text.h"
#include "solve.h"

void Cli_help(const CliCommand *cmd) {
  printf("usage: spadmap %s %s\n\n%s\n", cmd->name, cmd->args, cmd->summary);
  if (cmd->options && cmd->options[0].name) printf("\noptions:\n");
  for (const CliOption *o = cmd->options; o && o->name; o++) {
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    printf("  %-24s %s\n", left, o->help);
  }
  printf("  %-24s %s\n", "--help", "show this help");
  char caps[320];
  if (cmd->inputs) printf("\ninput files (one over its kind's size cap is refused before it is read):\n  %s\n",
                          Cli_caps(cmd->inputs, ", ", caps, sizeof caps));
}

const char *Cli_caps(unsigned inputs, const char *sep, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < FILE_KINDS; k++)
    if (inputs & CLI_IN(k) && used < n)
      used += (size_t)snprintf(buf + used, n - used, "%s%s %zu MiB", used ? sep : "", FileIO_kindName((FileKind)k),
                               FileIO_cap((FileKind)k) >> 20);
  return buf;
}

void Cli_helpSubs(const CliCommand *const *subs) {
  if (subs && subs[0]) printf("\nsubcommands (each has --help):\n");
  for (const CliCommand *const *sub = subs; sub && *sub; sub++) printf("  %-24s %s\n", (*sub)->name, (*sub)->summary);
}

int Cli_runSub(const CliCommand *parent, const CliCommand *const *subs, int argc, char **argv) {
  size_t len = strlen(parent->name);
  for (const CliCommand *const *sub = subs; argc > 1 && sub && *sub; sub++) {
    const char *name = (*sub)->name;
    if (strncmp(name, parent->name, len) == 0 && name[len] == ' ' && strcmp(name + len + 1, argv[1]) == 0)
      return (*sub)->run(argc - 1, argv + 1);
  }
  return -1;
}

/* The command being run, for the messages of the shared loaders ("spadmap solve:
 * FILE:LINE:COL: ..."; they said "spadmap:", unlike the command's own errors). */
static const char *Cli_current = "";

const char *Cli_name(void) { return Cli_current; }

/* A file or directory option's value, before any work (solve --out / computed
 * the plan, printed it, then failed to write; bench --dir FILE ran every network
 * into an error): empty is a usage error (2); a directory given as a file (or a
 * file as a directory) or a path whose directory does not exist is a file that
 * cannot be read or written (1). -1 when the value is fine. */
static int Cli_checkPath(const CliCommand *cmd, const CliOption *o, const char *path) {
  bool file = strstr(o->arg, "FILE") || strncmp(o->arg, "F.", 2) == 0, dir = strcmp(o->arg, "DIR") == 0;
  if ((!file && !dir) || strcmp(path, "-") == 0) return -1;
  const char *what = NULL;
  struct stat sb;
  if (!*path) what = "is empty";
  else if (stat(path, &sb) == 0) {
    if (file && S_ISDIR(sb.st_mode)) what = "is a directory (expected a file)";
    if (dir && !S_ISDIR(sb.st_mode)) what = "is not a directory";
  } else if (file) { /* a missing directory is the command's to create or refuse (--export-timeloop makes one) */
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash == parent) slash[1] = 0;
    else if (slash) *slash = 0;
    if (slash && (stat(parent, &sb) != 0 || !S_ISDIR(sb.st_mode))) what = "cannot write or read it: its directory does not exist";
  }
  if (!what) return -1;
  fprintf(stderr, "spadmap %s: %s \"%s\" %s\n", cmd->name, o->name, Cli_safe(path), what);
  return *path ? EXIT_INVALID : EXIT_USAGE;
}

int Cli_inputDir(const CliCommand *cmd, const CliArgs *a) {
  const char *dir = Cli_value(cmd, a, "--dir");
  struct stat sb;
  if (!dir || (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))) return -1;
  fprintf(stderr, "spadmap %s: --dir \"%s\": no such directory\n", cmd->name, Cli_safe(dir));
  return EXIT_INVALID; /* a file or folder that cannot be read: 1, as the loaders' */
}

int Cli_parse(const CliCommand *cmd, int argc, char **argv, int min_pos, int max_pos, CliArgs *a) {
  memset(a, 0, sizeof *a);
  Cli_current = cmd->name;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      Cli_help(cmd);
      return EXIT_OK;
    }
    if (arg[0] == '-' && arg[1] == '-') {
      const char *eq = strchr(arg, '=');
      size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
      int k = 0;
      const CliOption *o = cmd->options;
      for (; o && o->name; o++, k++)
        if (strlen(o->name) == len && strncmp(o->name, arg, len) == 0) break;
      if (!o || !o->name) {
        fprintf(stderr, "spadmap %s: unknown option %s (see spadmap %s --help)\n", cmd->name, Cli_safe(arg),
                cmd->name);
        return EXIT_USAGE;
      }
      if (o->arg) {
        if (eq) a->values[k] = eq + 1;
        else if (i + 1 < argc) a->values[k] = argv[++i];
        else {
          fprintf(stderr, "spadmap %s: %s needs a value (%s)\n", cmd->name, o->name, o->arg);
          return EXIT_USAGE;
        }
        int bad = Cli_checkPath(cmd, o, a->values[k]);
        if (bad >= 0) return bad;
      } else {
        if (eq) {
          fprintf(stderr, "spadmap %s: %s takes no value\n", cmd->name, o->name);
          return EXIT_USAGE;
        }
        a->values[k] = "1";
      }
      continue;
    }
    if (a->npos >= max_pos) {
      fprintf(stderr, "spadmap %s: unexpected argument \"%s\" (usage: spadmap %s %s)\n", cmd->name, Cli_safe(arg), cmd->name,
              cmd->args);
      return EXIT_USAGE;
    }
    if (!*arg) { /* "" names no file: a usage error, as an empty option value is (it read as "cannot open", 1) */
      fprintf(stderr, "spadmap %s: an argument is empty (\"\") (usage: spadmap %s %s)\n", cmd->name, cmd->name, cmd->args);
      return EXIT_USAGE;
    }
    a->pos[a->npos++] = argv[i];
  }
  if (a->npos < min_pos) {
    fprintf(stderr, "spadmap %s: missing arguments (usage: spadmap %s %s)\n", cmd->name, cmd->name, cmd->args);
    return EXIT_USAGE;
  }
  return -1;
}

const char *Cli_value(const CliCommand *cmd, const CliArgs *a, const char *option) {
  int k = 0;
  for (const CliOption *o = cmd->options; o && o->name; o++, k++)
    if (strcmp(o->name, option) == 0) return a->values[k];
  return NULL;
}

const char *Cli_safe(const char *s) {
  static _Thread_local char ring[8][1024];
  static _Thread_local int next;
  next = (next + 1) % 8;
  return Text_escape(s, ring[next], sizeof ring[next]);
}

const char *Cli_nameColumn(const char *name, int cols, char *buf, size_t n) {
  Grid *g = cols > 0 && cols < 512 ? Grid_new(cols, 1, true) : NULL;
  if (!g) return snprintf(buf, n, "%s", Cli_safe(name)), buf;
  int w = Grid_tail(g, 0, 0, cols, ROLE_DEFAULT, 0, Cli_safe(name)); /* the explorer's rule, display columns */
  char *t = Grid_toText(g);
  size_t len = t ? strcspn(t, "\n") : 0;
  snprintf(buf, n, "%.*s%*s", (int)len, t ? t : "", cols - w > 0 ? cols - w : 0, "");
  free(t);
  Grid_free(g);
  return buf;
}

int Cli_modelOptionsFit(const CliCommand *cmd, const CliArgs *a, const char *path) {
  const char *given = Cli_value(cmd, a, "--dtype")  ? "--dtype"
                      : Cli_value(cmd, a, "--fold") ? "--fold"
                      : Cli_value(cmd, a, "--dim")  ? "--dim"
                      : Cli_value(cmd, a, "--value") ? "--value"
                                                    : NULL;
  ImportFormat f;
  SpError err;
  if (!given || Import_detect(Data_net(path), &f, &err) || f == IMPORT_ONNX) return -1; /* the loader reports a bad file; a bundled name is its file */
  fprintf(stderr, "spadmap %s: %s applies to ONNX models; %s is a %s file (it was ignored)\n", cmd->name, given,
          Cli_safe(path), ImportFormat_name(f));
  return EXIT_USAGE;
}

int Cli_modelOptions(const CliCommand *cmd, const CliArgs *a, ImportOptions *o) {
  ImportOptions_init(o);
  const char *dtype = Cli_value(cmd, a, "--dtype");
  if (dtype) {
    static const char *const ok[] = {"int8", "uint8", "int16", "fp16", "bf16", "int32", "fp32"};
    size_t i = 0;
    while (i < sizeof ok / sizeof ok[0] && strcmp(ok[i], dtype) != 0) i++;
    if (i == sizeof ok / sizeof ok[0]) {
      fprintf(stderr, "spadmap %s: --dtype \"%s\": expected int8, uint8, int16, fp16, bf16, int32 or fp32\n", cmd->name,
              Cli_safe(dtype));
      return EXIT_USAGE;
    }
    o->dtype = ok[i];
  }
  o->fold = Cli_value(cmd, a, "--fold") != NULL;
  const char *dims = Cli_value(cmd, a, "--dim");
  if (dims) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dims);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      SpError err;
      if (ImportOptions_addDim(o, tok, &err)) {
        fprintf(stderr, "spadmap %s: %s\n", cmd->name, err.text);
        return EXIT_USAGE;
      }
    }
  }
  const char *values = Cli_value(cmd, a, "--value");
  SpError err;
  if (values && ImportOptions_addValues(o, values, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", cmd->name, Cli_safe(err.text));
    return EXIT_USAGE;
  }
  return -1;
}

void Cli_netError(const char *cmd, const char *arg, const char *text) {
  char note[PATH_MAX + 128];
  if (Data_netMissing(arg, note, sizeof note))
    fprintf(stderr, "spadmap %s: %s: no such file, and %s\n", cmd, Cli_safe(arg), Cli_safe(note));
  else
    fprintf(stderr, "spadmap %s: %s\n", cmd, Cli_safe(text));
}

Net *Cli_loadModel(const CliCommand *cmd, const CliArgs *a, const char *path, int *exit_code) {
  ImportOptions o;
  if ((*exit_code = Cli_modelOptions(cmd, a, &o)) >= 0 || (*exit_code = Cli_modelOptionsFit(cmd, a, path)) >= 0)
    return NULL;
  Net *net;
  SpError err;
  if (Import_open(Data_net(path), &o, &net, &err)) {
    Cli_netError(Cli_current, path, err.text);
    *exit_code = EXIT_INVALID;
    return NULL;
  }
  return net;
}

int Cli_planModelOptions(const CliCommand *cmd, const CliArgs *a, const char *net_path, const char *plan_path,
                         ImportOptions *o, char *note, size_t n) {
  note[0] = '\0';
  int rc = Cli_modelOptions(cmd, a, o);
  if (rc >= 0 || (rc = Cli_modelOptionsFit(cmd, a, net_path)) >= 0) return rc;
  ImportFormat f;
  SpError err;
  if (!plan_path || Import_detect(Data_net(net_path), &f, &err) || f == IMPORT_SPADMAP) return -1;
  ImportOptions rec;
  bool found;
  if (Import_planRecord(plan_path, &rec, &found, &err)) {
    fprintf(stderr, "spadmap %s: %s\n", cmd->name, Cli_safe(err.text));
    return EXIT_INVALID;
  }
  if (!found) return -1;
  bool given = Cli_value(cmd, a, "--dtype") || Cli_value(cmd, a, "--fold") || Cli_value(cmd, a, "--dim") ||
               Cli_value(cmd, a, "--value");
  char want[256], got[256];
  ImportOptions_describe(&rec, want, sizeof want);
  ImportOptions none;
  ImportOptions_init(&none);
  if (!given && ImportOptions_equal(&rec, &none)) return -1; /* made without options: nothing to say */
  if (!given) {
    *o = rec;
    snprintf(note, n, "%s re-imported with %s, as the plan records", Cli_safe(net_path), want);
  } else if (!ImportOptions_equal(o, &rec)) {
    snprintf(note, n, "the plan was made with %s; %s is imported with %s as given", want, Cli_safe(net_path),
             ImportOptions_describe(o, got, sizeof got));
  }
  return -1;
}

Net *Cli_loadNet(const char *path) {
  Net *net;
  SpError err;
  if (Import_open(Data_net(path), NULL, &net, &err)) {
    Cli_netError(Cli_current, path, err.text);
    return NULL;
  }
  return net;
}

/* The one vocabulary's binary sizes (words.c). */
const char *Cli_bytes(int64_t b, char *buf, int n) { return Words_bytes((double)b, buf, (size_t)n); }

bool Cli_int(const char *s, long long lo, long long hi, long long *out) {
  if (!s) return false;
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (end == s || *end || errno || x < lo || x > hi) return false;
  *out = x;
  return true;
}

bool Cli_real(const char *s, double lo, double hi, double *out) {
  if (!s) return false;
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end || errno || !(x >= lo && x <= hi)) return false; /* NaN fails both */
  *out = x;
  return true;
}

const char *Cli_count(int64_t v, char *buf, int n) {
  char raw[32];
  snprintf(raw, sizeof raw, "%lld", (long long)(v < 0 ? -v : v));
  int len = (int)strlen(raw), j = 0;
  if (v < 0 && j < n - 1) buf[j++] = '-';
  for (int i = 0; i < len && j < n - 1; i++) {
    if (i && (len - i) % 3 == 0 && j < n - 1) buf[j++] = ',';
    buf[j++] = raw[i];
  }
  buf[j] = '\0';
  return buf;
}


void Cli_removeTempAndDie(int sig) {
  FileIO_removeTempOnSignal();
  signal(sig, SIG_DFL);
  raise(sig);
}

void Cli_catchSignals(void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

void Cli_removeTempOnSignals(void) { Cli_catchSignals(Cli_removeTempAndDie); }

Status Cli_budget(const Net *net, bool params, const char *text, int64_t *bytes, NetFigures *f, SpError *err) {
  NetFigures local;
  if (!f) f = &local;
  memset(f, 0, sizeof *f);
  const char *p = text ? text : "";
  while (*p == ' ') p++;
  bool mr_only = strncasecmp(p, "M_R", 3) == 0;
  if (mr_only) f->m_r = Figures_minRequired(net, params);
  else if (strncasecmp(p, "M_", 2) == 0) {
    Status st = Figures_compute(net, params, f, NULL, err);
    if (st) return st;
  }
  const char *preset;
  return Budget_parse(text, strncasecmp(p, "M_", 2) == 0 ? f : NULL, bytes, &preset, err);
}

/* lesson: see lesson.h. */
#include "lesson.h"

#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "actions.h"
#include "datadir.h"
#include "fileio.h"
#include "layer_view.h"
#include "offchip_view.h"
#include "policy.h"
#include "views.h"

/* The figures a text may quote, each as the screen prints it. */
static const char *const Lesson_figures[] = {
  "budget", "peak", "footprint", "spill_bytes", "compulsory", "spills", "retrievals", "step", "free", "largest_gap",
  "fragmentation", "policies", "schedule", "replacement", "allocator", "m_r", "m_h", "m_p", "solver", "pinned_peak",
  "pinned_spills", "pinned_spill_bytes", "taa_peak", "so_peak", "so_method", "lower_bound", "offchip_tiles", "ops",
  "network", "latency", "energy", "dram", "layer_method", "arch", NULL};

static bool Lesson_isFigure(const char *name) {
  for (int i = 0; Lesson_figures[i]; i++)
    if (strcmp(Lesson_figures[i], name) == 0) return true;
  return false;
}

static char *Lesson_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

const char *Lesson_path(const char *name, char *buf, size_t n) {
  if (strchr(name, '/') || strstr(name, ".json")) snprintf(buf, n, "%s", name);
  else snprintf(buf, n, "%s/lessons/%s.json", Data_dir(), name);
  return buf;
}

static int Lesson_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int Lesson_listFiles(char ***paths) {
  *paths = NULL;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/lessons", Data_dir());
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **p = realloc(*paths, sizeof(char *) * (size_t)cap);
      if (!p) break;
      *paths = p;
    }
    char full[2048];
    snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
    if (((*paths)[n] = Lesson_dup(full))) n++;
  }
  closedir(d);
  if (n) qsort(*paths, (size_t)n, sizeof(char *), Lesson_cmp);
  return n;
}

static void Lesson_freeStage(LessonStage *s) {
  free(s->title);
  free(s->network);
  for (int i = 0; i < s->nactions; i++) free(s->actions[i]);
  free(s->actions);
  for (int i = 0; i < s->ntext; i++) free(s->text[i]);
  free(s->text);
  free(s->try_action);
  for (int i = 0; i < s->nexpect; i++) free(s->expect[i].name), free(s->expect[i].value);
  free(s->expect);
  for (int i = 0; i < s->ncapture; i++) free(s->capture[i].name), free(s->capture[i].value);
  free(s->capture);
}

void Lesson_free(Lesson *l) {
  if (!l) return;
  for (int i = 0; i < l->nstages; i++) Lesson_freeStage(&l->stages[i]);
  free(l->stages);
  free(l->title);
  free(l->summary);
  free(l->network);
  free(l);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct {
  const char *file;
  SpError *err;
} LessonReader;

static Status Lr_fail(LessonReader *r, const char *path, const char *what) {
  return SpError_set(r->err, SP_ERR_FORMAT, "%s: %s: %s", r->file, path, what);
}

/* A string member (required or not) into *out (malloc'd). */
static Status Lr_string(LessonReader *r, const cJSON *obj, const char *key, const char *path, bool required, char **out) {
  *out = NULL;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  char p[256];
  snprintf(p, sizeof p, "%s.%s", path, key);
  if (!v) return required ? Lr_fail(r, p, "missing (expected a string)") : SP_OK;
  if (!cJSON_IsString(v) || !v->valuestring[0]) return Lr_fail(r, p, "expected a non-empty string");
  if (!(*out = Lesson_dup(v->valuestring))) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  return SP_OK;
}

/* A string or an array of strings. */
static Status Lr_strings(LessonReader *r, const cJSON *obj, const char *key, const char *path, bool required,
                         char ***out, int *n) {
  *out = NULL;
  *n = 0;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  char p[256];
  snprintf(p, sizeof p, "%s.%s", path, key);
  if (!v) return required ? Lr_fail(r, p, "missing (expected a string or an array of strings)") : SP_OK;
  int count = cJSON_IsString(v) ? 1 : cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
  if (count < 0) return Lr_fail(r, p, "expected a string or an array of strings");
  *out = calloc((size_t)(count ? count : 1), sizeof(char *));
  if (!*out) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < count; i++) {
    const cJSON *s = cJSON_IsString(v) ? v : cJSON_GetArrayItem(v, i);
    if (!cJSON_IsString(s)) {
      char pi[300];
      snprintf(pi, sizeof pi, "%s[%d]", p, i);
      return Lr_fail(r, pi, "expected a string");
    }
    if (!((*out)[i] = Lesson_dup(s->valuestring))) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
    (*n)++;
  }
  return SP_OK;
}

/* An object of string values. */
static Status Lr_pairs(LessonReader *r, const cJSON *obj, const char *key, const char *path, LessonPair **out, int *n) {
  *out = NULL;
  *n = 0;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  char p[256];
  snprintf(p, sizeof p, "%s.%s", path, key);
  if (!v) return SP_OK;
  if (!cJSON_IsObject(v)) return Lr_fail(r, p, "expected an object of strings");
  int count = cJSON_GetArraySize(v);
  *out = calloc((size_t)(count ? count : 1), sizeof(LessonPair));
  if (!*out) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  const cJSON *it;
  cJSON_ArrayForEach(it, v) {
    char pi[300];
    snprintf(pi, sizeof pi, "%s.%s", p, it->string);
    if (!cJSON_IsString(it)) return Lr_fail(r, pi, "expected a string");
    LessonPair *pr = &(*out)[(*n)++];
    pr->name = Lesson_dup(it->string);
    pr->value = Lesson_dup(it->valuestring);
    if (!pr->name || !pr->value) return SpError_set(r->err, SP_ERR_NOMEM, "out of memory");
  }
  return SP_OK;
}

static bool Lesson_hasCapture(const LessonStage *s, const char *name) {
  for (int i = 0; i < s->ncapture; i++)
    if (strcmp(s->capture[i].name, name) == 0) return true;
  return false;
}

/* Every {placeholder} of the text names a figure or one of the stage's captures,
 * {key:ACTION} an action. */
static Status Lr_placeholders(LessonReader *r, const LessonStage *s, const char *text, const char *path) {
  for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
    const char *end = strchr(p, '}');
    char name[96], what[200];
    if (!end || end - p - 1 >= (long)sizeof name) return Lr_fail(r, path, "a '{' without its '}' (placeholders are {name})");
    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
    if (strncmp(name, "key:", 4) == 0) {
      if (Actions_keyOf(name + 4) == 0) {
        snprintf(what, sizeof what, "{%s}: no action named \"%s\" in the action table", name, name + 4);
        return Lr_fail(r, path, what);
      }
      continue;
    }
    if (!Lesson_isFigure(name) && !Lesson_hasCapture(s, name)) {
      snprintf(what, sizeof what, "{%s}: not a figure (budget, peak, spills, ...: see tui/lesson.c) nor a capture of this stage", name);
      return Lr_fail(r, path, what);
    }
  }
  return SP_OK;
}

/* "name" or "name=arg" naming an action of the table. */
static Status Lr_action(LessonReader *r, const char *a, const char *path) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
  if (Actions_find(name)) return SP_OK;
  char what[160];
  snprintf(what, sizeof what, "unknown action \"%s\" (expected a name from the action table, as ? lists them)", name);
  return Lr_fail(r, path, what);
}

static Status Lesson_parse(Lesson *l, const char *text, size_t len, SpError *err) {
  LessonReader r = {l->path, err};
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!root) {
    const char *at = cJSON_GetErrorPtr();
    int line = 1, col = 1;
    for (const char *p = text; at && p < at && p < text + len; p++)
      if (*p == '\n') line++, col = 1;
      else col++;
    return SpError_set(err, SP_ERR_FORMAT, "%s:%d:%d: not valid JSON", l->path, line, col);
  }
  Status st = SP_OK;
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  if (!cJSON_IsObject(root)) st = Lr_fail(&r, "$", "expected an object");
  else if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "spadmap-lesson") != 0)
    st = Lr_fail(&r, "$.format", "expected \"spadmap-lesson\"");
  if (!st) st = Lr_string(&r, root, "title", "$", true, &l->title);
  if (!st) st = Lr_string(&r, root, "summary", "$", true, &l->summary);
  if (!st) st = Lr_string(&r, root, "network", "$", true, &l->network);
  const cJSON *stages = cJSON_GetObjectItemCaseSensitive(root, "stages");
  if (!st && (!cJSON_IsArray(stages) || cJSON_GetArraySize(stages) < 1))
    st = Lr_fail(&r, "$.stages", "expected an array of at least one stage");
  if (!st) {
    int n = cJSON_GetArraySize(stages);
    l->stages = calloc((size_t)n, sizeof *l->stages);
    if (!l->stages) st = SpError_set(err, SP_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < n; i++) {
      const cJSON *so = cJSON_GetArrayItem(stages, i);
      LessonStage *s = &l->stages[i];
      l->nstages++;
      char p[64];
      snprintf(p, sizeof p, "$.stages[%d]", i);
      if (!cJSON_IsObject(so)) {
        st = Lr_fail(&r, p, "expected an object (title, text, do, try, expect, capture)");
        break;
      }
      if (!st) st = Lr_string(&r, so, "title", p, true, &s->title);
      if (!st) st = Lr_string(&r, so, "network", p, false, &s->network);
      if (!st) st = Lr_strings(&r, so, "do", p, false, &s->actions, &s->nactions);
      if (!st) st = Lr_strings(&r, so, "text", p, true, &s->text, &s->ntext);
      if (!st) st = Lr_string(&r, so, "try", p, false, &s->try_action);
      if (!st) st = Lr_pairs(&r, so, "expect", p, &s->expect, &s->nexpect);
      if (!st) st = Lr_pairs(&r, so, "capture", p, &s->capture, &s->ncapture);
      for (int k = 0; !st && k < s->nactions; k++) {
        char pa[96];
        snprintf(pa, sizeof pa, "%s.do[%d]", p, k);
        st = Lr_action(&r, s->actions[k], pa);
      }
      if (!st && s->try_action) {
        char pa[96];
        snprintf(pa, sizeof pa, "%s.try", p);
        st = Lr_action(&r, s->try_action, pa);
      }
      for (int k = 0; !st && k < s->ncapture; k++) {
        regex_t re;
        char pa[160];
        snprintf(pa, sizeof pa, "%s.capture.%s", p, s->capture[k].name);
        if (regcomp(&re, s->capture[k].value, REG_EXTENDED) != 0) st = Lr_fail(&r, pa, "expected a POSIX extended regular expression");
        else {
          if (re.re_nsub < 1) st = Lr_fail(&r, pa, "expected one (group) holding the value");
          regfree(&re);
        }
      }
      for (int k = 0; !st && k < s->nexpect; k++)
        if (!Lesson_isFigure(s->expect[k].name) && !Lesson_hasCapture(s, s->expect[k].name)) {
          char pa[160];
          snprintf(pa, sizeof pa, "%s.expect.%s", p, s->expect[k].name);
          st = Lr_fail(&r, pa, "not a figure nor a capture of this stage");
        }
      for (int k = 0; !st && k < s->ntext; k++) {
        char pa[96];
        snprintf(pa, sizeof pa, "%s.text[%d]", p, k);
        st = Lr_placeholders(&r, s, s->text[k], pa);
      }
    }
  }
  cJSON_Delete(root);
  return st;
}

Status Lesson_load(const char *path, Lesson **out, SpError *err) {
  *out = NULL;
  Lesson *l = calloc(1, sizeof *l);
  if (!l) return SpError_set(err, SP_ERR_NOMEM, "out of memory");
  snprintf(l->path, sizeof l->path, "%s", path);
  App_stem(path, l->name, sizeof l->name);
  l->stage = -1;
  char *text;
  size_t len;
  Status st = FileIO_read(path, FILE_LESSON, &text, &len, err);
  if (st) {
    free(l);
    return st;
  }
  st = Lesson_parse(l, text, len, err);
  free(text);
  if (st) {
    Lesson_free(l);
    return st;
  }
  *out = l;
  return SP_OK;
}

/* ---- replaying ------------------------------------------------------------ */

/* The actions that cycle through choices, and the figure naming the choice. */
static const char *Lesson_cycled(const char *action) {
  static const char *const pairs[][2] = {{"schedule", "schedule"}, {"replacement", "replacement"},
                                         {"allocator", "allocator"}, {"layer_method_next", "layer_method"},
                                         {"layer_method_prev", "layer_method"}, {"layer_arch", "arch"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (strcmp(pairs[i][0], action) == 0) return pairs[i][1];
  return NULL;
}

static int Lesson_flags(App *app, int flags) {
  if (flags & ACT_RESOLVE) App_resolve(app);
  return flags;
}

/* One "name" or "name=arg": the action runs as its key would. With an argument,
 * a prompting action gets it typed and Enter; a cycling one is pressed until
 * its policy is the one named; "policies=kind:name,..." chooses in the menu. */
static Status Lesson_do(App *app, const char *a, SpError *err) {
  char name[64];
  const char *arg = strchr(a, '=');
  snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
  if (arg) arg++;
  const Action *act = Actions_find(name);
  if (!act) return SpError_set(err, SP_ERR_ARG, "unknown action \"%s\"", name);
  const char *figure = arg ? Lesson_cycled(name) : NULL;
  if (figure) { /* pressed until the choice is the one named, as a user would */
    char now[128];
    LayerView_defer(app, true);
    for (int n = 0; n < 32; n++) {
      if (Lesson_figure(app, figure, now, sizeof now) && strcmp(now, arg) == 0) {
        LayerView_defer(app, false);
        return SP_OK;
      }
      Lesson_flags(app, act->run(app));
    }
    LayerView_defer(app, false);
    return SpError_set(err, SP_ERR_ARG, "%s: the key never reaches \"%s\" (an ILP policy is chosen with policies=KIND:%s)",
                       name, arg, arg);
  }
  if (arg && strcmp(name, "policies") == 0) {
    Lesson_flags(app, act->run(app)); /* the menu opens */
    char spec[256];
    snprintf(spec, sizeof spec, "%s", arg);
    for (char *tok = strtok(spec, ","); tok; tok = strtok(NULL, ",")) {
      char *colon = strchr(tok, ':');
      int k = -1;
      for (int i = 0; colon && i < POLICY_KIND_COUNT; i++)
        if (strncmp(PolicyKind_name((PolicyKind)i), tok, (size_t)(colon - tok)) == 0 &&
            strlen(PolicyKind_name((PolicyKind)i)) == (size_t)(colon - tok))
          k = i;
      int found = -1;
      for (int i = 0; k >= 0 && i < App_policyCount((PolicyKind)k); i++)
        if (strcmp(App_policy((PolicyKind)k, i)->name, colon + 1) == 0) found = i;
      if (found < 0) {
        app->menu.open = false;
        return SpError_set(err, SP_ERR_ARG, "policies=%s: expected kind:name (schedule, replacement, allocator)", tok);
      }
      app->menu.col = k; /* as the arrows would leave it */
      app->menu.sel[k] = found;
    }
    Lesson_flags(app, Actions_key(app, K_ENTER));
    return SP_OK;
  }
  int flags = Lesson_flags(app, act->run(app));
  if (arg && app->prompt) { /* typed into the prompt the action opened */
    snprintf(app->prompt_buf, sizeof app->prompt_buf, "%s", arg);
    Lesson_flags(app, Actions_key(app, K_ENTER));
  } else if (arg)
    return SpError_set(err, SP_ERR_ARG, "%s takes no argument (\"%s\")", name, arg);
  (void)flags;
  return SP_OK;
}

/* A lesson's network: a bundled name, a path as given, or a path inside the data
 * folder ("onnx/resnet18.onnx"), so a lesson opens a bundled model from any folder. */
static const char *Lesson_netPath(const char *arg) {
  struct stat sb;
  const char *p = Data_net(arg);
  if (stat(p, &sb) == 0 || arg[0] == '/') return p;
  const char *in_data = Data_file(arg);
  return stat(in_data, &sb) == 0 ? in_data : p;
}

static Status Lesson_apply(App *app, Lesson *l, int k, SpError *err) {
  const LessonStage *s = &l->stages[k];
  if (s->network) {
    char path[1024];
    snprintf(path, sizeof path, "%s", Lesson_netPath(s->network));
    Status st = App_load(app, path, err);
    if (st) return st;
    App_resolve(app);
  }
  for (int i = 0; i < s->nactions; i++) {
    Status st = Lesson_do(app, s->actions[i], err);
    if (st) return SpError_set(err, st, "%s: stage %d, do[%d] \"%s\": %s", l->path, k + 1, i, s->actions[i], err->text);
  }
  if (app->prompt) app->prompt = false;
  return SP_OK;
}

/* The lesson's network with the default settings, as a fresh explorer has them. */
static Status Lesson_openNetwork(App *app, Lesson *l, SpError *err) {
  char path[1024];
  snprintf(path, sizeof path, "%s", Lesson_netPath(l->network));
  bool det = app->deterministic;
  if (app->net) App_free(app); /* the workers were set aside by the caller */
  Status st = App_initWith(app, path, NULL, err);
  app->lesson = l;
  app->deterministic = det;
  return st;
}

Status Lesson_goto(App *app, int k, SpError *err) {
  Lesson *l = app->lesson;
  if (!l || k < 0 || k >= l->nstages) return SpError_set(err, SP_ERR_ARG, "no stage %d", k + 1);
  /* solves on this thread while replaying: each action sees its predecessor's plan */
  Worker *w = app->worker, *fw = app->figworker;
  SharedNet *shared = app->shared;
  app->worker = app->figworker = NULL;
  Status st = SP_OK;
  int from = l->stage + 1;
  if (k <= l->stage) { /* back: from the start */
    st = Lesson_openNetwork(app, l, err);
    if (!st) App_resolve(app);
    from = 0;
  }
  for (int i = from; !st && i <= k; i++) {
    st = Lesson_apply(app, l, i, err);
    l->stage = i;
  }
  if (!app->plan && !st) App_resolve(app);
  app->legend = app->help = false;
  l->scroll = 0; /* a new stage's text from its start */
  snprintf(l->error, sizeof l->error, "%s", st ? err->text : "");
  if (app->shared == shared) { /* the same network: its workers go on */
    app->worker = w;
    app->figworker = fw;
  } else {
    Worker_stop(w);
    Worker_stop(fw);
    if (w) {
      App_startWorkers(app);
      App_prefetchFigures(app);
    }
  }
  return st;
}

Status Lesson_start(App *app, Lesson *l, bool deterministic, SpError *err) {
  memset(app, 0, sizeof *app);
  app->deterministic = deterministic;
  l->stage = -1;
  Status st = Lesson_openNetwork(app, l, err);
  if (st) return st;
  App_resolve(app);
  return Lesson_goto(app, 0, err);
}

/* ---- figures -------------------------------------------------------------- */

bool Lesson_figure(App *app, const char *name, char *out, size_t n) {
  char b[32];
  out[0] = '\0';
  const Plan *p = App_shownPlan(app), *q = app->pinned;
#define BYTES(v) (snprintf(out, n, "%s", App_bytes((v), b, sizeof b)), true)
#define COUNT(v) (snprintf(out, n, "%lld", (long long)(v)), true)
  if (strcmp(name, "budget") == 0) return BYTES(app->set.budget);
  if (strcmp(name, "network") == 0) return snprintf(out, n, "%s", app->net->name), true;
  if (strcmp(name, "ops") == 0) return COUNT(app->net->nops);
  if (strcmp(name, "policies") == 0) return App_policies(&app->set, out, n), true;
  if (strcmp(name, "schedule") == 0) return snprintf(out, n, "%s", App_policy(POLICY_SCHEDULE, app->set.sched)->name), true;
  if (strcmp(name, "replacement") == 0)
    return snprintf(out, n, "%s", App_policy(POLICY_REPLACEMENT, app->set.repl)->name), true;
  if (strcmp(name, "allocator") == 0) return snprintf(out, n, "%s", App_policy(POLICY_ALLOCATOR, app->set.alloc)->name), true;
  if (name[0] == 'm' && name[1] == '_' && name[3] == '\0') {
    bool ready;
    const NetFigures *f = App_presetFigures(app, app->set.params, &ready);
    if (!ready && name[2] != 'r') return false;
    return BYTES(name[2] == 'r' ? f->m_r : name[2] == 'h' ? f->m_h : f->m_p);
  }
  if (strncmp(name, "pinned_", 7) == 0) {
    if (!q) return false;
    const Metrics *m = &q->metrics;
    if (strcmp(name + 7, "peak") == 0) return BYTES(m->peak_bytes);
    if (strcmp(name + 7, "spills") == 0) return COUNT(m->spills);
    return BYTES(m->noncompulsory_bytes);
  }
  if (strcmp(name, "taa_peak") == 0 || strcmp(name, "so_peak") == 0 || strcmp(name, "so_method") == 0 ||
      strcmp(name, "lower_bound") == 0 || strcmp(name, "offchip_tiles") == 0) {
    OffchipFigures f;
    if (!OffchipView_figures(app, &f)) return false;
    if (strcmp(name, "taa_peak") == 0) return BYTES(f.taa_peak);
    if (strcmp(name, "so_peak") == 0) return f.so_peak >= 0 && BYTES(f.so_peak);
    if (strcmp(name, "so_method") == 0) return snprintf(out, n, "%s", f.so_method), true;
    if (strcmp(name, "lower_bound") == 0) return BYTES(f.lower_bound);
    return COUNT(f.tiles);
  }
  if (strcmp(name, "latency") == 0 || strcmp(name, "energy") == 0 || strcmp(name, "dram") == 0 ||
      strcmp(name, "layer_method") == 0 || strcmp(name, "arch") == 0)
    return LayerView_figure(app, name, out, n);
  if (!p) return false;
  const Metrics *m = &p->metrics;
  if (strcmp(name, "peak") == 0) return BYTES(m->peak_bytes);
  if (strcmp(name, "footprint") == 0) return BYTES(m->footprint_bytes);
  if (strcmp(name, "spill_bytes") == 0) return BYTES(m->noncompulsory_bytes);
  if (strcmp(name, "compulsory") == 0) return BYTES(m->compulsory_bytes);
  if (strcmp(name, "spills") == 0) return COUNT(m->spills);
  if (strcmp(name, "retrievals") == 0) return COUNT(m->retrievals);
  if (strcmp(name, "step") == 0) return COUNT(app->cursor);
  if (strcmp(name, "solver") == 0) {
    SolverStatus s = p->solver.status;
    return snprintf(out, n, "%s", s == SOLVER_OPTIMAL ? "optimal" : s == SOLVER_HEURISTIC ? "solved" : "feasible"), true;
  }
  int64_t fb, gap;
  if (app->cursor < 0 || app->cursor >= p->nsteps) return false;
  MapView_freeAt(app, p, app->cursor, &fb, &gap); /* the map's own figures */
  if (strcmp(name, "free") == 0) return BYTES(fb);
  if (strcmp(name, "largest_gap") == 0) return BYTES(gap);
  if (strcmp(name, "fragmentation") == 0)
    return snprintf(out, n, "%d%%", fb > 0 ? (int)((double)(fb - gap) * 100.0 / (double)fb + 0.5) : 0), true;
#undef BYTES
#undef COUNT
  return false;
}

bool Lesson_capture(App *app, const char *screen, const char *name, char *out, size_t n) {
  const Lesson *l = app->lesson;
  out[0] = '\0';
  if (!l || l->stage < 0) return false;
  const LessonStage *s = &l->stages[l->stage];
  for (int i = 0; i < s->ncapture; i++) {
    if (strcmp(s->capture[i].name, name) != 0) continue;
    regex_t re;
    if (regcomp(&re, s->capture[i].value, REG_EXTENDED)) return false;
    regmatch_t m[2];
    bool ok = regexec(&re, screen, 2, m, 0) == 0 && m[1].rm_so >= 0;
    if (ok) snprintf(out, n, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), screen + m[1].rm_so);
    regfree(&re);
    return ok;
  }
  return false;
}

void Lesson_fill(App *app, const Grid *g, const char *text, char *out, size_t n) {
  size_t k = 0;
  char *screen = NULL;
  for (const char *p = text; *p && k + 1 < n;) {
    const char *end = *p == '{' ? strchr(p, '}') : NULL;
    if (!end) {
      out[k++] = *p++;
      continue;
    }
    char name[96], val[128] = "";
    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
    if (strncmp(name, "key:", 4) == 0) Key_name(Actions_keyOf(name + 4), val, sizeof val);
    else if (!Lesson_figure(app, name, val, sizeof val)) {
      if (!screen && g) screen = Grid_toText(g);
      if (!screen || !Lesson_capture(app, screen, name, val, sizeof val)) snprintf(val, sizeof val, "?");
    }
    int w = snprintf(out + k, n - k, "%s", val);
    k += w > 0 ? (size_t)w : 0;
    if (k >= n) k = n - 1;
    p = end + 1;
  }
  out[k] = '\0';
  free(screen);
}

/* ---- the pane ------------------------------------------------------------- */

/* The stage's text as the pane's lines. */
typedef struct {
  char **line;
  int n, cap;
} LessonLines;

static void Lines_free(LessonLines *L) {
  for (int i = 0; i < L->n; i++) free(L->line[i]);
  free(L->line);
  *L = (LessonLines){0};
}

/* One line of len bytes, with an ellipsis after it when `cut` (a word split). */
static void Lines_add(LessonLines *L, const char *s, size_t len, bool cut) {
  if (L->n == L->cap) {
    int cap = L->cap ? L->cap * 2 : 32;
    char **p = realloc(L->line, sizeof(char *) * (size_t)cap);
    if (!p) return;
    L->line = p;
    L->cap = cap;
  }
  char *t = malloc(len + 4);
  if (!t) return;
  memcpy(t, s, len);
  if (cut) memcpy(t + len, "\xe2\x80\xa6", 3), len += 3; /* … (~ on an ASCII terminal) */
  t[len] = '\0';
  L->line[L->n++] = t;
}

/* Bytes of the UTF-8 character at s (one column each, as Grid_text draws them). */
static int Lesson_cpLen(const char *s) {
  unsigned char c = (unsigned char)*s;
  int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return i; /* a bad sequence: as far as it goes */
  return n;
}

/* A paragraph wrapped at w columns at spaces (a newline breaks too); a word
 * longer than a line is split with an ellipsis at the line's end, never cut. */
static void Lesson_wrap(LessonLines *L, const char *p, int w) {
  if (w < 8) w = 8;
  while (*p == ' ') p++;
  while (*p) {
    const char *q = p, *brk = NULL;
    int cols = 0;
    while (*q && *q != '\n' && cols < w) {
      if (*q == ' ') brk = q;
      q += Lesson_cpLen(q);
      cols++;
    }
    const char *end = q;
    if (*q && *q != ' ' && *q != '\n') {
      if (brk) end = brk;
      else { /* one word wider than the line: w - 1 columns of it, then the mark */
        end = p;
        for (int i = 0; i < w - 1; i++) end += Lesson_cpLen(end);
        Lines_add(L, p, (size_t)(end - p), true);
        p = end;
        continue;
      }
    }
    const char *e = end;
    while (e > p && e[-1] == ' ') e--;
    Lines_add(L, p, (size_t)(e - p), false);
    p = end;
    if (*p == '\n') p++;
    while (*p == ' ') p++;
  }
}

/* The text's columns: the pane's width less a margin of 2 on each side. */
static int LessonView_textWidth(const Grid *g) { return g->w - 4; }

/* Every paragraph of the stage shown, filled (figures, captures from g's screen)
 * and wrapped, a blank line between paragraphs. */
static void LessonView_lines(App *app, const Grid *g, LessonLines *L) {
  *L = (LessonLines){0};
  const LessonStage *s = &app->lesson->stages[app->lesson->stage];
  static char text[4096];
  for (int i = 0; i < s->ntext; i++) {
    if (i) Lines_add(L, "", 0, false);
    Lesson_fill(app, g, s->text[i], text, sizeof text);
    Lesson_wrap(L, text, LessonView_textWidth(g));
  }
}

int LessonView_height(App *app, const Grid *g) {
  const Lesson *l = app->lesson;
  if (!l || l->stage < 0 || g->w < VIEW_MIN_W || g->h < VIEW_MIN_H) return 0;
  int room = g->h - VIEW_LESSON_MIN_H; /* the explorer keeps a usable height */
  if (l->hidden) return 1;
  if (room < 5) return 0;
  /* each paragraph's rows, filled or raw, whichever is more (a capture is read off
   * the screen drawn after this, its {name} stands for it): at most 2/5 of the screen */
  const LessonStage *s = &l->stages[l->stage];
  static char text[4096];
  int lines = 3 + s->ntext - 1; /* the title, the try and keys lines, the blank lines between */
  for (int i = 0; i < s->ntext; i++) {
    LessonLines raw = {0}, filled = {0};
    Lesson_wrap(&raw, s->text[i], LessonView_textWidth(g));
    Lesson_fill(app, NULL, s->text[i], text, sizeof text);
    Lesson_wrap(&filled, text, LessonView_textWidth(g));
    lines += raw.n > filled.n ? raw.n : filled.n;
    Lines_free(&raw);
    Lines_free(&filled);
  }
  int most = g->h * 2 / 5;
  lines = lines < 6 ? 6 : lines > most ? most : lines;
  return lines > room ? room : lines;
}

/* The text rows of a pane of h rows: less the title, try and keys lines. */
static int LessonView_rows(int h) { return h - 3 > 1 ? h - 3 : 1; }

int LessonView_scroll(App *app, int dir) {
  Lesson *l = app->lesson;
  if (!l || l->stage < 0) {
    App_setMessage(app, false, "no lesson is open (spadmap lesson lists them)");
    return ACT_REDRAW;
  }
  const Grid *g = app->grid;
  if (!g) return 0;
  if (l->hidden) { /* scrolling a hidden pane shows it first */
    l->hidden = false;
    app->message[0] = '\0';
  }
  int rows = LessonView_rows(LessonView_height(app, g));
  LessonLines L;
  LessonView_lines(app, g, &L);
  int max = L.n - rows > 0 ? L.n - rows : 0, was = l->scroll;
  Lines_free(&L);
  int page = rows > 1 ? rows - 1 : 1; /* a line of the page before stays in view */
  l->scroll += dir * page;
  if (l->scroll > max) l->scroll = max;
  if (l->scroll < 0) l->scroll = 0;
  if (l->scroll == was) App_setMessage(app, false, dir > 0 ? "the end of this stage's text" : "the start of this stage's text");
  return ACT_REDRAW;
}

int LessonView_toggle(App *app) {
  Lesson *l = app->lesson;
  if (!l) {
    App_setMessage(app, false, "no lesson is open (spadmap lesson lists them)");
    return ACT_REDRAW;
  }
  l->hidden = !l->hidden;
  char k[16];
  Key_name(Actions_keyOf("lesson_pane"), k, sizeof k);
  if (l->hidden) App_setMessage(app, false, "the lesson's text is hidden: %s shows it", k);
  else app->message[0] = '\0';
  return ACT_REDRAW;
}

/* The keys line: as many of the parts as fit in w columns, in their order. */
static void LessonView_keys(Grid *g, int x, int y, int w, const char *const *part, int n) {
  char line[512] = "";
  size_t len = 0;
  for (int i = 0; i < n; i++) {
    if (!part[i]) continue;
    size_t add = strlen(part[i]) + (len ? 3 : 0);
    if ((int)(len + add) > w) continue; /* a later, shorter part may still fit */
    snprintf(line + len, sizeof line - len, "%s%s", len ? "   " : "", part[i]);
    len += add;
  }
  Grid_text(g, x, y, w, ROLE_DIM, 0, line);
}

void LessonView_draw(App *app, Grid *g, int y, int h) {
  Lesson *l = app->lesson;
  if (!l || h <= 0) return;
  const LessonStage *s = &l->stages[l->stage];
  char next[16], prev[16], quit[16], down[16], up[16], pane[16], mark[64];
  Key_name(Actions_keyOf("lesson_next"), next, sizeof next);
  Key_name(Actions_keyOf("lesson_prev"), prev, sizeof prev);
  Key_name(Actions_keyOf("quit"), quit, sizeof quit);
  Key_name(Actions_keyOf("lesson_down"), down, sizeof down);
  Key_name(Actions_keyOf("lesson_up"), up, sizeof up);
  Key_name(Actions_keyOf("lesson_pane"), pane, sizeof pane);
  Grid_fill(g, 0, y, g->w, h, ' ', ROLE_DEFAULT, 0);
  Grid_fill(g, 0, y, g->w, 1, Grid_glyph(g, 0x2500), ROLE_DIM, 0);
  if (l->hidden || h < 4) { /* the title line only, saying how to show the rest */
    snprintf(mark, sizeof mark, " %s: show the text ", pane);
    int mw = (int)strlen(mark);
    Grid_printf(g, 1, y, g->w - mw - 3, ROLE_TITLE, ATTR_BOLD, " lesson %s, stage %d/%d: %s ", l->name, l->stage + 1,
                l->nstages, s->title);
    Grid_text(g, g->w - mw - 1, y, mw, ROLE_OK, ATTR_BOLD, mark);
    return;
  }
  LessonLines L;
  LessonView_lines(app, g, &L);
  int rows = LessonView_rows(h), max = L.n - rows > 0 ? L.n - rows : 0;
  if (l->scroll > max) l->scroll = max;
  if (l->scroll < 0) l->scroll = 0;
  /* the title; "more ↑" at its right when lines are scrolled off the top */
  int mw = 0;
  if (l->scroll > 0) {
    snprintf(mark, sizeof mark, " more \xe2\x86\x91 %d (%s) ", l->scroll, up);
    mw = (int)strlen(mark) - 2; /* the arrow: 3 bytes, 1 column */
    Grid_text(g, g->w - mw - 1, y, mw, ROLE_WARN, ATTR_BOLD, mark);
  }
  Grid_printf(g, 1, y, g->w - mw - 3, ROLE_TITLE, ATTR_BOLD, " lesson %s, stage %d/%d: %s ", l->name, l->stage + 1,
              l->nstages, s->title);
  for (int i = 0; i < rows && l->scroll + i < L.n; i++)
    Grid_text(g, 2, y + 1 + i, LessonView_textWidth(g), ROLE_DEFAULT, 0, L.line[l->scroll + i]);
  int below = L.n - rows - l->scroll, bottom = y + h - 1;
  Lines_free(&L);
  if (l->error[0]) Grid_printf(g, 2, bottom - 1, g->w - 4, ROLE_WARN, ATTR_BOLD, "%s", l->error);
  else if (s->try_action) {
    const Action *a = Actions_find(s->try_action);
    char k[16];
    Key_name(a ? a->key : 0, k, sizeof k);
    Grid_printf(g, 2, bottom - 1, g->w - 4, ROLE_OK, ATTR_BOLD, "try: press %s (%s: %s)", k, s->try_action, a ? a->help : "");
  }
  /* "more ↓" at the keys line's right while lines are below the pane */
  mw = 0;
  if (below > 0) {
    snprintf(mark, sizeof mark, "more \xe2\x86\x93 %d line%s (%s)", below, below == 1 ? "" : "s", down);
    mw = (int)strlen(mark) - 2;
    Grid_text(g, g->w - mw - 2, bottom, mw, ROLE_WARN, ATTR_BOLD, mark);
  }
  char p0[64], p1[32], p3[32], p4[32]; /* the marks name the scroll keys */
  bool last = l->stage + 1 >= l->nstages;
  if (last) snprintf(p0, sizeof p0, "the end of the lesson: %s back", prev);
  else snprintf(p0, sizeof p0, "%s or Enter: next stage", next);
  snprintf(p1, sizeof p1, "%s: back", prev);
  snprintf(p3, sizeof p3, "%s: hide", pane);
  snprintf(p4, sizeof p4, "%s: quit", quit);
  const char *part[] = {p0, last ? NULL : p1, p3, p4, last ? "or keep exploring" : "(every other key works as usual)"};
  LessonView_keys(g, 2, bottom, g->w - 4 - (mw ? mw + 2 : 0), part, 5);
}

/* lesson: see lesson.h. */
#include "lesson.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "actions.h"
#include "clock.h"
#include "datadir.h"
#include "views.h"
#include "words.h"

static char *Lesson_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

const char *Lesson_path(const char *name, char *buf, size_t n) {
  int w;
  if (strchr(name, '/') || strstr(name, ".json")) w = snprintf(buf, n, "%s", name);
  else w = snprintf(buf, n, "%s/lessons/%s.json", Data_dir(), name);
  return w < 0 || (size_t)w >= n ? NULL : buf; /* cut short, it would name another file */
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
    struct stat sb; /* a FIFO or a device named x.json would block the list */
    snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
    if (stat(full, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    if (((*paths)[n] = Lesson_dup(full))) n++;
  }
  closedir(d);
  if (n) qsort(*paths, (size_t)n, sizeof(char *), Lesson_cmp);
  return n;
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

/* Does every figure text quotes have a value in the state shown? Not while a solve
 * runs: the plan on screen then is the fast placeholder (App_resolve), not the
 * stage's (an ILP stage on the worker thread). */
static bool LessonView_complete(App *app, const char *text) {
  if (app->solving && strchr(text, '{')) return false;
  for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
    const char *end = strchr(p, '}');
    if (!end) break;
    char name[96];
    LessonValue v;
    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
    if (strncmp(name, "key:", 4) != 0 && !Lesson_value(app, name, &v)) return false;
  }
  return true;
}

/* Paragraph i of the stage shown, filled: as the stage was set (frozen), or now while
 * one of its figures has no value yet (then kept once all have). The text filled
 * from the screen's state quoted what the learner did since: loopnest's "CoSA's MIP
 * ... 154,752 cycles" after m (cosa-plus's), "the same method (?), on ?" once the
 * layer view was closed, replacement's "LRU spills 4 times" after +. */
static const char *LessonView_text(App *app, int i, char *buf, size_t n) {
  Lesson *l = app->lesson;
  if (l->frozen_for != l->stage + 1) LessonView_freeze(app);
  if (l->frozen[i]) return l->frozen[i];
  const char *text = l->stages[l->stage].text[i];
  Lesson_fill(app, text, buf, n);
  if (i < 16 && LessonView_complete(app, text)) l->frozen[i] = Lesson_dup(buf);
  return buf;
}

void LessonView_freeze(App *app) {
  Lesson *l = app->lesson;
  if (!l) return;
  for (int i = 0; i < 16; i++) free(l->frozen[i]), l->frozen[i] = NULL;
  l->frozen_for = l->stage + 1;
  if (l->stage < 0 || l->stage >= l->nstages) return;
  const LessonStage *s = &l->stages[l->stage];
  static char text[4096];
  for (int i = 0; i < s->ntext && i < 16; i++)
    if (LessonView_complete(app, s->text[i])) {
      Lesson_fill(app, s->text[i], text, sizeof text);
      l->frozen[i] = Lesson_dup(text);
    }
}

/* Every paragraph of the stage shown, filled (the engine's figures) and wrapped, a blank line between paragraphs. */
static void LessonView_lines(App *app, const Grid *g, LessonLines *L) {
  *L = (LessonLines){0};
  const LessonStage *s = &app->lesson->stages[app->lesson->stage];
  static char text[4096];
  if (app->lesson->pending) { /* the stage's search runs on the worker: its figures are not there yet */
    char lim[24], prog[160], fig[96] = "", b1[16], b2[16], cq[16], qq[16];
    if (app->has_progress && (app->progress.has_incumbent || app->progress.has_bound))
      snprintf(fig, sizeof fig, "%s/%s", app->progress.has_incumbent ? App_bytes((int64_t)app->progress.incumbent, b1, sizeof b1) : "-",
               app->progress.has_bound ? App_bytes((int64_t)app->progress.bound, b2, sizeof b2) : "-");
    Words_progress(Clock_now() - app->solve_t0, fig, -1, app->has_progress ? app->progress_stage : "", prog, sizeof prog);
    snprintf(text, sizeof text, "Setting up this stage: the %s plan's search (%s/%s/%s) runs, for at most %s. Its text and "
             "figures follow when it ends. %s or Esc cancels it, %s quits.",
             app->lesson->pending == 1 ? "pinned" : "current", App_policy(POLICY_SCHEDULE, app->set.sched)->name,
             App_policy(POLICY_REPLACEMENT, app->set.repl)->name, App_policy(POLICY_ALLOCATOR, app->set.alloc)->name,
             Words_seconds(app->set.time_limit, lim, sizeof lim), Key_name(Actions_keyOf("cancel"), cq, sizeof cq),
             Key_name(Actions_keyOf("quit"), qq, sizeof qq));
    Lesson_wrap(L, text, LessonView_textWidth(g));
    Lines_add(L, "", 0, false);
    Lesson_wrap(L, prog, LessonView_textWidth(g));
    return;
  }
  for (int i = 0; i < s->ntext; i++) {
    if (i) Lines_add(L, "", 0, false);
    Lesson_wrap(L, LessonView_text(app, i, text, sizeof text), LessonView_textWidth(g));
  }
}

int LessonView_height(App *app, const Grid *g) {
  const Lesson *l = app->lesson;
  if (!l || l->stage < 0 || g->w < VIEW_MIN_W || g->h < VIEW_MIN_H) return 0;
  int room = g->h - VIEW_LESSON_MIN_H; /* the explorer keeps a usable height */
  if (l->hidden) return 1;
  if (room < 5) return 0;
  /* each paragraph's rows, filled or raw, whichever is more: at most 2/5 of the screen */
  const LessonStage *s = &l->stages[l->stage];
  static char text[4096];
  int lines = 3 + s->ntext - 1; /* the title, the try and keys lines, the blank lines between */
  for (int i = 0; i < s->ntext; i++) {
    LessonLines raw = {0}, filled = {0};
    Lesson_wrap(&raw, s->text[i], LessonView_textWidth(g));
    Lesson_wrap(&filled, LessonView_text(app, i, text, sizeof text), LessonView_textWidth(g));
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
  /* over the layer view the quit key closes the view (LayerView_key), not the explorer */
  snprintf(p4, sizeof p4, LayerView_isOpen(app) ? "%s: close the view" : "%s: quit", quit);
  const char *part[] = {p0, last ? NULL : p1, p3, p4, last ? "or keep exploring" : "(every other key works as usual)"};
  LessonView_keys(g, 2, bottom, g->w - 4 - (mw ? mw + 2 : 0), part, 5);
}

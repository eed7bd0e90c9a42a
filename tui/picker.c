/* picker: the "open a network" overlay. Lists the *.json and *.onnx files of the loaded
 * network's directory and of the bundled data/networks, sorted by name; typing
 * filters (case-insensitive substring), Up/Down/PgUp/PgDn/Home/End move, Enter
 * loads the file with Import_open (an error leaves the old network and shows in the
 * status line), Esc closes. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "datadir.h"
#include "actions.h"
#include "views.h"
#include "words.h"

static bool Picker_isModel(const char *name) {
  size_t n = strlen(name);
  if (name[0] == '.') return false;
  return (n > 5 && strcmp(name + n - 5, ".json") == 0) || (n > 5 && strcmp(name + n - 5, ".onnx") == 0);
}

static bool Picker_add(Picker *pk, const char *dir, const char *name, const char *suffix) {
  char **paths = realloc(pk->paths, sizeof(char *) * (size_t)(pk->n + 1));
  if (paths) pk->paths = paths;
  char **labels = realloc(pk->labels, sizeof(char *) * (size_t)(pk->n + 1));
  if (labels) pk->labels = labels;
  if (!paths || !labels) return false;
  size_t lp = strlen(dir) + strlen(name) + 2, ll = strlen(name) + strlen(suffix) + 1;
  char *path = malloc(lp), *label = malloc(ll);
  if (!path || !label) {
    free(path);
    free(label);
    return false;
  }
  snprintf(path, lp, "%s/%s", dir, name);
  snprintf(label, ll, "%s%s", name, suffix);
  pk->paths[pk->n] = path;
  pk->labels[pk->n] = label;
  pk->n++;
  return true;
}

static void Picker_scan(Picker *pk, const char *dir, const char *suffix, bool folders) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (folders && e->d_name[0] != '.') { /* sub-folders of the browsed one, to walk into */
      char sub[PATH_MAX + 256];
      struct stat st;
      snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
      if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!Picker_add(pk, dir, e->d_name, "/")) break;
        continue;
      }
    }
    if (Picker_isModel(e->d_name) && !Picker_add(pk, dir, e->d_name, suffix)) break;
  }
  closedir(d);
}

static bool Picker_contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (const char *h = hay; *h; h++) {
    size_t i = 0;
    while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return n == 0;
}

/* How well a label matches the filter: 0 its name exactly ("nasnet_a" for
 * nasnet_a.json), 1 its start ("nasnet" for nasnet_a.json, not mnasnet1_3),
 * 2 anywhere, 3 not at all. */
static int Picker_rank(const char *label, const char *filter) {
  size_t n = strlen(filter), stem = strcspn(label, " ");
  if (stem > 5 && (strncmp(label + stem - 5, ".json", 5) == 0 || strncmp(label + stem - 5, ".onnx", 5) == 0)) stem -= 5;
  if (n == stem && strncasecmp(label, filter, n) == 0) return 0;
  if (strncasecmp(label, filter, n) == 0) return 1;
  return Picker_contains(label, filter) ? 2 : 3;
}

static void Picker_refilter(Picker *pk) {
  pk->nshown = 0;
  if (strchr(pk->filter, '/')) { /* a typed path: Enter opens it or walks into it */
    pk->sel = 0;
    return;
  }
  for (int rank = 0; rank < 3; rank++) /* exact, then prefix, then anywhere; each sorted by label */
    for (int i = 0; i < pk->n; i++)
      if (Picker_rank(pk->labels[i], pk->filter) == rank) pk->shown[pk->nshown++] = i;
  if (pk->sel >= pk->nshown) pk->sel = pk->nshown - 1;
  if (pk->sel < 0) pk->sel = 0;
}

void Picker_close(App *app) {
  Picker *pk = &app->picker;
  for (int i = 0; i < pk->n; i++) {
    free(pk->paths[i]);
    free(pk->labels[i]);
  }
  free(pk->paths);
  free(pk->labels);
  free(pk->shown);
  pk->paths = pk->labels = NULL;
  pk->shown = NULL;
  pk->n = pk->nshown = pk->sel = pk->top = 0;
  pk->filter[0] = '\0';
  pk->open = false; /* the remembered folders stay */
}

/* The folder of a file path ("." for a bare name). */
static void Picker_dirOf(const char *path, char *dir, size_t n) {
  snprintf(dir, n, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  else snprintf(dir, n, ".");
}

/* Remembers the folder of every network opened (most recent first, at most 8). */
void Picker_remember(App *app, const char *path) {
  Picker *pk = &app->picker;
  char dir[1024], real[PATH_MAX];
  Picker_dirOf(path, dir, sizeof dir);
  if (realpath(dir, real)) snprintf(dir, sizeof dir, "%.1023s", real);
  int k = 0;
  while (k < pk->ndirs && strcmp(pk->dirs[k], dir) != 0) k++;
  if (k == pk->ndirs && pk->ndirs < 8) pk->ndirs++;
  if (k == 8) k = 7;
  memmove(pk->dirs[1], pk->dirs[0], sizeof pk->dirs[0] * (size_t)k);
  snprintf(pk->dirs[0], sizeof pk->dirs[0], "%s", dir);
}

static void Picker_fill(App *app) {
  Picker *pk = &app->picker;
  char seen[10][PATH_MAX];
  int nseen = 0;
  const char *dirs[10];
  char suffixes[10][64];
  int nd = 0;
  dirs[nd] = pk->dir, suffixes[nd][0] = '\0', nd++;
  for (int i = 0; i < pk->ndirs; i++) {
    const char *b = strrchr(pk->dirs[i], '/');
    snprintf(suffixes[nd], sizeof suffixes[nd], " (%.58s/)", b && b[1] ? b + 1 : pk->dirs[i]);
    dirs[nd++] = pk->dirs[i];
  }
  dirs[nd] = Data_file("networks"), snprintf(suffixes[nd], sizeof suffixes[nd], " (bundled)"), nd++;
  for (int i = 0; i < nd; i++) { /* each folder once */
    char real[PATH_MAX];
    if (!realpath(dirs[i], real)) continue;
    bool dup = false;
    for (int j = 0; j < nseen; j++) dup |= strcmp(seen[j], real) == 0;
    if (dup) continue;
    memcpy(seen[nseen++], real, sizeof real);
    Picker_scan(pk, dirs[i], suffixes[i], i == 0);
  }
  if (strcmp(pk->dir, "/") != 0) Picker_add(pk, pk->dir, "..", "/");
  /* sorted by label, so the listing is the same on every machine */
  for (int i = 1; i < pk->n; i++)
    for (int j = i; j > 0 && strcmp(pk->labels[j - 1], pk->labels[j]) > 0; j--) {
      char *t = pk->labels[j];
      pk->labels[j] = pk->labels[j - 1], pk->labels[j - 1] = t;
      t = pk->paths[j];
      pk->paths[j] = pk->paths[j - 1], pk->paths[j - 1] = t;
    }
  pk->shown = malloc(sizeof(int) * (size_t)(pk->n ? pk->n : 1));
}

/* Lists dir (its networks and sub-folders), the remembered folders and the bundled networks. */
static void Picker_browse(App *app, const char *dir) {
  Picker *pk = &app->picker;
  char keep[1024];
  snprintf(keep, sizeof keep, "%s", dir);
  Picker_close(app);
  snprintf(pk->dir, sizeof pk->dir, "%s", keep);
  Picker_fill(app);
  if (!pk->shown) {
    Picker_close(app);
    App_setMessage(app, true, "out of memory");
    return;
  }
  Picker_refilter(pk);
  pk->open = true;
}

void Picker_open(App *app) {
  Picker *pk = &app->picker;
  char dir[1024];
  Picker_dirOf(app->path, dir, sizeof dir);
  Picker_remember(app, app->path);
  Picker_browse(app, dir);
  if (!pk->open) return;
  /* start on the file that is loaded */
  const char *base = strrchr(app->path, '/');
  base = base ? base + 1 : app->path;
  for (int k = 0; k < pk->nshown; k++)
    if (strcmp(pk->labels[pk->shown[k]], base) == 0) pk->sel = k;
  app->message[0] = '\0';
}

/* Opens the network at path, or walks into it when it is a folder. */
static int Picker_go(App *app, const char *path_in, const char *label) {
  char path[1024];
  snprintf(path, sizeof path, "%s", path_in);
  if (path[0] == '~' && getenv("HOME")) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s%s", getenv("HOME"), path + 1);
    snprintf(path, sizeof path, "%s", tmp);
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    char real[PATH_MAX];
    if (realpath(path, real)) snprintf(path, sizeof path, "%.1023s", real);
    Picker_browse(app, path);
    return ACT_REDRAW;
  }
  Picker_close(app);
  SpError err;
  if (App_load(app, path, &err)) {
    App_setMessage(app, true, "cannot open %s: %s", label, err.text);
    return ACT_REDRAW;
  }
  Picker_remember(app, path);
  /* an ILP policy in force searches the new network at once: say so, and how to stop it */
  const AppSettings *cur = &app->set;
  char srch[160] = "", l[24];
  if (App_policy(POLICY_SCHEDULE, cur->sched)->searching || App_policy(POLICY_REPLACEMENT, cur->repl)->searching ||
      App_policy(POLICY_ALLOCATOR, cur->alloc)->searching) {
    if (cur->time_limit > 0)
      snprintf(srch, sizeof srch, "; the ILP policy searches it for up to %s (C cancels, m: a fast policy)",
               Words_seconds(cur->time_limit, l, sizeof l));
    else snprintf(srch, sizeof srch, "; the ILP policy searches it with no time limit (C cancels, m: a fast policy)");
  }
  App_setMessage(app, false, "opened %s (%d ops), budget M_R%s%s", app->net->name, app->net->nops,
                 app->message[0] ? "; the pinned plan was for another network: unpinned" : "", srch);
  return ACT_REDRAW | ACT_RESOLVE;
}

int Picker_key(App *app, int key) {
  Picker *pk = &app->picker;
  size_t len = strlen(pk->filter);
  switch (key) {
  case K_ESC: Picker_close(app); return ACT_REDRAW;
  case K_UP: pk->sel--; break;
  case K_DOWN: pk->sel++; break;
  case K_PGUP: pk->sel -= 10; break;
  case K_PGDN: pk->sel += 10; break;
  case K_HOME: pk->sel = 0; break;
  case K_END: pk->sel = pk->nshown - 1; break;
  case K_BACKSPACE:
  case 8:
    if (len) pk->filter[len - 1] = '\0';
    Picker_refilter(pk);
    break;
  case K_ENTER:
  case '\r': {
    if (strchr(pk->filter, '/')) { /* a typed path */
      char path[512];
      snprintf(path, sizeof path, "%s", pk->filter);
      return Picker_go(app, path, path);
    }
    if (pk->nshown == 0) return ACT_REDRAW;
    char path[2048], label[512];
    const char *lab = pk->labels[pk->shown[pk->sel]];
    size_t ll = strlen(lab);
    if (ll && lab[ll - 1] == '/') /* a folder: its path is the folder it is in plus its name */
      snprintf(path, sizeof path, "%s/%.*s", pk->paths[pk->shown[pk->sel]], (int)(ll - 1), lab);
    else snprintf(path, sizeof path, "%s", pk->paths[pk->shown[pk->sel]]);
    snprintf(label, sizeof label, "%s", lab);
    return Picker_go(app, path, label);
  }
  default:
    if (key >= 0x20 && key < 0x7F && len + 1 < sizeof pk->filter) {
      pk->filter[len] = (char)key;
      pk->filter[len + 1] = '\0';
      pk->sel = 0;
      Picker_refilter(pk);
    }
    return ACT_REDRAW;
  }
  if (pk->sel >= pk->nshown) pk->sel = pk->nshown - 1;
  if (pk->sel < 0) pk->sel = 0;
  return ACT_REDRAW;
}

void PickerView_draw(App *app, Grid *g) {
  Picker *pk = &app->picker;
  int w = g->w - 8 < 56 ? g->w - 8 : 56, h = g->h - 6;
  if (h > pk->n + 6) h = pk->n + 6;
  if (h < 7) h = 7;
  int x0 = (g->w - w) / 2, y0 = (g->h - h) / 2, rows = h - 5;
  Grid_box(g, x0, y0, w, h);
  Grid_printf(g, x0 + 2, y0, w - 4, ROLE_TITLE, ATTR_BOLD, " open a network (%d of %d) ", pk->nshown, pk->n);
  const char *ft = pk->filter;
  size_t fl = strlen(ft);
  if ((int)fl > w - 14) ft += fl - (size_t)(w - 14); /* a long path: its end */
  int n = Grid_printf(g, x0 + 2, y0 + 1, w - 4, ROLE_PROMPT, 0, "filter: %s", ft);
  Grid_put(g, x0 + 2 + n, y0 + 1, g->unicode ? 0x2588 : '_', ROLE_PROMPT, 0);
  if (pk->sel < pk->top) pk->top = pk->sel;
  if (pk->sel >= pk->top + rows) pk->top = pk->sel - rows + 1;
  if (pk->top > pk->nshown - rows) pk->top = pk->nshown - rows;
  if (pk->top < 0) pk->top = 0;
  const char *base = strrchr(app->path, '/');
  base = base ? base + 1 : app->path;
  if (pk->nshown == 0) Grid_text(g, x0 + 2, y0 + 3, w - 4, ROLE_DIM, 0, "no file matches (Backspace)");
  for (int r = 0; r < rows && pk->top + r < pk->nshown; r++) {
    int k = pk->top + r;
    bool sel = k == pk->sel;
    const char *label = pk->labels[pk->shown[k]];
    if (sel) Grid_fill(g, x0 + 1, y0 + 3 + r, w - 2, 1, ' ', ROLE_CURSOR, ATTR_REVERSE);
    Grid_printf(g, x0 + 2, y0 + 3 + r, w - 4, sel ? ROLE_CURSOR : ROLE_DEFAULT, sel ? ATTR_REVERSE | ATTR_BOLD : 0,
                "%s %s", strcmp(label, base) == 0 ? "*" : " ", label);
  }
  if (pk->top > 0) Grid_put(g, x0 + w - 2, y0 + 3, 0x25B2, ROLE_DIM, 0);
  if (pk->top + rows < pk->nshown) Grid_put(g, x0 + w - 2, y0 + 2 + rows, 0x25BC, ROLE_DIM, 0);
  if (strchr(pk->filter, '/'))
    Grid_text(g, x0 + 2, y0 + 3, w - 4, ROLE_DIM, 0, "a path: Enter opens the file or lists the folder");
  Grid_text(g, x0 + 2, y0 + h - 1, w - 4, ROLE_DIM, 0, " type to filter or a path, Enter opens, Esc ");
}

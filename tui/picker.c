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

#include "actions.h"
#include "views.h"

#ifndef SPADMAP_DATA_DIR
#define SPADMAP_DATA_DIR "data"
#endif

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

static void Picker_scan(Picker *pk, const char *dir, const char *suffix) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (Picker_isModel(e->d_name) && !Picker_add(pk, dir, e->d_name, suffix)) break;
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

static void Picker_refilter(Picker *pk) {
  pk->nshown = 0;
  for (int i = 0; i < pk->n; i++)
    if (Picker_contains(pk->labels[i], pk->filter)) pk->shown[pk->nshown++] = i;
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
  memset(pk, 0, sizeof *pk);
}

void Picker_open(App *app) {
  Picker_close(app);
  Picker *pk = &app->picker;
  char dir[1024], here[PATH_MAX], bundled[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", app->path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  else snprintf(dir, sizeof dir, ".");
  Picker_scan(pk, dir, "");
  bool same = realpath(dir, here) && realpath(SPADMAP_DATA_DIR "/networks", bundled) && strcmp(here, bundled) == 0;
  if (!same) Picker_scan(pk, SPADMAP_DATA_DIR "/networks", " (bundled)");
  /* sorted by label, so the listing is the same on every machine */
  for (int i = 1; i < pk->n; i++)
    for (int j = i; j > 0 && strcmp(pk->labels[j - 1], pk->labels[j]) > 0; j--) {
      char *t = pk->labels[j];
      pk->labels[j] = pk->labels[j - 1], pk->labels[j - 1] = t;
      t = pk->paths[j];
      pk->paths[j] = pk->paths[j - 1], pk->paths[j - 1] = t;
    }
  pk->shown = malloc(sizeof(int) * (size_t)(pk->n ? pk->n : 1));
  if (!pk->shown) {
    Picker_close(app);
    App_setMessage(app, true, "out of memory");
    return;
  }
  Picker_refilter(pk);
  /* start on the file that is loaded */
  const char *base = strrchr(app->path, '/');
  base = base ? base + 1 : app->path;
  for (int k = 0; k < pk->nshown; k++)
    if (strcmp(pk->labels[pk->shown[k]], base) == 0) pk->sel = k;
  pk->open = true;
  app->message[0] = '\0';
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
    if (pk->nshown == 0) return ACT_REDRAW;
    char path[1024], label[256];
    snprintf(path, sizeof path, "%s", pk->paths[pk->shown[pk->sel]]);
    snprintf(label, sizeof label, "%s", pk->labels[pk->shown[pk->sel]]);
    Picker_close(app);
    SpError err;
    if (App_load(app, path, &err)) {
      App_setMessage(app, true, "cannot open %s: %s", label, err.text);
      return ACT_REDRAW;
    }
    App_setMessage(app, false, "opened %s (%d ops), budget M_R", app->net->name, app->net->nops);
    return ACT_REDRAW | ACT_RESOLVE;
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
  Grid_printf(g, x0 + 2, y0, w - 4, ROLE_TITLE, ATTR_BOLD, " open a network (%d of %d files) ", pk->nshown, pk->n);
  int n = Grid_printf(g, x0 + 2, y0 + 1, w - 4, ROLE_PROMPT, 0, "filter: %s", pk->filter);
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
  Grid_text(g, x0 + 2, y0 + h - 1, w - 4, ROLE_DIM, 0, " type to filter, Up/Down, Enter opens, Esc ");
}

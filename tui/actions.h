/* actions: every user action declared once {name, keys, help, handler}. Handlers
 * return flags the one loop acts on; the help overlay and key configuration read
 * the same table. Keys are Unicode codepoints or the KEY_* codes below, so the
 * table does not depend on curses (term.c translates). */
#ifndef SPADMAP_ACTIONS_H
#define SPADMAP_ACTIONS_H

#include "app.h"

enum {
  K_TAB = '\t', K_ENTER = '\n', K_ESC = 27, K_BACKSPACE = 127,
  K_SPECIAL = 0x110000, /* beyond Unicode */
  K_LEFT, K_RIGHT, K_UP, K_DOWN, K_BTAB, K_PGUP, K_PGDN, K_HOME, K_END, K_RESIZE,
  K_F1, K_F10, /* help and quit where htop users look for them */
  K_CLICK = 0x200000, /* | y << 10 | x: a mouse click at a screen cell (Key_click) */
};

enum { ACT_REDRAW = 1, ACT_RESOLVE = 2, ACT_QUIT = 4 };

typedef int (*ActionFn)(App *app);

/* Where an action's key works: the explorer, the layer view (I) over it, or
 * the layer view's steps map (its steps methods), where it comes first. */
enum { ACT_SCOPE_MAIN = 0, ACT_SCOPE_LAYER = 1, ACT_SCOPE_STEPS = 2 };

typedef struct {
  const char *name;
  int key, key2;        /* key2: an alternative, 0 if none */
  const char *help;
  ActionFn run;
} Action;
/* ACT_SCOPE_LAYER for the layer view's actions (named "layer_..."),
 * ACT_SCOPE_STEPS for its steps map's ("steps_..."), else ACT_SCOPE_MAIN: a key
 * is unique within its scope, and a steps key takes no primary key of the layer
 * view (Left/Right, the method keys' alternatives, step the map there). */
int Action_scope(const Action *a);

int Actions_count(void);
/* The key bound to the named action (0 if none): help, footer and legend show it. */
int Actions_keyOf(const char *name);
const Action *Actions_at(int i);
/* The action of that name, or NULL (lessons replay actions by name). */
const Action *Actions_find(const char *name);
/* Runs the action of a scope bound to key: its ACT_* flags, -1 if none is bound. */
int Actions_keyScoped(App *app, int key, int scope);
/* Handles one key: prompt and help modes first, then the table. Returns ACT_* flags. */
int Actions_key(App *app, int key);
/* Applies "action=key,action=key" (SPADMAP_KEYS or the keys file); "" on success,
 * else what was wrong. */
const char *Actions_configure(const char *spec);
/* "q", "<Left>", "<Tab>" ... into buf. */
const char *Key_name(int key, char *buf, int n);
/* A click at screen cell (x, y) as a key (x, y clamped to 0..1023), and back. */
int Key_click(int x, int y);
bool Key_isClick(int key);
int Key_clickX(int key);
int Key_clickY(int key);
/* Reads one key from a script ("<Click:X,Y>" is a click at column X, row Y) ("x", "<Right>", "<lt>" for '<'); returns the
 * bytes consumed, 0 at the end, -1 on an unknown <name>. */
int Key_parse(const char *s, int *key);

#endif

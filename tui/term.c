#include "term.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "actions.h"
#include "clock.h"
#include "fileio.h"
#include "views.h"

static volatile sig_atomic_t Term_active;

/* Fatal signals: give the terminal back, then die the way the signal meant. */
static void Term_signal(int sig) {
  FileIO_removeTempOnSignal(); /* a save (S, P) being written when the signal came */
  if (Term_active) endwin();
  Term_active = 0;
  signal(sig, SIG_DFL);
  raise(sig);
}

/* The handler runs on a stack of its own: a stack overflow (SIGSEGV with no
 * stack left) would otherwise kill the process before the terminal is given
 * back, leaving it raw, in the alternate screen, with mouse reporting on. */
static char Term_altstack[1 << 16];

static void Term_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL};
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = Term_altstack;
  ss.ss_size = sizeof Term_altstack;
  bool alt = sigaltstack(&ss, NULL) == 0;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = Term_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | (alt ? SA_ONSTACK : 0); /* SA_RESTART: what signal() gave */
    sigaction(sigs[i], &sa, NULL);
  }
}

static void Term_signalsOff(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
}

typedef struct {
  bool color, c256;
  short pairs[ROLE_COUNT][ROLE_COUNT]; /* (fg role, bg role) -> pair, 0: not made yet */
  short next_pair;
} TermColors;

static short Term_fgColor(const TermColors *tc, Role r) {
  const RoleStyle *s = Role_style(r);
  return tc->c256 && s->fg256 >= 0 ? s->fg256 : s->fg;
}

static attr_t Term_attrs(TermColors *tc, const Cell *c) {
  const RoleStyle *s = Role_style((Role)c->fg);
  int a = c->attr | (tc->color ? s->attr : s->mono_attr);
  attr_t out = 0;
  if (a & ATTR_BOLD) out |= A_BOLD;
  if (a & ATTR_REVERSE) out |= A_REVERSE;
  if (!tc->color) return out;
  short *pair = &tc->pairs[c->fg][c->bg];
  if (!*pair && tc->next_pair < COLOR_PAIRS && tc->next_pair < 32767) {
    short bg = c->bg != ROLE_DEFAULT ? Term_fgColor(tc, (Role)c->bg) : s->bg;
    init_pair(tc->next_pair, Term_fgColor(tc, (Role)c->fg), bg);
    *pair = tc->next_pair++;
  }
  return out | COLOR_PAIR(*pair);
}

static void Term_blit(TermColors *tc, const Grid *g) {
  for (int y = 0; y < g->h; y++)
    for (int x = 0; x < g->w; x++) {
      const Cell *c = &g->cells[y * g->w + x];
      /* the bottom-right cell scrolls some terminals: skip it */
      if (y == g->h - 1 && x == g->w - 1) continue;
      uint32_t shown = Grid_shown(g, x, y);
      if (!shown) continue; /* the tail of a double-width character: curses drew both columns */
      wchar_t wc[2] = {(wchar_t)shown, 0};
      cchar_t cc;
      attr_t a = Term_attrs(tc, c);
      setcchar(&cc, wc, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
      mvadd_wch(y, x, &cc);
    }
}

static int Term_key(int ch, bool is_key) {
  if (!is_key) return ch == '\r' ? K_ENTER : ch == 8 ? K_BACKSPACE : ch;
  switch (ch) {
  case KEY_LEFT: return K_LEFT;
  case KEY_RIGHT: return K_RIGHT;
  case KEY_UP: return K_UP;
  case KEY_DOWN: return K_DOWN;
  case KEY_BTAB: return K_BTAB;
  case KEY_PPAGE: return K_PGUP;
  case KEY_NPAGE: return K_PGDN;
  case KEY_HOME: return K_HOME;
  case KEY_END: return K_END;
  case KEY_ENTER: return K_ENTER;
  case KEY_BACKSPACE: return K_BACKSPACE;
  case KEY_RESIZE: return K_RESIZE;
  case KEY_F(1): return K_F1;
  case KEY_F(10): return K_F10;
  case KEY_MOUSE: {
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))) return -1;
    return Key_click(ev.x, ev.y);
  }
  default: return -1;
  }
}

static bool Term_utf8(void) {
  const char *cs = nl_langinfo(CODESET);
  return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

int Term_run(App *app) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    fprintf(stderr, "spadmap tui: the explorer needs a terminal (stdin and stdout are not both a tty); "
                    "use `spadmap snapshot NET --keys ... --out F.txt` to render without one\n");
    return 1;
  }
  setlocale(LC_ALL, "");
  bool unicode = Term_utf8();
  App_startWorkers(app); /* none: solves run on this thread, still correct */
  Term_signals();
  if (!initscr()) {
    fprintf(stderr, "spadmap tui: cannot initialise the terminal\n");
    Term_signalsOff();
    return 1;
  }
  Term_active = 1;
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  curs_set(0);
  set_escdelay(25);
  timeout(50); /* poll the worker 20 times a second */
  TermColors tc;
  memset(&tc, 0, sizeof tc);
  tc.next_pair = 1;
  if (has_colors() && !getenv("NO_COLOR")) {
    start_color();
    use_default_colors();
    tc.color = true;
    tc.c256 = COLORS >= 256;
  }
  app->mono = !tc.color;
  mouseinterval(0); /* a press is the click: no wait to tell clicks from drags */
  bool mouse_on = !app->mouse;
  Grid *g = Grid_new(COLS, LINES, unicode);
  int rc = 0;
  if (!g) rc = 1;
  if (!app->plan) App_resolve(app); /* a plan opened with --plan stays until a setting changes */
  App_prefetchFigures(app); /* both settings, on the worker: toggling params never waits */
  bool dirty = true, was_solving = false;
  double last_draw = 0;
  while (g) {
    if (app->mouse != mouse_on) { /* M toggles it: off gives the terminal its text selection back */
      mouse_on = app->mouse;
      mousemask(mouse_on ? BUTTON1_CLICKED | BUTTON1_PRESSED : 0, NULL);
    }
    if (App_poll(app)) dirty = true;
    double now = Clock_now();
    if ((app->solving || !App_figuresReady(app)) && now - last_draw >= 0.2) dirty = true; /* the elapsed timer */
    if (app->solving != was_solving) dirty = true, was_solving = app->solving;
    if (dirty) {
      if (g->w != COLS || g->h != LINES) Grid_resize(g, COLS, LINES);
      View_draw(app, g);
      Term_blit(&tc, g);
      refresh();
      dirty = false;
      last_draw = now;
    }
    wint_t wch;
    int r = get_wch(&wch);
    if (r == ERR) continue;
    int key = Term_key((int)wch, r == KEY_CODE_YES);
    if (key < 0) continue;
    int flags = Actions_key(app, key);
    if (flags & ACT_RESOLVE) App_resolve(app);
    if (flags & ACT_QUIT) break;
    if (flags) dirty = true;
    if (key == K_RESIZE) clearok(stdscr, TRUE);
  }
  mousemask(0, NULL);
  Term_active = 0;
  endwin();
  Term_signalsOff();
  app->grid = NULL;
  Grid_free(g);
  return rc;
}

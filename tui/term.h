/* term: the interactive loop on a real terminal (ncursesw). */
#ifndef SPADMAP_TERM_H
#define SPADMAP_TERM_H

#include "app.h"

/* Runs the explorer until quit; restores the terminal on every exit path
 * (including fatal signals). Returns a process exit code. */
int Term_run(App *app);

#endif

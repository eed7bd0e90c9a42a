/* snapshot: the explorer without a terminal. Applies a key script to an app
 * (solving synchronously, so the result is deterministic), draws the screen
 * into a grid and writes it as plain text or SVG. */
#ifndef SPADMAP_SNAPSHOT_H
#define SPADMAP_SNAPSHOT_H

#include <stdio.h>

#include "app.h"
#include "grid.h"

/* Runs the key script ("rx<Right><Tab>"); stops at a quit key. false (and *bad
 * set to the offending text) when the script has an unknown <name>. */
bool Snapshot_keys(App *app, const char *keys, const char **bad);
void Snapshot_writeText(const Grid *g, FILE *f);
void Snapshot_writeSVG(const Grid *g, FILE *f);
/* P in every view: the screen as drawn now, as NAME.screen.svg (colours as shown)
 * and NAME.screen.txt in the current folder; the message line says where. ACT_* flags. */
int Snapshot_saveScreen(App *app);

#endif

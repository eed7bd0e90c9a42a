/* words: the one vocabulary for solver results, gaps and times, shared by the
 * explorer's views and the command line: a status in words ("optimal",
 * "not proven (time limit)"), a gap always as a percent ("0.84 %"), a time in
 * ms below a second and in s above ("4.70 ms", "4.93 s"). */
#ifndef SPADMAP_WORDS_H
#define SPADMAP_WORDS_H

#include <stddef.h>

#include "plan.h"

/* "0.52 ms", "12.3 ms", "480 ms", "4.93 s". */
const char *Words_seconds(double s, char *buf, size_t n);
/* A relative gap (0.0084) as a percent: "0.84 %", "12.5 %", "100 %". */
const char *Words_gap(double gap, char *buf, size_t n);
/* The gap of a solver result, -1 when it has no objective and bound. */
double Words_gapOf(const SolverInfo *si);
/* A result in words: "optimal" (proven), "solved" (a heuristic plan), "not proven (time limit), gap 12.5 %",
 * "not proven (cancelled), no bound yet", "not proven (the search stopped: NOTE)". With
 * seconds >= 0 the time follows (" in 4.93 s"), and for a time limit reached before
 * limit (> 0) ran out, that a stage's share did ("after 4.93 s: a stage's share of the 15 s limit"). */
const char *Words_result(const SolverInfo *si, double seconds, double limit, char *buf, size_t n);

/* A count in groups of three: "1,680,941" (cycles; rounded). */
const char *Words_count(double v, char *buf, size_t n);
/* Bytes in binary units, one decimal below a MiB, two above: "512 B", "44.0 KiB", "2.53 MiB", "1.20 GiB". */
const char *Words_bytes(double bytes, char *buf, size_t n);
/* The exact count and the binary size, as a report line gives every size: "2,408,448 bytes (2.30 MiB)". */
const char *Words_bytesExact(double bytes, char *buf, size_t n);
/* The same figure in the same unit, compact for the explorer's columns and axes: the unit's
 * initial without a space ("512B", "984.4K", "2.53M", "1.20G"; K = KiB, M = MiB), with decimals
 * dropped only as far as needed to keep within width columns ("1003K", "100.0M"), a minus sign
 * besides (a difference: "-385.0K"); width <= 0: no bound. */
const char *Words_bytesShort(double bytes, int width, char *buf, size_t n);
/* An axis tick: Words_bytesShort without the zeros after the point ("1M", "512K", "2.5K", "1.41M"). */
const char *Words_bytesTick(double bytes, char *buf, size_t n);
/* Any other figure (a limit, a weight, a factor) without an exponent: grouped from 1,000 on
 * ("1,290,690"), else four significant digits with trailing zeros dropped ("15", "0.5", "0.8172"). */
const char *Words_figure(double v, char *buf, size_t n);
/* Energy from picojoules in the unit that keeps it short: "581.7 µJ", "3.2 nJ", "12.0 pJ". */
const char *Words_energy(double pj, char *buf, size_t n);

/* A search under way, in every view: "solving 4.70 s, FIGURES, gap 33.3 %: STAGE".
 * seconds < 0, figures NULL or "", gap < 0 and stage NULL or "" leave their part out. */
const char *Words_progress(double seconds, const char *figures, double gap, const char *stage, char *buf, size_t n);

#endif

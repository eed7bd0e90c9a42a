/* workclock: the solvers' own clock, counted in work, not time.
 *
 * A pipeline that gives its stages shares of a time limit ("the relaxation gets
 * 30 %, unused time rolls on") must not read the wall clock to do so: a busier
 * machine would give a stage less work and the answer would change. Each solver
 * adds what it did, converted to nominal seconds at a fixed rate (GLPK simplex
 * iterations by model size, max flows by graph size, search nodes), and the
 * pipelines read WorkClock_now() where they read Clock_now() before. A nominal
 * second is about half a second of an idle core of the build machine, so a
 * budget ends a stage before the wall clock at the same limit does unless the
 * machine is more than twice as slow; the wall clock then stops the run early
 * and the result says so.
 *
 * Per thread: each solve counts its own work (a thread's clock only grows). */
#ifndef SPADMAP_WORKCLOCK_H
#define SPADMAP_WORKCLOCK_H

/* Nominal seconds of work this thread has done. */
double WorkClock_now(void);
/* Adds nominal seconds of work (<= 0: nothing). */
void WorkClock_add(double seconds);

#endif

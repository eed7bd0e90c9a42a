/* testhook: see testhook.h. Test-only: nothing here runs unless a test asks. */
#define _POSIX_C_SOURCE 200809L
#include "testhook.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

atomic_int Testhook_state;
atomic_llong Clock_skew;

enum { TH_STAGES = 16, TH_NAME = 64 };
/* a jump past any --time-limit (at most 1e7 s), within what a plan file may say it took (1e9 s) */
#define TH_SKEW 100000000LL

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  TesthookMode mode;
  char stage[TH_STAGES][TH_NAME];
  long nth[TH_STAGES]; /* STAGE#N: the Nth time the stage is reached (1 without #N) */
  int nstages, next;   /* the stages in turn; next: the one waited for */
  long seen;           /* times the next stage was reached */
  char out[4096];
  bool pausing;
  unsigned hold_gen; /* a held thread goes when this changes */
  char reached[TH_STAGES * TH_NAME]; /* ",S1,S2," the stages reached so far */
} H = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
static pthread_once_t Testhook_once = PTHREAD_ONCE_INIT;

static void Testhook_set(TesthookMode mode, const char *stages) {
  H.mode = mode;
  H.nstages = H.next = 0;
  H.seen = 0;
  H.pausing = false;
  strcpy(H.reached, ",");
  for (const char *p = stages; mode != TESTHOOK_OFF && p && *p && H.nstages < TH_STAGES;) {
    size_t len = strcspn(p, ",");
    if (len > 0 && len < TH_NAME) {
      char *name = H.stage[H.nstages], *hash;
      memcpy(name, p, len);
      name[len] = '\0';
      H.nth[H.nstages] = 1;
      if ((hash = strchr(name, '#'))) *hash = '\0', H.nth[H.nstages] = atol(hash + 1) > 0 ? atol(hash + 1) : 1;
      H.nstages++;
    }
    p += len + (p[len] == ',');
  }
  if (H.nstages == 0) H.mode = TESTHOOK_OFF;
  atomic_store(&Testhook_state, H.mode == TESTHOOK_OFF ? 1 : 2);
}

static void Testhook_readEnv(void) {
  const char *out = getenv("SPADMAP_TEST_HOOK_OUT");
  if (out && strlen(out) < sizeof H.out) strcpy(H.out, out);
  const char *v;
  pthread_mutex_lock(&H.mu);
  if ((v = getenv("SPADMAP_TEST_PAUSE")) && *v) Testhook_set(TESTHOOK_PAUSE, v);
  else if ((v = getenv("SPADMAP_TEST_HOLD")) && *v) Testhook_set(TESTHOOK_HOLD, v);
  else if ((v = getenv("SPADMAP_TEST_DEADLINE_AT")) && *v) Testhook_set(TESTHOOK_DEADLINE, v);
  else Testhook_set(TESTHOOK_OFF, NULL);
  pthread_mutex_unlock(&H.mu);
}

/* One line, "WHAT STAGE PID", to the out path (opened for each line: a FIFO
 * then blocks until the test reads) or stderr. */
static void Testhook_say(const char *what, const char *stage) {
  char line[160];
  int n = snprintf(line, sizeof line, "%s %s %ld\n", what, stage, (long)getpid());
  int fd = H.out[0] ? open(H.out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : 2;
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) < 0) { /* nothing to do: the test sees no line */
  }
  if (fd != 2) close(fd);
}

/* the clock without the jump: a guard must not end because of it */
static double Testhook_now(void) { return Clock_now() - (double)atomic_load(&Clock_skew); }

static void Testhook_nap(void) { nanosleep(&(struct timespec){0, 1000000}, NULL); }

bool Testhook_reach(const char *stage, atomic_int *cancel) {
  pthread_once(&Testhook_once, Testhook_readEnv);
  if (atomic_load(&Testhook_state) != 2) return false;
  pthread_mutex_lock(&H.mu);
  bool waited = false;
  while (H.pausing) { /* a pause elsewhere: no work moves on until it is over */
    pthread_cond_wait(&H.cv, &H.mu);
    waited = true;
  }
  if (H.next >= H.nstages || strcmp(stage, H.stage[H.next]) != 0 || ++H.seen < H.nth[H.next]) {
    pthread_mutex_unlock(&H.mu);
    return waited;
  }
  H.next++;
  H.seen = 0;
  if (strlen(H.reached) + strlen(stage) + 2 < sizeof H.reached) strcat(strcat(H.reached, stage), ",");
  switch (H.mode) {
  case TESTHOOK_DEADLINE:
    atomic_fetch_add(&Clock_skew, TH_SKEW);
    Testhook_say("deadline", stage);
    break;
  case TESTHOOK_PAUSE:
    if (!cancel) {
      Testhook_say("no-cancel-flag", stage);
      break;
    }
    H.pausing = true;
    Testhook_say("paused", stage);
    pthread_cond_broadcast(&H.cv);
    pthread_mutex_unlock(&H.mu);
    while (!atomic_load(cancel)) Testhook_nap();
    pthread_mutex_lock(&H.mu);
    H.pausing = false;
    break;
  case TESTHOOK_HOLD:
    Testhook_say("held", stage);
    pthread_cond_broadcast(&H.cv);
    for (unsigned gen = H.hold_gen; gen == H.hold_gen;) pthread_cond_wait(&H.cv, &H.mu);
    break;
  case TESTHOOK_OFF: break;
  }
  pthread_cond_broadcast(&H.cv);
  pthread_mutex_unlock(&H.mu);
  return true;
}

void Testhook_arm(TesthookMode mode, const char *stages) {
  pthread_once(&Testhook_once, Testhook_readEnv);
  pthread_mutex_lock(&H.mu);
  H.hold_gen++; /* a thread still held from before goes */
  pthread_cond_broadcast(&H.cv);
  Testhook_set(mode, stages);
  if (mode == TESTHOOK_OFF) atomic_store(&Clock_skew, 0);
  pthread_mutex_unlock(&H.mu);
}

bool Testhook_waitReached(const char *stage, double guard) {
  char key[TH_NAME + 2];
  snprintf(key, sizeof key, ",%s,", stage);
  double until = Testhook_now() + guard;
  for (;;) {
    pthread_mutex_lock(&H.mu);
    bool got = strstr(H.reached, key) != NULL;
    pthread_mutex_unlock(&H.mu);
    if (got) return true;
    if (Testhook_now() > until) return false;
    Testhook_nap();
  }
}

void Testhook_release(void) {
  pthread_mutex_lock(&H.mu);
  H.hold_gen++;
  pthread_cond_broadcast(&H.cv);
  pthread_mutex_unlock(&H.mu);
}

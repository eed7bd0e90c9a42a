/* spadmap_fuzz: the driver of the seeded mutation fuzzer (see fuzz.h).
 *
 *   spadmap_fuzz run TARGET SEED_DIR [--iterations N] [--seed S] [--out DIR]
 *   spadmap_fuzz replay TARGET FILE_OR_DIR...
 *
 * run: N times, picks a seed file, applies 1-4 mutations (mostly one) (bit flips, bytes a
 * parser cares about, deletions, duplications, splices from another seed,
 * number edits to the values that break 32/53/64-bit arithmetic, tokens such
 * as "\u001b" or "\uZZZZ") and runs the target. A finding, and any crash or
 * sanitizer report (the input is written before each case that crashes), is
 * saved in DIR (default .) as TARGET-SEED-CASE.json. Deterministic: the same
 * seed gives the same cases. Exit 0 when nothing was found, 1 otherwise.
 * replay: runs each file once (the committed corpus); exit 1 on a finding. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

enum { FUZZ_MAX_INPUT = 1 << 16 };

typedef struct {
  uint8_t *data;
  size_t size;
  char *name;
} FuzzFile;

/* ---- files ---- */

static bool Fuzz_readFile(const char *path, FuzzFile *f) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return false;
  f->data = malloc(FUZZ_MAX_INPUT + 1);
  f->size = f->data ? fread(f->data, 1, FUZZ_MAX_INPUT, fp) : 0;
  fclose(fp);
  f->name = strdup(path);
  return f->data && f->name;
}

static int Fuzz_nameCmp(const void *a, const void *b) { return strcmp(((const FuzzFile *)a)->name, ((const FuzzFile *)b)->name); }

/* Every regular file of dir (or dir itself when it is a file), sorted by name. */
static int Fuzz_readAll(const char *dir, FuzzFile **files, int *n, int *cap) {
  struct stat sb;
  if (stat(dir, &sb) != 0) return -1;
  if (S_ISREG(sb.st_mode)) {
    if (*n == *cap) *cap = *cap ? 2 * *cap : 64, *files = realloc(*files, sizeof **files * (size_t)*cap);
    if (Fuzz_readFile(dir, &(*files)[*n])) (*n)++;
    return 0;
  }
  DIR *d = opendir(dir);
  if (!d) return -1;
  int first = *n;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    if (*n == *cap) *cap = *cap ? 2 * *cap : 64, *files = realloc(*files, sizeof **files * (size_t)*cap);
    if (Fuzz_readFile(path, &(*files)[*n])) (*n)++;
  }
  closedir(d);
  qsort(*files + first, (size_t)(*n - first), sizeof **files, Fuzz_nameCmp);
  return 0;
}

/* ---- the crash record: the case is on disk before it runs ---- */

static char Fuzz_pendingPath[4096];
static const uint8_t *Fuzz_pendingData;
static size_t Fuzz_pendingSize;
static long Fuzz_pendingCase;

static void Fuzz_dumpPending(void) {
  if (!Fuzz_pendingData || !Fuzz_pendingPath[0]) return;
  int fd = open(Fuzz_pendingPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  for (size_t off = 0; off < Fuzz_pendingSize;) {
    ssize_t w = write(fd, Fuzz_pendingData + off, Fuzz_pendingSize - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  close(fd);
  char num[24]; /* the case number, without stdio (a signal may have stopped it mid-call) */
  int k = (int)sizeof num;
  long c = Fuzz_pendingCase;
  do num[--k] = (char)('0' + c % 10), c /= 10; while (c && k > 0);
  static const char msg[] = "spadmap_fuzz: crash in case ", saved[] = "; input saved as ";
  if (write(2, msg, sizeof msg - 1) < 0 || write(2, num + k, sizeof num - (size_t)k) < 0 ||
      write(2, saved, sizeof saved - 1) < 0 || write(2, Fuzz_pendingPath, strlen(Fuzz_pendingPath)) < 0 ||
      write(2, "\n", 1) < 0)
    return;
}

static void Fuzz_onSignal(int sig) {
  Fuzz_dumpPending();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* ASan and UBSan call this before they exit (weak: absent without sanitizers). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void Fuzz_guard(void) {
  int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], Fuzz_onSignal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(Fuzz_dumpPending);
}

/* ---- the mutator ---- */

static uint64_t Fuzz_state;

static uint64_t Fuzz_rand(void) { /* xorshift64* */
  Fuzz_state ^= Fuzz_state >> 12, Fuzz_state ^= Fuzz_state << 25, Fuzz_state ^= Fuzz_state >> 27;
  return Fuzz_state * 2685821657736338717ull;
}

static size_t Fuzz_below(size_t n) { return n ? (size_t)(Fuzz_rand() % n) : 0; }

/* Numbers where 32-, 53- and 64-bit arithmetic (and signs) break. */
static const char *const Fuzz_numbers[] = {
  "0", "-1", "1", "-2", "2147483647", "2147483648", "-2147483649", "4294967295", "4294967296", "4294967299",
  "9007199254740992", "9007199254740993", "4611686018427387904", "9223372036854775807", "9223372036854775808",
  "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e308", "1e999", "-0", "0.5", "1e3",
  "3000000000000000000", "65536", "4096",
};

/* Tokens that parsers and printers get wrong. */
static const char *const Fuzz_tokens[] = {
  "\"x\\u001b[2J\\u001b[31mRED\"", "\\uZZZZ", "\\ud800", "\\udc00", "\\u0000", "\x1b", "\x01", "\x7f", "\xff",
  "\xc3", "\xed\xa0\x80", "\xc2\x9b", "null", "true", "[]", "{}", "[[[[[[[[", "]]]]", "\"\"", ",", ":", "\"",
  "\"bytes\": 1024, ", "\"shape\": [4294967296, 4294967296], ", "\"kind\": \"param\", ", "\"kind\": \"output\", ",
  "\"offset\": -2, ", "\"spills\": 4294967299, ", "\"seconds\": \"soon\", ", "\"budget\": 9007199254740993, ",
  "\"in\": \"retrieve\", ", "\"out\": \"spill\", ", "\"strides\": [0], ", "\"dtype\": \"fp32\", ",
};

static void Fuzz_insert(uint8_t *buf, size_t *size, size_t at, const uint8_t *src, size_t n) {
  if (*size + n > FUZZ_MAX_INPUT) n = FUZZ_MAX_INPUT - *size;
  memmove(buf + at + n, buf + at, *size - at);
  memcpy(buf + at, src, n);
  *size += n;
}

static void Fuzz_erase(uint8_t *buf, size_t *size, size_t at, size_t n) {
  if (at + n > *size) n = *size - at;
  memmove(buf + at, buf + at + n, *size - at - n);
  *size -= n;
}

/* The string literal starting at or after from: [*lo, *hi) spans its contents. */
static bool Fuzz_findString(const uint8_t *buf, size_t size, size_t from, size_t *lo, size_t *hi) {
  size_t i = from;
  while (i < size && buf[i] != '"') i++;
  if (i >= size) return false;
  size_t j = i + 1;
  while (j < size && buf[j] != '"') j += buf[j] == '\\' ? 2 : 1;
  if (j >= size) return false;
  *lo = i + 1, *hi = j;
  return true;
}

/* Swaps the contents of two string literals: schedule entries trade places,
 * placements name another tensor, keys move. The JSON stays well-formed, so
 * the case reaches the checks behind the grammar. */
static void Fuzz_swapStrings(uint8_t *buf, size_t *size) {
  size_t a0, a1, b0, b1;
  if (!Fuzz_findString(buf, *size, Fuzz_below(*size), &a0, &a1)) return;
  if (!Fuzz_findString(buf, *size, a1 + 1 + Fuzz_below(*size - a1), &b0, &b1)) return;
  size_t na = a1 - a0, nb = b1 - b0, mid = b0 - a1;
  uint8_t *tmp = malloc(na + nb + mid);
  if (!tmp) return;
  memcpy(tmp, buf + b0, nb);
  memcpy(tmp + nb, buf + a1, mid);
  memcpy(tmp + nb + mid, buf + a0, na);
  memcpy(buf + a0, tmp, na + nb + mid);
  free(tmp);
}

/* Valid JSON string contents that names and enums get wrong. */
static const char *const Fuzz_strings[] = {
  "", "x\\u001b[2J\\u001b[31mRED", "\\u202eevil", "caf\\u00e9", "\\ud83d\\ude00", "a\\\\b", "../x",
  "retrieve", "spill", "drop", "store", "create", "load", "free", "param", "output", "input", "fp32", "int3",
  "optimal", "heuristic", "spadmap-plan", "spadmap-network",
};

/* One mutation of buf (capacity FUZZ_MAX_INPUT); other is a second seed for splices. */
static void Fuzz_mutate(uint8_t *buf, size_t *size, const FuzzFile *other) {
  size_t at = Fuzz_below(*size + 1);
  switch (Fuzz_below(12)) {
  case 9:
  case 10: /* swap two strings */
    if (*size) Fuzz_swapStrings(buf, size);
    break;
  case 11: { /* replace a string's contents */
    size_t lo, hi;
    if (!*size || !Fuzz_findString(buf, *size, Fuzz_below(*size), &lo, &hi)) break;
    const char *str = Fuzz_strings[Fuzz_below(sizeof Fuzz_strings / sizeof Fuzz_strings[0])];
    Fuzz_erase(buf, size, lo, hi - lo);
    Fuzz_insert(buf, size, lo, (const uint8_t *)str, strlen(str));
    break;
  }
  case 0: /* flip a bit */
    if (*size) buf[Fuzz_below(*size)] ^= (uint8_t)(1u << Fuzz_below(8));
    break;
  case 1: { /* a byte JSON cares about */
    static const char bytes[] = "\"\\{}[],:-0123456789eE.\x00\x1b\x7f\xff tfn";
    if (*size) buf[Fuzz_below(*size)] = (uint8_t)bytes[Fuzz_below(sizeof bytes - 1)];
    break;
  }
  case 2: /* delete a run */
    if (*size) Fuzz_erase(buf, size, Fuzz_below(*size), 1 + Fuzz_below(Fuzz_below(2) ? 8 : 256));
    break;
  case 3: { /* duplicate a run */
    if (!*size) break;
    size_t from = Fuzz_below(*size), n = 1 + Fuzz_below(Fuzz_below(2) ? 16 : 512);
    if (from + n > *size) n = *size - from;
    uint8_t tmp[512];
    memcpy(tmp, buf + from, n);
    Fuzz_insert(buf, size, at, tmp, n);
    break;
  }
  case 4: { /* splice in a run of another seed */
    if (!other || !other->size) break;
    size_t from = Fuzz_below(other->size), n = 1 + Fuzz_below(1024);
    if (from + n > other->size) n = other->size - from;
    if (Fuzz_below(2)) Fuzz_erase(buf, size, at, Fuzz_below(1024));
    if (at > *size) at = *size;
    Fuzz_insert(buf, size, at, other->data + from, n);
    break;
  }
  case 5:
  case 6: { /* replace a number near a random place */
    size_t i = at;
    while (i < *size && !(buf[i] >= '0' && buf[i] <= '9')) i++;
    if (i >= *size) break;
    size_t j = i;
    while (j < *size && ((buf[j] >= '0' && buf[j] <= '9') || buf[j] == '.' || buf[j] == 'e' || buf[j] == '-')) j++;
    if (i > 0 && buf[i - 1] == '-') i--;
    Fuzz_erase(buf, size, i, j - i);
    const char *num = Fuzz_numbers[Fuzz_below(sizeof Fuzz_numbers / sizeof Fuzz_numbers[0])];
    Fuzz_insert(buf, size, i, (const uint8_t *)num, strlen(num));
    break;
  }
  case 7: { /* insert a token */
    const char *tok = Fuzz_tokens[Fuzz_below(sizeof Fuzz_tokens / sizeof Fuzz_tokens[0])];
    Fuzz_insert(buf, size, at, (const uint8_t *)tok, strlen(tok));
    break;
  }
  default: /* cut the file short */
    if (*size) *size = Fuzz_below(*size);
    break;
  }
}

/* ---- commands ---- */

static void Fuzz_save(const char *dir, const char *target, uint64_t seed, long i, const uint8_t *data, size_t size,
                      char *path, size_t n) {
  snprintf(path, n, "%s/%s-%llu-%ld.json", dir, target, (unsigned long long)seed, i);
  FILE *f = fopen(path, "wb");
  if (f) {
    fwrite(data, 1, size, f);
    fclose(f);
  }
}

static int Fuzz_run(const FuzzTarget *t, const char *seed_dir, long iterations, uint64_t seed, const char *out) {
  FuzzFile *seeds = NULL;
  int nseeds = 0, cap = 0;
  if (Fuzz_readAll(seed_dir, &seeds, &nseeds, &cap) != 0 || nseeds == 0) {
    fprintf(stderr, "spadmap_fuzz: no seed files in %s\n", seed_dir);
    return 2;
  }
  uint8_t *buf = malloc(FUZZ_MAX_INPUT + 1);
  if (!buf) return 2;
  Fuzz_guard();
  snprintf(Fuzz_pendingPath, sizeof Fuzz_pendingPath, "%s/%s-%llu-crash.json", out, t->name, (unsigned long long)seed);
  Fuzz_state = seed * 0x9E3779B97F4A7C15ull + 1;
  long findings = 0, accepted = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < iterations; i++) {
    const FuzzFile *base = &seeds[Fuzz_below((size_t)nseeds)];
    size_t size = base->size;
    memcpy(buf, base->data, size);
    int rounds = Fuzz_below(3) ? 1 : 2 + (int)Fuzz_below(3); /* mostly one: each mutation tends to break the file */
    for (int r = 0; r < rounds; r++) Fuzz_mutate(buf, &size, &seeds[Fuzz_below((size_t)nseeds)]);
    buf[size] = 0;
    Fuzz_pendingData = buf, Fuzz_pendingSize = size, Fuzz_pendingCase = i;
    char why[512] = "";
    int rc = t->run(buf, size, why, sizeof why);
    accepted += rc == FUZZ_ACCEPTED;
    if (rc == FUZZ_FINDING) {
      char path[4200];
      Fuzz_save(out, t->name, seed, i, buf, size, path, sizeof path);
      printf("finding: %s: %s\n", path, why);
      findings++;
    }
  }
  Fuzz_pendingData = NULL;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("%s: %ld cases from %d seeds (seed %llu), %ld accepted, %ld findings, %.1f s\n", t->name, iterations,
         nseeds, (unsigned long long)seed, accepted, findings, secs);
  for (int i = 0; i < nseeds; i++) free(seeds[i].data), free(seeds[i].name);
  free(seeds);
  free(buf);
  return findings ? 1 : 0;
}

static int Fuzz_replay(const FuzzTarget *t, int nargs, char **args) {
  FuzzFile *files = NULL;
  int n = 0, cap = 0, bad = 0;
  for (int i = 0; i < nargs; i++)
    if (Fuzz_readAll(args[i], &files, &n, &cap) != 0) fprintf(stderr, "spadmap_fuzz: cannot read %s\n", args[i]), bad++;
  for (int i = 0; i < n; i++) {
    char why[512] = "";
    files[i].data[files[i].size] = 0;
    if (t->run(files[i].data, files[i].size, why, sizeof why) == FUZZ_FINDING)
      printf("finding: %s: %s\n", files[i].name, why), bad++;
  }
  printf("%s: replayed %d files, %d findings\n", t->name, n, bad);
  for (int i = 0; i < n; i++) free(files[i].data), free(files[i].name);
  free(files);
  return bad ? 1 : 0;
}

static int Fuzz_usage(void) {
  fprintf(stderr, "usage: spadmap_fuzz run TARGET SEED_DIR [--iterations N] [--seed S] [--out DIR]\n"
                  "       spadmap_fuzz replay TARGET FILE_OR_DIR...\ntargets:\n");
  for (const FuzzTarget *t = Fuzz_targets; t->name; t++) fprintf(stderr, "  %-6s %s\n", t->name, t->help);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 4) return Fuzz_usage();
  const FuzzTarget *t = Fuzz_target(argv[2]);
  if (!t) return Fuzz_usage();
  if (strcmp(argv[1], "replay") == 0) return Fuzz_replay(t, argc - 3, argv + 3);
  if (strcmp(argv[1], "run") != 0) return Fuzz_usage();
  long iterations = 1000;
  uint64_t seed = 1;
  const char *out = ".";
  for (int i = 4; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--iterations") == 0) iterations = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--seed") == 0) seed = strtoull(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--out") == 0) out = argv[i + 1];
    else return Fuzz_usage();
  }
  return Fuzz_run(t, argv[3], iterations, seed, out);
}

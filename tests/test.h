/* test.h: a minimal test harness. Each test file defines TEST(name) functions and
 * lists them in a TEST_MAIN(...) table; the runner prints one line per failure and
 * closes with "N passed, N failed" (the line CI reads). */
#ifndef SPADMAP_TEST_H
#define SPADMAP_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures_in_case;

#define TEST(name) static void name(void)

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                  \
      test_failures_in_case++;                                                             \
    }                                                                                      \
  } while (0)

#define CHECK_EQ(a, b)                                                                     \
  do {                                                                                     \
    long long va_ = (long long)(a), vb_ = (long long)(b);                                  \
    if (va_ != vb_) {                                                                      \
      printf("  %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, va_, vb_); \
      test_failures_in_case++;                                                             \
    }                                                                                      \
  } while (0)

/* haystack contains needle */
#define CHECK_HAS(hay, needle)                                                             \
  do {                                                                                     \
    const char *h_ = (hay), *n_ = (needle);                                                \
    if (!h_ || !strstr(h_, n_)) {                                                          \
      printf("  %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, h_ ? h_ : "(null)", n_); \
      test_failures_in_case++;                                                             \
    }                                                                                      \
  } while (0)

/* Under valgrind (or when SPADMAP_INSTRUMENTED is set), which slows everything
 * 20-50x: timing bounds hold natively only. */
static inline int Test_underValgrind(void) {
  const char *pre = getenv("LD_PRELOAD");
  return (pre && strstr(pre, "vgpreload")) || getenv("SPADMAP_INSTRUMENTED");
}

/* The same, or under AddressSanitizer (slower too, less so). */
static inline int Test_instrumented(void) {
#if defined(__SANITIZE_ADDRESS__)
  return 1;
#endif
  return Test_underValgrind();
}

typedef struct {
  const char *name;
  void (*fn)(void);
} TestCase;

static inline int Test_run(const TestCase *cases, int n, const char *suite) {
  int passed = 0, failed = 0;
  for (int i = 0; i < n; i++) {
    test_failures_in_case = 0;
    cases[i].fn();
    if (test_failures_in_case) {
      printf("FAIL %s/%s\n", suite, cases[i].name);
      failed++;
    } else {
      passed++;
    }
  }
  printf("%s: %d passed, %d failed\n", suite, passed, failed);
  return failed ? 1 : 0;
}

#define T(fn) {#fn, fn}
#define TEST_MAIN(suite, ...)                                                              \
  int main(void) {                                                                         \
    static const TestCase cases_[] = {__VA_ARGS__};                                        \
    return Test_run(cases_, (int)(sizeof cases_ / sizeof cases_[0]), suite);               \
  }

/* The bundled data directory (set by CMake). */
#ifndef SPADMAP_DATA_DIR
#define SPADMAP_DATA_DIR "data"
#endif

#endif

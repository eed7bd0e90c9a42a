/* fuzz: a bounded, seeded mutation fuzzer over spadmap's readers (tests/fuzz/).
 *
 * A target is ONE function that takes the bytes of one input file and returns
 * FUZZ_OK when the input was read cleanly (accepted, or refused with an error
 * status) or FUZZ_FINDING when it found something wrong that is not a crash:
 * an accepted plan that breaks a rule, a solver plan the validator refuses, a
 * figure that wrapped. Crashes and sanitizer reports end the process; the driver
 * has written the input first. To add a target (an importer, say): write
 * tests/fuzz/target_<name>.c defining `int Fuzz_<name>(...)`, add its prototype
 * below and its line to Fuzz_targets in targets.c, and put seed files in
 * tests/fuzz/seeds/<name>/ (ctest and .ci/run pick the target up from there;
 * cases it finds go in tests/fuzz/corpus/<name>/).
 *
 * The same functions build as libFuzzer targets when clang is the compiler
 * (cmake -DSPADMAP_LIBFUZZER=ON; see tests/fuzz/CMakeLists.txt). */
#ifndef SPADMAP_FUZZ_H
#define SPADMAP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* FUZZ_OK: refused cleanly; FUZZ_ACCEPTED: read and passed every check (the
 * driver counts these to show how deep the cases get); FUZZ_FINDING: wrong. */
enum { FUZZ_OK = 0, FUZZ_FINDING = 1, FUZZ_ACCEPTED = 2 };

typedef int (*FuzzFunction)(const uint8_t *data, size_t size, char *why, size_t why_size);

typedef struct {
  const char *name;   /* "net": seeds in tests/fuzz/seeds/net/, corpus in tests/fuzz/corpus/net/ */
  FuzzFunction run;
  const char *help;
} FuzzTarget;

extern const FuzzTarget Fuzz_targets[]; /* ends with {NULL} */
const FuzzTarget *Fuzz_target(const char *name);

/* The targets (one line each; defined in target_<name>.c). */
int Fuzz_net(const uint8_t *data, size_t size, char *why, size_t why_size);
int Fuzz_plan(const uint8_t *data, size_t size, char *why, size_t why_size);
int Fuzz_csv(const uint8_t *data, size_t size, char *why, size_t why_size);
int Fuzz_arch(const uint8_t *data, size_t size, char *why, size_t why_size);
int Fuzz_offchip(const uint8_t *data, size_t size, char *why, size_t why_size);
int Fuzz_layer(const uint8_t *data, size_t size, char *why, size_t why_size);

/* Records why an input is a finding (printf-style) and returns FUZZ_FINDING. */
int Fuzz_found(char *why, size_t why_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

/* The same targets for libFuzzer (clang -fsanitize=fuzzer): one executable per
 * target, chosen by SPADMAP_FUZZ_TARGET at compile time. A finding aborts, so
 * libFuzzer saves it like a crash. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[512] = "";
  if (size > 1 << 16) return 0;
  uint8_t *copy = malloc(size + 1); /* NUL after the input, as the driver gives it */
  if (!copy) return 0;
  for (size_t i = 0; i < size; i++) copy[i] = data[i];
  copy[size] = 0;
  int found = SPADMAP_FUZZ_TARGET(copy, size, why, sizeof why);
  free(copy);
  if (found == FUZZ_FINDING) {
    fprintf(stderr, "spadmap fuzz finding: %s\n", why);
    abort();
  }
  return 0;
}

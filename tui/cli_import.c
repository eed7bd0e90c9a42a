/* spadmap import MODEL [--out NET.json]: an ONNX model or a COSMA authors' DAG JSON
 * as the contract's network JSON (engine/import). Without --out it goes to stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fileio.h"
#include "import.h"

static const CliOption Import_options[] = {
  {"--out", "FILE", "write the network JSON to FILE (default: standard output)"},
  {"--dtype", "TYPE", "price every tensor as TYPE (int8, uint8, int16, fp16, bf16, int32, fp32), as the bundled networks (int8)"},
  {"--fold", NULL, "fold BatchNorm and elementwise activations into their producer (the bundled networks' rule)"},
  {"--dim", "NAME=N", "give a symbolic ONNX dimension its size, e.g. --dim batch=1 (several: --dim a=1,b=2)"},
  {NULL, NULL, NULL},
};

/* Options shared with every command that opens a model: none today but these. */
static int Import_options_from(const CliArgs *a, ImportOptions *o) {
  ImportOptions_init(o);
  const char *dtype = Cli_value(&Cli_import, a, "--dtype");
  if (dtype) {
    static const char *const ok[] = {"int8", "uint8", "int16", "fp16", "bf16", "int32", "fp32"};
    size_t i = 0;
    while (i < sizeof ok / sizeof ok[0] && strcmp(ok[i], dtype) != 0) i++;
    if (i == sizeof ok / sizeof ok[0]) {
      fprintf(stderr, "spadmap import: --dtype \"%s\": expected int8, uint8, int16, fp16, bf16, int32 or fp32\n", dtype);
      return EXIT_USAGE;
    }
    o->dtype = ok[i];
  }
  o->fold = Cli_value(&Cli_import, a, "--fold") != NULL;
  const char *dims = Cli_value(&Cli_import, a, "--dim");
  if (dims) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dims);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      SpError err;
      if (ImportOptions_addDim(o, tok, &err)) {
        fprintf(stderr, "spadmap import: %s\n", err.text);
        return EXIT_USAGE;
      }
    }
  }
  return -1;
}

static int Import_run(int argc, char **argv) {
  CliArgs a;
  int rc = Cli_parse(&Cli_import, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  ImportOptions o;
  if ((rc = Import_options_from(&a, &o)) >= 0) return rc;
  char *json;
  size_t len;
  SpError err;
  if (Import_toJson(a.pos[0], &o, &json, &len, &err)) {
    fprintf(stderr, "spadmap: %s\n", err.text);
    return EXIT_INVALID;
  }
  const char *out = Cli_value(&Cli_import, &a, "--out");
  rc = EXIT_OK;
  if (out) {
    if (FileIO_write(out, json, len, &err)) {
      fprintf(stderr, "spadmap: %s\n", err.text);
      rc = EXIT_INVALID;
    } else {
      printf("wrote %s\n", out);
    }
  } else if (fwrite(json, 1, len, stdout) != len || fflush(stdout) != 0) {
    fprintf(stderr, "spadmap import: cannot write to standard output\n");
    rc = EXIT_INVALID;
  }
  free(json);
  return rc;
}

const CliCommand Cli_import = {
  "import", "MODEL",
  "convert an ONNX model or a COSMA DAG JSON to the network JSON (info/solve/tui read them directly too)",
  Import_options, Import_run,
};

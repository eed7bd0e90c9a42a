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
  CLI_MODEL_OPTIONS,
  {NULL, NULL, NULL},
};

static int Import_run(int argc, char **argv) {
  CliArgs a;
  int rc = Cli_parse(&Cli_import, argc, argv, 1, 1, &a);
  if (rc >= 0) return rc;
  ImportOptions o;
  if ((rc = Cli_modelOptions(&Cli_import, &a, &o)) >= 0 || (rc = Cli_modelOptionsFit(&Cli_import, &a, a.pos[0])) >= 0)
    return rc;
  char *json;
  size_t len;
  SpError err;
  if (Import_toJson(a.pos[0], &o, &json, &len, &err)) {
    fprintf(stderr, "spadmap import: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  const char *out = Cli_value(&Cli_import, &a, "--out");
  rc = EXIT_OK;
  if (out) {
    if (FileIO_write(out, json, len, &err)) {
      fprintf(stderr, "spadmap import: %s\n", Cli_safe(err.text));
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
  "Converts an ONNX model or a COSMA DAG JSON to the network JSON (info, solve and tui read them directly too).",
  Import_options, Import_run, CLI_IN_NET,
};

/* spadmap validate NET PLAN: exit 0 when valid, else each violation on a line. */
#include <stdio.h>

#include "cli.h"
#include "datadir.h"
#include "import.h"
#include "tiles/tiles.h"
#include "validate.h"

/* An off-chip plan ("format": "spadmap-offchip") has its own validator. */
static int Validate_offchip(const Net *net, const char *path) {
  char b1[32];
  OffchipPlan *p;
  SpError err;
  if (OffchipPlan_load(path, &p, &err)) { /* a file that cannot be read: an error, on stderr (it was on stdout) */
    fprintf(stderr, "spadmap validate: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  Status st = OffchipPlan_validate(p, net, &err);
  if (st == SP_OK)
    printf("valid: %s on %s, off-chip plan (%s), peak %s bytes\n", Cli_safe(path), Cli_safe(net->name), p->method,
           Cli_count(p->peak_bytes, b1, sizeof b1));
  else
    printf("%s: %s\n", path, err.text);
  OffchipPlan_free(p);
  return st == SP_OK ? EXIT_OK : EXIT_INVALID;
}

/* A network JSON translated from a model (its "import" record) and a plan made from
 * the model opened otherwise (--dtype int8 against fp32 sizes): every size differs, so
 * the violations that follow are many; say first why. Nothing for a hand-written
 * network or a plan without a record. */
static void Validate_recordNote(const Net *net, const char *net_path, const char *plan_path) {
  if (!net->import_json) return;
  ImportOptions want, got;
  ImportFormat f;
  bool found;
  SpError err;
  if (Import_planRecord(plan_path, &want, &found, &err) || !found) return;
  if (Import_recordOptions(net->import_json, &got, &f, &err) || ImportOptions_equal(&want, &got)) return;
  char w[256], g[256];
  printf("note: the plan records its model opened with %s; %s was imported with %s: "
         "`spadmap import MODEL %s --out NET.json` makes the network it fits\n",
         ImportOptions_describe(&want, w, sizeof w), Cli_safe(net_path), ImportOptions_describe(&got, g, sizeof g), w);
}

static const CliOption Validate_options[] = {CLI_MODEL_OPTIONS, {NULL, NULL, NULL}};

static int Validate_run(int argc, char **argv) {
  char b1[32], b2[32];
  CliArgs a;
  int rc = Cli_parse(&Cli_validate, argc, argv, 2, 2, &a);
  if (rc >= 0) return rc;
  /* a plan made from a model records how it was imported: open the model the same way */
  ImportOptions o;
  char note[600];
  if ((rc = Cli_planModelOptions(&Cli_validate, &a, a.pos[0], a.pos[1], &o, note, sizeof note)) >= 0) return rc;
  Net *net;
  SpError err;
  if (Import_open(Data_net(a.pos[0]), &o, &net, &err)) {
    fprintf(stderr, "spadmap validate: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  if (note[0]) printf("note: %s\n", note);
  else Validate_recordNote(net, a.pos[0], a.pos[1]);
  Plan *plan;
  if (Offchip_isPlanFile(a.pos[1])) {
    int code = Validate_offchip(net, a.pos[1]);
    Net_free(net);
    return code;
  }
  if (Plan_load(a.pos[1], net, &plan, &err)) {
    fprintf(stderr, "spadmap validate: %s\n", Cli_safe(err.text));
    Net_free(net);
    return EXIT_INVALID;
  }
  ValidateReport rep;
  Status st = Validate_plan(net, plan, &rep);
  if (st == SP_OK) {
    printf("valid: %s on %s, budget %s, non-compulsory %s bytes\n", Cli_safe(a.pos[1]), Cli_safe(net->name),
           Cli_count(plan->budget, b1, sizeof b1), Cli_count(rep.metrics.noncompulsory_bytes, b2, sizeof b2));
  } else if (st == SP_ERR_NOMEM) {
    fprintf(stderr, "spadmap validate: out of memory\n");
  } else {
    for (int i = 0; i < rep.nlines; i++) printf("%s: %s\n", Cli_safe(a.pos[1]), rep.lines[i]);
    if (rep.count > rep.nlines) printf("%s: ... and %d more\n", Cli_safe(a.pos[1]), rep.count - rep.nlines);
  }
  ValidateReport_free(&rep);
  Plan_free(plan);
  Net_free(net);
  return st == SP_OK ? EXIT_OK : EXIT_INVALID;
}

const CliCommand Cli_validate = {"validate", "NET PLAN [--fold --dtype T --dim N=1 --value X=V]",
                                 "Checks PLAN against NET and every validity rule of the plan format. A model file (ONNX) is "
                                 "opened with the import options the plan records, unless others are given.",
                                 Validate_options, Validate_run, CLI_IN_NET | CLI_IN(FILE_PLAN) | CLI_IN(FILE_OFFCHIP)};

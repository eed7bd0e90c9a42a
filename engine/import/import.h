/* import: open a network from any file format spadmap reads. The entry point the
 * CLI (Cli_loadNet) and the explorer (App_init/App_load) use instead of Net_load.
 *
 *   spadmap-network JSON  -> Net_load (the contract)
 *   ONNX (.onnx)          -> onnx_import.c (shape inference by libonnx, onnx_infer.cc)
 *   COSMA authors' DAG    -> dag_import.c ({"name", "dummy_input_tensors",
 *                            "graph_output_tensors", "tensor_list", "tensor_sizes", "dag"})
 *
 * Foreign formats are translated into the contract's JSON text and then loaded by
 * Net_parse, so every rule of the contract is checked once, in one place. */
#ifndef SPADMAP_IMPORT_H
#define SPADMAP_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "status.h"

typedef enum { IMPORT_SPADMAP, IMPORT_ONNX, IMPORT_DAG } ImportFormat;

enum { IMPORT_MAX_DIMS = 16, IMPORT_MAX_VALUES = 8, IMPORT_MAX_VALUE_ELEMS = 16 };

typedef struct {
  const char *dtype;   /* a static string (ImportOptions_dtype's) or NULL */   /* NULL: sizes from each value's element type; else every tensor
                          is re-priced as this contract dtype ("int8", ...) */
  bool fold;           /* fold BatchNorm and elementwise activations into their producer */
  struct { char name[64]; int64_t value; } dims[IMPORT_MAX_DIMS]; /* --dim N=1 */
  int ndims;
  /* --value NAME=V[,V...]: a graph input's value, for the shapes that follow from it
   * (a window's length, a Range's bounds); its elements in file order */
  struct { char name[64]; int64_t v[IMPORT_MAX_VALUE_ELEMS]; int n; } values[IMPORT_MAX_VALUES];
  int nvalues;
} ImportOptions;

void ImportOptions_init(ImportOptions *o);
/* Adds "NAME=VALUE" (a symbolic ONNX dimension and its positive value) to o;
 * SP_ERR_ARG naming what is wrong. */
Status ImportOptions_addDim(ImportOptions *o, const char *text, SpError *err);
/* Reads "NAME=V[,V...][,NAME2=V...]" (graph inputs' values, integers) into o: a token
 * without '=' is one more element of the value before it. SP_ERR_ARG naming what is wrong. */
Status ImportOptions_addValues(ImportOptions *o, const char *text, SpError *err);

const char *ImportFormat_name(ImportFormat f); /* "spadmap-network", "onnx", "cosma-dag" */

/* Which format the file at path holds (by its first bytes and its name). */
Status Import_detect(const char *path, ImportFormat *format, SpError *err);
/* Detects the format and loads the network; opts may be NULL (the defaults). */
Status Import_open(const char *path, const ImportOptions *opts, Net **out, SpError *err);
/* The contract's JSON text for a file of any format (malloc'd, NUL-terminated);
 * a spadmap-network file is checked by Net_parse and returned as it is. */
Status Import_toJson(const char *path, const ImportOptions *opts, char **json, size_t *len, SpError *err);

/* The translators, on bytes already read (label names them in messages); each
 * writes the contract's JSON text into *json (malloc'd). */
Status Import_onnxJson(const void *bytes, size_t len, const char *label, const ImportOptions *opts,
                       char **json, size_t *json_len, SpError *err);
Status Import_dagJson(const char *text, size_t len, const char *label, const ImportOptions *opts,
                      char **json, size_t *json_len, SpError *err);
/* The import record: how a model file became a network, kept in the network JSON
 * that `import` writes and in every plan made from it ("import": {"format": "onnx",
 * "file": "resnet18.onnx", "fold": false, "dtype": null, "dims": {"N": 1}}; "values": {"size": [10]} when --value was given), so that
 * `validate`, `tui --plan` and the explorer re-import the model the same way. */
/* The record of opening a file of format f with o, as compact JSON (malloc'd; NULL
 * when out of memory). */
char *Import_recordJson(ImportFormat f, const char *path, const ImportOptions *o);
/* Reads a record (the object's JSON text) back into options; *format gets its format. */
Status Import_recordOptions(const char *record_json, ImportOptions *o, ImportFormat *format, SpError *err);
/* The record a plan file carries: *found is false for a plan without one (made from a
 * network JSON written by hand). Reads only the plan's "import" key. */
Status Import_planRecord(const char *plan_path, ImportOptions *o, bool *found, SpError *err);
/* The static name of a contract dtype ("int8", ...), or NULL for another string. */
const char *ImportOptions_dtype(const char *name);
/* The options as the command line spells them ("--fold --dtype int8 --dim N=1 --value size=10"; "no
 * options" when none), into buf. */
const char *ImportOptions_describe(const ImportOptions *o, char *buf, size_t n);
/* Are a and b the same import options (dims and values compared as sets)? */
bool ImportOptions_equal(const ImportOptions *a, const ImportOptions *b);

/* Is ONNX support compiled in (libonnx-dev and libprotobuf-dev at build time)? */
bool Import_haveOnnx(void);

#endif

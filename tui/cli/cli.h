/* cli: the command-line front end. One table of commands; each command declares
 * its options once, and that table drives parsing and --help. */
#ifndef SPADMAP_CLI_H
#define SPADMAP_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "fileio.h"
#include "figures.h"
#include "import.h"
#include "net.h"

/* Exit codes (listed by spadmap --help and in the README). */
enum {
  EXIT_OK = 0,
  EXIT_INVALID = 1,      /* invalid input or plan, or a file that cannot be read or written */
  EXIT_USAGE = 2,        /* bad command line */
  EXIT_LIMIT = 3,        /* a solver limit: no plan or no proof within the time / memory / state limits,
                            or the solver failed (numerical trouble) */
  EXIT_INTERRUPTED = 130 /* Ctrl-C (128 + SIGINT); solve prints and writes the best plan found so far */
};

/* The exit code of a failed engine call: a limit or a solver failure is 3, a
 * cancel 130 when Ctrl-C asked for it (else 3), anything else 1. Inline: the
 * explorer's library, which prints the layer methods, uses it too. */
static inline int Cli_exitFor(Status st, bool interrupted) {
  if (st == SP_ERR_CANCELLED) return interrupted ? EXIT_INTERRUPTED : EXIT_LIMIT;
  return st == SP_ERR_LIMIT || st == SP_ERR_SOLVER ? EXIT_LIMIT : EXIT_INVALID;
}

typedef struct {
  const char *name;     /* "--budget" */
  const char *arg;      /* "SIZE", or NULL for a flag */
  const char *help;
} CliOption;

typedef struct {
  const char *name;     /* "bench", or "bench cosma" for a subcommand */
  const char *args;     /* positional arguments, for the usage line */
  const char *summary;
  const CliOption *options; /* ends with {NULL} */
  int (*run)(int argc, char **argv);
  unsigned inputs; /* the kinds of file it reads (CLI_IN bits): --help states their size caps */
} CliCommand;

#define CLI_IN(kind) (1u << (kind))
#define CLI_IN_NET (CLI_IN(FILE_NETWORK) | CLI_IN(FILE_ONNX)) /* NET: a network, a DAG or an ONNX model */
/* "network or DAG JSON 256 MiB, ONNX model 1024 MiB" (sep ", ") for the kinds in inputs, into buf. */
const char *Cli_caps(unsigned inputs, const char *sep, char *buf, size_t n);

typedef struct {
  const char *values[32]; /* per option, in table order: its argument, or "1" for a set flag */
  char *pos[8];
  int npos;
} CliArgs;

/* Parses argv[1..] of a command; prints help (exit 0) or a usage error (exit 2)
 * itself and returns that code, or -1 to go on. */
int Cli_parse(const CliCommand *cmd, int argc, char **argv, int min_pos, int max_pos, CliArgs *a);
const char *Cli_value(const CliCommand *cmd, const CliArgs *a, const char *option);
void Cli_help(const CliCommand *cmd);
/* Subcommands ("bench cosma": the parent's name, a space, a word), a NULL-ended
 * list. Cli_runSub runs the one argv[1] names and returns its exit code, or -1
 * (the parent parses argv itself); Cli_helpSubs lists them after the parent's help. */
int Cli_runSub(const CliCommand *parent, const CliCommand *const *subs, int argc, char **argv);
void Cli_helpSubs(const CliCommand *const *subs);

/* SIGINT, SIGTERM and SIGHUP remove the temporaries being written
 * (engine/fileio.h) before the default action: main() installs it for every
 * command, before anything else runs. */
void Cli_removeTempOnSignals(void);
/* The same three signals to a handler of the command's own (solve: the first
 * Ctrl-C stops the search); Cli_removeTempAndDie is the default ending it can
 * call: remove a half-written --out temporary, then the signal's default action. */
void Cli_catchSignals(void (*handler)(int));
void Cli_removeTempAndDie(int sig);
/* Loads a network (any format engine/import reads) or prints the error; NULL on failure. */
Net *Cli_loadNet(const char *path);
/* A network that did not load: the loader's text, or for a bare name that is
 * neither a file nor bundled ("resnet50" with a bad SPADMAP_DATA), where it looked. */
void Cli_netError(const char *cmd, const char *arg, const char *text);
/* The options of every command that opens a model (ONNX): put CLI_MODEL_OPTIONS in
 * the command's option table, then Cli_modelOptions reads them (-1 to go on, else the
 * exit code after printing why) and Cli_loadModel opens the file with them. */
#define CLI_MODEL_OPTIONS                                                                                          \
  {"--dtype", "TYPE", "models: price every tensor as TYPE (int8, uint8, int16, fp16, bf16, int32, fp32)"},        \
      {"--fold", NULL, "models: fold BatchNorm and elementwise activations into their producer"},                  \
      {"--dim", "NAME=N", "models: give a symbolic ONNX dimension its size (several: --dim a=1,b=2)"},              \
      {"--value", "NAME=V", "models: give a graph input's value where sizes follow from it (--value size=10,b=1,2)"}
int Cli_modelOptions(const CliCommand *cmd, const CliArgs *a, ImportOptions *o);
/* -1 when the model options given (if any) apply to the file at path, else the
 * usage exit code after saying so: --dtype, --fold, --dim and --value read ONNX models
 * only, and a network or DAG file ignored them. */
int Cli_modelOptionsFit(const CliCommand *cmd, const CliArgs *a, const char *path);
/* -1 when the command's --dir (a folder of inputs) is absent or a directory,
 * else the exit code (1) after saying so, before any table is printed. */
int Cli_inputDir(const CliCommand *cmd, const CliArgs *a);
/* The name of the command Cli_parse last parsed ("solve"), for shared messages. */
const char *Cli_name(void);
Net *Cli_loadModel(const CliCommand *cmd, const CliArgs *a, const char *path, int *exit_code);
/* The model options to open net_path with for a plan file: the ones given, else the
 * ones the plan records (its "import" record, import.h) when net_path is a model file.
 * note gets what to tell the user ("" when nothing: a network JSON, or the same
 * options). -1 to go on, else the exit code after printing why. */
int Cli_planModelOptions(const CliCommand *cmd, const CliArgs *a, const char *net_path, const char *plan_path,
                         ImportOptions *o, char *note, size_t n);
/* Text from an input file or the command line, escaped for the terminal
 * (Text_escape: "x\x1b[2J"), in one of 8 rotating buffers of this thread:
 * every name the CLI prints goes through it. */
const char *Cli_safe(const char *s);
/* A name in a table column of cols display columns, escaped, padded: a longer one
 * keeps its distinctive end behind "…", as the explorer shows it (Grid_tail), so
 * "/features/features.4/block/block.0/block.0.0/Conv" is not cut to the prefix that
 * every op of the model shares. */
const char *Cli_nameColumn(const char *name, int cols, char *buf, size_t n);
/* "1.23 MiB"-style size into buf. */
const char *Cli_bytes(int64_t bytes, char *buf, int n);
/* A whole number (all of s, in lo..hi) or a real (finite, in lo..hi): false
 * for junk, a fraction where a count is wanted, or out of range (atoi read
 * "2.5" as 2 and "1e999" as 1; atof took "inf"). */
bool Cli_int(const char *s, long long lo, long long hi, long long *out);
bool Cli_real(const char *s, double lo, double hi, double *out);
/* A budget as Budget_parse reads it (M_R/16, M_P*2, 512K) for net: figures only
 * as needed (M_R alone for the M_R forms; the exact M_P search for M_H, M_P),
 * into *f when f is not NULL. */
Status Cli_budget(const Net *net, bool params, const char *text, int64_t *bytes, NetFigures *f, SpError *err);
/* "2,408,448" into buf. */
const char *Cli_count(int64_t v, char *buf, int n);

/* Exit codes and what they mean, for the man page (ends with {0, NULL}). */
typedef struct {
  int code;
  const char *text;
} CliExit;
extern const CliExit Cli_exits[];
/* The command table (main.c) and bench's subcommands (cli_bench.c), for `spadmap help`. */
extern const CliCommand *const *const Cli_commands;
extern const int Cli_ncommands;
extern const CliCommand *const *const Cli_benchSubs;
/* spadmap help [COMMAND [SUB] | --man | --complete WORDS...] (cli_help.c); argv[0] is "help". */
int Help_run(int argc, char **argv);

/* One line per command, each defined in its own cli_*.c. */
extern const CliCommand Cli_info;
extern const CliCommand Cli_solve;
extern const CliCommand Cli_validate;
extern const CliCommand Cli_bench;
extern const CliCommand Cli_benchCosma;
extern const CliCommand Cli_benchScale;
extern const CliCommand Cli_tui;
extern const CliCommand Cli_snapshot;
extern const CliCommand Cli_lesson;
extern const CliCommand Cli_benchRender;
extern const CliCommand Cli_import;
extern const CliCommand Cli_benchLayer;
extern const CliCommand Cli_benchSteps;
extern const CliCommand Cli_benchShuttle;
extern const CliCommand Cli_layers;
extern const CliCommand Cli_layer;
extern const CliCommand Cli_sweep;
extern const CliCommand Cli_cost;
extern const CliCommand Cli_chunks;
extern const CliCommand Cli_offchip;
extern const CliCommand Cli_benchTaa;
extern const CliCommand Cli_pack;
extern const CliCommand Cli_benchPack;

#endif

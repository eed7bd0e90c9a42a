/* spadmap: map a neural network onto an accelerator's scratchpad. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "datadir.h"
#include "fileio.h"

static const CliCommand *const Main_commands[] = {
    &Cli_info,
    &Cli_solve,
    &Cli_validate,
    &Cli_bench,
    &Cli_tui,
    &Cli_snapshot,
    &Cli_lesson,
    &Cli_benchRender,
    &Cli_import,
    &Cli_layers,
    &Cli_layer,
    &Cli_sweep,
    &Cli_cost,
    &Cli_chunks,
    &Cli_offchip,
    &Cli_pack,
};
enum { MAIN_NCOMMANDS = sizeof Main_commands / sizeof Main_commands[0] };
const CliCommand *const *const Cli_commands = Main_commands;
const int Cli_ncommands = MAIN_NCOMMANDS;

static void Main_usage(FILE *out) {
  char caps[320];
  fprintf(out, "usage: spadmap COMMAND [ARGS] [--help]\n"
               "       spadmap [NET]   (the interactive explorer; resnet50 without NET)\n\n"
               "Maps a neural network's tensors onto an accelerator scratchpad: schedule,\n"
               "allocation and spill/retrieve, with an independent validator.\n\ncommands:\n");
  for (int i = 0; i < MAIN_NCOMMANDS; i++)
    fprintf(out, "  %-10s %s\n", Main_commands[i]->name, Main_commands[i]->summary);
  fprintf(out, "\nexit codes: 0 ok, 1 invalid input or plan (or a file that cannot be read or written), 2 usage,\n"
               "            3 a solver limit (no plan within the time, memory or state limits; numerical\n"
               "              failure; a plan found before a limit exits 0 and prints its gap),\n"
               "            130 interrupted (solve keeps the best plan found so far), 129 hung up, 143 terminated:\n"
               "              a file being written is left as it was (its temporary removed)\n"
               "\nerrors: one line on stderr, \"spadmap COMMAND: FILE:LINE:COLUMN: what was expected\" (or the\n"
               "JSON path); stdout holds results only. Input files are read whole; one over its kind's\n"
               "size cap is refused before it is read:\n  %s\n",
          Cli_caps(~0u, "\n  ", caps, sizeof caps));
}

/* Results that never reached stdout (`spadmap info NET >/dev/full`) are a failed
 * run, not exit 0: the buffered rest is flushed here and its error reported. */
static int Main_stdoutChecked(const char *cmd, int rc) {
  if (rc != EXIT_OK) return rc; /* failed already, and said why in its one line */
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
  fprintf(stderr, "spadmap %s: standard output: cannot write: %s\n", cmd, strerror(errno ? errno : EIO));
  return EXIT_INVALID;
}

int main(int argc, char **argv) {
  /* Every command that writes a file (--out, --export-timeloop, the explorer's
   * save) writes a temporary first: SIGINT, SIGTERM and SIGHUP remove it, then
   * end the run as the signal would (128 + signo). Commands with a handler of
   * their own (solve, pack, layer, the explorer's terminal) end through it too. */
  Cli_removeTempOnSignals();
  if (argc < 2) return Cli_tui.run(1, argv); /* no arguments: the explorer on the default network */
  if (strcmp(argv[1], "help") == 0 && argc > 2) /* = COMMAND --help; stdout full or closed: 1, as that */
    return Main_stdoutChecked("help", Help_run(argc - 1, argv + 1));
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    Main_usage(stdout);
    return Main_stdoutChecked("help", EXIT_OK);
  }
  for (int i = 0; i < MAIN_NCOMMANDS; i++)
    if (strcmp(argv[1], Main_commands[i]->name) == 0)
      return Main_stdoutChecked(Main_commands[i]->name, Main_commands[i]->run(argc - 1, argv + 1));
  /* an argument that names a file, not a command, opens it in the explorer */
  if (argv[1][0] != '-' && (access(argv[1], F_OK) == 0 || strstr(argv[1], ".json") || Data_net(argv[1]) != argv[1])) /* spadmap NET (or resnet50) [tui options] */
    return Cli_tui.run(argc, argv);
  fprintf(stderr, "spadmap: unknown command \"%s\"\n\n", argv[1]);
  Main_usage(stderr);
  return EXIT_USAGE;
}

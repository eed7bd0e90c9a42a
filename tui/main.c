/* spadmap: map a neural network onto an accelerator's scratchpad. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const CliCommand *const Main_commands[] = {&Cli_info, &Cli_solve, &Cli_validate, &Cli_bench};
enum { MAIN_NCOMMANDS = sizeof Main_commands / sizeof Main_commands[0] };

static void Main_usage(FILE *out) {
  fprintf(out, "usage: spadmap COMMAND [ARGS] [--help]\n\n"
               "Maps a neural network's tensors onto an accelerator scratchpad: schedule,\n"
               "allocation and spill/retrieve, with an independent validator.\n\ncommands:\n");
  for (int i = 0; i < MAIN_NCOMMANDS; i++)
    fprintf(out, "  %-10s %s\n", Main_commands[i]->name, Main_commands[i]->summary);
  fprintf(out, "\nexit codes: 0 ok, 1 invalid input or plan, 2 usage\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    Main_usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    Main_usage(stdout);
    return EXIT_OK;
  }
  for (int i = 0; i < MAIN_NCOMMANDS; i++)
    if (strcmp(argv[1], Main_commands[i]->name) == 0) return Main_commands[i]->run(argc - 1, argv + 1);
  fprintf(stderr, "spadmap: unknown command \"%s\"\n\n", argv[1]);
  Main_usage(stderr);
  return EXIT_USAGE;
}

/* spadmap chunks --shape ... --tile ...: RenderChunks (TAA's Algorithm 3) on one tile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tiles/tiles.h"

static const CliOption Chunks_options[] = {
  {"--shape", "D0,D1,...", "the tensor's shape (required)"},
  {"--tile", "D0,D1,...", "the tile's shape (required)"},
  {"--origin", "O0,O1,...", "the tile's first index per dimension (default: all 0)"},
  {"--strides", "S0,S1,...", "the tensor's strides in elements (default: row-major, CHW / NCHW)"},
  {"--esize", "BYTES", "bytes per element (default 1)"},
  {"--json", NULL, "print JSON: {\"offsets\": [...], \"sizes\": [...]}"},
  {NULL, NULL, NULL},
};

/* "4,128,128" into v (at most TILES_MAX_RANK); the count, or -1 on bad text. */
static int Chunks_list(const char *text, int64_t *v, int64_t min) {
  int n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    errno = 0; /* 20 nines were read as 2^63 - 1 and accepted */
    long long x = strtoll(p, &end, 10);
    if (end == p || errno || x < min || n == TILES_MAX_RANK || *p == ' ' || *p == '+') return -1;
    v[n++] = x;
    p = end;
    if (*p == ',') p++;
    else if (*p) return -1;
  }
  return n;
}

static int Chunks_run(int argc, char **argv) {
  CliArgs a;
  const CliCommand *c = &Cli_chunks;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  const char *shape = Cli_value(c, &a, "--shape"), *tile = Cli_value(c, &a, "--tile");
  if (!shape || !tile) {
    fprintf(stderr, "spadmap chunks: needs --shape and --tile (usage: spadmap chunks %s)\n", c->args);
    return EXIT_USAGE;
  }
  int64_t full[TILES_MAX_RANK];
  TilesView v = {0};
  int r = Chunks_list(shape, full, 1);
  int rt = Chunks_list(tile, v.shape, 1);
  if (r < 1 || rt != r) {
    fprintf(stderr, "spadmap chunks: --shape and --tile: expected 1 to %d positive integers each, as many in both\n",
            TILES_MAX_RANK);
    return EXIT_USAGE;
  }
  v.rank = r;
  const char *origin = Cli_value(c, &a, "--origin"), *strides = Cli_value(c, &a, "--strides");
  if (origin && Chunks_list(origin, v.origin, 0) != r) {
    fprintf(stderr, "spadmap chunks: --origin \"%s\": expected %d non-negative integers\n", Cli_safe(origin), r);
    return EXIT_USAGE;
  }
  if (strides) {
    if (Chunks_list(strides, v.strides, 0) != r) {
      fprintf(stderr, "spadmap chunks: --strides \"%s\": expected %d non-negative integers\n", Cli_safe(strides), r);
      return EXIT_USAGE;
    }
  } else if (!Tiles_rowMajor(r, full, v.strides)) {
    fprintf(stderr, "spadmap chunks: --shape \"%s\": the row-major strides overflow 64 bits\n", Cli_safe(Cli_value(c, &a, "--shape")));
    return EXIT_USAGE;
  }
  for (int d = 0; d < r; d++)
    if (v.origin[d] > full[d] - v.shape[d]) { /* origin + tile wrapped past 2^63 (UBSan) */
      fprintf(stderr, "spadmap chunks: dimension %d: origin %lld + tile %lld exceeds the tensor's %lld\n", d,
              (long long)v.origin[d], (long long)v.shape[d], (long long)full[d]);
      return EXIT_USAGE;
    }
  v.esize = 1;
  const char *es = Cli_value(c, &a, "--esize");
  if (es) {
    long long x;
    if (!Cli_int(es, 1, 64, &x)) {
      fprintf(stderr, "spadmap chunks: --esize \"%s\": expected 1 to 64 bytes\n", Cli_safe(es));
      return EXIT_USAGE;
    }
    v.esize = x;
  }
  TilesChunk *ch;
  int n;
  SpError err;
  if (Tiles_renderChunks(&v, &ch, &n, &err)) {
    fprintf(stderr, "spadmap chunks: %s\n", err.text);
    return EXIT_INVALID;
  }
  if (Cli_value(c, &a, "--json")) {
    printf("{\"offsets\": [");
    for (int i = 0; i < n; i++) printf("%s%lld", i ? ", " : "", (long long)ch[i].offset);
    printf("], \"sizes\": [");
    for (int i = 0; i < n; i++) printf("%s%lld", i ? ", " : "", (long long)ch[i].size);
    printf("]}\n");
  } else {
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += ch[i].size;
    printf("%d chunk%s, %lld bytes, span %lld..%lld\n", n, n == 1 ? "" : "s", (long long)total,
           (long long)(n ? ch[0].offset : 0), (long long)(n ? ch[n - 1].offset + ch[n - 1].size : 0));
    printf("%12s %12s\n", "offset", "size");
    for (int i = 0; i < n; i++) printf("%12lld %12lld\n", (long long)ch[i].offset, (long long)ch[i].size);
  }
  free(ch);
  return EXIT_OK;
}

const CliCommand Cli_chunks = {"chunks", "--shape D0,D1,... --tile D0,D1,... [options]",
                               "Lists the contiguous memory chunks of one tile of a tensor (TAA's RenderChunks).",
                               Chunks_options, Chunks_run, 0};

/* spadmap sweep --jobs DIR / --merge DIR: a sweep split into independent jobs,
 * one per budget, for GNU parallel (`parallel -j8 < DIR/jobs.txt`, or across
 * machines with --sshloginfile on a shared file system) or a Slurm job array
 * (docs/sweep.md); no scheduler of our own. Each job is `spadmap sweep NET
 * --budget B --out DIR/point-NNNNN.csv` with the same arch, method and params;
 * the merge checks every job's file is there, has the same header and only its
 * own budget, and prints the CSV the serial `--csv` prints, byte for byte (the
 * rows come from one writer, SweepCsv_rows). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_layer.h"
#include "cli_sweep.h"
#include "fileio.h"

/* s single-quoted for the shell ('it'\''s'). */
static void Jobs_quote(StrBuf *b, const char *s) {
  StrBuf_printf(b, "'");
  for (; *s; s++) {
    if (*s == '\'') StrBuf_printf(b, "'\\''");
    else StrBuf_printf(b, "%c", *s);
  }
  StrBuf_printf(b, "'");
}

/* An absolute path when the file exists (a job may run from another folder or machine). */
static const char *Jobs_abs(const char *path, char *buf) {
  return realpath(path, buf) ? buf : path;
}

int SweepJobs_write(const char *dir, const char *netpath, const CliCommand *c, const CliArgs *a, const Sweep *sw) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "spadmap sweep: --jobs %s: cannot create the folder (%s)\n", Cli_safe(dir), strerror(errno));
    return EXIT_INVALID;
  }
  struct stat stt;
  if (stat(dir, &stt) != 0 || !S_ISDIR(stt.st_mode)) {
    fprintf(stderr, "spadmap sweep: --jobs %s: not a folder\n", Cli_safe(dir));
    return EXIT_INVALID;
  }
  char exe[PATH_MAX], net[PATH_MAX], adir[PATH_MAX], arch[PATH_MAX], archfile[1024];
  const char *bin = realpath("/proc/self/exe", exe) ? exe : "spadmap";
  const char *absdir = Jobs_abs(dir, adir);
  SpError err;
  const char *archname = Cli_value(c, a, "--arch");
  if (archname && CliLayer_archPath(archname, "cosa_baseline", archfile, sizeof archfile, &err)) {
    fprintf(stderr, "spadmap sweep: %s\n", err.text);
    return EXIT_USAGE;
  }
  StrBuf b = {0};
  for (int k = 0; k < sw->nbudgets; k++) {
    Jobs_quote(&b, bin);
    StrBuf_printf(&b, " sweep ");
    Jobs_quote(&b, Jobs_abs(netpath, net));
    StrBuf_printf(&b, " --budget %lld", (long long)sw->budgets[k]);
    if (Cli_value(c, a, "--params")) StrBuf_printf(&b, " --params");
    static const char *const model[] = {"--dtype", "--dim", "--value"}; /* each job opens the model as this run did */
    for (size_t m = 0; m < sizeof model / sizeof model[0]; m++)
      if (Cli_value(c, a, model[m])) {
        StrBuf_printf(&b, " %s ", model[m]);
        Jobs_quote(&b, Cli_value(c, a, model[m]));
      }
    if (Cli_value(c, a, "--fold")) StrBuf_printf(&b, " --fold");
    if (archname) {
      StrBuf_printf(&b, " --arch ");
      Jobs_quote(&b, Jobs_abs(archfile, arch));
      StrBuf_printf(&b, " --method ");
      Jobs_quote(&b, Cli_value(c, a, "--method") ? Cli_value(c, a, "--method") : "cosa-plus");
    }
    char out[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/point-%05d.csv", absdir, k + 1);
    StrBuf_printf(&b, " --out ");
    Jobs_quote(&b, out);
    StrBuf_printf(&b, "\n");
  }
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/jobs.txt", dir);
  int rc = EXIT_OK;
  if (b.nomem) {
    fprintf(stderr, "spadmap sweep: out of memory\n");
    rc = EXIT_INVALID;
  } else if (FileIO_write(path, b.s ? b.s : "", b.len, &err)) {
    fprintf(stderr, "spadmap sweep: %s\n", Cli_safe(err.text));
    rc = EXIT_INVALID;
  } else
    printf("wrote %s: %d jobs, one per budget (run them: parallel -j8 < %s; then: spadmap sweep --merge %s)\n",
           Cli_safe(path), sw->nbudgets, Cli_safe(path), Cli_safe(dir));
  free(b.s);
  return rc;
}

int SweepJobs_merge(const char *dir, const char *outp) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/jobs.txt", dir);
  char *jobs = NULL, *text = NULL;
  size_t len;
  SpError err;
  if (FileIO_read(path, FILE_CSV, &jobs, &len, &err)) {
    fprintf(stderr, "spadmap sweep: --merge: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  StrBuf out = {0};
  char *header = NULL;
  int rc = EXIT_OK, n = 0;
  for (char *line = jobs, *next; line && *line && rc == EXIT_OK; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (!*line) continue;
    n++;
    const char *bp = strstr(line, " --budget ");
    long long budget = bp ? strtoll(bp + 10, NULL, 10) : -1;
    snprintf(path, sizeof path, "%s/point-%05d.csv", dir, n);
    if (budget <= 0) {
      fprintf(stderr, "spadmap sweep: --merge: %s/jobs.txt line %d: no --budget BYTES (not a --jobs file?)\n",
              Cli_safe(dir), n);
      rc = EXIT_INVALID;
    } else if (FileIO_read(path, FILE_CSV, &text, &len, &err)) {
      fprintf(stderr, "spadmap sweep: --merge: job %d's result: %s (not run yet, or it failed)\n", n, Cli_safe(err.text));
      rc = EXIT_INVALID;
    } else {
      char *body = strchr(text, '\n');
      if (!body || !text[0]) {
        fprintf(stderr, "spadmap sweep: --merge: %s: no CSV header\n", Cli_safe(path));
        rc = EXIT_INVALID;
      } else {
        *body++ = 0;
        if (!header) {
          header = strdup(text);
          StrBuf_printf(&out, "%s\n", text);
        } else if (strcmp(header, text) != 0) {
          fprintf(stderr, "spadmap sweep: --merge: %s: header \"%s\" differs from job 1's \"%s\"\n", Cli_safe(path),
                  Cli_safe(text), Cli_safe(header));
          rc = EXIT_INVALID;
        }
        for (char *r = body; rc == EXIT_OK && *r;) { /* every row is this job's budget */
          char *e = strchr(r, '\n');
          if (strtoll(r, NULL, 10) != budget || !e) {
            fprintf(stderr, "spadmap sweep: --merge: %s: a row that is not budget %lld (or not ended)\n",
                    Cli_safe(path), budget);
            rc = EXIT_INVALID;
          }
          r = e ? e + 1 : r + strlen(r);
        }
        if (rc == EXIT_OK) StrBuf_printf(&out, "%s", body);
      }
    }
    free(text);
    text = NULL;
  }
  if (rc == EXIT_OK && n == 0) {
    fprintf(stderr, "spadmap sweep: --merge: %s/jobs.txt has no jobs\n", Cli_safe(dir));
    rc = EXIT_INVALID;
  }
  if (rc == EXIT_OK && out.nomem) {
    fprintf(stderr, "spadmap sweep: out of memory\n");
    rc = EXIT_INVALID;
  }
  if (rc == EXIT_OK) {
    if (outp && FileIO_write(outp, out.s, out.len, &err)) {
      fprintf(stderr, "spadmap sweep: %s\n", Cli_safe(err.text));
      rc = EXIT_INVALID;
    } else if (!outp) fputs(out.s, stdout);
  }
  free(header);
  free(out.s);
  free(jobs);
  return rc;
}

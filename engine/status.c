#include "status.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

static const char *const Status_messages[SP_STATUS_COUNT] = {
  [SP_OK] = "ok",
  [SP_ERR_IO] = "cannot access file",
  [SP_ERR_SYNTAX] = "malformed JSON",
  [SP_ERR_FORMAT] = "input breaks the file format",
  [SP_ERR_NOMEM] = "out of memory",
  [SP_ERR_ARG] = "invalid argument",
  [SP_ERR_INFEASIBLE] = "infeasible",
  [SP_ERR_LIMIT] = "limit reached",
  [SP_ERR_CANCELLED] = "cancelled",
  [SP_ERR_SOLVER] = "solver failure",
};

const char *Status_message(Status code) {
  if ((int)code < 0 || code >= SP_STATUS_COUNT) return "unknown status";
  return Status_messages[code];
}

Status SpError_vset(SpError *err, Status code, const char *fmt, va_list ap) {
  if (err) {
    /* Messages quote names from input files: shown escaped, they cannot drive
     * the terminal that prints them (a tensor named "x\x1b[2J"). */
    char raw[SP_ERROR_TEXT];
    err->code = code;
    vsnprintf(raw, sizeof raw, fmt, ap);
    Text_escape(raw, err->text, sizeof err->text);
  }
  return code;
}

Status SpError_set(SpError *err, Status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  SpError_vset(err, code, fmt, ap);
  va_end(ap);
  return code;
}

void SpError_clear(SpError *err) {
  if (err) {
    err->code = SP_OK;
    err->text[0] = '\0';
  }
}

/* status: the engine's integer status codes, their messages (one table), and an
 * error record that carries the detail (file, JSON path or line:column, what was
 * expected). The engine never prints: callers present the record. */
#ifndef SPADMAP_STATUS_H
#define SPADMAP_STATUS_H

#include <stdarg.h>

typedef enum {
  SP_OK = 0,
  SP_ERR_IO,          /* cannot read or write a file */
  SP_ERR_SYNTAX,      /* not well-formed JSON */
  SP_ERR_FORMAT,      /* well-formed, but breaks the contract */
  SP_ERR_NOMEM,       /* allocation failed */
  SP_ERR_ARG,         /* bad argument from the caller (unknown policy, bad budget) */
  SP_ERR_INFEASIBLE,  /* no plan exists under the settings (budget < M_R) */
  SP_ERR_LIMIT,       /* a search or time limit was reached before an answer */
  SP_ERR_CANCELLED,   /* the caller cancelled */
  SP_ERR_SOLVER,      /* an external solver failed */
  SP_STATUS_COUNT
} Status;

#define SP_ERROR_TEXT 1024

typedef struct {
  Status code;
  char text[SP_ERROR_TEXT]; /* "file: where: what" */
} SpError;

/* The fixed message of a status code ("invalid network file", ...). */
const char *Status_message(Status code);

/* Record an error (printf-style detail, then escaped with Text_escape so names
 * from files are safe to print) and return its code, so callers can write
 * `return SpError_set(err, SP_ERR_FORMAT, "...")`. err may be NULL. */
Status SpError_set(SpError *err, Status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
Status SpError_vset(SpError *err, Status code, const char *fmt, va_list ap);
void SpError_clear(SpError *err);

#endif

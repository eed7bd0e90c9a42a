/* validate: the independent check of a plan against its network and every
 * validity rule of the contract; recomputes the metrics from the placements alone
 * (it shares no bookkeeping with the policies that made the plan). */
#ifndef SPADMAP_VALIDATE_H
#define SPADMAP_VALIDATE_H

#include "net.h"
#include "plan.h"

enum { VALIDATE_MAX_LINES = 200 };

typedef struct {
  int count;                          /* violations found (all of them) */
  int nlines;                         /* messages kept (the first VALIDATE_MAX_LINES) */
  char *lines[VALIDATE_MAX_LINES];
  Metrics metrics;                    /* what the placements imply */
  bool metrics_known;                 /* false when the schedule was too broken to say */
} ValidateReport;

/* Returns SP_OK when the plan is valid, SP_ERR_FORMAT when it breaks a rule (the
 * report lists each), SP_ERR_NOMEM on allocation failure. */
Status Validate_plan(const Net *net, const Plan *plan, ValidateReport *report);
void ValidateReport_free(ValidateReport *report);

#endif

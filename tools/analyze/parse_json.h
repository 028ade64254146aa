/* rtdd JSON reports: one object per line (docs/report-format.md, "JSON reports"). */
#ifndef AZ_PARSE_JSON_H
#define AZ_PARSE_JSON_H
#include "report.h"
#include <stddef.h>

/* 1 if the line looks like an rtdd JSON report (starts with '{' and names "rtdd"). */
int az_json_candidate(const char *s, size_t n);
/* Fills r from the line; on failure sets r->corrupt (the report is then
 * listed as corrupt with whatever could be read). */
void az_json_report(struct az_report *r, const char *s, size_t n);
#endif

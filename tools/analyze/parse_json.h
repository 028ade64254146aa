/* rtdd JSON reports: one object per line (docs/report-format.md, "JSON reports"). */
#ifndef AZ_PARSE_JSON_H
#define AZ_PARSE_JSON_H
#include "report.h"
#include <stddef.h>

/* 1 if the line looks like an rtdd JSON report (starts with '{' and names "rtdd"). */
int az_json_candidate(const char *s, size_t n);
/* Fills r from the line; on failure sets r->corrupt (the report is then
 * listed as corrupt with whatever could be read). A report written in
 * pieces (report-format.md, "Long reports"): its first line ends with
 * "continues":"ID", copied to continues (else continues[0] is 0). */
void az_json_report(struct az_report *r, const char *s, size_t n, char *continues, size_t cap);
/* The ID of a later piece ("continued":"ID" after "rtdd":1) into id; 0 if
 * the line is not one. */
int az_json_continued_id(const char *s, size_t n, char *id, size_t cap);
/* Adds a later piece's sections (and, in the last piece, modules, cycle,
 * location) to r, the report its first piece began. */
void az_json_continuation(struct az_report *r, const char *s, size_t n, char *continues, size_t cap);
#endif

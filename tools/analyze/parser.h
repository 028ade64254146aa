/* Splits a log into reports: rtdd text reports, rtdd JSON lines and kernel
 * lockdep/-rt reports, in any mix. Fed one line at a time, it keeps only
 * the report being read, so memory does not grow with the log. */
#ifndef AZ_PARSER_H
#define AZ_PARSER_H
#include "report.h"
#include <stddef.h>

/* Called once per report, well formed or not (r->corrupt says why not).
 * The report is the parser's: copy what must outlive the call. */
typedef void (*az_report_fn)(void *ctx, struct az_report *r);

struct az_parser;
struct az_parser *az_parser_new(az_report_fn fn, void *ctx);
void az_parser_free(struct az_parser *p);
/* Lines of log `log_index` follow, numbered from 1. */
void az_parser_begin_log(struct az_parser *p, unsigned log_index);
/* One line without its newline. `overlong` says the line was longer than
 * the reader keeps and was cut. */
void az_parser_line(struct az_parser *p, const char *s, size_t n, unsigned long lineno, int overlong);
/* End of the log: a report still open is cut off. */
void az_parser_end_log(struct az_parser *p, unsigned long last_lineno);
#endif

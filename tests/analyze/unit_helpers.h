/* Shared by the analyser's Check unit tests (tests/unit/test_analyze*.c). */
#ifndef AZ_UNIT_HELPERS_H
#define AZ_UNIT_HELPERS_H
#include "analysis.h"
#include "parser.h"
#include <check.h>

/* Collects copies of the reports a parser emits. */
struct collected {
    struct az_report *reports[64];
    unsigned n;
};
void collect_report(void *ctx, struct az_report *r);
void collected_free(struct collected *c);
/* Feeds text (many lines) to the parser as log `log_index`. */
void feed_text(struct az_parser *p, unsigned log_index, const char *text);
/* Parses text into c (one log). */
void parse_into(struct collected *c, const char *text);
/* Runs text through a fresh analysis as log `name` (no symbolization). */
void analyse_text(struct az_analysis *a, const char *name, const char *text);
/* Writes text to a fresh temporary file; returns its malloc'ed path. */
char *temp_file(const char *text, size_t len);

/* A well-formed rtdd text report of xfrm_gc's bug (the report-format.md example). */
extern const char xfrm_text_report[];
/* The same report as the runtime's JSON line. */
extern const char xfrm_json_report[];
/* The seed's -rt kernel report. */
extern const char seed_kernel_report[];

Suite *analyze_parse_suite(void);
Suite *analyze_signature_suite(void);
Suite *analyze_analysis_suite(void);
Suite *analyze_output_suite(void);
Suite *analyze_cycle_suite(void);
#endif

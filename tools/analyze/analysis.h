/* The analysis: every report of every log goes through here once; it
 * symbolizes, signs, suppresses and de-duplicates them into findings.
 * Memory grows with the number of distinct findings (one example report
 * each) and logs, not with the number of reports. */
#ifndef AZ_ANALYSIS_H
#define AZ_ANALYSIS_H
#include "input.h"
#include "report.h"
#include "signature.h"
#include "symbolize.h"
#include "report/suppress.h"

enum az_status { AZ_NEW, AZ_BASELINE, AZ_SUPPRESSED };

struct az_seen {
    unsigned log_index;
    unsigned long line;
    const char *time; /* NULL when the report had none; owned by the finding */
};

struct az_finding {
    struct az_signature sig;
    int kind;
    unsigned long count;      /* reports, suppressed ones included */
    unsigned long suppressed; /* reports matched by a suppression */
    unsigned *logs;           /* distinct logs, in order */
    unsigned nlogs, caplogs;
    struct az_seen first, last;
    struct az_report *example; /* the first report, symbolized */
    int in_baseline;
    char *first_time, *last_time;
    int confirm;              /* enum az_confirm (cycle.h): confirmed wins over not confirmed */
    char *confirm_detail;     /* the deciding report's "confirm:" text, NULL when none */
};

/* A report listed as truncated or corrupt (never counted as a finding),
 * or a well-formed report the runtime had to truncate (counted). */
struct az_problem {
    unsigned log_index;
    unsigned long line, end_line;
    int kind;        /* -1 when unknown */
    unsigned frames;
    int counted;     /* 1: the report still made a finding */
    char *reason;
};

#define AZ_MAX_PROBLEMS 10000 /* listed; more are only counted */

struct az_analysis {
    char **logs;             /* log names as given ("-" is standard input) */
    unsigned nlogs, caplogs;
    struct az_finding **findings; /* in order of first appearance */
    unsigned nfindings, capfindings;
    struct az_finding **table;    /* open-addressed by signature */
    size_t nslots;
    struct az_problem *problems;
    unsigned nproblems, capproblems;
    unsigned long problems_total, corrupt_total, truncated_total;
    unsigned long reports, suppressed_reports;
    const struct rt_suppressions *suppressions; /* may be NULL */
    struct az_symbolizer *symbolizer;           /* NULL: frames stay as they are */
    char **baseline;             /* signatures of the baseline, sorted */
    unsigned nbaseline;
    struct az_input_stats input;
    char **read_errors;          /* logs that could not be read (fully), with why */
    unsigned nread_errors;
};

void az_analysis_init(struct az_analysis *a);
void az_analysis_destroy(struct az_analysis *a);
unsigned az_analysis_add_log(struct az_analysis *a, const char *name);
/* Records that a log could not be read (fully); the outputs list it. */
void az_analysis_read_error(struct az_analysis *a, const char *message);
/* The parser's callback: ctx is the analysis. */
void az_analysis_report(void *ctx, struct az_report *r);
/* Loads a previous JSON output as the baseline; -1 with a message on error. */
int az_analysis_load_baseline(struct az_analysis *a, const char *path, char *err, size_t errlen);
/* After all logs: marks baseline findings and sorts by count (descending). */
void az_analysis_finish(struct az_analysis *a);
enum az_status az_finding_status(const struct az_finding *f);
/* 1 when the finding fails the run: new, not suppressed, BUG or WARNING. */
int az_finding_fails(const struct az_finding *f);
/* The kind's severity (enum rt_severity), BUG for a cycle a rerun confirmed. */
int az_finding_severity(const struct az_finding *f);
/* "FILE:LINE" of the guilty frame (or the report's SUMMARY location) and its function. */
void az_finding_location(const struct az_finding *f, char *out, size_t cap);
const struct az_frame *az_finding_guilty_frame(const struct az_finding *f);
unsigned az_analysis_count_status(const struct az_analysis *a, enum az_status st);
#endif

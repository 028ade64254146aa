/* Building and writing reports. A report is a list of items (text lines
 * and titled stacks), as many as it needs, rendered at the end as text or
 * JSON (report-format.md) and written with one write(2), or, when too long
 * for the runtime's buffer, in pieces of whole lines (report_sink.h). */
#ifndef RTDD_REPORT_H
#define RTDD_REPORT_H
#include "core/core.h"
#include "report/demangle.h"
#include "report/kinds.h"
#include "report/log.h"
#include "report/modules.h"
#include "report/runtime.h"
#include "report/suppress.h"
#include "report/symbolize.h"
#include "report/unwind.h"
#include <stddef.h>
#include <stdint.h>

#define RT_REPORT_BEGIN "------------[ cut here ]------------"
#define RT_REPORT_END "---[ end report ]---"
/* The longest line a report keeps whole (its lines have no count limit). */
#define RT_REPORT_LINE_MAX 8000

struct rt_report;

/* Starts a report about the calling thread (tid). NULL when it cannot be
 * built (out of memory). */
struct rt_report *rt_report_begin(enum rt_kind kind, int tid);
/* The same for a kind whose headline has nothing to fill in: it is the
 * kinds table's; comm gets the thread's name, for the report's text. */
struct rt_report *rt_report_begin_plain(enum rt_kind kind, int tid, char *comm, size_t cap);
/* The calling code's stack, as deep as the options say: a report's stack. */
static inline rt_stack_id rt_stack_here(void)
{
    return rt_stack_capture((unsigned)rt_opt.stack_depth);
}
void rt_report_headline(struct rt_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_report_text(struct rt_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A section title ending in ':' followed by the stack's frames. The first
 * stack is the primary one: it gives the SUMMARY location. */
void rt_report_stack(struct rt_report *r, rt_stack_id stack, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The SUMMARY's location and function when the report has no stack (else
 * "[no stack] in ??"): what it is about, in the SUMMARY grammar. */
void rt_report_summary(struct rt_report *r, const char *location, const char *function);
/* Identifies the bug for de-duplication: a report whose kind and key were
 * already written is dropped. Defaults to the first two stacks. */
void rt_report_key(struct rt_report *r, uint64_t key);
/* Renders, applies suppressions and de-duplication, writes, counts, and
 * halts the process if halt_on_error says so. Returns 1 if written. */
int rt_report_finish(struct rt_report *r);
/* The bug leaves the program unable to go on (exit_on_deadlock): when the
 * report is written (not suppressed, not a duplicate), it says so, and
 * rt_report_finish writes the exit summary and ends the process with
 * exitcode through rt_fatal_exit_hook (the preload layer's: flush what the
 * program's stdio holds, then exit_group; NULL: _exit). */
void rt_report_fatal(struct rt_report *r);
/* A report of a kind whose severity an option raises (hang_severity). */
void rt_report_set_severity(struct rt_report *r, enum rt_severity severity);
extern void (*rt_fatal_exit_hook)(int code);
/* What a subsystem above report/ adds to the exit summary ("; ..."), set
 * by the preload layer (rcu/'s read-section counts, rt_rcu_summary); NULL:
 * nothing. A hook, so that report/ calls nothing above it. */
extern void (*rt_report_summary_hook)(struct rt_buf *b);

unsigned long rt_report_count(enum rt_kind kind);
unsigned long rt_report_errors(void);
unsigned long rt_report_suppressed(void);
/* The one-line summary written at exit (print_summary=1). A descendant
 * process (forked, or exec'd below the program `rtdd run` started) that has
 * nothing to say writes none: no line, no log file of its own. */
void rt_report_exit_summary(int pid);
/* The root process's pid: `rtdd run`'s program, else the one the runtime
 * started in (a forked copy, vfork'ed or not, has another pid). */
void rt_report_set_root_pid(int pid);
/* Waits, up to max_ms, until the reports other threads have begun to
 * write (already counted) are written; returns how many are still not. */
unsigned rt_report_wait_in_flight(unsigned max_ms);
/* The exit path closes the count, then waits (as above) for the reports
 * already claimed: from then on what the summary and the exit status
 * count is fixed; a report another thread of this process claims later
 * is not counted, its thread waiting for the exit to end it. */
unsigned rt_report_close(unsigned max_ms);

/* Reports the calling thread began (rt_report_begin), whether written,
 * suppressed or dropped as duplicates: a wrapper compares it across a call
 * to learn whether a check already reported on it (failed-call). */
extern __thread unsigned rt_reports_begun_here __attribute__((tls_model("initial-exec")));

/* Thread name of tid from /proc (no stdio, no allocation). */
void rt_thread_comm(int tid, char *out, size_t cap);
void rt_report_after_fork(void);
#endif

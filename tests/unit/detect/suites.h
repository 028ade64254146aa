/* The engine's unit-test suites, one per detect/ module. */
#ifndef RTDD_DETECT_SUITES_H
#define RTDD_DETECT_SUITES_H
#include <check.h>
Suite *fmt_suite(void);
Suite *options_suite(void);
Suite *kinds_suite(void);
Suite *suppress_suite(void);
Suite *locktab_suite(void);
Suite *stackdepot_suite(void);
Suite *locks_suite(void);
Suite *freed_suite(void);
Suite *report_suite(void);
Suite *log_suite(void);
Suite *symbolize_suite(void);
Suite *demangle_suite(void);
Suite *lockorder_suite(void);
Suite *rcucheck_suite(void);
Suite *thread_suite(void);
Suite *graphorder_suite(void);
Suite *feasible_suite(void);
Suite *lockgroup_suite(void);
Suite *condwait_suite(void);
Suite *rcuptr_suite(void);
Suite *lazylock_suite(void);
Suite *hang_suite(void);
Suite *watchdog_suite(void);
Suite *shared_suite(void);
Suite *joinorder_suite(void);
Suite *semcheck_suite(void);
Suite *condsignal_suite(void);
Suite *steer_suite(void);
/* Points the runtime's reports at a fresh temporary file; returns its path. */
const char *test_log_setup(const char *extra_options);
/* The log's whole content (static buffer). */
const char *test_log_read(void);
/* The runtime's fatal exits (exit_on_deadlock) since the last setup, and
 * the status of the last: recorded instead of ending the test. */
extern int test_fatal_exits, test_fatal_code;
#endif

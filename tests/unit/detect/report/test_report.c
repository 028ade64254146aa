/* Reports, the log, and symbolization. */
#include "detect/suites.h"
#include "report/log.h"
#include "report/modules.h"
#include "core/core.h"
#include "report/report.h"
#include "report/runtime.h"
#include "report/symbolize.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static uintptr_t return_address(void)
{
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
    return ra;
}

static inline __attribute__((always_inline)) uintptr_t inlined_helper(void)
{
    return return_address();
}

__attribute__((noinline)) uintptr_t known_function(void)
{
    uintptr_t ra = inlined_helper();
    __asm__ volatile("" ::: "memory");
    return ra;
}

__attribute__((noinline)) uintptr_t caller_function(void)
{
    uintptr_t ra = return_address();
    __asm__ volatile("" ::: "memory");
    return ra;
}

static rt_stack_id known_stack(void)
{
    uintptr_t pcs[2] = { caller_function(), known_function() };
    uint32_t sizes[2] = { 32, 48 };
    return rt_stack_intern(pcs, sizes, 2);
}

static void emit(enum rt_kind kind, rt_stack_id stack, const char *tag)
{
    struct rt_report *r = rt_report_begin(kind, getpid());
    rt_report_headline(r, "BUG: test/%d, active lock [0x1(0x0-0x8)] freed!", getpid());
    rt_report_stack(r, stack, "memory freed by test (%s) at:", tag);
    rt_report_text(r, "a plain line");
    rt_report_finish(r);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

START_TEST(text_report_has_the_grammar)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "t");
    const char *log = test_log_read();
    ck_assert_int_eq(strncmp(log, RT_REPORT_BEGIN "\nBUG: test/", strlen(RT_REPORT_BEGIN) + 11), 0);
    ck_assert_ptr_nonnull(strstr(log, "\nCPU: "));
    ck_assert_ptr_nonnull(strstr(log, "\nmemory freed by test (t) at:\n [<"));
    ck_assert_ptr_nonnull(strstr(log, "] caller_function+0x"));
    ck_assert_ptr_nonnull(strstr(log, " (32) test_detect+0x"));
    ck_assert_ptr_nonnull(strstr(log, "test_report.c:"));
    ck_assert_ptr_nonnull(strstr(log, "\na plain line\n"));
    ck_assert_ptr_nonnull(strstr(log, "\nmodule: test_detect build-id "));
    ck_assert_ptr_nonnull(strstr(log, "\nSUMMARY: rtdd: active-lock-freed test_report.c:"));
    ck_assert_ptr_nonnull(strstr(log, " in caller_function\n" RT_REPORT_END "\n"));
    ck_assert_uint_eq(rt_report_errors(), 1);
}
END_TEST

START_TEST(json_report_is_one_line)
{
    ck_assert_ptr_nonnull(test_log_setup("report_format=json"));
    emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "j");
    const char *log = test_log_read();
    ck_assert_int_eq(count(log, "\n"), 1);
    ck_assert_int_eq(strncmp(log, "{\"rtdd\":1,\"kind\":\"active-lock-freed\",\"severity\":\"BUG\"", 52), 0);
    ck_assert_ptr_nonnull(strstr(log, "\"function\":\"caller_function\""));
    ck_assert_ptr_nonnull(strstr(log, "\"frame_size\":32"));
    ck_assert_ptr_nonnull(strstr(log, "\"location\":\"test_report.c:"));
    ck_assert_int_eq(count(log, "{"), count(log, "}"));
    ck_assert_int_eq(count(log, "["), count(log, "]"));
}
END_TEST

/* A report without a stack may say in its SUMMARY what it is about; one
 * with a stack takes it from the stack all the same. */
START_TEST(a_summary_without_a_stack)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_DUMP, getpid());
    rt_report_headline(r, "INFO: lock dump of process %d (rtdd dump)", getpid());
    rt_report_text(r, "nothing waits");
    rt_report_key(r, 1);
    rt_report_finish(r);
    r = rt_report_begin(RT_KIND_LOCK_DUMP, getpid());
    rt_report_headline(r, "INFO: lock dump of process %d (rtdd dump)", getpid());
    rt_report_text(r, "nothing waits");
    rt_report_summary(r, "[no thread waits]", "prog");
    rt_report_key(r, 2);
    rt_report_finish(r);
    r = rt_report_begin(RT_KIND_LOCK_DUMP, getpid());
    rt_report_headline(r, "INFO: lock dump of process %d (rtdd dump)", getpid());
    rt_report_summary(r, "[no thread waits]", "prog");
    rt_report_stack(r, known_stack(), "a wait at:");
    rt_report_key(r, 3);
    rt_report_finish(r);
    const char *log = test_log_read();
    ck_assert_int_eq(count(log, "\nSUMMARY: rtdd: lock-dump [no stack] in ??\n"), 1);
    ck_assert_int_eq(count(log, "\nSUMMARY: rtdd: lock-dump [no thread waits] in prog\n"), 1);
    ck_assert_int_eq(count(log, "\nSUMMARY: rtdd: lock-dump test_report.c:"), 1);
}
END_TEST

START_TEST(same_bug_is_reported_once)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    rt_stack_id s = known_stack();
    emit(RT_KIND_ACTIVE_LOCK_FREED, s, "a");
    emit(RT_KIND_ACTIVE_LOCK_FREED, s, "a");
    emit(RT_KIND_BAD_UNLOCK, s, "b"); /* another kind is another bug */
    ck_assert_int_eq(count(test_log_read(), RT_REPORT_END), 2);
}
END_TEST

START_TEST(suppressed_reports_are_counted_not_written)
{
    char supp[64];
    snprintf(supp, sizeof supp, "/tmp/rtdd-unit-supp-%d", getpid());
    FILE *f = fopen(supp, "w");
    fputs("# test\nactive-lock-freed:caller_*\n", f);
    fclose(f);
    char opts[128];
    snprintf(opts, sizeof opts, "suppressions=%s", supp);
    ck_assert_ptr_nonnull(test_log_setup(opts));
    emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "s");
    emit(RT_KIND_BAD_UNLOCK, known_stack(), "s");
    ck_assert_uint_eq(rt_report_suppressed(), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 0);
    ck_assert_int_eq(count(test_log_read(), RT_REPORT_END), 1);
    rt_report_exit_summary(1234);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "rtdd: summary: pid 1234: 1 report (bad-unlock: 1), 1 suppressed\n"));
    unlink(supp);
}
END_TEST

/* A descendant (another pid than the root's) with nothing to say writes no
 * summary, and so makes no log file; the root always writes its own, and a
 * descendant that reported writes its. */
START_TEST(clean_descendants_write_no_summary)
{
    ck_assert_ptr_nonnull(test_log_setup(""));
    rt_report_set_root_pid(1000);
    rt_report_exit_summary(2000);
    ck_assert_ptr_null(strstr(test_log_read(), "rtdd: summary"));
    rt_report_exit_summary(1000);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "rtdd: summary: pid 1000: 0 reports, 0 suppressed\n"));
}
END_TEST

START_TEST(a_descendant_that_reported_writes_its_summary)
{
    ck_assert_ptr_nonnull(test_log_setup(""));
    rt_report_set_root_pid(1000);
    emit(RT_KIND_BAD_UNLOCK, known_stack(), "d");
    rt_report_exit_summary(3000);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "rtdd: summary: pid 3000: 1 report (bad-unlock: 1), 0 suppressed\n"));
}
END_TEST

START_TEST(halt_on_error_exits_with_exitcode)
{
    ck_assert_ptr_nonnull(test_log_setup("halt_on_error=1:exitcode=7"));
    pid_t pid = fork();
    if (pid == 0) {
        emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "h");
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 7);
    ck_assert_int_eq(count(test_log_read(), RT_REPORT_END), 1);
}
END_TEST

static void *report_from_thread(void *arg)
{
    uintptr_t pcs[3] = { caller_function(), known_function(), (uintptr_t)arg };
    emit(RT_KIND_ACTIVE_LOCK_FREED, rt_stack_intern(pcs, NULL, 3), "thread");
    return NULL;
}

START_TEST(concurrent_reports_never_mix_lines)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    pthread_t t[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, report_from_thread, (void *)(0x1000 + i));
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    const char *log = test_log_read();
    ck_assert_int_eq(count(log, RT_REPORT_BEGIN), 8);
    /* Each report is contiguous: begin, then its own end, before the next begin. */
    const char *p = log;
    for (int i = 0; i < 8; i++) {
        const char *b = strstr(p, RT_REPORT_BEGIN), *e = strstr(p, RT_REPORT_END);
        ck_assert_ptr_nonnull(b);
        ck_assert_ptr_nonnull(e);
        ck_assert(b < e);
        const char *next = strstr(b + 1, RT_REPORT_BEGIN);
        ck_assert(!next || next > e);
        p = e + 1;
    }
}
END_TEST

START_TEST(log_path_expands_pid_and_creates_0600)
{
    char out[64];
    ck_assert_int_eq(rt_log_expand_path("/tmp/a.%p.log%%", 42, out, sizeof out), 0);
    ck_assert_str_eq(out, "/tmp/a.42.log%");
    ck_assert_int_eq(rt_log_expand_path("/tmp/%p%p%p%p%p%p%p%p%p%p%p%p%p%p", 123456789, out, sizeof out), -1);
    const char *path = test_log_setup(NULL);
    rt_log_write("x\n", 2);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
}
END_TEST

START_TEST(unwritable_log_falls_back_to_stderr)
{
    char errfile[64];
    snprintf(errfile, sizeof errfile, "/tmp/rtdd-unit-stderr-%d", getpid());
    int fd = open(errfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    char errtext[256];
    struct rt_buf err;
    rt_buf_init(&err, errtext, sizeof errtext);
    ck_assert_int_eq(rt_runtime_configure("log_path=/nonexistent-dir/x.log", &err), 0);
    emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "fallback");
    char text[8192] = "";
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    ck_assert_int_gt(n, 0);
    text[n] = 0;
    ck_assert_ptr_nonnull(strstr(text, "cannot open log_path '/nonexistent-dir/x.log'"));
    ck_assert_ptr_nonnull(strstr(text, "SUMMARY: rtdd: active-lock-freed"));
    unlink(errfile);
}
END_TEST

/* A report that reaches neither the log (a full disk) nor stderr is
 * counted, and the exit summary says so once it can be written. */
START_TEST(unwritable_everywhere_is_said_in_the_summary)
{
    char errfile[64];
    snprintf(errfile, sizeof errfile, "/tmp/rtdd-unit-stderr-%d", getpid());
    int keep = open(errfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
    int full = open("/dev/full", O_WRONLY);
    ck_assert_int_ge(full, 0);
    dup2(full, 2);
    char errtext[256];
    struct rt_buf err;
    rt_buf_init(&err, errtext, sizeof errtext);
    ck_assert_int_eq(rt_runtime_configure("log_path=/dev/full:print_summary=1", &err), 0);
    emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "lost");
    dup2(keep, 2); /* stderr works again: the summary lands there */
    rt_report_exit_summary(4321);
    char text[8192] = "";
    ssize_t n = pread(keep, text, sizeof text - 1, 0);
    ck_assert_int_gt(n, 0);
    text[n] = 0;
    ck_assert_msg(strstr(text, "rtdd: summary: pid 4321: 1 report (active-lock-freed: 1)"), "%s", text);
    ck_assert_msg(strstr(text, "1 report could not be written anywhere (No space left on device)"), "%s", text);
    unlink(errfile);
}
END_TEST

/* A pipe whose reader is gone: the report is lost and counted, and the
 * process is not killed by SIGPIPE (default action here), its SIGPIPE
 * handling unchanged; one it had pending itself stays pending. */
static int sigpipe_pending(void)
{
    sigset_t p;
    sigpending(&p);
    return sigismember(&p, SIGPIPE);
}

START_TEST(a_pipe_with_no_reader_raises_no_sigpipe)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    close(p[0]);
    signal(SIGPIPE, SIG_DFL);
    errno = 0;
    ck_assert_int_eq(rt_quiet_write(p[1], "x\n", 2), -1);
    ck_assert_int_eq(errno, EPIPE);
    ck_assert_int_eq(sigpipe_pending(), 0);
    /* Blocked by the program with one of its own pending: that one stays. */
    sigset_t pipe_only, mask;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);
    ck_assert_int_eq(rt_quiet_write(p[1], "x\n", 2), -1);
    ck_assert_int_eq(sigpipe_pending(), 0);
    raise(SIGPIPE);
    ck_assert_int_eq(rt_quiet_write(p[1], "x\n", 2), -1);
    ck_assert_int_eq(sigpipe_pending(), 1);
    pthread_sigmask(SIG_SETMASK, NULL, &mask);
    ck_assert_int_eq(sigismember(&mask, SIGPIPE), 1); /* the program's mask as it was */
    int sig;
    sigwait(&pipe_only, &sig);
    pthread_sigmask(SIG_UNBLOCK, &pipe_only, NULL);
    /* Through the log: lost, counted, said in the summary. */
    char errtext[256];
    struct rt_buf err;
    rt_buf_init(&err, errtext, sizeof errtext);
    dup2(p[1], 2);
    ck_assert_int_eq(rt_runtime_configure("log_path=stderr:print_summary=1", &err), 0);
    emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "lost");
    int last;
    ck_assert_uint_eq(rt_log_lost(&last), 1);
    ck_assert_int_eq(last, EPIPE);
    rt_report_exit_summary(4321);
    ck_assert_int_eq(sigpipe_pending(), 0);
    /* An open pipe takes it all. */
    int q[2];
    char got[4] = "";
    ck_assert_int_eq(pipe(q), 0);
    ck_assert_int_eq(rt_quiet_write(q[1], "abc", 3), 0);
    ck_assert_int_eq(read(q[0], got, 3), 3);
    ck_assert_str_eq(got, "abc");
}
END_TEST

/* A log file is made by the first report, not at start. */
START_TEST(log_file_is_made_by_the_first_report)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/rtdd-unit-lazy-%d.log", getpid());
    unlink(path);
    char opts[128], errtext[256];
    struct rt_buf err;
    rt_buf_init(&err, errtext, sizeof errtext);
    snprintf(opts, sizeof opts, "log_path=%s", path);
    ck_assert_int_eq(rt_runtime_configure(opts, &err), 0);
    ck_assert_int_ne(access(path, F_OK), 0);
    emit(RT_KIND_ACTIVE_LOCK_FREED, known_stack(), "first");
    ck_assert_int_eq(access(path, F_OK), 0);
    unlink(path);
}
END_TEST

START_TEST(symbolizes_function_file_line_and_inlines)
{
    struct rt_symbol sym;
    ck_assert_int_eq(rt_symbolize(known_function(), &sym), 0);
    ck_assert_str_eq(sym.loc.function, "known_function");
    ck_assert_int_gt((int)sym.size, 0);
    ck_assert_uint_gt(sym.offset, 0);
    ck_assert_ptr_nonnull(strstr(sym.loc.file, "test_report.c"));
    ck_assert_int_gt(sym.loc.line, 0);
    ck_assert_int_ge(sym.ninline, 1);
    ck_assert_str_eq(sym.inl[0].function, "inlined_helper");
    ck_assert_int_ne(sym.inl[0].line, sym.loc.line);
    ck_assert_int_eq(rt_symbolize(0, &sym), -1);
}
END_TEST

START_TEST(modules_have_build_ids)
{
    struct rt_module m;
    ck_assert_int_eq(rt_module_find((uintptr_t)known_function, &m), 0);
    ck_assert_str_eq(m.name, "test_detect");
    ck_assert_uint_eq(strlen(m.build_id), 40);
    ck_assert_uint_le(m.lo, (uintptr_t)known_function);
    ck_assert_uint_gt(m.hi, (uintptr_t)known_function);
    ck_assert_int_eq(rt_module_find((uintptr_t)getpid, &m), 0); /* not intercepted by ASan */
    ck_assert_ptr_nonnull(strstr(m.path, "libc.so"));
    ck_assert_int_eq(rt_module_find(16, &m), -1);
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_test(tc, text_report_has_the_grammar);
    tcase_add_test(tc, json_report_is_one_line);
    tcase_add_test(tc, same_bug_is_reported_once);
    tcase_add_test(tc, a_summary_without_a_stack);
    tcase_add_test(tc, suppressed_reports_are_counted_not_written);
    tcase_add_test(tc, halt_on_error_exits_with_exitcode);
    tcase_add_test(tc, clean_descendants_write_no_summary);
    tcase_add_test(tc, a_descendant_that_reported_writes_its_summary);
    tcase_add_test(tc, concurrent_reports_never_mix_lines);
    suite_add_tcase(s, tc);
    return s;
}

Suite *log_suite(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");
    tcase_add_test(tc, log_path_expands_pid_and_creates_0600);
    tcase_add_test(tc, unwritable_log_falls_back_to_stderr);
    tcase_add_test(tc, unwritable_everywhere_is_said_in_the_summary);
    tcase_add_test(tc, log_file_is_made_by_the_first_report);
    tcase_add_test(tc, a_pipe_with_no_reader_raises_no_sigpipe);
    suite_add_tcase(s, tc);
    return s;
}

Suite *symbolize_suite(void)
{
    Suite *s = suite_create("symbolize");
    TCase *tc = tcase_create("symbolize");
    tcase_add_test(tc, symbolizes_function_file_line_and_inlines);
    tcase_add_test(tc, modules_have_build_ids);
    suite_add_tcase(s, tc);
    return s;
}

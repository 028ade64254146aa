/* The deadlock watchdog, driven with plain calls: threads blocked in a
 * cycle of lock waits and joins, what it reports and when the run ends. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "hang/hang.h"
#include "report/report.h"
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x500000 + (n))
static char A[64], B[64], C[64], R[64], M[64];
static struct rt_thread *t0;

/* As test_lockorder.c's: lockdep's rule, so that every cycle of code
 * paths is a deadlock. */
static void setup(void)
{
    test_log_setup("lock_order_rule=lockdep");
    t0 = rt_thread_new((int)syscall(SYS_gettid));
}

static void lock_as(struct rt_thread *t, char *obj, enum rt_lock_type type, unsigned flags)
{
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)obj, type, PC((uintptr_t)obj & 0xfff));
    uint64_t chain = rt_on_lock_pre(t, l, flags, PC(1));
    rt_on_lock_acquired(t, l, flags, chain, PC((uintptr_t)obj & 0xfff));
}
static void lock(char *obj) { lock_as(t0, obj, RT_LOCK_MUTEX, 0); }
static void unlock(char *obj) { rt_on_lock_release(t0, (uintptr_t)obj, PC(2)); }
static unsigned long inversions(void) { return rt_report_count(RT_KIND_LOCK_ORDER_INVERSION); }

START_TEST(watchdog_reports_real_deadlock)
{
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    lock_as(t1, A, RT_LOCK_MUTEX, 0);
    lock_as(t2, B, RT_LOCK_MUTEX, 0);
    /* Each now blocks on the other's lock. */
    rt_on_lock_pre(t1, rt_lock_lookup(t1, (uintptr_t)B, RT_LOCK_MUTEX, PC(6)), 0, PC(6));
    rt_on_lock_pre(t2, rt_lock_lookup(t2, (uintptr_t)A, RT_LOCK_MUTEX, PC(7)), 0, PC(7));
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(1500), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1); /* past deadlock_timeout_ms (2000) */
    ck_assert_int_eq(rt_watchdog_scan(5000), 0); /* reported once */
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "BUG: deadlock detected, 2 threads blocked in a cycle"));
    /* exit_on_deadlock (default 1): the report says so, then the run ends. */
    ck_assert_ptr_nonnull(strstr(log, "The program cannot go on: rtdd ends the run here with exit status 66"));
    ck_assert_ptr_nonnull(strstr(log, "rtdd: summary: pid"));
    ck_assert_int_eq(test_fatal_exits, 1);
    ck_assert_int_eq(test_fatal_code, 66);
}
END_TEST

/* t1 holds A and waits for B, t2 holds B and waits for A: both as the
 * lock calls leave them (the wait is shown before the order check). */
static void abba_blocked(struct rt_thread *t1, struct rt_thread *t2, unsigned flags2)
{
    lock_as(t1, A, RT_LOCK_MUTEX, 0);
    lock_as(t2, B, RT_LOCK_MUTEX, 0);
    rt_on_lock_pre(t1, rt_lock_lookup(t1, (uintptr_t)B, RT_LOCK_MUTEX, PC(6)), 0, PC(6));
    rt_on_lock_pre(t2, rt_lock_lookup(t2, (uintptr_t)A, RT_LOCK_MUTEX, PC(7)), flags2, PC(7));
}

START_TEST(watchdog_no_exit_when_disabled)
{
    test_log_setup("exit_on_deadlock=0");
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    abba_blocked(t1, t2, 0);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    ck_assert_int_eq(test_fatal_exits, 0);
    ck_assert_ptr_null(strstr(test_log_read(), "ends the run"));
}
END_TEST

/* exitcode=0 keeps a suite's own results, but a run rtdd ended has none: status 1. */
START_TEST(watchdog_exit_status_never_zero)
{
    test_log_setup("exitcode=0");
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    abba_blocked(t1, t2, 0);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    ck_assert_int_eq(test_fatal_exits, 1);
    ck_assert_int_eq(test_fatal_code, 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "rtdd ends the run here with exit status 1 "));
}
END_TEST

/* A wait with a timeout may end: the cycle is reported, the run goes on. */
START_TEST(watchdog_timed_wait_is_not_fatal)
{
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    abba_blocked(t1, t2, RT_ACQ_TIMED);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    ck_assert_int_eq(test_fatal_exits, 0);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "A wait of the cycle has a timeout"));
}
END_TEST

/* A suppressed deadlock is neither written nor fatal: the program hangs as without rtdd. */
START_TEST(watchdog_suppressed_deadlock_is_not_fatal)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/rtdd-unit-supp-%d", getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("deadlock:*\n", f);
    fclose(f);
    char opts[128];
    snprintf(opts, sizeof opts, "suppressions=%s", path);
    test_log_setup(opts);
    unlink(path);
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    abba_blocked(t1, t2, 0);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 0);
    ck_assert_uint_eq(rt_report_suppressed(), 1);
    ck_assert_int_eq(test_fatal_exits, 0);
}
END_TEST

/* The acquisition that closes the cycle finds the other thread blocked on
 * it: the lock-order report says the deadlock is happening, and the
 * watchdog's report of the same waits refers to it. */
START_TEST(inversion_happening_now)
{
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    abba_blocked(t1, t2, 0);
    ck_assert_uint_eq(inversions(), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "This deadlock is happening now"));
    ck_assert_ptr_nonnull(strstr(log, " and is blocked waiting for "));
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "This is the deadlock the lock-order-inversion report above showed happening"));
    ck_assert_int_eq(test_fatal_exits, 1);
}
END_TEST

/* Each thread holds 100 locks of its own before the ABBA pair: the wait
 * behind them is in the graph all the same. */
START_TEST(watchdog_sees_deep_nesting)
{
    static char own1[100][8], own2[100][8];
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    for (int i = 0; i < 100; i++) {
        lock_as(t1, own1[i], RT_LOCK_MUTEX, 0);
        lock_as(t2, own2[i], RT_LOCK_MUTEX, 0);
    }
    abba_blocked(t1, t2, 0);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "BUG: deadlock detected, 2 threads blocked in a cycle"));
}
END_TEST

/* A thread waiting for a lock it holds itself: a cycle of one. */
START_TEST(watchdog_self_relock)
{
    lock(A);
    rt_on_lock_pre(t0, rt_lock_lookup(t0, (uintptr_t)A, RT_LOCK_MUTEX, PC(6)), 0, PC(6));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RECURSIVE_LOCKING), 1);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "BUG: deadlock detected, 1 thread blocked in a cycle"));
    ck_assert_ptr_nonnull(strstr(log, "which it holds itself, at:"));
    ck_assert_ptr_nonnull(strstr(log, "recursive-locking reported it"));
    ck_assert_int_eq(test_fatal_exits, 1);
}
END_TEST

START_TEST(watchdog_self_rwlock_upgrade)
{
    lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ);
    rt_on_lock_pre(t0, rt_lock_lookup(t0, (uintptr_t)R, RT_LOCK_RWLOCK, PC(6)), 0, PC(6));
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    ck_assert_int_eq(test_fatal_exits, 1);
}
END_TEST

/* Read after read of a reader-preferring rwlock re-enters: no wait on itself. */
START_TEST(watchdog_read_reentry_is_no_self_wait)
{
    lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ);
    rt_on_lock_wait(t0, rt_lock_lookup(t0, (uintptr_t)R, RT_LOCK_RWLOCK, PC(6)), RT_ACQ_READ, PC(6));
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(9000), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 0);
}
END_TEST

/* More threads than the old fixed snapshot held (4096): the cycle is
 * between the two made first, whatever order the registry walks in. */
START_TEST(watchdog_sees_every_thread)
{
    enum { N = 4200 };
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    abba_blocked(t1, t2, 0);
    for (int i = 0; i < N; i++)
        rt_thread_new(100000 + i);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
}
END_TEST

/* cond-misuse asks the held stack, whether the mutex was seen before or not. */
START_TEST(cond_wait_on_unseen_mutex)
{
    static char cond[48], cond2[48], never_seen[40];
    rt_on_cond_wait_begin(t0, (uintptr_t)cond, (uintptr_t)never_seen, 0, 0, 0, PC(20));
    ck_assert_uint_eq(rt_report_count(RT_KIND_COND_MISUSE), 1);
    rt_on_cond_wait_end(t0, (uintptr_t)cond, (uintptr_t)never_seen, 1, PC(20));
    unlock(never_seen);
    /* The mutex object says this thread owns it (taken where rtdd did not look): no report. */
    rt_on_cond_wait_begin(t0, (uintptr_t)cond2, (uintptr_t)M, 1, 0, 0, PC(21));
    ck_assert_uint_eq(rt_report_count(RT_KIND_COND_MISUSE), 1);
}
END_TEST

START_TEST(watchdog_ignores_plain_waits)
{
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    lock_as(t1, A, RT_LOCK_MUTEX, 0);
    lock_as(t2, C, RT_LOCK_MUTEX, 0);
    rt_on_lock_pre(t2, rt_lock_lookup(t2, (uintptr_t)A, RT_LOCK_MUTEX, PC(7)), 0, PC(7)); /* waits, no cycle */
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(9000), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 0);
}
END_TEST

/* t1 holds A and joins t2, t2 joins t3, t3 waits for A: a cycle through
 * two joins; t3 holds nothing and waits through rt_on_lock_wait. */
START_TEST(watchdog_follows_joins)
{
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid()), *t3 = rt_thread_new(1);
    t1->handle = 0x1000;
    t2->handle = 0x2000;
    t3->handle = 0x3000;
    lock_as(t1, A, RT_LOCK_MUTEX, 0);
    rt_on_join_begin(t1, 0x2000, 0, PC(8));
    rt_on_join_begin(t2, 0x3000, 0, PC(9));
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(9000), 0); /* t3 runs: no cycle */
    rt_on_lock_wait(t3, rt_lock_lookup(t3, (uintptr_t)A, RT_LOCK_MUTEX, PC(10)), 0, PC(10));
    ck_assert_int_eq(rt_watchdog_scan(10000), 0);
    ck_assert_int_eq(rt_watchdog_scan(12100), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "BUG: deadlock detected, 3 threads blocked in a cycle"));
    ck_assert_ptr_nonnull(strstr(log, "(waiting for it to end), at:"));
    ck_assert_ptr_nonnull(strstr(log, "or for the next one to end"));
    rt_on_lock_failed(t3);
    rt_on_join_end(t2, 0);
    rt_on_join_end(t1, 0);
    ck_assert_uint_eq(t1->joining, 0);
    rt_on_lock_release(t1, (uintptr_t)A, PC(2));
}
END_TEST

/* A join of a thread that is not known, or of itself, is no wait. */
START_TEST(join_of_unknown_thread_is_no_wait)
{
    struct rt_thread *t1 = rt_thread_new(getpid());
    t1->handle = 0x1000;
    lock_as(t1, A, RT_LOCK_MUTEX, 0);
    rt_on_join_begin(t1, 0x1000, 0, PC(8));
    ck_assert_uint_eq(t1->joining, 0);
    rt_on_join_begin(t1, 0x9000, 0, PC(8)); /* a thread the runtime never saw */
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(9000), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 0);
    rt_on_join_end(t1, 0);
    rt_on_lock_release(t1, (uintptr_t)A, PC(2));
}
END_TEST

Suite *watchdog_suite(void)
{
    Suite *s = suite_create("watchdog");
    TCase *tc = tcase_create("watchdog");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, watchdog_reports_real_deadlock);
    tcase_add_test(tc, watchdog_no_exit_when_disabled);
    tcase_add_test(tc, watchdog_exit_status_never_zero);
    tcase_add_test(tc, watchdog_timed_wait_is_not_fatal);
    tcase_add_test(tc, watchdog_suppressed_deadlock_is_not_fatal);
    tcase_add_test(tc, inversion_happening_now);
    tcase_add_test(tc, watchdog_sees_deep_nesting);
    tcase_add_test(tc, watchdog_self_relock);
    tcase_add_test(tc, watchdog_self_rwlock_upgrade);
    tcase_add_test(tc, watchdog_read_reentry_is_no_self_wait);
    tcase_add_test(tc, watchdog_sees_every_thread);
    tcase_add_test(tc, cond_wait_on_unseen_mutex);
    tcase_add_test(tc, watchdog_ignores_plain_waits);
    tcase_add_test(tc, watchdog_follows_joins);
    tcase_add_test(tc, join_of_unknown_thread_is_no_wait);
    suite_add_tcase(s, tc);
    return s;
}

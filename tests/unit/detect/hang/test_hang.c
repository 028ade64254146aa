/* blocked-too-long and joins (detect/hang/watchdog.c): a join is a hang only
 * when its chain of joins ends in a thread blocked on a lock, and then one
 * report, from the joiner, names the chain. Threads are engine records
 * driven with plain calls; the watchdog is scanned at chosen times. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "report/report.h"
#include "hang/hang.h"
#include <string.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x710000 + (n))
static char A[64];
static struct rt_thread *joiner, *worker, *holder;

static void setup(void)
{
    test_log_setup("hang_timeout_ms=1000:deadlock_timeout_ms=500");
    joiner = rt_thread_new(getpid());
    worker = rt_thread_new(getppid());
    holder = rt_thread_new(1);
    joiner->handle = 0x1000;
    worker->handle = 0x2000;
    holder->handle = 0x3000;
}

static unsigned long hangs(void) { return rt_report_count(RT_KIND_BLOCKED_TOO_LONG); }

START_TEST(join_of_a_running_thread_is_no_hang)
{
    rt_on_join_begin(joiner, 0x2000, 0, PC(1)); /* the worker computes */
    rt_watchdog_scan(1000);
    rt_watchdog_scan(5000);
    rt_watchdog_scan(9000);
    ck_assert_uint_eq(hangs(), 0);
    rt_on_join_end(joiner, 0);
}
END_TEST

START_TEST(join_behind_a_lock_wait_is_one_report)
{
    struct rt_lock *a = rt_lock_lookup(holder, (uintptr_t)A, RT_LOCK_MUTEX, PC(2));
    rt_on_lock_acquired(holder, a, 0, rt_on_lock_pre(holder, a, 0, PC(2)), PC(2));
    rt_on_join_begin(joiner, 0x2000, 0, PC(1));
    rt_watchdog_scan(1000);
    rt_watchdog_scan(3000); /* the worker still runs: the join is no hang */
    ck_assert_uint_eq(hangs(), 0);
    rt_on_lock_wait(worker, rt_lock_lookup(worker, (uintptr_t)A, RT_LOCK_MUTEX, PC(3)), 0, PC(3));
    rt_watchdog_scan(3100); /* the worker's wait seen */
    ck_assert_uint_eq(hangs(), 0);
    rt_watchdog_scan(4200); /* both due: one report, the joiner's */
    rt_watchdog_scan(6000);
    ck_assert_uint_eq(hangs(), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "ms joining "));
    ck_assert_ptr_nonnull(strstr(log, "is itself blocked"));
    ck_assert_ptr_nonnull(strstr(log, "is held by"));
    rt_on_lock_failed(worker);
    rt_on_join_end(joiner, 0);
    rt_on_lock_release(holder, (uintptr_t)A, PC(4));
}
END_TEST

/* A timed join may give up: the lock waiter it joins speaks for itself. */
START_TEST(timed_join_leaves_the_lock_waiter_its_report)
{
    struct rt_lock *a = rt_lock_lookup(holder, (uintptr_t)A, RT_LOCK_MUTEX, PC(2));
    rt_on_lock_acquired(holder, a, 0, rt_on_lock_pre(holder, a, 0, PC(2)), PC(2));
    rt_on_lock_wait(worker, rt_lock_lookup(worker, (uintptr_t)A, RT_LOCK_MUTEX, PC(3)), 0, PC(3));
    rt_on_join_begin(joiner, 0x2000, 1, PC(1));
    rt_watchdog_scan(1000);
    rt_watchdog_scan(2100);
    rt_watchdog_scan(4000);
    ck_assert_uint_eq(hangs(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "waiting for "));
    rt_on_lock_failed(worker);
    rt_on_join_end(joiner, 0);
    rt_on_lock_release(holder, (uintptr_t)A, PC(4));
}
END_TEST

Suite *hang_suite(void)
{
    Suite *s = suite_create("hang");
    TCase *tc = tcase_create("hang");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, join_of_a_running_thread_is_no_hang);
    tcase_add_test(tc, join_behind_a_lock_wait_is_one_report);
    tcase_add_test(tc, timed_join_leaves_the_lock_waiter_its_report);
    suite_add_tcase(s, tc);
    return s;
}

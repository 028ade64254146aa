/* Condition variables and semaphores in the dependency graph
 * (detect/hang/condwait.c), driven with plain calls: a wait that holds a lock
 * the condition's signaller takes is reported whichever side comes first;
 * the same thread on both sides, and waits holding nothing else, are not;
 * the watchdog follows a blocked waiter to the thread that signals it, and
 * says when every thread is blocked. Other threads get ids no real thread
 * has (their names read "?"). */
#include "detect/suites.h"
#include "locks/locks.h"
#include "report/report.h"
#include "hang/hang.h"
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x700000 + (n))
#define FAKE_TID(n) (0x7ffe0000 + (n))
static char L[64], M[64], C[64], S[32];
static struct rt_thread *t0, *t1;

static void setup(void)
{
    test_log_setup("deadlock_timeout_ms=100");
    t0 = rt_thread_new((int)syscall(SYS_gettid));
    t1 = rt_thread_new(FAKE_TID(1));
}

static void take(struct rt_thread *t, void *obj)
{
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)obj, RT_LOCK_MUTEX, PC((uintptr_t)obj & 0xff));
    uint64_t chain = rt_on_lock_pre(t, l, 0, PC(1));
    rt_on_lock_acquired(t, l, 0, chain, PC((uintptr_t)obj & 0xff));
}
static void drop(struct rt_thread *t, void *obj) { rt_on_lock_release(t, (uintptr_t)obj, PC(2)); }
static void wait_begin(struct rt_thread *t) { rt_on_cond_wait_begin(t, (uintptr_t)C, (uintptr_t)M, 0, 0, 0, PC(3)); }
static void wait_end(struct rt_thread *t) { rt_on_cond_wait_end(t, (uintptr_t)C, (uintptr_t)M, 1, PC(3)); }
static void signal_c(struct rt_thread *t) { rt_on_event_signal(t, (uintptr_t)C, RT_LOCK_COND, PC(4)); }
static unsigned long reports(void) { return rt_report_count(RT_KIND_COND_LOCK_ORDER); }
static void sem_wait_once(struct rt_thread *t)
{
    rt_on_event_wait_begin(t, rt_lock_lookup(t, (uintptr_t)S, RT_LOCK_SEM, PC(5)), 0, 0, 0, PC(5));
    rt_on_event_wait_end(t);
}

/* The waiter holds L; later the signaller signals holding L. */
START_TEST(wait_first_then_signaller_holds_the_lock)
{
    take(t0, L);
    take(t0, M);
    wait_begin(t0);
    ck_assert_uint_eq(reports(), 0);
    wait_end(t0);
    drop(t0, M);
    drop(t0, L);
    take(t1, L);
    take(t1, M);
    signal_c(t1);
    drop(t1, M);
    drop(t1, L);
    ck_assert_uint_eq(reports(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "when it does, taken at:"));
    /* Once per condition and lock. */
    take(t1, L);
    take(t1, M);
    signal_c(t1);
    drop(t1, M);
    drop(t1, L);
    ck_assert_uint_eq(reports(), 1);
}
END_TEST

/* A lock the signaller took and released before signalling is not
 * counted: only what it holds when it signals. */
START_TEST(released_before_the_signal_is_not_counted)
{
    take(t0, L);
    take(t0, M);
    wait_begin(t0);
    wait_end(t0);
    drop(t0, M);
    drop(t0, L);
    sem_wait_once(t1);
    take(t1, L);
    drop(t1, L);
    take(t1, M);
    signal_c(t1);
    drop(t1, M);
    ck_assert_uint_eq(reports(), 0);
}
END_TEST

/* A condition also signalled from a place that does not hold L has a
 * wake-up that does not need L: nothing to report. */
START_TEST(a_signal_site_without_the_lock_is_a_way_out)
{
    take(t1, M);
    rt_on_event_signal(t1, (uintptr_t)C, RT_LOCK_COND, PC(7)); /* another place, L not held */
    drop(t1, M);
    take(t1, L);
    take(t1, M);
    signal_c(t1);
    drop(t1, M);
    drop(t1, L);
    take(t0, L);
    take(t0, M);
    wait_begin(t0);
    wait_end(t0);
    drop(t0, M);
    drop(t0, L);
    ck_assert_uint_eq(reports(), 0);
}
END_TEST

/* The signaller holds L at the signal; a later waiter holds L. */
START_TEST(signal_first_then_wait_holding_the_lock)
{
    take(t1, L);
    take(t1, M);
    signal_c(t1);
    drop(t1, M);
    drop(t1, L);
    ck_assert_uint_eq(reports(), 0);
    take(t0, L);
    take(t0, M);
    wait_begin(t0);
    ck_assert_uint_eq(reports(), 1);
    wait_end(t0);
    drop(t0, M);
    drop(t0, L);
}
END_TEST

/* One thread on both sides is no cycle; the wait's own mutex is released by
 * the wait. */
START_TEST(same_thread_and_own_mutex_are_silent)
{
    take(t1, M);
    signal_c(t1);
    drop(t1, M);
    take(t0, M);
    wait_begin(t0);
    wait_end(t0);
    drop(t0, M);
    take(t0, L);
    take(t0, M);
    signal_c(t0);
    wait_begin(t0);
    wait_end(t0);
    drop(t0, M);
    drop(t0, L);
    ck_assert_uint_eq(reports(), 0);
}
END_TEST

/* The watchdog: t0 waits on C holding L, t1 (C's known signaller) waits for
 * L: a cycle through the condition. */
START_TEST(watchdog_follows_a_waiter_to_its_signaller)
{
    take(t1, M);
    signal_c(t1);
    drop(t1, M);
    take(t0, L);
    take(t0, M);
    wait_begin(t0);
    drop(t0, M); /* the wait released it (rt_on_cond_wait_begin did) */
    struct rt_lock *l = rt_lock_lookup(t1, (uintptr_t)L, RT_LOCK_MUTEX, PC(6));
    rt_on_lock_wait(t1, l, 0, PC(6));
    rt_watchdog_scan(1000);
    rt_watchdog_scan(2000);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "is known to signal"));
    __atomic_store_n(&t1->waiting_for, NULL, __ATOMIC_RELEASE);
    wait_end(t0);
}
END_TEST

/* Destroying C: reported only while a waiter is blocked, i.e. neither
 * released by a signal or broadcast nor returned. */
static void wait_with(struct rt_thread *t)
{
    take(t, M);
    wait_begin(t);
}
static void destroy_c(void) { rt_on_lock_destroy(t0, (uintptr_t)C, PC(8)); }
static unsigned long misuse(void) { return rt_report_count(RT_KIND_COND_MISUSE); }
static void timed_out(struct rt_thread *t) { rt_on_cond_wait_end(t, (uintptr_t)C, (uintptr_t)M, 0, PC(3)); }

START_TEST(destroy_after_broadcast_or_signals_is_silent)
{
    wait_with(t0);
    wait_with(t1);
    rt_on_cond_released(t0, (uintptr_t)C, 1);
    destroy_c();
    ck_assert_uint_eq(misuse(), 0);
    /* Two signals release two waiters. */
    wait_with(t0);
    wait_with(t1);
    rt_on_cond_released(t0, (uintptr_t)C, 0);
    rt_on_cond_released(t0, (uintptr_t)C, 0);
    destroy_c();
    ck_assert_uint_eq(misuse(), 0);
}
END_TEST

START_TEST(destroy_with_one_waiter_not_signalled_is_reported)
{
    wait_with(t0);
    wait_with(t1);
    rt_on_cond_released(t0, (uintptr_t)C, 0);
    destroy_c();
    ck_assert_uint_eq(misuse(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "while 1 thread is blocked on it"));
}
END_TEST

/* A broadcast releases the waiters counted then, not later ones. */
START_TEST(a_broadcast_does_not_release_later_waiters)
{
    wait_with(t0);
    rt_on_cond_released(t0, (uintptr_t)C, 1);
    wait_with(t1);
    destroy_c();
    ck_assert_uint_eq(misuse(), 1);
}
END_TEST

/* A waiter that times out was one of the blocked: the signal released the
 * other. One woken with no signal left (spuriously) leaves the other blocked. */
START_TEST(timeouts_and_spurious_wakeups)
{
    wait_with(t0);
    wait_with(t1);
    rt_on_cond_released(t0, (uintptr_t)C, 0);
    timed_out(t1);
    destroy_c();
    ck_assert_uint_eq(misuse(), 0);
    wait_with(t0);
    wait_with(t1);
    timed_out(t1);
    destroy_c();
    ck_assert_uint_eq(misuse(), 1);
    wait_with(t0);
    wait_end(t0); /* no signal: spurious */
    wait_with(t1);
    destroy_c();
    ck_assert_uint_eq(misuse(), 2);
}
END_TEST

/* pthread_cond_destroy with a waiter blocked (drd's pth_cond_destroy_busy):
 * glibc's destroy waits for it to leave. The watchdog follows the destroy
 * to the waiter, and the waiter to its only signaller, the destroyer: a
 * deadlock, which names the destroy. */
START_TEST(watchdog_follows_a_busy_destroy_to_its_waiter)
{
    take(t0, M);
    signal_c(t0);
    drop(t0, M);
    wait_with(t1);
    ck_assert_int_eq(rt_on_cond_destroy_begin(t0, (uintptr_t)C, 0, PC(8)), 1);
    ck_assert_uint_eq(misuse(), 1);
    rt_watchdog_scan(1000);
    rt_watchdog_scan(2000);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "ms in pthread_cond_destroy of condition variable"));
    ck_assert_ptr_nonnull(strstr(log, "blocked on it, has left, at:"));
    ck_assert_ptr_nonnull(strstr(log, "for the next one to leave its wait on the condition"));
    /* The waiter leaves (a signal from elsewhere), the destroy returns: the record goes. */
    rt_on_cond_released(t0, (uintptr_t)C, 0);
    wait_end(t1);
    rt_on_cond_destroy_end(t0, (uintptr_t)C, PC(8));
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)C));
    ck_assert_ptr_null(t0->event_waiting);
    drop(t1, M);
}
END_TEST

/* The same destroy once the waiter has left: no misuse, no wait, the
 * record retired at once; the watchdog sees nothing, though the old waiter
 * idles on the condition's successor and the destroyer joins. */
START_TEST(destroy_after_the_waiter_left_is_no_wait)
{
    take(t0, M);
    signal_c(t0);
    drop(t0, M);
    wait_with(t1);
    rt_on_cond_released(t0, (uintptr_t)C, 0);
    wait_end(t1);
    drop(t1, M);
    ck_assert_int_eq(rt_on_cond_destroy_begin(t0, (uintptr_t)C, 0, PC(8)), 0);
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)C));
    ck_assert_ptr_null(t0->event_waiting);
    wait_with(t1); /* a new condition at the same address, not signalled yet */
    rt_watchdog_scan(1000);
    rt_watchdog_scan(2000);
    ck_assert_uint_eq(misuse(), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 0);
    timed_out(t1);
    drop(t1, M);
}
END_TEST

/* A wait whose "mutex" is not one: invalid-lock, not cond-misuse, and the
 * wait's end leaves it out of the held locks. A real mutex another thread
 * holds: cond-misuse, and the waiter is not taken to hold it as well. */
static void wait_on(struct rt_thread *t, uintptr_t m, int how)
{
    rt_on_cond_wait_begin(t, (uintptr_t)C, m, 0, 1, 0, PC(9));
    rt_on_cond_wait_end(t, (uintptr_t)C, m, how, PC(9));
}

START_TEST(a_wait_on_what_is_not_a_mutex)
{
    static _Alignas(8) char buf[64];
    static _Alignas(8) char rw[64];
    wait_on(t0, (uintptr_t)(buf + 1), RT_WAIT_TIMEDOUT); /* misaligned, never a lock */
    ck_assert_uint_eq(rt_report_count(RT_KIND_INVALID_LOCK), 1);
    ck_assert_uint_eq(t0->nheld, 0);
    rt_lock_lookup(t1, (uintptr_t)rw, RT_LOCK_RWLOCK, PC(10));
    wait_on(t0, (uintptr_t)rw, RT_WAIT_WOKEN); /* an rwlock */
    ck_assert_uint_eq(rt_report_count(RT_KIND_INVALID_LOCK), 2);
    wait_on(t0, (uintptr_t)rw + 8, RT_WAIT_WOKEN); /* inside it */
    ck_assert_uint_eq(rt_report_count(RT_KIND_INVALID_LOCK), 3);
    ck_assert_uint_eq(t0->nheld, 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_COND_MISUSE), 0);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "it lies 8 bytes inside another lock object"));
    ck_assert_ptr_nonnull(strstr(test_log_read(), "it is another kind of object"));
    ck_assert_ptr_nonnull(strstr(test_log_read(), "is not 8-byte aligned"));
}
END_TEST

START_TEST(a_wait_on_a_mutex_another_thread_holds)
{
    take(t1, M);
    wait_on(t0, (uintptr_t)M, RT_WAIT_WOKEN);
    ck_assert_uint_eq(rt_report_count(RT_KIND_COND_MISUSE), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_INVALID_LOCK), 0);
    ck_assert_uint_eq(t0->nheld, 0);
    drop(t1, M);
    /* Not held by anyone: libc takes it when the wait ends, and so does the model. */
    wait_on(t0, (uintptr_t)M, RT_WAIT_TIMEDOUT);
    ck_assert_uint_eq(t0->nheld, 1);
    drop(t0, M);
    /* A wait that failed at once took nothing. */
    wait_on(t0, (uintptr_t)M, RT_WAIT_FAILED);
    ck_assert_uint_eq(t0->nheld, 0);
}
END_TEST

Suite *condwait_suite(void)
{
    Suite *s = suite_create("condwait");
    TCase *tc = tcase_create("condwait");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, wait_first_then_signaller_holds_the_lock);
    tcase_add_test(tc, released_before_the_signal_is_not_counted);
    tcase_add_test(tc, signal_first_then_wait_holding_the_lock);
    tcase_add_test(tc, same_thread_and_own_mutex_are_silent);
    tcase_add_test(tc, a_signal_site_without_the_lock_is_a_way_out);
    tcase_add_test(tc, watchdog_follows_a_waiter_to_its_signaller);
    tcase_add_test(tc, destroy_after_broadcast_or_signals_is_silent);
    tcase_add_test(tc, destroy_with_one_waiter_not_signalled_is_reported);
    tcase_add_test(tc, a_broadcast_does_not_release_later_waiters);
    tcase_add_test(tc, timeouts_and_spurious_wakeups);
    tcase_add_test(tc, a_wait_on_what_is_not_a_mutex);
    tcase_add_test(tc, a_wait_on_a_mutex_another_thread_holds);
    tcase_add_test(tc, watchdog_follows_a_busy_destroy_to_its_waiter);
    tcase_add_test(tc, destroy_after_the_waiter_left_is_no_wait);
    suite_add_tcase(s, tc);
    return s;
}

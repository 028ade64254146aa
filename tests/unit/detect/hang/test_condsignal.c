/* cond-signal-unlocked (detect/hang/condsignal.c) and failed-call
 * (detect/locks/failedcall.c), driven with plain calls: a signal by a thread
 * that never used the mutex of the condition's last wait is reported once
 * per site; holding the mutex, "unlock, then signal" (also with another
 * lock in between) and a signal before any wait are not. A failed call is
 * reported once per site and error, and a call's normal failures never. */
#include "detect/suites.h"
#include "hang/condsignal.h"
#include "hang/hang.h"
#include "locks/failedcall.h"
#include "locks/locks.h"
#include "report/report.h"
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x710000 + (n))
#define FAKE_TID(n) (0x7ffd0000 + (n))
static char M[64], L[64], C[64], C2[64], O[64];
static struct rt_thread *t0, *t1;

static void setup(void)
{
    test_log_setup("");
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
/* t waits on cond with M held, and is woken. */
static void waits(struct rt_thread *t, void *cond)
{
    take(t, M);
    rt_on_cond_wait_begin(t, (uintptr_t)cond, (uintptr_t)M, 0, 0, 0, PC(3));
    rt_on_cond_wait_end(t, (uintptr_t)cond, (uintptr_t)M, RT_WAIT_WOKEN, PC(3));
    drop(t, M);
}
static unsigned long unlocked_signals(void) { return rt_report_count(RT_KIND_COND_SIGNAL_UNLOCKED); }
static unsigned long failed_calls(void) { return rt_report_count(RT_KIND_FAILED_CALL); }

START_TEST(a_signaller_that_never_takes_the_mutex)
{
    unsigned long before = unlocked_signals();
    waits(t0, C);
    rt_on_cond_signal(t1, (uintptr_t)C, PC(10));
    ck_assert_uint_eq(unlocked_signals(), before + 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "the mutex its waiters use:"));
    /* Once per signal site. */
    rt_on_cond_signal(t1, (uintptr_t)C, PC(10));
    ck_assert_uint_eq(unlocked_signals(), before + 1);
    rt_on_cond_signal(t1, (uintptr_t)C, PC(11));
    ck_assert_uint_eq(unlocked_signals(), before + 2);
}
END_TEST

START_TEST(held_or_unlock_then_signal_is_silent)
{
    unsigned long before = unlocked_signals();
    waits(t0, C);
    take(t1, M);
    rt_on_cond_signal(t1, (uintptr_t)C, PC(20)); /* held */
    drop(t1, M);
    rt_on_cond_signal(t1, (uintptr_t)C, PC(21)); /* just released */
    take(t1, M);
    drop(t1, M);
    take(t1, L); /* another lock at the same depth since */
    drop(t1, L);
    rt_on_cond_signal(t1, (uintptr_t)C, PC(22));
    /* The waiter itself. */
    rt_on_cond_signal(t0, (uintptr_t)C, PC(23));
    ck_assert_uint_eq(unlocked_signals(), before);
}
END_TEST

START_TEST(no_wait_no_association)
{
    unsigned long before = unlocked_signals();
    rt_lock_lookup(t1, (uintptr_t)C2, RT_LOCK_COND, PC(30));
    rt_on_cond_signal(t1, (uintptr_t)C2, PC(31));
    ck_assert_uint_eq(unlocked_signals(), before);
}
END_TEST

START_TEST(normal_failures)
{
    ck_assert(rt_call_failure_normal(EBUSY, RT_CALL_TRY));
    ck_assert(rt_call_failure_normal(EAGAIN, RT_CALL_TRY));
    ck_assert(!rt_call_failure_normal(EBUSY, 0));
    ck_assert(rt_call_failure_normal(ETIMEDOUT, RT_CALL_TIMED));
    ck_assert(!rt_call_failure_normal(ETIMEDOUT, RT_CALL_TRY));
    ck_assert(rt_call_failure_normal(EINTR, RT_CALL_SIGNALS));
    ck_assert(!rt_call_failure_normal(EINTR, RT_CALL_TIMED));
    ck_assert(rt_call_failure_normal(EOWNERDEAD, 0));
    ck_assert(!rt_call_failure_normal(EINVAL, RT_CALL_TRY | RT_CALL_TIMED | RT_CALL_SIGNALS));
    ck_assert(!rt_call_failure_normal(EDEADLK, RT_CALL_TRY | RT_CALL_TIMED | RT_CALL_SIGNALS));
    ck_assert_str_eq(rt_errno_name(EDEADLK), "EDEADLK");
    ck_assert_ptr_null(rt_errno_name(4095));
}
END_TEST

START_TEST(a_failed_call_once_per_site_and_error)
{
    unsigned long before = failed_calls();
    rt_on_call_failed(t0, "pthread_mutex_lock", (uintptr_t)O, EDEADLK, PC(40));
    ck_assert_uint_eq(failed_calls(), before + 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "'s call to pthread_mutex_lock() on "));
    ck_assert_ptr_nonnull(strstr(test_log_read(), "failed with EDEADLK (35: Resource deadlock avoided)"));
    rt_on_call_failed(t0, "pthread_mutex_lock", (uintptr_t)O, EDEADLK, PC(40));
    ck_assert_uint_eq(failed_calls(), before + 1);
    rt_on_call_failed(t0, "pthread_mutex_lock", (uintptr_t)O, EINVAL, PC(40));
    ck_assert_uint_eq(failed_calls(), before + 2);
    rt_on_call_failed(t0, "sem_post", 0, 4095, PC(41)); /* a number with no name */
    ck_assert_uint_eq(failed_calls(), before + 3);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "failed with error 4095 (4095: unknown error)"));
}
END_TEST

Suite *condsignal_suite(void)
{
    Suite *s = suite_create("condsignal");
    TCase *tc = tcase_create("condsignal");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, a_signaller_that_never_takes_the_mutex);
    tcase_add_test(tc, held_or_unlock_then_signal_is_silent);
    tcase_add_test(tc, no_wait_no_association);
    tcase_add_test(tc, normal_failures);
    tcase_add_test(tc, a_failed_call_once_per_site_and_error);
    suite_add_tcase(s, tc);
    return s;
}

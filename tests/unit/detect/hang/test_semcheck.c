/* sem-misuse (detect/semcheck.c) and barrier-misuse (detect/barrier.c),
 * driven with plain calls: what each misuse reports, the correct
 * look-alikes that stay silent, and barrier waits in the watchdog. Other
 * threads get ids no real thread has (their names read "?"). */
#include "hang/barrier.h"
#include "detect/suites.h"
#include "locks/locks.h"
#include "report/report.h"
#include "hang/semcheck.h"
#include "hang/hang.h"
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x710000 + (n))
#define FAKE_TID(n) (0x7ffd0000 + (n))
#define MAX 0x7fffffffu
static char S[32], S2[32], B[32], L[64];
static struct rt_thread *t0, *t1, *t2;

static void setup(void)
{
    test_log_setup("deadlock_timeout_ms=100");
    t0 = rt_thread_new((int)syscall(SYS_gettid));
    t1 = rt_thread_new(FAKE_TID(1));
    t2 = rt_thread_new(FAKE_TID(2));
}

static unsigned long sem_reports(void) { return rt_report_count(RT_KIND_SEM_MISUSE); }
static unsigned long bar_reports(void) { return rt_report_count(RT_KIND_BARRIER_MISUSE); }
static struct rt_lock *sem_init_(void *s) { rt_on_lock_init(t0, (uintptr_t)s, RT_LOCK_SEM, PC(1)); return rt_locktab_find((uintptr_t)s); }
static struct rt_lock *use(struct rt_thread *t, void *s, enum rt_sem_word w)
{
    return rt_on_sem_use(t, (uintptr_t)s, w, "sem_wait", PC(2));
}

START_TEST(destroy_with_a_blocked_waiter_is_reported)
{
    struct rt_lock *l = sem_init_(S);
    rt_on_sem_wait_begin(t1, use(t1, S, RT_SEM_PRIVATE), 0, 0, PC(3));
    ck_assert_uint_eq(rt_sem_blocked(l), 1);
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_PRIVATE, PC(4));
    ck_assert_uint_eq(sem_reports(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "while 1 thread is blocked on it in sem_wait"));
    rt_on_sem_wait_end(t1, 1);
}
END_TEST

/* A waiter a post released (it has yet to return) or one that timed out
 * is not blocked: destroying then is allowed. */
START_TEST(destroy_after_the_post_or_a_timeout_is_silent)
{
    struct rt_lock *l = sem_init_(S);
    rt_on_sem_wait_begin(t1, use(t1, S, RT_SEM_PRIVATE), 0, 0, PC(3));
    rt_on_sem_post(t0, l, PC(5));
    ck_assert_uint_eq(rt_sem_blocked(l), 0);
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_PRIVATE, PC(4));
    rt_on_sem_wait_end(t1, 1);
    l = sem_init_(S); /* again, after its destroy: a new semaphore */
    rt_on_sem_wait_begin(t1, use(t1, S, RT_SEM_PRIVATE), 1, 0, PC(3));
    rt_on_sem_wait_end(t1, 0);
    ck_assert_uint_eq(rt_sem_blocked(l), 0);
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_PRIVATE, PC(4));
    ck_assert_uint_eq(sem_reports(), 0);
}
END_TEST

START_TEST(never_initialized_destroyed_or_overwritten)
{
    use(t0, S2, RT_SEM_PRIVATE);
    use(t0, S2, RT_SEM_PRIVATE); /* once per object */
    ck_assert_uint_eq(sem_reports(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "which was never initialized"));
    sem_init_(S);
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_PRIVATE, PC(4));
    use(t1, S, RT_SEM_PRIVATE);
    ck_assert_uint_eq(sem_reports(), 2);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "it was destroyed by"));
    sem_init_(S);
    use(t0, S, RT_SEM_BAD);
    ck_assert_uint_eq(sem_reports(), 3);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "its bytes are not a semaphore's any more"));
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_PRIVATE, PC(4));
    rt_on_sem_destroy(t0, (uintptr_t)S2, RT_SEM_PRIVATE, PC(4));
}
END_TEST

/* Set up by another process: not judged. */
START_TEST(a_process_shared_word_is_not_judged)
{
    use(t0, S2, RT_SEM_SHARED);
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_SHARED, PC(4));
    ck_assert_uint_eq(sem_reports(), 0);
    rt_on_sem_destroy(t0, (uintptr_t)S2, RT_SEM_SHARED, PC(4));
}
END_TEST

START_TEST(counts_past_sem_value_max)
{
    rt_on_sem_init(t0, (uintptr_t)S, MAX, MAX, PC(1)); /* the largest allowed */
    ck_assert_uint_eq(sem_reports(), 0);
    rt_on_sem_init(t0, (uintptr_t)S, MAX + 1u, MAX, PC(1));
    ck_assert_uint_eq(sem_reports(), 1);
    rt_on_sem_overflow(t0, (uintptr_t)S, MAX, PC(5));
    ck_assert_uint_eq(sem_reports(), 2);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "sem_post fails with EOVERFLOW"));
}
END_TEST

/* sem_open twice gives one address: it ends at the second sem_close. */
START_TEST(named_semaphores)
{
    rt_on_sem_open(t0, (uintptr_t)S, PC(6));
    rt_on_sem_open(t0, (uintptr_t)S, PC(6));
    rt_on_sem_close(t0, (uintptr_t)S, PC(7));
    use(t0, S, RT_SEM_SHARED);
    use(t0, S, RT_SEM_PRIVATE);
    ck_assert_uint_eq(sem_reports(), 0);
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_SHARED, PC(4));
    ck_assert_uint_eq(sem_reports(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "but it is a named semaphore"));
    rt_on_sem_close(t0, (uintptr_t)S, PC(7));
    use(t0, S, RT_SEM_PRIVATE);
    ck_assert_uint_eq(sem_reports(), 2);
    rt_on_sem_destroy(t0, (uintptr_t)S, RT_SEM_PRIVATE, PC(4));
}
END_TEST

static void bar_init(unsigned count)
{
    rt_on_barrier_init(t0, (uintptr_t)B, count, PC(10));
    if (count)
        rt_on_barrier_inited(t0, (uintptr_t)B, count, PC(10));
}
static void arrive(struct rt_thread *t) { rt_on_barrier_wait_begin(t, (uintptr_t)B, RT_BARRIER_PRIVATE, 0, 0, PC(11)); }
static void leave(struct rt_thread *t) { rt_on_barrier_wait_end(t); }
static void bar_destroy(void) { rt_on_barrier_destroy(t0, (uintptr_t)B, RT_BARRIER_PRIVATE, PC(12)); }

START_TEST(count_zero_and_init_again)
{
    bar_init(0);
    ck_assert_uint_eq(bar_reports(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "with a count of 0"));
    bar_init(1);
    ck_assert_uint_eq(bar_reports(), 1);
    bar_init(1);
    ck_assert_uint_eq(bar_reports(), 2);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "and it was not destroyed since"));
    bar_destroy();
    bar_init(2); /* after a destroy: fine */
    arrive(t1);
    bar_init(3);
    ck_assert_uint_eq(bar_reports(), 3);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "while 1 thread waits on it"));
    leave(t1);
    bar_destroy();
}
END_TEST

START_TEST(destroy_while_waiting_and_after_the_round)
{
    bar_init(2);
    arrive(t1);
    bar_destroy();
    ck_assert_uint_eq(bar_reports(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "in a round that is not complete"));
    leave(t1);
    arrive(t1); /* after the destroy */
    ck_assert_uint_eq(bar_reports(), 2);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "which was destroyed and not initialized again"));
    leave(t1);
    bar_destroy();
    bar_init(2);
    arrive(t1);
    arrive(t0); /* completes the round: t1 is released, not waiting */
    bar_destroy();
    leave(t1);
    ck_assert_uint_eq(bar_reports(), 2);
}
END_TEST

/* Count 2, three threads: round 1 t0+t1, round 2 t2+t0, then t1 comes
 * back having missed round 2. Two threads in step stay silent. */
START_TEST(more_threads_than_the_count)
{
    bar_init(2);
    for (int i = 0; i < 50; i++) {
        arrive(t0);
        arrive(t1);
        leave(t0);
    }
    ck_assert_uint_eq(bar_reports(), 0);
    arrive(t2);
    arrive(t0);
    leave(t2);
    ck_assert_uint_eq(bar_reports(), 0);
    arrive(t1);
    ck_assert_uint_eq(bar_reports(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "1 round of this barrier completed without this thread"));
    leave(t1);
    bar_destroy();
}
END_TEST

/* A thread that leaves and one that takes its place are in step. */
START_TEST(a_thread_taking_over_is_in_step)
{
    bar_init(2);
    for (int i = 0; i < 5; i++) {
        arrive(t1);
        arrive(t0);
        leave(t1);
    }
    for (int i = 0; i < 5; i++) {
        arrive(t2);
        arrive(t0);
        leave(t2);
    }
    ck_assert_uint_eq(bar_reports(), 0);
    bar_destroy();
}
END_TEST

/* t0 waits at the barrier holding L; t1, which reached it before, waits
 * for L: a cycle. Waiters of one round do not wait for each other. */
START_TEST(watchdog_follows_a_barrier_wait)
{
    bar_init(2);
    arrive(t0);
    arrive(t1);
    leave(t0);
    struct rt_lock *l = rt_lock_lookup(t0, (uintptr_t)L, RT_LOCK_MUTEX, PC(13));
    rt_on_lock_acquired(t0, l, 0, rt_on_lock_pre(t0, l, 0, PC(13)), PC(13));
    arrive(t0);
    rt_on_lock_wait(t1, rt_lock_lookup(t1, (uintptr_t)L, RT_LOCK_MUTEX, PC(14)), 0, PC(14));
    rt_watchdog_scan(1000);
    rt_watchdog_scan(2000);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "is known to reach"));
    __atomic_store_n(&t1->waiting_for, NULL, __ATOMIC_RELEASE);
    leave(t0);
    rt_on_lock_release(t0, (uintptr_t)L, PC(15));
    bar_destroy();
}
END_TEST

START_TEST(waiters_of_one_round_are_no_cycle)
{
    bar_init(3);
    arrive(t0);
    arrive(t1);
    arrive(t2);
    leave(t0);
    leave(t1);
    arrive(t0);
    arrive(t1); /* t2 is slow: it runs */
    rt_watchdog_scan(1000);
    rt_watchdog_scan(2000);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 0);
    leave(t0);
    leave(t1);
    bar_destroy();
}
END_TEST

Suite *semcheck_suite(void)
{
    Suite *s = suite_create("semcheck");
    TCase *tc = tcase_create("semaphores");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, destroy_with_a_blocked_waiter_is_reported);
    tcase_add_test(tc, destroy_after_the_post_or_a_timeout_is_silent);
    tcase_add_test(tc, never_initialized_destroyed_or_overwritten);
    tcase_add_test(tc, a_process_shared_word_is_not_judged);
    tcase_add_test(tc, counts_past_sem_value_max);
    tcase_add_test(tc, named_semaphores);
    suite_add_tcase(s, tc);
    tc = tcase_create("barriers");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, count_zero_and_init_again);
    tcase_add_test(tc, destroy_while_waiting_and_after_the_round);
    tcase_add_test(tc, more_threads_than_the_count);
    tcase_add_test(tc, a_thread_taking_over_is_in_step);
    tcase_add_test(tc, watchdog_follows_a_barrier_wait);
    tcase_add_test(tc, waiters_of_one_round_are_no_cycle);
    suite_add_tcase(s, tc);
    return s;
}

/* Robust and process-shared locks, and locks a forked child inherits held:
 * what an owner's end, a fork and the watchdog make of them, and the rule
 * that only a proven deadlock ends the run. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "report/report.h"
#include "hang/hang.h"
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x700000 + (n))
static char A[64], B[64], R[64], S[64], Q[64];

static struct rt_lock *lookup(struct rt_thread *t, char *obj, uint8_t traits)
{
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)obj, RT_LOCK_MUTEX, PC((uintptr_t)obj & 0xfff));
    ck_assert_ptr_nonnull(l);
    l->traits = traits; /* what the preload layer reads from the object */
    return l;
}

static void take(struct rt_thread *t, char *obj, uint8_t traits)
{
    struct rt_lock *l = lookup(t, obj, traits);
    uint64_t chain = rt_on_lock_pre(t, l, 0, PC(1));
    rt_on_lock_acquired(t, l, 0, chain, PC(2));
}

/* t blocks on obj, as a lock call leaves it before the real call. */
static void wait_for(struct rt_thread *t, char *obj, uint8_t traits)
{
    rt_on_lock_wait(t, lookup(t, obj, traits), 0, PC(3));
}

static void setup(void)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
}

/* The robust protocol: the owner ends holding the mutex, the next locker
 * gets it with EOWNERDEAD. No lock-held-at-exit, no wait on an orphan. */
START_TEST(robust_owner_exit_is_the_protocol)
{
    struct rt_thread *owner = rt_thread_new(getppid()), *next = rt_thread_new(getpid());
    take(owner, R, RT_TRAIT_ROBUST);
    rt_on_thread_exit(owner, 0, 0);
    rt_thread_free(owner);
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_EXIT), 0);
    wait_for(next, R, RT_TRAIT_ROBUST);
    rt_on_lock_acquired(next, lookup(next, R, RT_TRAIT_ROBUST), 0, 0, PC(4)); /* EOWNERDEAD: acquired */
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 0);
    ck_assert_int_eq(test_fatal_exits, 0);
    ck_assert_int_eq(next->nheld, 1);
}
END_TEST

/* The same with a plain mutex is a real bug: reported, and the wait that
 * can never end ends the run. A robust one held beside it is not named. */
START_TEST(plain_owner_exit_is_reported)
{
    struct rt_thread *owner = rt_thread_new(getppid()), *next = rt_thread_new(getpid());
    take(owner, R, RT_TRAIT_ROBUST);
    take(owner, A, 0);
    rt_on_thread_exit(owner, 0, 0);
    rt_thread_free(owner);
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_EXIT), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "exited still holding lock #1"));
    ck_assert_ptr_null(strstr(log, "exited still holding lock #0"));
    wait_for(next, A, 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    ck_assert_int_eq(test_fatal_exits, 1);
}
END_TEST

/* A process-shared mutex whose holder exited: another process could still
 * release it, so the wait is reported and the run goes on. */
START_TEST(pshared_orphan_wait_does_not_end_the_run)
{
    struct rt_thread *owner = rt_thread_new(getppid()), *next = rt_thread_new(getpid());
    take(owner, S, RT_TRAIT_PSHARED);
    rt_on_thread_exit(owner, 0, 0);
    rt_thread_free(owner);
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_EXIT), 1);
    wait_for(next, S, RT_TRAIT_PSHARED);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    ck_assert_int_eq(test_fatal_exits, 0);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "process-shared: another process may release or signal it"));
}
END_TEST

/* t1 holds A and waits for x, t2 holds x and waits for A. */
static void cycle_through(char *x, uint8_t traits)
{
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    take(t1, A, 0);
    take(t2, x, traits);
    rt_on_lock_pre(t1, lookup(t1, x, traits), 0, PC(6));
    rt_on_lock_pre(t2, lookup(t2, A, 0), 0, PC(7));
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(3100), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
}

/* The rule: a cycle is ended only when every wait in it is certain. */
START_TEST(cycle_of_plain_locks_ends_the_run)
{
    cycle_through(B, 0);
    ck_assert_int_eq(test_fatal_exits, 1);
}
END_TEST

START_TEST(cycle_through_robust_lock_goes_on)
{
    cycle_through(R, RT_TRAIT_ROBUST);
    ck_assert_int_eq(test_fatal_exits, 0);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "is a robust mutex"));
}
END_TEST

START_TEST(cycle_through_pshared_lock_goes_on)
{
    cycle_through(S, RT_TRAIT_PSHARED);
    ck_assert_int_eq(test_fatal_exits, 0);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "is process-shared"));
}
END_TEST

/* A wait for a process-shared lock that no thread here holds: its holder
 * is another process. Not a hang of this one, even with hang_severity=warning. */
START_TEST(wait_on_other_process_is_no_hang)
{
    test_log_setup("hang_timeout_ms=100:hang_severity=warning");
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    take(t1, Q, 0);
    wait_for(t1, S, RT_TRAIT_PSHARED);
    wait_for(t2, Q, 0); /* t2 waits behind t1: its chain ends in the same wait */
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(5000), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_BLOCKED_TOO_LONG), 0);
    ck_assert_uint_eq(rt_report_errors(), 0);
}
END_TEST

/* The same wait on a private lock held by a running thread is a hang. */
START_TEST(wait_on_running_holder_is_a_hang)
{
    test_log_setup("hang_timeout_ms=100:hang_severity=warning");
    struct rt_thread *t1 = rt_thread_new(getpid()), *t2 = rt_thread_new(getppid());
    take(t2, B, 0);
    wait_for(t1, B, 0);
    ck_assert_int_eq(rt_watchdog_scan(1000), 0);
    ck_assert_int_eq(rt_watchdog_scan(5000), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_BLOCKED_TOO_LONG), 1);
}
END_TEST

/* fork(): another thread held A (private) and S (process-shared); the
 * forking thread held Q (process-shared) and B. The child reports nothing
 * until it uses A; S is not stranded, and Q is not the child's. */
START_TEST(fork_strays_reported_at_first_use)
{
    struct rt_thread *self = rt_thread_new((int)syscall(SYS_gettid)), *other = rt_thread_new(getppid());
    take(other, A, 0);
    take(other, S, RT_TRAIT_PSHARED);
    take(self, Q, RT_TRAIT_PSHARED);
    take(self, B, 0);
    rt_on_fork_child(self, 4242);
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_FORK), 0);
    ck_assert_int_eq(self->nheld, 1);
    ck_assert_ptr_eq((void *)self->held[0].addr, B);
    ck_assert_int_eq(rt_lock_find((uintptr_t)S)->held_by_exited, 0);
    ck_assert_int_eq(rt_lock_find((uintptr_t)A)->held_by_exited, RT_HOLDER_FORKED_AWAY);
    ck_assert_int_ne(rt_fork_strays_pending, 0);
    rt_on_lock_refused(self, (uintptr_t)S, PC(8)); /* not a stray */
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_FORK), 0);
    rt_on_lock_refused(self, (uintptr_t)A, PC(9));
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_FORK), 1);
    rt_on_lock_release(self, (uintptr_t)A, PC(10)); /* a second use: once per process */
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_FORK), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "tries to take lock"));
    ck_assert_int_eq(rt_fork_strays_pending, 0);
}
END_TEST

/* A child that never uses what it inherited has nothing to say, and a
 * fork with nothing stranded leaves nothing pending. */
START_TEST(fork_without_use_is_silent)
{
    struct rt_thread *self = rt_thread_new((int)syscall(SYS_gettid)), *other = rt_thread_new(getppid());
    take(other, S, RT_TRAIT_PSHARED);
    rt_on_fork_child(self, 4243);
    ck_assert_int_eq(rt_fork_strays_pending, 0);
    take(self, B, 0);
    rt_on_lock_release(self, (uintptr_t)B, PC(11));
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_FORK), 0);
}
END_TEST

/* A blocking wait on a stray: the first use is reported before the
 * deadlock report that ends the child. */
START_TEST(fork_stray_wait_reported_then_deadlock)
{
    struct rt_thread *self = rt_thread_new((int)syscall(SYS_gettid)), *other = rt_thread_new(getppid());
    take(other, A, 0);
    rt_on_fork_child(self, 4244);
    wait_for(self, A, 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_FORK), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DEADLOCK), 1);
    ck_assert_int_eq(test_fatal_exits, 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "waits for lock"));
    ck_assert(strstr(log, "INFO: locks held across fork()") < strstr(log, "BUG: deadlock detected"));
}
END_TEST

Suite *shared_suite(void)
{
    Suite *s = suite_create("shared");
    TCase *tc = tcase_create("shared");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, robust_owner_exit_is_the_protocol);
    tcase_add_test(tc, plain_owner_exit_is_reported);
    tcase_add_test(tc, pshared_orphan_wait_does_not_end_the_run);
    tcase_add_test(tc, cycle_of_plain_locks_ends_the_run);
    tcase_add_test(tc, cycle_through_robust_lock_goes_on);
    tcase_add_test(tc, cycle_through_pshared_lock_goes_on);
    tcase_add_test(tc, wait_on_other_process_is_no_hang);
    tcase_add_test(tc, wait_on_running_holder_is_a_hang);
    tcase_add_test(tc, fork_strays_reported_at_first_use);
    tcase_add_test(tc, fork_without_use_is_silent);
    tcase_add_test(tc, fork_stray_wait_reported_then_deadlock);
    suite_add_tcase(s, tc);
    return s;
}

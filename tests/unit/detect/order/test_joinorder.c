/* Joins in the lock-order rule (detect/threadends.c, rt_cycle_feasible):
 * an inversion whose other half a joined thread made is latent; the same
 * inversion between threads that may run at once stays a warning. */
#include "detect/suites.h"
#include "hang/hang.h"
#include "locks/locks.h"
#include "order/order.h"
#include "report/report.h"
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x600000 + (n))
#define FAKE_TID(n) (0x7ffe0000 + (n))
static char A[64], B[64];

static void setup(void) { test_log_setup(NULL); }

static void pair_as(struct rt_thread *t, char *x, char *y)
{
    char *objs[2] = { x, y };
    for (int i = 0; i < 2; i++) {
        struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)objs[i], RT_LOCK_MUTEX, PC((uintptr_t)objs[i] & 0xfff));
        uint64_t chain = rt_on_lock_pre(t, l, 0, PC(1));
        rt_on_lock_acquired(t, l, 0, chain, PC((uintptr_t)objs[i] & 0xfff));
    }
    rt_on_lock_release(t, (uintptr_t)y, PC(2));
    rt_on_lock_release(t, (uintptr_t)x, PC(2));
}

static struct rt_thread *started(int tid, uintptr_t handle)
{
    struct rt_thread *t = rt_thread_new(tid);
    t->handle = handle;
    rt_on_thread_start(t);
    return t;
}

/* t ends and joiner's pthread_join of it returns 0. */
static void ends_joined_by(struct rt_thread *t, struct rt_thread *joiner, int ok)
{
    rt_on_thread_exit(t, 0, 0);
    uintptr_t handle = t->handle;
    rt_thread_free(t);
    rt_on_join_begin(joiner, handle, 0, PC(3));
    rt_on_join_end(joiner, ok);
}

static unsigned long inversions(void) { return rt_report_count(RT_KIND_LOCK_ORDER_INVERSION); }
static unsigned long latents(void) { return rt_report_count(RT_KIND_LATENT_LOCK_ORDER); }

/* knotd's shutdown: the scheduler thread took A then B; main joined it and
 * then takes B then A. */
START_TEST(inversion_after_join_is_latent)
{
    struct rt_thread *main_t = started(FAKE_TID(1), 0x1000), *sched = started(FAKE_TID(2), 0x2000);
    pair_as(sched, A, B);
    ends_joined_by(sched, main_t, 1);
    ck_assert_int_eq(rt_thread_ended_before(FAKE_TID(2), FAKE_TID(1)), 1);
    ck_assert_int_eq(rt_thread_ended_before(FAKE_TID(1), FAKE_TID(2)), 0);
    pair_as(main_t, B, A);
    ck_assert_uint_eq(inversions(), 0);
    rt_lockorder_report_latent();
    ck_assert_uint_eq(latents(), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "thread 2147352578 had ended before thread 2147352577 closed the cycle"));
    ck_assert_uint_eq(rt_report_errors(), 0);
}
END_TEST

/* The same orders, but the first thread is still running (or its join
 * failed): they may meet, a warning as before. */
START_TEST(inversion_beside_a_live_thread_warns)
{
    struct rt_thread *main_t = started(FAKE_TID(1), 0x1000), *worker = started(FAKE_TID(2), 0x2000);
    pair_as(worker, A, B);
    pair_as(main_t, B, A);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(failed_join_orders_nothing)
{
    struct rt_thread *main_t = started(FAKE_TID(1), 0x1000), *worker = started(FAKE_TID(2), 0x2000);
    pair_as(worker, A, B);
    ends_joined_by(worker, main_t, 0);
    ck_assert_int_eq(rt_thread_ended_before(FAKE_TID(2), FAKE_TID(1)), 0);
    pair_as(main_t, B, A);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

/* A joined thread's edge orders nothing for a third thread that did not
 * join it: that one may have run beside it. */
START_TEST(join_orders_only_for_the_joiner)
{
    struct rt_thread *main_t = started(FAKE_TID(1), 0x1000), *worker = started(FAKE_TID(2), 0x2000),
                     *other = started(FAKE_TID(3), 0x3000);
    pair_as(worker, A, B);
    ends_joined_by(worker, main_t, 1);
    pair_as(other, B, A);
    ck_assert_uint_eq(inversions(), 1);
    (void)main_t;
}
END_TEST

/* Through a chain of joins: w ends, m joins it, then c joins m. */
START_TEST(joins_chain)
{
    struct rt_thread *c = started(FAKE_TID(1), 0x1000), *m = started(FAKE_TID(2), 0x2000),
                     *w = started(FAKE_TID(3), 0x3000);
    pair_as(w, A, B);
    ends_joined_by(w, m, 1);
    ends_joined_by(m, c, 1);
    ck_assert_int_eq(rt_thread_ended_before(FAKE_TID(3), FAKE_TID(1)), 1);
    pair_as(c, B, A);
    ck_assert_uint_eq(inversions(), 0);
}
END_TEST

/* A latent cycle made so turns into a warning when a live thread makes
 * the joined thread's edge again. */
START_TEST(live_thread_remakes_the_edge)
{
    struct rt_thread *main_t = started(FAKE_TID(1), 0x1000), *sched = started(FAKE_TID(2), 0x2000),
                     *again = started(FAKE_TID(4), 0x4000);
    pair_as(sched, A, B);
    ends_joined_by(sched, main_t, 1);
    pair_as(main_t, B, A);
    ck_assert_uint_eq(inversions(), 0);
    pair_as(again, A, B);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

/* A handle glibc hands to a new thread forgets the old thread's end. */
START_TEST(reused_handle_forgets)
{
    struct rt_thread *main_t = started(FAKE_TID(1), 0x1000), *w = started(FAKE_TID(2), 0x2000);
    ends_joined_by(w, main_t, 1);
    ck_assert_int_eq(rt_thread_ended_before(FAKE_TID(2), FAKE_TID(1)), 1);
    struct rt_thread *w2 = started(FAKE_TID(5), 0x2000);
    ck_assert_int_eq(rt_thread_ended_before(FAKE_TID(2), FAKE_TID(1)), 0);
    (void)w2;
}
END_TEST

Suite *joinorder_suite(void)
{
    Suite *s = suite_create("joinorder");
    TCase *tc = tcase_create("joinorder");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, inversion_after_join_is_latent);
    tcase_add_test(tc, inversion_beside_a_live_thread_warns);
    tcase_add_test(tc, failed_join_orders_nothing);
    tcase_add_test(tc, join_orders_only_for_the_joiner);
    tcase_add_test(tc, joins_chain);
    tcase_add_test(tc, live_thread_remakes_the_edge);
    tcase_add_test(tc, reused_handle_forgets);
    suite_add_tcase(s, tc);
    return s;
}

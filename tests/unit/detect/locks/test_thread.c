/* The thread registry (detect/locks/thread.c) is an RCU list: a record removed
 * while a walker is on it is not handed out again until the walker left. */
#include "detect/suites.h"
#include "locks/thread.h"
#include <pthread.h>
#include <rtdd/rcu.h>
#include <time.h>

static struct rt_thread *victim;
static _Atomic int walker_inside, walker_release, victim_seen;

static void sleep_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

/* Stops on the victim's record until told to go on. */
static void stop_on_victim(struct rt_thread *t, void *arg)
{
    (void)arg;
    if (t != victim)
        return;
    victim_seen = 1;
    walker_inside = 1;
    for (int i = 0; i < 10000 && !walker_release; i++)
        sleep_ms(1);
    /* The record must still be the one the walker stood on. */
    if (t->tid != 1001)
        victim_seen = 2;
}

static void *walker(void *arg)
{
    (void)arg;
    rt_thread_for_each(stop_on_victim, NULL);
    return NULL;
}

START_TEST(removed_record_not_reused_while_walked)
{
    victim = rt_thread_new(1001);
    ck_assert_ptr_nonnull(victim);
    pthread_t w;
    ck_assert_int_eq(pthread_create(&w, NULL, walker, NULL), 0);
    while (!walker_inside)
        sleep_ms(1);
    rt_thread_free(victim);
    /* Time enough for the callback worker to run grace periods: none may
     * end while the walker is inside. */
    struct rt_thread *fresh[64];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 16; i++) {
            fresh[round * 16 + i] = rt_thread_new(2000 + round * 16 + i);
            ck_assert_ptr_nonnull(fresh[round * 16 + i]);
            ck_assert_ptr_ne(fresh[round * 16 + i], victim);
        }
        sleep_ms(25);
    }
    walker_release = 1;
    ck_assert_int_eq(pthread_join(w, NULL), 0);
    ck_assert_int_eq(victim_seen, 1);
    /* After the walker left, the record goes back to the pool. */
    rcu_barrier();
    struct rt_thread *again = rt_thread_new(3000);
    ck_assert_ptr_eq(again, victim);
    ck_assert_int_eq(again->tid, 3000);
    rt_thread_free(again);
    for (int i = 0; i < 64; i++)
        rt_thread_free(fresh[i]);
}
END_TEST

/* Grown held arrays come back with the record, a grace period after it
 * left the registry, instead of leaking. */
START_TEST(outgrown_held_arrays_return_with_the_record)
{
    struct rt_thread *t = rt_thread_new(4000);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(rt_thread_grow_held(t), 0);
    struct rt_held *a64 = t->held;
    ck_assert_uint_eq(t->held_cap, 2 * RT_HELD_INLINE);
    ck_assert_int_eq(rt_thread_grow_held(t), 0);
    struct rt_held *a128 = t->held;
    ck_assert_uint_eq(t->held_cap, 4 * RT_HELD_INLINE);
    rt_thread_free(t);
    rcu_barrier();
    struct rt_thread *u = rt_thread_new(4001);
    ck_assert_ptr_eq(u, t);
    ck_assert_ptr_eq(u->held, u->held_inline);
    ck_assert_int_eq(rt_thread_grow_held(u), 0);
    ck_assert_ptr_eq(u->held, a64);
    ck_assert_int_eq(rt_thread_grow_held(u), 0);
    ck_assert_ptr_eq(u->held, a128);
    rt_thread_free(u);
}
END_TEST

Suite *thread_suite(void)
{
    Suite *s = suite_create("thread");
    TCase *tc = tcase_create("registry");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, removed_record_not_reused_while_walked);
    tcase_add_test(tc, outgrown_held_arrays_return_with_the_record);
    suite_add_tcase(s, tc);
    return s;
}

/* Debug hooks: every event fires with the documented arguments, and with no
 * hooks installed the read side never leaves its inline fast path. */
#include "check_main.h"

#include <rtdd/rcu.h>
#include <rtdd/rcu_debug.h>
#include <rtdd/rculist.h>

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum ev_kind {
    EV_ENTER, EV_EXIT, EV_UNBALANCED, EV_DEREF, EV_PUBLISH, EV_SYNC_BEGIN, EV_SYNC_END,
    EV_ENQUEUE, EV_CB_BEGIN, EV_CB_END, EV_BARRIER_BEGIN, EV_BARRIER_END, EV_EXIT_IN_READER,
    EV_UNPROTECTED, EV_ATOMIC,
};

struct event {
    enum ev_kind kind;
    const void *a, *b, *caller;
    unsigned long n;
    int worker; /* recorded on a thread other than the test's */
};

#define MAX_EVENTS 256
static struct event events[MAX_EVENTS];
static int nevents;
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t test_thread;

/* Hooks must not call RCU; a plain mutex is fine outside signal handlers. */
static void record(enum ev_kind kind, const void *a, const void *b, const void *caller,
                   unsigned long n)
{
    pthread_mutex_lock(&ev_lock);
    if (nevents < MAX_EVENTS)
        events[nevents++] = (struct event){kind, a, b, caller, n,
                                           !pthread_equal(pthread_self(), test_thread)};
    pthread_mutex_unlock(&ev_lock);
}

static void h_enter(const void *c, unsigned int d) { record(EV_ENTER, NULL, NULL, c, d); }
static void h_exit(const void *c, unsigned int d) { record(EV_EXIT, NULL, NULL, c, d); }
static void h_unbalanced(const void *c) { record(EV_UNBALANCED, NULL, NULL, c, 0); }
static void h_deref(const void *v, const void *s, const void *c) { record(EV_DEREF, v, s, c, 0); }
static void h_publish(const void *v, const void *s, const void *c) { record(EV_PUBLISH, v, s, c, 0); }
static void h_sync_begin(const void *c, unsigned int d) { record(EV_SYNC_BEGIN, NULL, NULL, c, d); }
static void h_sync_end(const void *c) { record(EV_SYNC_END, NULL, NULL, c, 0); }
static int h_enqueue(struct rcu_head *h, void (*f)(struct rcu_head *), const void *c)
{
    record(EV_ENQUEUE, h, (const void *)(uintptr_t)f, c, 0);
    return 0;
}
static void h_cb_begin(struct rcu_head *h, void (*f)(struct rcu_head *))
{
    record(EV_CB_BEGIN, h, (const void *)(uintptr_t)f, NULL, 0);
}
static void h_cb_end(struct rcu_head *h, void (*f)(struct rcu_head *))
{
    record(EV_CB_END, h, (const void *)(uintptr_t)f, NULL, 0);
}
static void h_barrier_begin(const void *c, unsigned int d) { record(EV_BARRIER_BEGIN, NULL, NULL, c, d); }
static void h_barrier_end(const void *c) { record(EV_BARRIER_END, NULL, NULL, c, 0); }
static void h_exit_in_reader(int tid, unsigned int d)
{
    record(EV_EXIT_IN_READER, NULL, NULL, NULL, ((unsigned long)(unsigned)tid << 8) | d);
}

static const struct rtdd_rcu_debug_ops all_hooks = {
    .read_enter = h_enter,
    .read_exit = h_exit,
    .read_unbalanced = h_unbalanced,
    .dereference = h_deref,
    .publish = h_publish,
    .sync_begin = h_sync_begin,
    .sync_end = h_sync_end,
    .call_enqueue = h_enqueue,
    .callback_begin = h_cb_begin,
    .callback_end = h_cb_end,
    .barrier_begin = h_barrier_begin,
    .barrier_end = h_barrier_end,
    .exit_in_reader = h_exit_in_reader,
};

static int *watched;
static int value_a = 1, value_b = 2;
static int cb_calls;

static void hooked_cb(struct rcu_head *h)
{
    (void)h;
    cb_calls++;
}

/* The events this function causes, in order, all carry callers inside it. */
static __attribute__((noinline)) void exercise_api(struct rcu_head *head)
{
    watched = &value_a;
    rcu_read_lock();
    rcu_read_lock();
    int *p = rcu_dereference(watched);
    (void)*p;
    rcu_read_unlock();
    rcu_read_unlock();
    rcu_assign_pointer(watched, &value_b);
    synchronize_rcu();
    call_rcu(head, hooked_cb);
    rcu_barrier();
    rcu_read_unlock(); /* unbalanced */
}

static const struct event *find(enum ev_kind kind, int nth)
{
    for (int i = 0; i < nevents; i++)
        if (events[i].kind == kind && nth-- == 0)
            return &events[i];
    return NULL;
}

/* Inside exercise_api: its code is far smaller than 64 KiB even with ASan. */
static void assert_caller_in_exercise(const struct event *e)
{
    ck_assert_ptr_nonnull(e);
    ck_assert_msg((const char *)e->caller > (const char *)(uintptr_t)exercise_api &&
                      (const char *)e->caller < (const char *)(uintptr_t)exercise_api + 65536,
                  "event %d caller %p not inside exercise_api %p", e->kind, e->caller,
                  (void *)(uintptr_t)exercise_api);
}

START_TEST(hooks_fire_with_documented_arguments)
{
    static struct rcu_head head;
    test_thread = pthread_self();
    ck_assert_ptr_null(rtdd_rcu_set_debug_hooks(&all_hooks));
    exercise_api(&head);
    ck_assert_ptr_eq(rtdd_rcu_set_debug_hooks(NULL), &all_hooks);

    const struct event *e;
    e = find(EV_ENTER, 0);
    assert_caller_in_exercise(e);
    ck_assert_uint_eq(e->n, 1);
    e = find(EV_ENTER, 1);
    assert_caller_in_exercise(e);
    ck_assert_uint_eq(e->n, 2);
    e = find(EV_DEREF, 0);
    assert_caller_in_exercise(e);
    ck_assert_ptr_eq(e->a, &value_a);
    ck_assert_ptr_eq(e->b, &watched);
    e = find(EV_EXIT, 0);
    assert_caller_in_exercise(e);
    ck_assert_uint_eq(e->n, 2);
    e = find(EV_EXIT, 1);
    ck_assert_uint_eq(e->n, 1);
    e = find(EV_PUBLISH, 0);
    assert_caller_in_exercise(e);
    ck_assert_ptr_eq(e->a, &value_b);
    ck_assert_ptr_eq(e->b, &watched);
    e = find(EV_SYNC_BEGIN, 0);
    assert_caller_in_exercise(e);
    ck_assert_uint_eq(e->n, 0);
    assert_caller_in_exercise(find(EV_SYNC_END, 0));
    e = find(EV_ENQUEUE, 0);
    assert_caller_in_exercise(e);
    ck_assert_ptr_eq(e->a, &head);
    ck_assert_ptr_eq(e->b, (const void *)(uintptr_t)hooked_cb);
    e = find(EV_CB_BEGIN, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(e->a, &head);
    ck_assert_ptr_eq(e->b, (const void *)(uintptr_t)hooked_cb);
    ck_assert_int_eq(e->worker, 1); /* callbacks never run in the caller */
    ck_assert_ptr_nonnull(find(EV_CB_END, 0));
    assert_caller_in_exercise(find(EV_BARRIER_BEGIN, 0));
    assert_caller_in_exercise(find(EV_BARRIER_END, 0));
    assert_caller_in_exercise(find(EV_UNBALANCED, 0));
    ck_assert_int_eq(cb_calls, 1);

    /* Order of the main-thread events. */
    enum ev_kind want[] = {EV_ENTER, EV_ENTER, EV_DEREF, EV_EXIT, EV_EXIT, EV_PUBLISH,
                           EV_SYNC_BEGIN, EV_SYNC_END, EV_ENQUEUE, EV_BARRIER_BEGIN,
                           EV_BARRIER_END, EV_UNBALANCED};
    int w = 0;
    for (int i = 0; i < nevents && w < (int)(sizeof(want) / sizeof(want[0])); i++)
        if (!events[i].worker && events[i].kind == want[w])
            w++;
    ck_assert_int_eq(w, (int)(sizeof(want) / sizeof(want[0])));
}
END_TEST

START_TEST(unhooked_read_side_stays_inline)
{
    struct rtdd_rcu_stats s0, s1, s2;
    rcu_read_lock(); /* register first: the registration itself is out of line */
    rcu_read_unlock();
    rtdd_rcu_get_stats(&s0);
    ck_assert_int_eq(s0.membarrier, 1); /* this kernel has membarrier(2) */
    watched = &value_a;
    for (int i = 0; i < 100000; i++) {
        rcu_read_lock();
        (void)*rcu_dereference(watched);
        rcu_read_unlock();
    }
    rtdd_rcu_get_stats(&s1);
    ck_assert_uint_eq(s1.read_slow_calls, s0.read_slow_calls); /* not once out of line */

    test_thread = pthread_self();
    rtdd_rcu_set_debug_hooks(&all_hooks);
    rcu_read_lock();
    rcu_read_unlock();
    rtdd_rcu_set_debug_hooks(NULL);
    rtdd_rcu_get_stats(&s2);
    ck_assert_uint_eq(s2.read_slow_calls, s1.read_slow_calls + 2); /* the one branch, taken */
    ck_assert_ptr_nonnull(find(EV_ENTER, 0));
    ck_assert_ptr_nonnull(find(EV_EXIT, 0));
}
END_TEST

static int exit_tid;

static void *exits_in_reader(void *arg)
{
    (void)arg;
    exit_tid = (int)syscall(SYS_gettid);
    rcu_read_lock();
    rcu_read_lock();
    rcu_read_lock();
    return NULL;
}

START_TEST(exit_in_reader_hook_names_thread_and_depth)
{
    test_thread = pthread_self();
    rtdd_rcu_set_debug_hooks(&all_hooks);
    pthread_t t;
    pthread_create(&t, NULL, exits_in_reader, NULL);
    pthread_join(t, NULL);
    synchronize_rcu(); /* the forced end lets it complete */
    rtdd_rcu_set_debug_hooks(NULL);
    const struct event *e = find(EV_EXIT_IN_READER, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq((int)(e->n >> 8), exit_tid);
    ck_assert_uint_eq(e->n & 0xff, 3);
}
END_TEST

START_TEST(barrier_inside_reader_reports_depth)
{
    test_thread = pthread_self();
    rtdd_rcu_set_debug_hooks(&all_hooks);
    rcu_read_lock();
    rcu_barrier(); /* refused, not deadlocked */
    rcu_read_unlock();
    rtdd_rcu_set_debug_hooks(NULL);
    const struct event *e = find(EV_BARRIER_BEGIN, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->n, 1);
}
END_TEST

/* The pointer checks' hooks (rcu-unprotected-dereference and friends). */
static int lock_held_answer, conditions_evaluated;
static void h_unprotected(const void *v, const void *s, const void *c, int protected_form)
{
    record(EV_UNPROTECTED, v, s, c, (unsigned long)protected_form);
}
static int h_lock_held(const void *lock)
{
    (void)lock;
    return lock_held_answer;
}
static void h_atomic(const void *old, const void *v, const void *s, const void *c, int cmpxchg)
{
    record(EV_ATOMIC, v, s, c, (unsigned long)cmpxchg);
    (void)old;
}
static const struct rtdd_rcu_debug_ops pointer_hooks = {
    .dereference = h_deref,
    .publish = h_publish,
    .dereference_unprotected = h_unprotected,
    .lock_held = h_lock_held,
    .publish_atomic = h_atomic,
};
static int condition(int value)
{
    conditions_evaluated++;
    return value;
}

START_TEST(pointer_checks_reach_the_hooks)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    test_thread = pthread_self();
    /* Without a checker: conditions are not evaluated, locks count as held. */
    watched = &value_a;
    ck_assert_ptr_eq(rcu_dereference_check(watched, condition(0)), &value_a);
    ck_assert_ptr_eq(rcu_dereference_protected(watched, condition(0)), &value_a);
    ck_assert_int_eq(conditions_evaluated, 0);
    ck_assert_int_eq(lockdep_is_held(&m), 1);

    /* A table installed with the first layout's setter (an older checker)
     * is never read past that layout. */
    rtdd_rcu_set_debug_hooks(&pointer_hooks);
    (void)rcu_dereference_protected(watched, condition(0));
    ck_assert_int_eq(lockdep_is_held(&m), 1);
    ck_assert_ptr_null(find(EV_UNPROTECTED, 0));
    conditions_evaluated = 0;

    rtdd_rcu_set_debug_hooks_sized(&pointer_hooks, sizeof pointer_hooks);
    (void)rcu_dereference(watched); /* outside a section: the checker is asked */
    const struct event *e = find(EV_DEREF, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(e->a, &value_a);
    ck_assert_ptr_eq(e->b, &watched);
    lock_held_answer = 1;
    (void)rcu_dereference_check(watched, lockdep_is_held(&m)); /* holds: nothing */
    ck_assert_ptr_null(find(EV_UNPROTECTED, 0));
    lock_held_answer = 0;
    (void)rcu_dereference_check(watched, lockdep_is_held(&m));
    e = find(EV_UNPROTECTED, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(e->b, &watched);
    ck_assert_uint_eq(e->n, 0);
    rcu_read_lock(); /* inside a section the condition is not asked */
    (void)rcu_dereference_check(watched, condition(0));
    rcu_read_unlock();
    ck_assert_int_eq(conditions_evaluated, 0);
    (void)rcu_dereference_protected(watched, condition(0));
    ck_assert_int_eq(conditions_evaluated, 1);
    e = find(EV_UNPROTECTED, 1);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->n, 1);

    /* Atomic publishes: what they replaced is returned, the hook told. */
    ck_assert_ptr_eq(rcu_xchg_pointer(&watched, &value_b), &value_a);
    e = find(EV_ATOMIC, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(e->a, &value_b);
    ck_assert_ptr_eq(e->b, &watched);
    ck_assert_uint_eq(e->n, 0);
    ck_assert_ptr_eq(rcu_cmpxchg_pointer(&watched, &value_a, &value_a), &value_b); /* fails */
    ck_assert_ptr_null(find(EV_ATOMIC, 1));
    ck_assert_ptr_eq(rcu_cmpxchg_pointer(&watched, &value_b, &value_a), &value_b);
    e = find(EV_ATOMIC, 1);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(e->a, &value_a);
    ck_assert_uint_eq(e->n, 1);
    ck_assert_ptr_eq(watched, &value_a);

    /* A list deletion tells the checker what the link holds now. */
    static struct rcu_list_head list, a, b;
    rcu_list_init(&list);
    rcu_list_add_tail(&a, &list);
    rcu_list_add_tail(&b, &list);
    int before = nevents;
    rcu_list_del(&a);
    rtdd_rcu_set_debug_hooks(NULL);
    ck_assert_int_eq(nevents, before + 1);
    ck_assert_int_eq(events[before].kind, EV_PUBLISH);
    ck_assert_ptr_eq(events[before].a, &b);
    ck_assert_ptr_eq(events[before].b, &list.next);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rcu_hooks");
    TCase *tcs[] = {tcase_create("hooks_fire_with_documented_arguments"),
                    tcase_create("unhooked_read_side_stays_inline"),
                    tcase_create("exit_in_reader_hook_names_thread_and_depth"),
                    tcase_create("barrier_inside_reader_reports_depth"),
                    tcase_create("pointer_checks_reach_the_hooks")};
    tcase_add_test(tcs[0], hooks_fire_with_documented_arguments);
    tcase_add_test(tcs[1], unhooked_read_side_stays_inline);
    tcase_add_test(tcs[2], exit_in_reader_hook_names_thread_and_depth);
    tcase_add_test(tcs[3], barrier_inside_reader_reports_depth);
    tcase_add_test(tcs[4], pointer_checks_reach_the_hooks);
    for (int i = 0; i < 5; i++)
        suite_add_tcase(s, tcs[i]);
    Suite *suites[] = {s};
    return rtdd_check_run("rcu", suites, 1);
}

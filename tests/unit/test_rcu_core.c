/* Unit tests of the RCU core: nesting, grace periods with sleeping readers,
 * starvation immunity, shared grace periods, callbacks, rcu_barrier,
 * unregistered threads, fork, signal-handler readers. */
#include "check_main.h"

#include <rtdd/rcu.h>

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIVE 0x1111
#define DEAD 0xdead

struct obj {
    struct rcu_head rh;
    int state;
};

static struct obj *shared_ptr;
static int flag_entered, flag_leaving, flag_release;

static void spin_until(int *flag)
{
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
        usleep(100);
}

static void set_flag(int *flag)
{
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

START_TEST(nesting_depth_counts_and_unwinds)
{
    ck_assert_uint_eq(rcu_read_depth(), 0);
    rcu_read_lock();
    rcu_read_lock();
    rcu_read_lock();
    ck_assert_uint_eq(rcu_read_depth(), 3);
    rcu_read_unlock();
    ck_assert_uint_eq(rcu_read_depth(), 2);
    rcu_read_unlock();
    rcu_read_unlock();
    ck_assert_uint_eq(rcu_read_depth(), 0);
    synchronize_rcu(); /* not in a reader any more: must return */
}
END_TEST

/* The reader holds a nested section; only the outermost unlock ends it. */
static void *nested_sleeping_reader(void *arg)
{
    (void)arg;
    rcu_read_lock();
    struct obj *o = rcu_dereference(shared_ptr);
    rcu_read_lock();
    rcu_read_unlock(); /* inner unlock must not end the section */
    set_flag(&flag_entered);
    usleep(200000);
    int seen = __atomic_load_n(&o->state, __ATOMIC_RELAXED);
    set_flag(&flag_leaving);
    rcu_read_unlock();
    return (void *)(intptr_t)seen;
}

START_TEST(grace_period_waits_for_sleeping_nested_reader)
{
    static struct obj a = {.state = LIVE}, b = {.state = LIVE};
    shared_ptr = &a;
    pthread_t t;
    pthread_create(&t, NULL, nested_sleeping_reader, NULL);
    spin_until(&flag_entered);
    rcu_assign_pointer(shared_ptr, &b);
    synchronize_rcu();
    ck_assert_int_eq(__atomic_load_n(&flag_leaving, __ATOMIC_ACQUIRE), 1);
    a.state = DEAD; /* "free" */
    void *seen;
    pthread_join(t, &seen);
    ck_assert_int_eq((int)(intptr_t)seen, LIVE);
}
END_TEST

static void *holding_reader(void *arg)
{
    (void)arg;
    rcu_read_lock();
    set_flag(&flag_entered);
    spin_until(&flag_release);
    rcu_read_unlock();
    return NULL;
}

static int other_reader_done;

static void *quick_reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        rcu_read_lock();
        (void)rcu_dereference(shared_ptr);
        rcu_read_unlock();
    }
    set_flag(&other_reader_done);
    return NULL;
}

static void *sync_caller(void *arg)
{
    (void)arg;
    synchronize_rcu();
    return NULL;
}

/* A reader blocked in its section (and a grace period waiting for it) does
 * not block other readers. */
START_TEST(sleeping_reader_does_not_block_other_readers)
{
    pthread_t holder, updater, other;
    pthread_create(&holder, NULL, holding_reader, NULL);
    spin_until(&flag_entered);
    pthread_create(&updater, NULL, sync_caller, NULL);
    pthread_create(&other, NULL, quick_reader, NULL);
    spin_until(&other_reader_done); /* would hang if readers were blocked */
    set_flag(&flag_release);
    pthread_join(holder, NULL);
    pthread_join(updater, NULL);
    pthread_join(other, NULL);
}
END_TEST

static int stop_overlap;

/* Readers that always overlap: each thread re-enters at once and the two
 * threads' sections interleave, so some reader is active at every instant. */
static void *overlapping_reader(void *arg)
{
    long offset = (long)(intptr_t)arg;
    usleep(offset);
    while (!__atomic_load_n(&stop_overlap, __ATOMIC_RELAXED)) {
        rcu_read_lock();
        usleep(1000);
        rcu_read_unlock();
    }
    return NULL;
}

START_TEST(stream_of_overlapping_readers_cannot_starve_grace_period)
{
    pthread_t r1, r2;
    pthread_create(&r1, NULL, overlapping_reader, (void *)(intptr_t)0);
    pthread_create(&r2, NULL, overlapping_reader, (void *)(intptr_t)500);
    usleep(20000);
    for (int i = 0; i < 20; i++)
        synchronize_rcu(); /* test timeout (30 s) is the "finishes at all" bound */
    __atomic_store_n(&stop_overlap, 1, __ATOMIC_RELAXED);
    pthread_join(r1, NULL);
    pthread_join(r2, NULL);
}
END_TEST

static int sync_callers_ready;

static void *counting_sync_caller(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&sync_callers_ready, 1, __ATOMIC_RELAXED);
    synchronize_rcu();
    return NULL;
}

START_TEST(concurrent_synchronize_callers_share_grace_periods)
{
    enum { CALLERS = 6 };
    pthread_t holder, callers[CALLERS];
    synchronize_rcu();
    pthread_create(&holder, NULL, holding_reader, NULL);
    spin_until(&flag_entered);
    struct rtdd_rcu_stats before, after;
    rtdd_rcu_get_stats(&before);
    for (int i = 0; i < CALLERS; i++)
        pthread_create(&callers[i], NULL, counting_sync_caller, NULL);
    while (__atomic_load_n(&sync_callers_ready, __ATOMIC_RELAXED) < CALLERS)
        usleep(1000);
    usleep(300000); /* let every caller block in the grace period machinery */
    set_flag(&flag_release);
    for (int i = 0; i < CALLERS; i++)
        pthread_join(callers[i], NULL);
    pthread_join(holder, NULL);
    rtdd_rcu_get_stats(&after);
    /* The first caller's grace period plus one shared by all latecomers. */
    ck_assert_uint_le(after.grace_periods - before.grace_periods, 2);
    ck_assert_uint_ge(after.grace_periods - before.grace_periods, 1);
}
END_TEST

static pthread_t cb_thread;
static int cb_ran;

static void record_cb(struct rcu_head *rh)
{
    cb_thread = pthread_self();
    struct obj *o = (struct obj *)rh;
    o->state = DEAD;
    __atomic_store_n(&cb_ran, 1, __ATOMIC_RELEASE);
}

START_TEST(call_rcu_inside_reader_runs_later_on_worker)
{
    static struct obj o = {.state = LIVE};
    rcu_read_lock();
    call_rcu(&o.rh, record_cb); /* implementation #1 of the seed deadlocks here */
    usleep(50000);
    ck_assert_int_eq(__atomic_load_n(&cb_ran, __ATOMIC_ACQUIRE), 0); /* we still read */
    ck_assert_int_eq(o.state, LIVE);
    rcu_read_unlock();
    rcu_barrier();
    ck_assert_int_eq(cb_ran, 1);
    ck_assert(!pthread_equal(cb_thread, pthread_self()));
}
END_TEST

START_TEST(callback_waits_for_reader_in_other_thread)
{
    static struct obj o = {.state = LIVE};
    pthread_t holder;
    pthread_create(&holder, NULL, holding_reader, NULL);
    spin_until(&flag_entered);
    call_rcu(&o.rh, record_cb);
    usleep(100000);
    ck_assert_int_eq(__atomic_load_n(&cb_ran, __ATOMIC_ACQUIRE), 0);
    set_flag(&flag_release);
    pthread_join(holder, NULL);
    rcu_barrier();
    ck_assert_int_eq(cb_ran, 1);
}
END_TEST

static int count_cb_calls;

static void count_cb(struct rcu_head *rh)
{
    (void)rh;
    __atomic_fetch_add(&count_cb_calls, 1, __ATOMIC_RELAXED);
}

START_TEST(rcu_barrier_waits_for_all_queued_callbacks)
{
    enum { N = 5000 };
    static struct rcu_head heads[N];
    for (int i = 0; i < N; i++)
        call_rcu(&heads[i], count_cb);
    rcu_barrier();
    ck_assert_int_eq(__atomic_load_n(&count_cb_calls, __ATOMIC_RELAXED), N);
    rcu_barrier(); /* nothing queued: returns too */
    ck_assert_uint_eq(rcu_pending_callbacks(), 0);
}
END_TEST

START_TEST(rcu_barrier_inside_reader_returns_instead_of_deadlocking)
{
    rcu_read_lock();
    rcu_barrier();
    rcu_read_unlock();
    ck_assert_uint_eq(rcu_read_depth(), 0);
}
END_TEST

static void *unregistered_thread(void *arg)
{
    (void)arg;
    struct rtdd_rcu_stats s;
    rcu_read_lock(); /* first use registers lazily */
    rtdd_rcu_get_stats(&s);
    (void)rcu_dereference(shared_ptr);
    rcu_read_unlock();
    synchronize_rcu();
    return (void *)(intptr_t)s.registered_threads;
}

START_TEST(threads_need_not_register)
{
    struct rtdd_rcu_stats s0, s1;
    rtdd_rcu_get_stats(&s0);
    pthread_t t;
    void *during;
    pthread_create(&t, NULL, unregistered_thread, NULL);
    pthread_join(t, &during);
    rtdd_rcu_get_stats(&s1);
    ck_assert_uint_eq((uint64_t)(intptr_t)during, s0.registered_threads + 1);
    ck_assert_uint_eq(s1.registered_threads, s0.registered_threads); /* released at exit */
    synchronize_rcu();
}
END_TEST

START_TEST(explicit_register_and_unregister)
{
    struct rtdd_rcu_stats s0, s1, s2;
    rcu_unregister_thread();
    rtdd_rcu_get_stats(&s0);
    rcu_register_thread();
    rcu_register_thread(); /* idempotent */
    rtdd_rcu_get_stats(&s1);
    ck_assert_uint_eq(s1.registered_threads, s0.registered_threads + 1);
    rcu_unregister_thread();
    rtdd_rcu_get_stats(&s2);
    ck_assert_uint_eq(s2.registered_threads, s0.registered_threads);
    rcu_read_lock(); /* usable again after unregistering */
    ck_assert_uint_eq(rcu_read_depth(), 1);
    rcu_read_unlock();
    synchronize_rcu();
}
END_TEST

static void *exit_inside_reader(void *arg)
{
    (void)arg;
    rcu_read_lock();
    rcu_read_lock();
    return NULL; /* bug in the program: the library ends the section */
}

START_TEST(thread_exit_inside_reader_does_not_stall_grace_periods)
{
    pthread_t t;
    pthread_create(&t, NULL, exit_inside_reader, NULL);
    pthread_join(t, NULL);
    synchronize_rcu();
}
END_TEST

START_TEST(unbalanced_unlock_is_ignored)
{
    rcu_read_unlock();
    ck_assert_uint_eq(rcu_read_depth(), 0);
    rcu_read_lock();
    rcu_read_unlock();
    rcu_read_unlock();
    ck_assert_uint_eq(rcu_read_depth(), 0);
    synchronize_rcu();
}
END_TEST

static int fork_child_checks(void)
{
    /* The parent's holder thread does not exist here: no wait for it. */
    synchronize_rcu();
    static struct obj o = {.state = LIVE};
    cb_ran = 0;
    call_rcu(&o.rh, record_cb);
    rcu_barrier();
    if (!cb_ran)
        return 3;
    rcu_read_lock();
    rcu_read_unlock();
    synchronize_rcu();
    return 0;
}

START_TEST(fork_child_can_use_rcu)
{
    static struct rcu_head h;
    call_rcu(&h, count_cb); /* start the parent's worker */
    rcu_barrier();
    pthread_t holder;
    pthread_create(&holder, NULL, holding_reader, NULL);
    spin_until(&flag_entered);
    rcu_read_lock(); /* fork from inside a read section, too */
    pid_t pid = fork();
    if (pid == 0) {
        rcu_read_unlock();
        _exit(fork_child_checks());
    }
    rcu_read_unlock();
    ck_assert_int_gt(pid, 0);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    set_flag(&flag_release);
    pthread_join(holder, NULL);
    synchronize_rcu();
}
END_TEST

static int handler_reads, handler_depth_errors;

static void reading_handler(int sig)
{
    (void)sig;
    unsigned int depth = rcu_read_depth();
    rcu_read_lock();
    rcu_read_lock();
    struct obj *o = rcu_dereference(shared_ptr);
    if (o && o->state != LIVE)
        handler_depth_errors++;
    rcu_read_unlock();
    rcu_read_unlock();
    if (rcu_read_depth() != depth)
        handler_depth_errors++;
    handler_reads++;
}

static int stop_signals;

static void *signaller(void *arg)
{
    pthread_t target = *(pthread_t *)arg;
    while (!__atomic_load_n(&stop_signals, __ATOMIC_RELAXED)) {
        pthread_kill(target, SIGUSR1);
        usleep(50);
    }
    return NULL;
}

START_TEST(signal_handler_readers_nest_with_interrupted_readers)
{
    static struct obj a = {.state = LIVE};
    shared_ptr = &a;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = reading_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t self = pthread_self(), sig;
    pthread_create(&sig, NULL, signaller, &self);
    for (int i = 0; i < 200000; i++) {
        rcu_read_lock();
        if (i % 3 == 0)
            rcu_read_lock();
        unsigned int d = rcu_read_depth();
        ck_assert_uint_eq(d, i % 3 == 0 ? 2u : 1u);
        if (i % 3 == 0)
            rcu_read_unlock();
        rcu_read_unlock();
        if (i % 10000 == 0)
            synchronize_rcu();
    }
    __atomic_store_n(&stop_signals, 1, __ATOMIC_RELAXED);
    pthread_join(sig, NULL);
    ck_assert_int_eq(handler_depth_errors, 0);
    ck_assert_int_gt(handler_reads, 0);
    ck_assert_uint_eq(rcu_read_depth(), 0);
    synchronize_rcu(); /* nothing left behind by the handlers */
}
END_TEST

/* The first RCU use of a thread happens inside a signal handler. */
static int first_use_done;

static void first_use_handler(int sig)
{
    (void)sig;
    rcu_read_lock();
    (void)rcu_dereference(shared_ptr);
    rcu_read_unlock();
    __atomic_store_n(&first_use_done, 1, __ATOMIC_RELEASE);
}

static void *idle_thread(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&first_use_done, __ATOMIC_ACQUIRE))
        usleep(1000);
    return NULL;
}

START_TEST(lazy_registration_inside_signal_handler)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = first_use_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, idle_thread, NULL);
    pthread_kill(t, SIGUSR2);
    pthread_join(t, NULL);
    synchronize_rcu();
}
END_TEST

/* One test case per test, so each result line carries the test's name. */
#define RCU_ADD_TEST(suite, fn)                                                \
    do {                                                                       \
        TCase *tc_ = tcase_create(#fn);                                        \
        tcase_set_timeout(tc_, 30);                                            \
        tcase_add_test(tc_, fn);                                               \
        suite_add_tcase(suite, tc_);                                           \
    } while (0)

static Suite *core_suite(void)
{
    Suite *s = suite_create("rcu_core");
    RCU_ADD_TEST(s, nesting_depth_counts_and_unwinds);
    RCU_ADD_TEST(s, grace_period_waits_for_sleeping_nested_reader);
    RCU_ADD_TEST(s, sleeping_reader_does_not_block_other_readers);
    RCU_ADD_TEST(s, stream_of_overlapping_readers_cannot_starve_grace_period);
    RCU_ADD_TEST(s, concurrent_synchronize_callers_share_grace_periods);
    RCU_ADD_TEST(s, call_rcu_inside_reader_runs_later_on_worker);
    RCU_ADD_TEST(s, callback_waits_for_reader_in_other_thread);
    RCU_ADD_TEST(s, rcu_barrier_waits_for_all_queued_callbacks);
    RCU_ADD_TEST(s, rcu_barrier_inside_reader_returns_instead_of_deadlocking);
    RCU_ADD_TEST(s, threads_need_not_register);
    RCU_ADD_TEST(s, explicit_register_and_unregister);
    RCU_ADD_TEST(s, thread_exit_inside_reader_does_not_stall_grace_periods);
    RCU_ADD_TEST(s, unbalanced_unlock_is_ignored);
    RCU_ADD_TEST(s, fork_child_can_use_rcu);
    RCU_ADD_TEST(s, signal_handler_readers_nest_with_interrupted_readers);
    RCU_ADD_TEST(s, lazy_registration_inside_signal_handler);
    return s;
}

int main(void)
{
    Suite *suites[] = {core_suite()};
    return rtdd_check_run("rcu", suites, 1);
}

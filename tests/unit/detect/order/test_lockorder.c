/* Lock order and misuse, driven with plain calls (the deadlock watchdog:
 * hang/test_watchdog.c): lockdep's selftest patterns and the cases that must stay silent. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "order/order.h"
#include "report/report.h"
#include "order/sleeplock.h"
#include "hang/hang.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x500000 + (n))
static char A[64], B[64], C[64], D[64], G[64], R[64], M[64];
static struct rt_thread *t0;

/* lockdep's selftest patterns run in one thread: they take lockdep's rule,
 * under which every cycle of code paths is a deadlock. The distinct-threads
 * rule (the default) has its own cases below. */
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
static void pair(char *x, char *y) { lock(x); lock(y); unlock(y); unlock(x); }
static unsigned long inversions(void) { return rt_report_count(RT_KIND_LOCK_ORDER_INVERSION); }

START_TEST(AA) { lock(A); lock(A); ck_assert_uint_eq(rt_report_count(RT_KIND_RECURSIVE_LOCKING), 1); }
END_TEST
START_TEST(ABBA) { pair(A, B); ck_assert_uint_eq(inversions(), 0); pair(B, A); ck_assert_uint_eq(inversions(), 1); }
END_TEST
START_TEST(ABBCCA) { pair(A, B); pair(B, C); ck_assert_uint_eq(inversions(), 0); pair(C, A); ck_assert_uint_eq(inversions(), 1); }
END_TEST
START_TEST(ABCABC) { pair(A, B); pair(C, A); ck_assert_uint_eq(inversions(), 0); pair(B, C); ck_assert_uint_eq(inversions(), 1); }
END_TEST
START_TEST(ABBCCDDA)
{
    pair(A, B); pair(B, C); pair(C, D);
    ck_assert_uint_eq(inversions(), 0);
    pair(D, A);
    ck_assert_uint_eq(inversions(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "cycle: "));
}
END_TEST
START_TEST(ABCDBDDA) { pair(A, B); pair(C, D); pair(B, D); ck_assert_uint_eq(inversions(), 0); pair(D, A); ck_assert_uint_eq(inversions(), 1); }
END_TEST
START_TEST(ABCDBCDA) { pair(A, B); pair(C, D); pair(B, C); ck_assert_uint_eq(inversions(), 0); pair(D, A); ck_assert_uint_eq(inversions(), 1); }
END_TEST

START_TEST(cycle_reported_once)
{
    pair(A, B);
    pair(B, A);
    pair(B, A);
    pair(A, B);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(double_unlock)
{
    rt_on_lock_init(t0, (uintptr_t)A, RT_LOCK_MUTEX, PC(3));
    lock(A);
    unlock(A);
    ck_assert_uint_eq(rt_report_count(RT_KIND_BAD_UNLOCK), 0);
    unlock(A);
    ck_assert_uint_eq(rt_report_count(RT_KIND_BAD_UNLOCK), 1);
}
END_TEST

START_TEST(init_of_held_lock)
{
    lock(A);
    rt_on_lock_init(t0, (uintptr_t)A, RT_LOCK_MUTEX, PC(4));
    ck_assert_uint_eq(rt_report_count(RT_KIND_DESTROY_LOCKED), 1);
}
END_TEST

START_TEST(destroy_of_held_lock)
{
    lock(A);
    rt_on_lock_destroy(t0, (uintptr_t)A, PC(4));
    ck_assert_uint_eq(rt_report_count(RT_KIND_DESTROY_LOCKED), 1);
}
END_TEST

START_TEST(unlock_by_non_owner)
{
    struct rt_thread *other = rt_thread_new(getppid());
    lock_as(other, A, RT_LOCK_MUTEX, 0);
    unlock(A);
    ck_assert_uint_eq(rt_report_count(RT_KIND_NON_OWNER_UNLOCK), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_BAD_UNLOCK), 0);
}
END_TEST

/* An annotated name is the lock's, whatever identity its record takes
 * later (an unlock by a non-owner gives it a new one). */
START_TEST(annotated_name_follows_new_identity)
{
    char name[64];
    lock_as(t0, D, RT_LOCK_MUTEX, 0);
    unlock(D);
    rt_annotate_name(t0, (uintptr_t)D, "route_table.lock", PC(9));
    struct rt_lock *l = rt_locktab_find((uintptr_t)D);
    rt_lock_name(l, (uintptr_t)D, name, sizeof name);
    ck_assert_str_eq(name, "route_table.lock");
    uint64_t id = l->id;
    struct rt_thread *other = rt_thread_new(getppid());
    lock_as(other, D, RT_LOCK_MUTEX, 0);
    unlock(D);
    ck_assert_uint_eq(rt_report_count(RT_KIND_NON_OWNER_UNLOCK), 1);
    ck_assert_uint_ne(l->id, id);
    rt_lock_name(l, (uintptr_t)D, name, sizeof name);
    ck_assert_str_eq(name, "route_table.lock");
}
END_TEST

/* A recursive lock taken again by its holder cannot block: no order edge
 * into it from what the thread took in between. */
START_TEST(recursive_reentry_orders_nothing)
{
    lock_as(t0, R, RT_LOCK_MUTEX_RECURSIVE, 0);
    lock(A);
    lock_as(t0, R, RT_LOCK_MUTEX_RECURSIVE, 0);
    unlock(R);
    unlock(A);
    unlock(R);
    ck_assert_uint_eq(rt_lockorder_edges(), 1); /* R -> A only */
    ck_assert_uint_eq(rt_report_errors(), 0);
}
END_TEST

START_TEST(consistent_order_is_silent)
{
    for (int i = 0; i < 3; i++) {
        lock(A); lock(B); lock(C);
        unlock(C); unlock(B); unlock(A);
        pair(A, C);
        pair(B, C);
    }
    ck_assert_uint_eq(inversions(), 0);
    ck_assert_uint_eq(rt_report_errors(), 0);
}
END_TEST

START_TEST(trylock_adds_no_edge)
{
    pair(B, A);
    lock(A);
    lock_as(t0, B, RT_LOCK_MUTEX, RT_ACQ_TRY); /* back-off pattern: A then trylock B */
    unlock(B);
    unlock(A);
    ck_assert_uint_eq(inversions(), 0);
}
END_TEST

START_TEST(gate_lock_prevents_report)
{
    lock(G); pair(A, B); unlock(G);
    lock(G); pair(B, A); unlock(G);
    ck_assert_uint_eq(inversions(), 0);
    /* Without the gate the same order is a real deadlock. */
    pair(B, A);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(gate_taken_after_first_lock_does_not_count)
{
    /* G is taken after A, so it does not keep A -> B and B -> A apart. */
    lock(A); lock(G); lock(B); unlock(B); unlock(G); unlock(A);
    lock(G); lock(B); lock(A); unlock(A); unlock(B); unlock(G);
    ck_assert_uint_ge(inversions(), 1);
}
END_TEST

START_TEST(read_read_cycle_is_not_a_deadlock)
{
    lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ); lock(M); unlock(M); unlock(R);
    lock(M); lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ); unlock(R); unlock(M);
    ck_assert_uint_eq(inversions(), 0);
    /* A writer on the rwlock makes it one. */
    lock(M); lock_as(t0, R, RT_LOCK_RWLOCK, 0); unlock(R); unlock(M);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(writer_preferring_rwlock_read_cycle_is_a_deadlock)
{
    struct rt_lock *l = rt_lock_lookup(t0, (uintptr_t)R, RT_LOCK_RWLOCK, PC(9));
    l->traits = RT_TRAIT_WRITER_PREFERRING;
    lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ); lock(M); unlock(M); unlock(R);
    lock(M); lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ); unlock(R); unlock(M);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(recursive_read_is_allowed_writer_after_read_is_not)
{
    lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ);
    lock_as(t0, R, RT_LOCK_RWLOCK, RT_ACQ_READ);
    ck_assert_uint_eq(rt_report_count(RT_KIND_RECURSIVE_LOCKING), 0);
    lock_as(t0, R, RT_LOCK_RWLOCK, 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_RECURSIVE_LOCKING), 1);
}
END_TEST

START_TEST(address_reuse_starts_a_new_lock)
{
    pair(A, B);
    rt_on_free(t0, (uintptr_t)A, sizeof A, PC(5)); /* A's object dies; a new one takes its place */
    pair(B, A);
    ck_assert_uint_eq(inversions(), 0);
}
END_TEST

/* Locks created, nested and destroyed by the thousand leave the graph as
 * they came: a destroyed lock's node and edges are forgotten. */
START_TEST(churn_does_not_grow_graph)
{
    pair(A, B);
    unsigned long nodes = rt_lockorder_nodes(), edges = rt_lockorder_edges();
    static char objs[5][64];
    for (int round = 0; round < 1000; round++) {
        for (int i = 0; i < 5; i++)
            rt_on_lock_init(t0, (uintptr_t)objs[i], RT_LOCK_MUTEX, PC(300 + i));
        for (int i = 0; i < 5; i++)
            lock(objs[i]);
        for (int i = 5; i-- > 0;)
            unlock(objs[i]);
        for (int i = 0; i < 5; i++)
            rt_on_lock_destroy(t0, (uintptr_t)objs[i], PC(310));
    }
    ck_assert_uint_eq(rt_lockorder_nodes(), nodes);
    ck_assert_uint_eq(rt_lockorder_edges(), edges);
    /* The live locks' order is still known. */
    pair(B, A);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

/* A freed lock's edges go too, in and out. */
START_TEST(freed_lock_leaves_graph)
{
    pair(A, C);
    pair(C, B);
    ck_assert_uint_eq(rt_lockorder_edges(), 2);
    rt_on_free(t0, (uintptr_t)C, sizeof C, PC(5));
    ck_assert_uint_eq(rt_lockorder_edges(), 0);
    ck_assert_uint_eq(rt_lockorder_nodes(), 2);
    pair(B, A); /* A -> C -> B needed C: no cycle now */
    ck_assert_uint_eq(inversions(), 0);
}
END_TEST

/* Known edges are checked without the graph lock; one that a new
 * observation weakens (a gate it lacks) still goes through the search. */
START_TEST(known_edge_weakened_is_searched)
{
    lock(G); pair(A, B); unlock(G);
    lock(G); pair(B, A); unlock(G);
    for (int i = 0; i < 3; i++) {
        lock(G); pair(A, B); unlock(G); /* known, unchanged */
    }
    ck_assert_uint_eq(inversions(), 0);
    pair(A, B); /* without the gate */
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(site_classes_group_instances)
{
    ck_assert_ptr_nonnull(test_log_setup("lock_order_rule=lockdep:lock_classes=site"));
    /* Two locks initialized at one site form one class, as in lockdep. */
    rt_on_lock_init(t0, (uintptr_t)A, RT_LOCK_MUTEX, PC(100));
    rt_on_lock_init(t0, (uintptr_t)C, RT_LOCK_MUTEX, PC(100));
    pair(A, B);
    pair(B, C); /* B -> class(A, C): closes a cycle of classes */
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(cross_cpu_unlock)
{
    /* Two per-CPU locks of one class; the thread took CPU x's and releases
     * CPU y's. The acquisition CPU is faked: this test cannot migrate. */
    rt_on_lock_init(t0, (uintptr_t)A, RT_LOCK_MUTEX, PC(200));
    rt_on_lock_init(t0, (uintptr_t)B, RT_LOCK_MUTEX, PC(200));
    lock(A);
    t0->held[0].cpu = (int16_t)(rt_thread_cpu(t0) + 1);
    unlock(B);
    ck_assert_uint_eq(rt_report_count(RT_KIND_CROSS_CPU_UNLOCK), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "released as CPU"));
}
END_TEST

/* The same cycle learned while nobody waits: only "possible". */
START_TEST(inversion_not_happening)
{
    pair(A, B);
    pair(B, A);
    ck_assert_uint_eq(inversions(), 1);
    ck_assert_ptr_null(strstr(test_log_read(), "happening now"));
}
END_TEST

START_TEST(hundred_thousand_lock_graph)
{
    enum { N = 100000 };
    static char locks[N][8];
    for (int i = 0; i + 1 < N; i++)
        pair(locks[i], locks[i + 1]);
    ck_assert_uint_eq(rt_lockorder_nodes(), N);
    ck_assert_uint_eq(rt_lockorder_edges(), N - 1);
    ck_assert_uint_eq(inversions(), 0);
    pair(locks[N - 1], locks[0]); /* closes a cycle of 100,000 locks */
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

/* The distinct-threads rule (lock_order_rule=feasible, the default). Other
 * threads get ids no real thread has (above any pid_max), never this one's. */
#define FAKE_TID(n) (0x7fff0000 + (n))
static void feasible_setup(void)
{
    test_log_setup(NULL);
    t0 = rt_thread_new((int)syscall(SYS_gettid));
}

static void pair_as(struct rt_thread *t, char *x, char *y)
{
    lock_as(t, x, RT_LOCK_MUTEX, 0);
    lock_as(t, y, RT_LOCK_MUTEX, 0);
    rt_on_lock_release(t, (uintptr_t)y, PC(2));
    rt_on_lock_release(t, (uintptr_t)x, PC(2));
}

static unsigned long latents(void) { return rt_report_count(RT_KIND_LATENT_LOCK_ORDER); }

START_TEST(feasible_two_threads_deadlock)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2));
    pair_as(t1, A, B);
    pair_as(t2, B, A);
    ck_assert_uint_eq(inversions(), 1);
    rt_lockorder_report_latent();
    ck_assert_uint_eq(latents(), 0);
}
END_TEST

START_TEST(feasible_one_thread_is_latent)
{
    pair(A, B);
    pair(B, A);
    pair(B, A); /* the same thread again changes nothing */
    ck_assert_uint_eq(inversions(), 0);
    rt_lockorder_report_latent();
    ck_assert_uint_eq(latents(), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "INFO: latent circular locking dependency: 2 threads would have to run"));
    ck_assert_ptr_nonnull(strstr(log, "only 1 distinct thread made its 2 edges"));
    ck_assert_uint_eq(rt_report_errors(), 0); /* INFO: the exit status stays */
}
END_TEST

/* A -> B and B -> C by one thread, C -> A by another: three locks need
 * three threads. A third thread taking B -> C makes it a deadlock. */
START_TEST(feasible_three_locks_two_threads_then_three)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2)), *t3 = rt_thread_new(FAKE_TID(3));
    lock_as(t1, A, RT_LOCK_MUTEX, 0);
    lock_as(t1, B, RT_LOCK_MUTEX, 0);
    rt_on_lock_release(t1, (uintptr_t)A, PC(2));
    lock_as(t1, C, RT_LOCK_MUTEX, 0);
    rt_on_lock_release(t1, (uintptr_t)C, PC(2));
    rt_on_lock_release(t1, (uintptr_t)B, PC(2));
    pair_as(t2, C, A);
    ck_assert_uint_eq(inversions(), 0);
    pair_as(t3, B, C);
    ck_assert_uint_eq(inversions(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "WARNING: possible circular locking dependency detected"));
    rt_lockorder_report_latent();
    ck_assert_uint_eq(latents(), 0); /* reported as a deadlock, not again as latent */
}
END_TEST

/* A latent cycle becomes a deadlock when a second thread makes one of its
 * edges, whichever. */
START_TEST(feasible_latent_then_second_thread)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1));
    pair(A, B);
    pair(B, A);
    ck_assert_uint_eq(inversions(), 0);
    pair_as(t1, A, B);
    ck_assert_uint_eq(inversions(), 1);
    rt_lockorder_report_latent();
    ck_assert_uint_eq(latents(), 0);
}
END_TEST

START_TEST(feasible_lockdep_rule_restores_every_cycle)
{
    test_log_setup("lock_order_rule=lockdep");
    pair(A, B);
    pair(B, A);
    ck_assert_uint_eq(inversions(), 1);
    rt_lockorder_report_latent();
    ck_assert_uint_eq(latents(), 0);
}
END_TEST

/* Gates still apply: a cycle all of whose edges came under one outer lock,
 * from distinct threads, stays silent and is not latent either. */
START_TEST(feasible_gated_cycle_is_silent)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2));
    lock_as(t1, G, RT_LOCK_MUTEX, 0);
    pair_as(t1, A, B);
    rt_on_lock_release(t1, (uintptr_t)G, PC(2));
    lock_as(t2, G, RT_LOCK_MUTEX, 0);
    pair_as(t2, B, A);
    rt_on_lock_release(t2, (uintptr_t)G, PC(2));
    ck_assert_uint_eq(inversions(), 0);
    rt_lockorder_report_latent();
    ck_assert_uint_eq(latents(), 0);
}
END_TEST

/* The graph lock: exclusion under contention, and a waiter sleeps (not
 * spins) while the holder searches. The old spin-and-yield lock kept the
 * waiter runnable for as long as the holder held it. */
static rt_sleeplock_t test_graph_lock = RT_SLEEPLOCK_INIT;
static long graph_lock_counter;
static _Atomic int waiter_tid;

static void *graph_lock_adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200000; i++) {
        rt_sleeplock_lock(&test_graph_lock);
        graph_lock_counter++;
        rt_sleeplock_unlock(&test_graph_lock);
    }
    return NULL;
}

static void *graph_lock_waiter(void *arg)
{
    (void)arg;
    __atomic_store_n(&waiter_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
    rt_sleeplock_lock(&test_graph_lock);
    graph_lock_counter++;
    rt_sleeplock_unlock(&test_graph_lock);
    return NULL;
}

static char thread_state(int tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

START_TEST(graph_lock_excludes_and_sleeps_while_searching)
{
    pthread_t th[3];
    graph_lock_counter = 0;
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, graph_lock_adder, NULL), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(graph_lock_counter, 600000);

    rt_sleeplock_lock(&test_graph_lock);
    rt_sleeplock_searching(&test_graph_lock);
    ck_assert_int_eq(pthread_create(&th[0], NULL, graph_lock_waiter, NULL), 0);
    int tid;
    while (!(tid = __atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE)))
        usleep(1000);
    char state = '?';
    for (int i = 0; i < 10000 && (state = thread_state(tid)) != 'S'; i++)
        usleep(1000);
    ck_assert_int_eq(state, 'S');
    ck_assert_int_eq(__atomic_load_n(&test_graph_lock.state, __ATOMIC_RELAXED), 2);
    rt_sleeplock_unlock(&test_graph_lock);
    pthread_join(th[0], NULL);
    ck_assert_int_eq(graph_lock_counter, 600001);
    ck_assert_int_eq(test_graph_lock.state, 0);
    ck_assert_int_eq(test_graph_lock.searching, 0);
}
END_TEST

Suite *lockorder_suite(void)
{
    Suite *s = suite_create("lockorder");
    TCase *tc = tcase_create("lockorder");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, AA);
    tcase_add_test(tc, graph_lock_excludes_and_sleeps_while_searching);
    tcase_add_test(tc, ABBA);
    tcase_add_test(tc, ABBCCA);
    tcase_add_test(tc, ABCABC);
    tcase_add_test(tc, ABBCCDDA);
    tcase_add_test(tc, ABCDBDDA);
    tcase_add_test(tc, ABCDBCDA);
    tcase_add_test(tc, cycle_reported_once);
    tcase_add_test(tc, double_unlock);
    tcase_add_test(tc, init_of_held_lock);
    tcase_add_test(tc, destroy_of_held_lock);
    tcase_add_test(tc, unlock_by_non_owner);
    tcase_add_test(tc, annotated_name_follows_new_identity);
    tcase_add_test(tc, consistent_order_is_silent);
    tcase_add_test(tc, recursive_reentry_orders_nothing);
    tcase_add_test(tc, trylock_adds_no_edge);
    tcase_add_test(tc, gate_lock_prevents_report);
    tcase_add_test(tc, gate_taken_after_first_lock_does_not_count);
    tcase_add_test(tc, read_read_cycle_is_not_a_deadlock);
    tcase_add_test(tc, writer_preferring_rwlock_read_cycle_is_a_deadlock);
    tcase_add_test(tc, recursive_read_is_allowed_writer_after_read_is_not);
    tcase_add_test(tc, address_reuse_starts_a_new_lock);
    tcase_add_test(tc, churn_does_not_grow_graph);
    tcase_add_test(tc, freed_lock_leaves_graph);
    tcase_add_test(tc, known_edge_weakened_is_searched);
    tcase_add_test(tc, site_classes_group_instances);
    tcase_add_test(tc, cross_cpu_unlock);
    tcase_add_test(tc, inversion_not_happening);
    tcase_add_test(tc, hundred_thousand_lock_graph);
    suite_add_tcase(s, tc);
    TCase *feasible = tcase_create("feasible");
    tcase_add_checked_fixture(feasible, feasible_setup, NULL);
    tcase_add_test(feasible, feasible_two_threads_deadlock);
    tcase_add_test(feasible, feasible_one_thread_is_latent);
    tcase_add_test(feasible, feasible_three_locks_two_threads_then_three);
    tcase_add_test(feasible, feasible_latent_then_second_thread);
    tcase_add_test(feasible, feasible_lockdep_rule_restores_every_cycle);
    tcase_add_test(feasible, feasible_gated_cycle_is_silent);
    suite_add_tcase(s, feasible);
    return s;
}

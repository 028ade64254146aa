/* Steering into a cycle (detect/order/steer.c): the plan's grammar, sites
 * matched by module+offset, threads that meet are released together, a
 * lone one is released when its bound passes, and steering stops after
 * max_pauses pauses that met no one. */
#include "detect/suites.h"
#include "order/order.h"
#include "order/steer.h"
#include "locks/locks.h"
#include "report/report.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>

static int parse(const char *text, struct rt_steer_plan *p, char *why, size_t cap)
{
    struct rt_buf err;
    rt_buf_init(&err, why, cap);
    return rt_steer_plan_parse(p, text, strlen(text), &err);
}

START_TEST(plan_grammar)
{
    struct rt_steer_plan p;
    char why[256];
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\n# cycle: a -> b -> a\npause_ms 200\nno_pause 1\n"
                           "edge prog+0x121b prog+0x120c\nedge libx.so.1+0x11ad prog+0x119e\n",
                           &p, why, sizeof why),
                     0);
    ck_assert_uint_eq(p.nedges, 2);
    ck_assert_uint_eq(p.pause_ms, 200);
    ck_assert_uint_eq(p.no_pause, 2);
    ck_assert_str_eq(p.acquire[1].module, "libx.so.1");
    ck_assert_uint_eq(p.acquire[1].offset, 0x11ad);
    ck_assert_uint_eq(p.held[0].offset, 0x120c);
    ck_assert_uint_eq(rt_steer_plan_match(&p, "prog", 0x121b, 0), 1);
    ck_assert_uint_eq(rt_steer_plan_match(&p, "prog", 0x121b, 1), 0);
    ck_assert_uint_eq(rt_steer_plan_match(&p, "prog", 0x119e, 1), 2);
    ck_assert_uint_eq(rt_steer_plan_match(&p, "prog2", 0x119e, 1), 0);
    /* Refused: not a plan, one edge, a bad site, an unknown line, pause 0. */
    ck_assert_int_eq(parse("edge a+0x1 b+0x2\n", &p, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "not an rtdd confirm plan"));
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\nedge a+0x1 b+0x2\n", &p, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "at least 2 edges"));
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\nedge a+0x1 b+12\nedge a+0x3 b+0x4\n", &p, why, sizeof why), -1);
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\nedge a+0x1 b+0x2\nedge a+0xg b+0x4\n", &p, why, sizeof why), -1);
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\nsteer harder\nedge a+0x1 b+0x2\nedge c+0x1 d+0x2\n", &p, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "line 2"));
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\npause_ms 0\nedge a+0x1 b+0x2\nedge c+0x1 d+0x2\n", &p, why, sizeof why), -1);
    /* A cond-lock-order plan: a wait edge, and a free edge ("-": any held lock, or none). */
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\nwait prog+0x12be prog+0x1254\nedge prog+0x11f1 -\n", &p, why, sizeof why), 0);
    ck_assert_uint_eq(p.wait, 1);
    ck_assert_uint_eq(p.free, 2);
    ck_assert_uint_eq(rt_steer_plan_match(&p, "prog", 0x11f1, 0), 2);
    ck_assert_uint_eq(rt_steer_plan_match(&p, "prog", 0x1254, 1), 1);
    ck_assert_uint_eq(rt_steer_plan_match(&p, "prog", 0, 1), 0); /* a free edge's unset held site matches nothing */
    ck_assert_int_eq(parse("rtdd-confirm-plan 1\nwait prog+0x1 -x\nedge prog+0x2 -\n", &p, why, sizeof why), -1);
}
END_TEST

static struct rt_steer_plan plan_of(unsigned nedges, unsigned pause_ms, unsigned max_pauses)
{
    struct rt_steer_plan p;
    memset(&p, 0, sizeof p);
    p.nedges = nedges;
    p.pause_ms = pause_ms;
    p.max_pauses = max_pauses;
    for (unsigned i = 0; i < nedges; i++) {
        snprintf(p.acquire[i].module, sizeof p.acquire[i].module, "m");
        snprintf(p.held[i].module, sizeof p.held[i].module, "m");
        p.acquire[i].offset = 0x100 + i;
        p.held[i].offset = 0x200 + i;
    }
    return p;
}

struct arrival { unsigned edge; int result; };

static void *arrive(void *arg)
{
    struct arrival *a = arg;
    a->result = rt_steer_meet(a->edge);
    return NULL;
}

START_TEST(threads_meet_and_are_released_together)
{
    struct rt_steer_plan p = plan_of(3, 10000, 4);
    rt_steer_install(&p);
    unsigned met = rt_steer_met();
    struct arrival a[2] = { { 0, -2 }, { 1, -2 } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, arrive, &a[i]);
    /* Both wait at their edges. */
    while (rt_steer_arrived() != 3)
        sched_yield();
    /* A second thread at an edge already taken goes on at once. */
    ck_assert_int_eq(rt_steer_meet(0), -1);
    /* The last edge's thread releases both waiters, long before their bound. */
    ck_assert_int_eq(rt_steer_meet(2), 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(a[0].result, 1);
    ck_assert_int_eq(a[1].result, 1);
    ck_assert_uint_eq(rt_steer_met(), met + 1);
    ck_assert_int_eq(rt_steer_on, 1);
}
END_TEST

START_TEST(a_lone_thread_is_released_at_its_bound_and_steering_stops)
{
    struct rt_steer_plan p = plan_of(2, 30, 2);
    rt_steer_install(&p);
    unsigned before = rt_steer_timeouts();
    ck_assert_int_eq(rt_steer_meet(0), 0);
    ck_assert_int_eq(rt_steer_on, 1);
    ck_assert_int_eq(rt_steer_meet(1), 0);
    ck_assert_uint_eq(rt_steer_timeouts(), before + 2);
    /* max_pauses pauses met no one: this run is left alone from now on. */
    ck_assert_int_eq(rt_steer_on, 0);
    /* A no_pause edge arrives and goes on without waiting. */
    p.no_pause = 1;
    p.pause_ms = 10000;
    rt_steer_install(&p);
    ck_assert_int_eq(rt_steer_meet(0), 0); /* 0, not 1: no one met it; at once, or the test times out */
    __atomic_store_n(&rt_steer_on, 0, __ATOMIC_RELAXED);
}
END_TEST

/* The sites as the runtime sees them: a thread at an acquisition pc that
 * holds a lock taken at the edge's held pc pauses; one holding another
 * lock does not. */
static char here_acquire[2], here_held[2];

struct steered { struct rt_thread *t; uintptr_t pc; };

static void *steer_at(void *arg)
{
    struct steered *s = arg;
    rt_steer_before_wait(s->t, s->pc);
    return NULL;
}

static struct rt_thread *holding(uintptr_t pc)
{
    struct rt_thread *t = calloc(1, sizeof *t);
    struct rt_held *h = calloc(1, sizeof *h);
    uint32_t size = 16;
    h->stack = rt_stack_intern(&pc, &size, 1);
    t->held = h;
    t->nheld = 1;
    return t;
}

START_TEST(sites_are_matched_by_module_and_offset)
{
    struct rt_module m;
    ck_assert_int_eq(rt_module_find((uintptr_t)here_acquire, &m), 0);
    struct rt_steer_plan p = plan_of(2, 10000, 4);
    for (unsigned i = 0; i < 2; i++) {
        snprintf(p.acquire[i].module, sizeof p.acquire[i].module, "%s", m.name);
        snprintf(p.held[i].module, sizeof p.held[i].module, "%s", m.name);
        p.acquire[i].offset = (uintptr_t)&here_acquire[i] - m.base;
        p.held[i].offset = (uintptr_t)&here_held[i] - m.base;
    }
    rt_steer_install(&p);
    unsigned met = rt_steer_met(), timeouts = rt_steer_timeouts();
    /* Holding the wrong lock (edge 1's held site at edge 0's acquisition): no pause. */
    struct rt_thread *wrong = holding((uintptr_t)&here_held[1]);
    rt_steer_before_wait(wrong, (uintptr_t)&here_acquire[0]);
    ck_assert_uint_eq(rt_steer_timeouts(), timeouts);
    /* The two edges' threads meet. */
    struct steered s0 = { holding((uintptr_t)&here_held[0]), (uintptr_t)&here_acquire[0] };
    pthread_t t;
    pthread_create(&t, NULL, steer_at, &s0);
    while (rt_steer_arrived() != 1)
        sched_yield();
    struct rt_thread *other = holding((uintptr_t)&here_held[1]);
    rt_steer_before_wait(other, (uintptr_t)&here_acquire[1]);
    pthread_join(t, NULL);
    ck_assert_uint_eq(rt_steer_met(), met + 1);
    ck_assert_uint_eq(rt_steer_timeouts(), timeouts);
    __atomic_store_n(&rt_steer_on, 0, __ATOMIC_RELAXED);
    struct rt_thread *ts_[] = { wrong, s0.t, other };
    for (unsigned i = 0; i < 3; i++) {
        free(ts_[i]->held);
        free(ts_[i]);
    }
}
END_TEST

/* A cond-lock-order plan: the waiter (edge 0, a wait, holding the lock
 * taken at here_held[0]) and the signaller (edge 1, a lock call, holding
 * nothing) meet; the waiter's site is not a lock call's (a condition
 * wait's mutex is taken again at the wait's own site). */
START_TEST(a_wait_and_a_free_edge_meet)
{
    struct rt_module m;
    ck_assert_int_eq(rt_module_find((uintptr_t)here_acquire, &m), 0);
    struct rt_steer_plan p = plan_of(2, 10000, 4);
    for (unsigned i = 0; i < 2; i++) {
        snprintf(p.acquire[i].module, sizeof p.acquire[i].module, "%s", m.name);
        p.acquire[i].offset = (uintptr_t)&here_acquire[i] - m.base;
    }
    snprintf(p.held[0].module, sizeof p.held[0].module, "%s", m.name);
    p.held[0].offset = (uintptr_t)&here_held[0] - m.base;
    p.wait = 1;
    p.free = 2;
    rt_steer_install(&p);
    ck_assert_int_eq(rt_thread_slow_acquire, 1);
    unsigned met = rt_steer_met(), timeouts = rt_steer_timeouts();
    struct rt_thread *waiter = holding((uintptr_t)&here_held[0]);
    /* The wait's site reached by a lock call (the mutex taken again): no pause. */
    rt_steer_before_wait(waiter, (uintptr_t)&here_acquire[0]);
    ck_assert_uint_eq(rt_steer_timeouts(), timeouts);
    ck_assert_uint_eq(rt_steer_arrived(), 0);
    /* The signaller, holding nothing, at its lock call; the waiter at its wait. */
    struct rt_thread *lone = calloc(1, sizeof *lone);
    struct steered s1 = { lone, (uintptr_t)&here_acquire[1] };
    pthread_t t;
    pthread_create(&t, NULL, steer_at, &s1);
    while (rt_steer_arrived() != 2)
        sched_yield();
    rt_steer_before_event_wait(waiter, (uintptr_t)&here_acquire[0]);
    pthread_join(t, NULL);
    ck_assert_uint_eq(rt_steer_met(), met + 1);
    ck_assert_uint_eq(rt_steer_timeouts(), timeouts);
    __atomic_store_n(&rt_steer_on, 0, __ATOMIC_RELAXED);
    rt_thread_slow_acquire = 0;
    free(waiter->held);
    free(waiter);
    free(lone);
}
END_TEST

Suite *steer_suite(void)
{
    Suite *s = suite_create("steer");
    TCase *tc = tcase_create("steer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, plan_grammar);
    tcase_add_test(tc, threads_meet_and_are_released_together);
    tcase_add_test(tc, a_lone_thread_is_released_at_its_bound_and_steering_stops);
    tcase_add_test(tc, sites_are_matched_by_module_and_offset);
    tcase_add_test(tc, a_wait_and_a_free_edge_meet);
    suite_add_tcase(s, tc);
    return s;
}

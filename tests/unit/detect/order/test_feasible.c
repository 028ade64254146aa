/* The distinct-threads rule (detect/order/feasible.c) against a brute force that
 * tries every assignment: every cycle of up to four edges over thread sets
 * drawn from four threads, random longer ones with saturated sets, and the
 * shapes of the issue (one thread, three locks from two threads). */
#include "detect/suites.h"
#include "order/feasible.h"
#include <stdlib.h>
#include <string.h>

/* A concrete set: its threads as bits of a mask (threads 0..7). */
static int brute(const unsigned *masks, unsigned n, unsigned used, unsigned i)
{
    if (i == n)
        return 1;
    for (unsigned th = 0; th < 8; th++)
        if ((masks[i] >> th & 1) && !(used >> th & 1) && brute(masks, n, used | 1u << th, i + 1))
            return 1;
    return 0;
}

/* The runtime's view of a concrete set: its first four threads, then "more". */
static void as_threadset(unsigned mask, struct rt_threadset *s)
{
    memset(s, 0, sizeof *s);
    for (unsigned th = 0; th < 8; th++)
        if (mask >> th & 1)
            rt_threadset_add(s, 100 + (int)th);
}

static int ours(const unsigned *masks, unsigned n)
{
    struct rt_threadset sets[RT_FEASIBLE_MAX];
    const struct rt_threadset *ptrs[RT_FEASIBLE_MAX];
    for (unsigned i = 0; i < n; i++) {
        as_threadset(masks[i], &sets[i]);
        ptrs[i] = &sets[i];
    }
    return rt_threads_distinct(ptrs, n);
}

START_TEST(every_small_cycle_over_four_threads)
{
    /* Every non-empty subset of threads 0..3 for each of up to 4 edges. */
    for (unsigned n = 1; n <= 4; n++) {
        unsigned total = 1;
        for (unsigned i = 0; i < n; i++)
            total *= 15;
        for (unsigned code = 0; code < total; code++) {
            unsigned masks[4], c = code;
            for (unsigned i = 0; i < n; i++, c /= 15)
                masks[i] = c % 15 + 1;
            ck_assert_msg(ours(masks, n) == brute(masks, n, 0, 0), "n=%u code=%u", n, code);
        }
    }
}
END_TEST

/* Sets of up to eight threads: past four the runtime keeps only "more".
 * Exact up to five edges; beyond, never stricter than the truth. */
START_TEST(saturated_sets_against_brute_force)
{
    srand(12345);
    for (int round = 0; round < 200000; round++) {
        unsigned n = 1 + (unsigned)rand() % 7, masks[8];
        for (unsigned i = 0; i < n; i++) {
            masks[i] = 0;
            unsigned k = 1 + (unsigned)rand() % (rand() % 4 ? 3 : 7);
            while (k--)
                masks[i] |= 1u << (rand() % 8);
        }
        int truth = brute(masks, n, 0, 0), got = ours(masks, n);
        if (n <= RT_EDGE_THREADS + 1)
            ck_assert_msg(got == truth, "round %d n=%u", round, n);
        else
            ck_assert_msg(got >= truth, "round %d n=%u", round, n);
    }
}
END_TEST

START_TEST(the_shapes_of_the_issue)
{
    /* One thread made both edges (L1 -> L2, then L2 -> L1 under it). */
    unsigned one[] = { 1, 1 };
    ck_assert_int_eq(ours(one, 2), 0);
    /* Two threads, one edge each: the classic deadlock. */
    unsigned two[] = { 1, 2 };
    ck_assert_int_eq(ours(two, 2), 1);
    /* A -> B and B -> C by thread 1, C -> A by thread 2: three locks, two threads. */
    unsigned three[] = { 1, 1, 2 };
    ck_assert_int_eq(ours(three, 3), 0);
    /* ... until a third thread also takes B -> C. */
    unsigned later[] = { 1, 1 | 4, 2 };
    ck_assert_int_eq(ours(later, 3), 1);
    /* A shared edge does not make two threads out of one. */
    unsigned shared[] = { 1 | 2, 1 | 2, 1 | 2 };
    ck_assert_int_eq(ours(shared, 3), 0);
}
END_TEST

/* The join rule: threads (bits) in `ended` ended before closer's
 * acquisition (closer joined them). Brute force: some assignment of
 * distinct threads where, if the closing edge (the last) goes to closer,
 * no other edge goes to an ended thread. */
static int brute_joined(const unsigned *masks, unsigned n, unsigned closer, unsigned ended, unsigned used,
                        unsigned i, int closer_closes)
{
    if (i == n)
        return 1;
    for (unsigned th = 0; th < 8; th++) {
        if (!(masks[i] >> th & 1) || (used >> th & 1))
            continue;
        int closes = i == n - 1 ? th == closer : closer_closes;
        if (i == n - 1 && closes && (used & ended))
            continue;
        if (brute_joined(masks, n, closer, ended, used | 1u << th, i + 1, closes))
            return 1;
    }
    return 0;
}

static unsigned ended_mask;
static int ended_before_mask(int tid, int observer)
{
    (void)observer;
    return tid >= 100 && (ended_mask >> (tid - 100) & 1);
}

static int ours_joined(const unsigned *masks, unsigned n, unsigned closer, unsigned ended)
{
    struct rt_threadset sets[RT_FEASIBLE_MAX];
    const struct rt_threadset *ptrs[RT_FEASIBLE_MAX];
    for (unsigned i = 0; i < n; i++) {
        as_threadset(masks[i], &sets[i]);
        ptrs[i] = &sets[i];
    }
    ended_mask = ended;
    return rt_cycle_feasible(ptrs, n, 100 + (int)closer, ended_before_mask);
}

START_TEST(joined_threads_against_brute_force)
{
    /* Every cycle of 2..4 edges over threads 0..3 whose closing edge the
     * closer made, every closer and every set of threads it joined. */
    for (unsigned n = 2; n <= 4; n++) {
        unsigned total = 1;
        for (unsigned i = 0; i < n; i++)
            total *= 15;
        for (unsigned code = 0; code < total; code++) {
            unsigned masks[4], c = code;
            for (unsigned i = 0; i < n; i++, c /= 15)
                masks[i] = c % 15 + 1;
            for (unsigned closer = 0; closer < 4; closer++) {
                if (!(masks[n - 1] >> closer & 1))
                    continue;
                for (unsigned ended = 0; ended < 16; ended++) {
                    if (ended >> closer & 1)
                        continue;
                    int truth = brute_joined(masks, n, closer, ended, 0, 0, 0);
                    ck_assert_msg(ours_joined(masks, n, closer, ended) == truth, "n=%u code=%u closer=%u ended=%x",
                                  n, code, closer, ended);
                }
            }
        }
    }
    /* Nothing joined: the distinct-threads rule itself. */
    unsigned two[] = { 1, 2 };
    ck_assert_int_eq(ours_joined(two, 2, 1, 0), 1);
    /* knotd at shutdown: the scheduler (0) made A -> B and was joined by
     * main (1), which makes B -> A: latent. */
    ck_assert_int_eq(ours_joined(two, 2, 1, 1), 0);
    /* ... unless another live thread (2) made A -> B too. */
    unsigned three[] = { 1 | 4, 2 };
    ck_assert_int_eq(ours_joined(three, 2, 1, 1), 1);
    /* A set past its size may hold a live thread: kept. */
    unsigned wide[] = { 0x1f, 0x20 };
    ck_assert_int_eq(ours_joined(wide, 2, 5, 0x1f), 1);
}
END_TEST

START_TEST(threadsets_remember_and_saturate)
{
    struct rt_threadset s;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(rt_threadset_has(&s, 7), 0);
    ck_assert_int_eq(rt_threadset_add(&s, 7), 1);
    ck_assert_int_eq(rt_threadset_add(&s, 7), 0);
    for (int t = 8; t < 8 + RT_EDGE_THREADS - 1; t++)
        ck_assert_int_eq(rt_threadset_add(&s, t), 1);
    ck_assert_int_eq(s.more, 0);
    ck_assert_int_eq(rt_threadset_add(&s, 99), 1); /* the fifth: "more" */
    ck_assert_int_eq(s.more, 1);
    ck_assert_int_eq(rt_threadset_add(&s, 100), 0);
    ck_assert_int_eq(rt_threadset_has(&s, 12345), 1);
    /* Longer than the matcher takes: assumed feasible. */
    const struct rt_threadset *many[RT_FEASIBLE_MAX + 1];
    struct rt_threadset single;
    memset(&single, 0, sizeof single);
    rt_threadset_add(&single, 1);
    for (unsigned i = 0; i <= RT_FEASIBLE_MAX; i++)
        many[i] = &single;
    ck_assert_int_eq(rt_threads_distinct(many, RT_FEASIBLE_MAX), 0);
    ck_assert_int_eq(rt_threads_distinct(many, RT_FEASIBLE_MAX + 1), 1);
}
END_TEST

Suite *feasible_suite(void)
{
    Suite *s = suite_create("feasible");
    TCase *tc = tcase_create("feasible");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_small_cycle_over_four_threads);
    tcase_add_test(tc, saturated_sets_against_brute_force);
    tcase_add_test(tc, the_shapes_of_the_issue);
    tcase_add_test(tc, joined_threads_against_brute_force);
    tcase_add_test(tc, threadsets_remember_and_saturate);
    suite_add_tcase(s, tc);
    return s;
}

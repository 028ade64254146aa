/* Lock groups (detect/locks/lockgroup.h): the locks of one init site become one
 * node of the lock-order graph once many are in it and none was nested in
 * another; nesting two splits the group; lock_classes=instance never
 * groups. Threads other than this one get ids no real thread has. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "locks/lockgroup.h"
#include "order/order.h"
#include "report/report.h"
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x600000 + (n))
#define SITE PC(100)
#define FAKE_TID(n) (0x7fff0000 + (n))
#define MEMBERS 48
static pthread_mutex_t members[MEMBERS];
static char X[64], Y[64], A[64], B[64];
static struct rt_thread *t0;

static void setup(void)
{
    test_log_setup(NULL);
    t0 = rt_thread_new((int)syscall(SYS_gettid));
}

static void make_members(void)
{
    for (int i = 0; i < MEMBERS; i++)
        rt_on_lock_init(t0, (uintptr_t)&members[i], RT_LOCK_MUTEX, SITE);
}

static void take(struct rt_thread *t, void *obj, unsigned flags)
{
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)obj, RT_LOCK_MUTEX, PC(1));
    uint64_t chain = rt_on_lock_pre(t, l, flags, PC(2));
    rt_on_lock_acquired(t, l, flags, chain, PC(3));
}
static void drop(struct rt_thread *t, void *obj) { rt_on_lock_release(t, (uintptr_t)obj, PC(4)); }
static void pair_as(struct rt_thread *t, void *x, void *y)
{
    take(t, x, 0);
    take(t, y, 0);
    drop(t, y);
    drop(t, x);
}
static unsigned long inversions(void) { return rt_report_count(RT_KIND_LOCK_ORDER_INVERSION); }
static const struct rt_lock_group *group_of(void *obj)
{
    struct rt_lock *l = rt_lock_find((uintptr_t)obj);
    ck_assert_ptr_nonnull(l);
    ck_assert_uint_ne(l->group, 0);
    return &rt_lock_groups[l->group - 1];
}
/* X -> members[i] for every member: the group widens on the way. */
static void widen(void)
{
    make_members();
    for (int i = 0; i < MEMBERS; i++)
        pair_as(t0, X, &members[i]);
    ck_assert(__atomic_load_n(&group_of(&members[0])->wide, __ATOMIC_RELAXED));
}

START_TEST(group_widens_when_many_members_are_in_the_graph)
{
    make_members();
    for (int i = 0; i < RT_GROUP_WIDEN - 1; i++)
        pair_as(t0, X, &members[i]);
    ck_assert_uint_eq(rt_lockorder_nodes(), RT_GROUP_WIDEN); /* X and 31 members */
    ck_assert(!group_of(&members[0])->wide);
    for (int i = RT_GROUP_WIDEN - 1; i < MEMBERS; i++)
        pair_as(t0, X, &members[i]);
    ck_assert(group_of(&members[0])->wide);
    ck_assert_uint_eq(rt_lockorder_nodes(), 2);
    ck_assert_uint_eq(rt_lockorder_edges(), 1);
    ck_assert_uint_eq(rt_lockgroup_count(), 1);
    ck_assert_uint_eq(rt_report_errors(), 0);
}
END_TEST

START_TEST(narrow_group_orders_each_lock)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2));
    make_members();
    pair_as(t1, X, &members[1]);
    pair_as(t2, &members[2], X);
    ck_assert_uint_eq(inversions(), 0);
    rt_lockorder_report_latent();
    ck_assert_uint_eq(rt_report_count(RT_KIND_LATENT_LOCK_ORDER), 0);
}
END_TEST

START_TEST(wide_group_orders_as_one_lock)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2));
    widen();
    pair_as(t1, &members[0], Y);
    ck_assert_uint_eq(inversions(), 0);
    pair_as(t2, Y, &members[5]); /* another lock of the group, the other order */
    ck_assert_uint_eq(inversions(), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "stands for every lock initialized where it was"));
}
END_TEST

/* Edges learned while the members were their own nodes move to the group. */
START_TEST(edges_before_widening_are_kept)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1));
    make_members();
    pair_as(t0, &members[0], Y); /* members[0] -> Y, before the group widens */
    for (int i = 1; i < MEMBERS; i++)
        pair_as(t0, X, &members[i]);
    ck_assert(group_of(&members[0])->wide);
    pair_as(t1, Y, &members[0]);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(nested_members_split_the_group)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2));
    make_members();
    pair_as(t1, &members[1], &members[2]);
    ck_assert(group_of(&members[1])->split);
    pair_as(t2, &members[2], &members[1]);
    ck_assert_uint_eq(inversions(), 1);
    const struct rt_lock_group *grp = group_of(&members[3]);
    /* A split group never widens: each member stays its own node. */
    for (int i = 3; i < MEMBERS; i++)
        pair_as(t0, X, &members[i]);
    ck_assert(!grp->wide);
    /* ...and its locks, once seen split, no longer look at it. */
    ck_assert_uint_eq(rt_locktab_find((uintptr_t)&members[1])->group, 0);
    ck_assert_uint_eq(rt_lockorder_nodes(), 1 + MEMBERS - 1);
}
END_TEST

START_TEST(trylock_nesting_does_not_split)
{
    make_members();
    take(t0, &members[1], 0);
    take(t0, &members[2], RT_ACQ_TRY);
    drop(t0, &members[2]);
    drop(t0, &members[1]);
    ck_assert(!group_of(&members[1])->split);
}
END_TEST

/* A wide group that splits keeps its node: an edge it learned while wide
 * still closes a cycle with the members' later edges. */
START_TEST(split_after_widening_keeps_the_old_edges)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1));
    widen(); /* X -> group */
    pair_as(t0, &members[1], &members[2]);
    ck_assert(group_of(&members[1])->split);
    ck_assert(group_of(&members[1])->remnant);
    ck_assert_uint_eq(inversions(), 0);
    pair_as(t1, &members[3], X);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

/* Gates are locks, not groups: two threads holding two members of one
 * group are not kept apart by them. */
START_TEST(members_as_outer_locks_do_not_gate)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2));
    widen();
    take(t1, &members[1], 0);
    pair_as(t1, A, B);
    drop(t1, &members[1]);
    take(t2, &members[2], 0);
    pair_as(t2, B, A);
    drop(t2, &members[2]);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(one_member_as_outer_lock_gates)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1)), *t2 = rt_thread_new(FAKE_TID(2));
    widen();
    take(t1, &members[1], 0);
    pair_as(t1, A, B);
    drop(t1, &members[1]);
    take(t2, &members[1], 0);
    pair_as(t2, B, A);
    drop(t2, &members[1]);
    ck_assert_uint_eq(inversions(), 0);
}
END_TEST

/* Members made and destroyed one at a time never crowd the graph. */
START_TEST(destroyed_members_leave_the_group)
{
    for (int round = 0; round < 1000; round++) {
        rt_on_lock_init(t0, (uintptr_t)&members[round % 2], RT_LOCK_MUTEX, SITE);
        pair_as(t0, X, &members[round % 2]);
        rt_on_lock_destroy(t0, (uintptr_t)&members[round % 2], PC(5));
    }
    rt_on_lock_init(t0, (uintptr_t)&members[0], RT_LOCK_MUTEX, SITE);
    ck_assert(!group_of(&members[0])->wide);
    ck_assert_uint_le(rt_lockorder_nodes(), 2);
}
END_TEST

/* A destroyed member of a wide group leaves the group's node to the rest. */
START_TEST(destroyed_member_of_wide_group_keeps_its_node)
{
    struct rt_thread *t1 = rt_thread_new(FAKE_TID(1));
    widen();
    rt_on_lock_destroy(t0, (uintptr_t)&members[0], PC(5));
    ck_assert_uint_eq(rt_lockorder_nodes(), 2);
    pair_as(t1, &members[7], X);
    ck_assert_uint_eq(inversions(), 1);
}
END_TEST

START_TEST(instance_option_never_groups)
{
    test_log_setup("lock_classes=instance");
    make_members();
    for (int i = 0; i < MEMBERS; i++)
        pair_as(t0, X, &members[i]);
    ck_assert_uint_eq(rt_locktab_find((uintptr_t)&members[0])->group, 0);
    ck_assert_uint_eq(rt_lockorder_nodes(), 1 + MEMBERS);
}
END_TEST

/* A lock's record names its own node (lockorder.c finds it without the
 * node table): under random nesting, widening, splitting, destroys,
 * re-inits and unlocks by other threads, the record and the table agree
 * for every lock after every step. */
static void assert_lookups_agree(void *const *objs, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct rt_lock *l = rt_locktab_find((uintptr_t)objs[i]);
        if (l)
            ck_assert_msg(rt_lockorder_node_lookups_agree(l), "lock %u: record and node table disagree", i);
    }
}

START_TEST(record_names_its_node_under_random_operations)
{
    enum { LONERS = 8, STEPS = 4000 };
    static char loners[LONERS][64];
    void *objs[MEMBERS + LONERS + 1];
    unsigned n = 0;
    for (int i = 0; i < MEMBERS; i++)
        objs[n++] = &members[i];
    for (int i = 0; i < LONERS; i++) {
        objs[n++] = loners[i];
        rt_on_lock_init(t0, (uintptr_t)loners[i], RT_LOCK_MUTEX, PC(200 + i));
    }
    objs[n++] = X;
    struct rt_thread *th[3] = { t0, rt_thread_new(FAKE_TID(1)), rt_thread_new(FAKE_TID(2)) };
    widen();
    assert_lookups_agree(objs, n);
    unsigned seed = 12345;
    for (int step = 0; step < STEPS; step++) {
        unsigned r = rand_r(&seed);
        struct rt_thread *t = th[r % 3];
        void *x = objs[(r >> 4) % n], *y = objs[(r >> 12) % n];
        switch ((r >> 20) % 8) {
        case 0: /* a member's lock is made again */
            rt_on_lock_destroy(t0, (uintptr_t)x, PC(5));
            rt_on_lock_init(t0, (uintptr_t)x, RT_LOCK_MUTEX, x < (void *)loners ? SITE : PC(300));
            break;
        case 1: /* taken by one thread, released by another: a new identity */
            take(th[0], x, 0);
            drop(th[1], x);
            break;
        case 2: /* nesting under X while another member is held may split the group */
            take(t, X, 0);
            if (x != X)
                pair_as(t, x, y == x || y == X ? loners[0] : y);
            drop(t, X);
            break;
        default:
            if (x != y)
                pair_as(t, x, y);
            break;
        }
        assert_lookups_agree(objs, n);
    }
}
END_TEST

Suite *lockgroup_suite(void)
{
    Suite *s = suite_create("lockgroup");
    TCase *tc = tcase_create("lockgroup");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, group_widens_when_many_members_are_in_the_graph);
    tcase_add_test(tc, narrow_group_orders_each_lock);
    tcase_add_test(tc, wide_group_orders_as_one_lock);
    tcase_add_test(tc, edges_before_widening_are_kept);
    tcase_add_test(tc, nested_members_split_the_group);
    tcase_add_test(tc, trylock_nesting_does_not_split);
    tcase_add_test(tc, split_after_widening_keeps_the_old_edges);
    tcase_add_test(tc, members_as_outer_locks_do_not_gate);
    tcase_add_test(tc, one_member_as_outer_lock_gates);
    tcase_add_test(tc, destroyed_members_leave_the_group);
    tcase_add_test(tc, destroyed_member_of_wide_group_keeps_its_node);
    tcase_add_test(tc, instance_option_never_groups);
    tcase_add_test(tc, record_names_its_node_under_random_operations);
    suite_add_tcase(s, tc);
    return s;
}

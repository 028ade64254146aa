/* RCU pointers as locations (rcuptr.c), driven with plain calls: who wrote
 * a pointer under which locks, dereferences outside read sections, and
 * frees of what a pointer still holds. */
#include "detect_suites.h"
#include "engine.h"
#include "rcucheck.h"
#include "rcuptr.h"
#include "report.h"
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x710000 + (n))
#define FAKE_TID(n) (0x7ffd0000 + (n))
static char L[64], M[64];
static struct rt_thread *t0, *t1, *t2;
/* Pointers in static storage, each test its own. */
static void *static_ptr[8];

static void setup(void)
{
    test_log_setup(NULL);
    t0 = rt_thread_new((int)syscall(SYS_gettid));
    t1 = rt_thread_new(FAKE_TID(1));
    t2 = rt_thread_new(FAKE_TID(2));
}

static void take(struct rt_thread *t, void *obj)
{
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)obj, RT_LOCK_MUTEX, PC(0x40));
    uint64_t chain = rt_on_lock_pre(t, l, 0, PC(1));
    rt_on_lock_acquired(t, l, 0, chain, PC(0x41));
}
static void drop(struct rt_thread *t, void *obj) { rt_on_lock_release(t, (uintptr_t)obj, PC(2)); }

/* A write of v into *slot by t holding lock (NULL: none), as the hooks make it. */
static void write_ptr(struct rt_thread *t, void **slot, void *v, void *lock, enum rt_rcu_update op)
{
    if (lock)
        take(t, lock);
    void *old = *slot;
    *slot = v;
    rt_rcu_publish(t, slot, old, v, op, PC(0x10 + op));
    if (lock)
        drop(t, lock);
}

static void deref_outside(struct rt_thread *t, void **slot, void *lock)
{
    if (lock)
        take(t, lock);
    rt_rcu_dereference(t, slot, *slot, PC(0x20));
    if (lock)
        drop(t, lock);
}

static unsigned long count(enum rt_kind k) { return rt_report_count(k); }

START_TEST(updaters_under_different_locks_are_reported)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void **p = &static_ptr[0];
    write_ptr(t0, p, a, L, RT_RCU_ASSIGN);
    write_ptr(t1, p, b, M, RT_RCU_ASSIGN); /* the first write of a second thread: not compared */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
    write_ptr(t0, p, c, L, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "RCU pointer updated by concurrent updaters with no lock in common"));
    ck_assert_ptr_nonnull(strstr(log, "static_ptr"));
    write_ptr(t1, p, a, M, RT_RCU_ASSIGN); /* one report per pointer */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
}
END_TEST

START_TEST(updaters_sharing_a_lock_are_not)
{
    char a[16] = "", b[16] = "";
    void **p = &static_ptr[1];
    for (int i = 0; i < 4; i++) {
        write_ptr(t0, p, a, L, RT_RCU_ASSIGN);
        take(t1, M); /* an extra lock changes nothing */
        write_ptr(t1, p, b, L, RT_RCU_ASSIGN);
        drop(t1, M);
    }
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
}
END_TEST

/* Set up by one thread, then updated by a single other one without lock. */
START_TEST(initialization_then_a_single_updater)
{
    char a[16] = "", b[16] = "";
    void **p = &static_ptr[2];
    write_ptr(t0, p, a, NULL, RT_RCU_ASSIGN);
    for (int i = 0; i < 4; i++)
        write_ptr(t1, p, i % 2 ? a : b, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
}
END_TEST

START_TEST(atomic_updates_protect_each_other_not_plain_ones)
{
    char a[16] = "", b[16] = "";
    void **p = &static_ptr[3];
    for (int i = 0; i < 4; i++) {
        write_ptr(t0, p, a, NULL, RT_RCU_XCHG);
        write_ptr(t1, p, b, NULL, i % 2 ? RT_RCU_CMPXCHG : RT_RCU_XCHG);
    }
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
    write_ptr(t0, p, b, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
}
END_TEST

/* Writes by a thread that has exited race with nobody any more. */
START_TEST(writes_of_an_exited_thread_do_not_count)
{
    char a[16] = "", b[16] = "";
    void **p = &static_ptr[4];
    write_ptr(t0, p, a, L, RT_RCU_ASSIGN);
    write_ptr(t1, p, b, M, RT_RCU_ASSIGN);
    write_ptr(t1, p, a, M, RT_RCU_ASSIGN);
    rt_thread_free(t1);
    write_ptr(t0, p, b, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
}
END_TEST

START_TEST(dereference_outside_without_the_updaters_lock)
{
    char a[16] = "", b[16] = "";
    void *q = NULL, *r = NULL;
    write_ptr(t1, &q, a, L, RT_RCU_ASSIGN);
    write_ptr(t1, &r, b, L, RT_RCU_ASSIGN);
    deref_outside(t0, &r, L); /* the updaters' lock: fine */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 0);
    deref_outside(t1, &q, NULL); /* the updater's own load */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 0);
    rt_rcu_read_enter(t0, RT_RCU_RTDD, PC(0x30)); /* inside a section: fine */
    deref_outside(t0, &q, NULL);
    rt_rcu_read_exit(t0, RT_RCU_RTDD, PC(0x31));
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 0);
    deref_outside(t0, &q, M);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "WARNING: suspicious RCU usage"));
    ck_assert_ptr_nonnull(strstr(log, "calls rcu_dereference() outside any read-side critical section"));
    ck_assert_ptr_nonnull(strstr(log, "with rcu_assign_pointer() holding"));
}
END_TEST

/* Dereferenced before any other thread wrote it: judged at that write. */
START_TEST(dereference_judged_at_the_next_write)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void *q = a, *r = a;
    deref_outside(t0, &q, M);
    deref_outside(t0, &r, M);
    write_ptr(t1, &r, b, M, RT_RCU_ASSIGN); /* the dereference held M too */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 0);
    write_ptr(t1, &q, c, L, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "was holding"));
}
END_TEST

START_TEST(false_conditions_are_reported_at_once)
{
    char a[16] = "";
    void *q = a;
    rt_rcu_dereference_unprotected(t0, &q, a, RT_DEREF_PROTECTED_FAILED, PC(0x50));
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "rcu_dereference_protected() whose condition is false"));
    /* rcu_dereference_check()'s condition is an alternative to a section. */
    void *r = a;
    rt_rcu_read_enter(t0, RT_RCU_RTDD, PC(0x30));
    rt_rcu_dereference_unprotected(t0, &r, a, RT_DEREF_CHECK_FAILED, PC(0x51));
    rt_rcu_read_exit(t0, RT_RCU_RTDD, PC(0x31));
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1);
}
END_TEST

START_TEST(static_pointer_freed_while_readers_run)
{
    char *obj = calloc(1, 64);
    void **p = &static_ptr[5];
    t1->rcu.sections = 1; /* a reader */
    write_ptr(t0, p, obj + 16, NULL, RT_RCU_ASSIGN); /* a pointer into it */
    rt_rcu_on_free(t0, (uintptr_t)obj, 64, PC(0x60));
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "still published in an RCU pointer!"));
    ck_assert_ptr_nonnull(strstr(log, "static_ptr+0x28"));
    ck_assert_ptr_nonnull(strstr(log, "(+0x10)"));
    write_ptr(t0, p, NULL, NULL, RT_RCU_ASSIGN); /* unpublished later: reported once */
    rt_rcuptr_at_exit();
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    free(obj);
}
END_TEST

/* After the readers are gone, a teardown may free what is published. */
START_TEST(teardown_without_readers_is_not_reported)
{
    char *obj = calloc(1, 64);
    void **p = &static_ptr[6];
    write_ptr(t0, p, obj, NULL, RT_RCU_ASSIGN);
    rt_rcu_on_free(t0, (uintptr_t)obj, 64, PC(0x60));
    rt_rcuptr_at_exit();
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 0);
    free(obj);
}
END_TEST

START_TEST(heap_pointer_reported_when_used_again)
{
    void **table = calloc(4, sizeof(void *)), **other = calloc(4, sizeof(void *));
    char *obj = calloc(1, 64), *obj2 = calloc(1, 64);
    t1->rcu.sections = 1;
    write_ptr(t0, &table[1], obj, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, &other[1], obj2, NULL, RT_RCU_ASSIGN);
    rt_rcu_on_free(t0, (uintptr_t)obj, 64, PC(0x60));
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 0); /* the table may be unreachable */
    rt_rcu_read_enter(t1, RT_RCU_RTDD, PC(0x30));
    rt_rcu_dereference(t1, &table[1], obj, PC(0x21));
    rt_rcu_read_exit(t1, RT_RCU_RTDD, PC(0x31));
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "and a reader obtains it afterwards with rcu_dereference()"));
    /* Freed with its holder (in either order): nothing to report. */
    rt_rcu_on_free(t0, (uintptr_t)obj2, 64, PC(0x61));
    rt_rcu_on_free(t0, (uintptr_t)other, 4 * sizeof(void *), PC(0x62));
    rt_rcuptr_at_exit();
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    free(obj);
    free(obj2);
    free(table);
    free(other);
}
END_TEST

START_TEST(heap_pointer_freed_then_replaced)
{
    void **table = calloc(4, sizeof(void *));
    char *obj = calloc(1, 64), fresh[8] = "";
    write_ptr(t0, &table[2], obj, NULL, RT_RCU_ASSIGN);
    rt_rcu_on_free(t0, (uintptr_t)obj, 64, PC(0x60));
    write_ptr(t0, &table[2], fresh, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "and it was still published until replaced here"));
    free(obj);
    free(table);
}
END_TEST

/* A store the runtime did not see (an inlined operation, a plain store)
 * changed the pointer: the free is not of what it holds. */
START_TEST(unseen_store_is_followed)
{
    char *obj = calloc(1, 64), other[8] = "";
    void **p = &static_ptr[7];
    t1->rcu.sections = 1;
    write_ptr(t0, p, obj, NULL, RT_RCU_ASSIGN);
    *p = other;
    rt_rcu_on_free(t0, (uintptr_t)obj, 64, PC(0x60));
    rt_rcuptr_at_exit();
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 0);
    free(obj);
}
END_TEST

/* free() looks further only near tracked pointers and what they hold now:
 * an object replaced is no longer near anything (its memory is reused). */
START_TEST(filter_follows_what_is_published)
{
    char *obj = calloc(1, 4096);
    void *q = NULL;
    write_ptr(t0, &q, obj + 1024, NULL, RT_RCU_ASSIGN);
    ck_assert(rt_rcuptr_may_overlap((uintptr_t)obj + 1024, 64));
    write_ptr(t0, &q, NULL, NULL, RT_RCU_ASSIGN);
    ck_assert(!rt_rcuptr_may_overlap((uintptr_t)obj + 1024, 64));
    free(obj);
}
END_TEST

Suite *rcuptr_suite(void)
{
    Suite *s = suite_create("rcuptr");
    TCase *tc = tcase_create("rcuptr");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, updaters_under_different_locks_are_reported);
    tcase_add_test(tc, updaters_sharing_a_lock_are_not);
    tcase_add_test(tc, initialization_then_a_single_updater);
    tcase_add_test(tc, atomic_updates_protect_each_other_not_plain_ones);
    tcase_add_test(tc, writes_of_an_exited_thread_do_not_count);
    tcase_add_test(tc, dereference_outside_without_the_updaters_lock);
    tcase_add_test(tc, dereference_judged_at_the_next_write);
    tcase_add_test(tc, false_conditions_are_reported_at_once);
    tcase_add_test(tc, static_pointer_freed_while_readers_run);
    tcase_add_test(tc, teardown_without_readers_is_not_reported);
    tcase_add_test(tc, heap_pointer_reported_when_used_again);
    tcase_add_test(tc, heap_pointer_freed_then_replaced);
    tcase_add_test(tc, unseen_store_is_followed);
    tcase_add_test(tc, filter_follows_what_is_published);
    suite_add_tcase(s, tc);
    return s;
}

/* RCU pointers as locations (rcuptr.c), driven with plain calls: who wrote
 * a pointer under which locks, dereferences outside read sections, and
 * frees of what a pointer still holds. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "rcu/rcu.h"
#include "rcu/rcuptr.h"
#include "hang/hang.h"
#include "report/report.h"
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x710000 + (n))
#define FAKE_TID(n) (0x7ffd0000 + (n))
static char L[64], M[64];
static struct rt_thread *t0, *t1, *t2;
/* Pointers in static storage, each test its own. */
static void *static_ptr[16];

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
    deref_outside(t2, &r, L); /* the updaters' lock: fine (t2: a release of L orders t1's writes before what t2 does next) */
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

/* Orderings other than a lock (rcuhb.h): a semaphore's post and wait, a
 * condition's signal and a wait that returns, an exit and its join. */
static char sem_obj[32], cond_obj[64], cond_mutex[64];
static void sem_post_(struct rt_thread *t) { rt_on_event_signal(t, (uintptr_t)sem_obj, RT_LOCK_SEM, PC(0x70)); }
static void sem_wait_(struct rt_thread *t)
{
    rt_on_event_wait_begin(t, rt_lock_lookup(t, (uintptr_t)sem_obj, RT_LOCK_SEM, PC(0x71)), 0, 0, 0, PC(0x71));
    rt_on_event_wait_end(t);
}

START_TEST(updates_ordered_by_a_semaphore_are_not_reported)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void *q = NULL;
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &q, b, NULL, RT_RCU_ASSIGN);
    sem_post_(t1);
    sem_wait_(t0);
    write_ptr(t0, &q, c, NULL, RT_RCU_ASSIGN); /* after t1's post: ordered */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
    write_ptr(t1, &q, a, NULL, RT_RCU_ASSIGN); /* t1 waited for nothing since t0's update */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
}
END_TEST

START_TEST(updates_ordered_by_a_condition_are_not_reported)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void *q = NULL;
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &q, b, NULL, RT_RCU_ASSIGN);
    for (int round = 0; round < 3; round++) { /* a token passed back and forth */
        take(t0, cond_mutex);
        rt_on_cond_wait_begin(t0, (uintptr_t)cond_obj, (uintptr_t)cond_mutex, 0, 0, 0, PC(0x72));
        take(t1, cond_mutex);
        rt_on_event_signal(t1, (uintptr_t)cond_obj, RT_LOCK_COND, PC(0x73));
        drop(t1, cond_mutex);
        rt_on_cond_wait_end(t0, (uintptr_t)cond_obj, (uintptr_t)cond_mutex, 1, PC(0x72));
        drop(t0, cond_mutex);
        write_ptr(t0, &q, c, NULL, RT_RCU_ASSIGN);
        take(t1, cond_mutex);
        rt_on_cond_wait_begin(t1, (uintptr_t)cond_obj, (uintptr_t)cond_mutex, 0, 0, 0, PC(0x74));
        take(t0, cond_mutex);
        rt_on_event_signal(t0, (uintptr_t)cond_obj, RT_LOCK_COND, PC(0x75));
        drop(t0, cond_mutex);
        rt_on_cond_wait_end(t1, (uintptr_t)cond_obj, (uintptr_t)cond_mutex, 1, PC(0x74));
        drop(t1, cond_mutex);
        write_ptr(t1, &q, b, NULL, RT_RCU_ASSIGN);
    }
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
    /* A signal before t0's last update orders nothing after it. */
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &q, c, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
}
END_TEST

START_TEST(updates_ordered_by_a_join_are_not_reported)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void *q = NULL;
    t1->handle = 0x7e57000;
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &q, b, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &q, c, NULL, RT_RCU_ASSIGN);
    rt_rcu_on_thread_exit(t1); /* its exit... */
    rt_on_join_begin(t0, t1->handle, 0, PC(0x76));
    rt_on_join_end(t0, 1); /* ...which t0's join waited for */
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
}
END_TEST

/* A lock's release and its next acquisition (rcuhb.h): a turn handed on
 * through a mutex that neither updater holds during its update. */
static char turn_mutex[64], own_a[64], own_b[64];
START_TEST(updates_ordered_by_a_mutex_handoff_are_not_reported)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void *q = NULL;
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &q, b, NULL, RT_RCU_ASSIGN);
    struct rt_lock *m = rt_lock_lookup(t0, (uintptr_t)turn_mutex, RT_LOCK_MUTEX, PC(0x40));
    for (int round = 0; round < 3; round++) {
        take(t1, turn_mutex); /* t1 hands the turn on */
        drop(t1, turn_mutex);
        take(t0, turn_mutex); /* t0 finds it set: no wait */
        drop(t0, turn_mutex);
        write_ptr(t0, &q, c, NULL, RT_RCU_ASSIGN);
        take(t0, turn_mutex);
        drop(t0, turn_mutex);
        take(t1, turn_mutex);
        drop(t1, turn_mutex);
        write_ptr(t1, &q, a, NULL, RT_RCU_ASSIGN);
    }
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 0);
    ck_assert_uint_eq(m->rcu_hb, 1); /* flagged by a release of a thread that wrote */
    /* The same handoff before t1's last update orders nothing after it. */
    write_ptr(t0, &q, b, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
}
END_TEST

/* Each updater's own lock orders only its own later updates: the releases
 * publish, but nobody else acquires them. */
START_TEST(updates_under_own_locks_stay_concurrent)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void *q = NULL;
    write_ptr(t0, &q, a, own_a, RT_RCU_ASSIGN);
    write_ptr(t1, &q, b, own_b, RT_RCU_ASSIGN);
    write_ptr(t1, &q, c, own_b, RT_RCU_ASSIGN);
    write_ptr(t0, &q, a, own_a, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
}
END_TEST

/* Only a thread that wrote publishes, and only a write hold: a reader of
 * an rwlock releases nothing to the next, while a writer's release reaches
 * a reader's acquisition; a thread that never wrote leaves the record
 * unflagged (its locks' fast paths unchanged). */
static char rw_obj[64];
static void rw_take(struct rt_thread *t, struct rt_lock *rw, unsigned flags)
{
    rt_on_lock_acquired(t, rw, flags, rt_on_lock_pre(t, rw, flags, PC(1)), PC(0x42 + flags));
}
START_TEST(only_writers_write_holds_publish)
{
    char a[16] = "", b[16] = "", c[16] = "";
    void *q = NULL, *r = NULL;
    struct rt_lock *rw = rt_lock_lookup(t0, (uintptr_t)rw_obj, RT_LOCK_RWLOCK, PC(0x40));
    take(t2, own_a); /* t2 never writes a pointer */
    drop(t2, own_a);
    ck_assert_uint_eq(rt_lock_lookup(t2, (uintptr_t)own_a, RT_LOCK_MUTEX, PC(0x40))->rcu_hb, 0);
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &q, b, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, &q, c, NULL, RT_RCU_ASSIGN); /* reported: nothing orders them */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
    rw_take(t0, rw, RT_ACQ_READ);
    drop(t0, rw_obj);
    ck_assert_uint_eq(rw->rcu_hb, 0); /* a read hold orders no later reader */
    write_ptr(t0, &r, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t1, &r, b, NULL, RT_RCU_ASSIGN);
    rw_take(t1, rw, 0); /* t1 releases its write hold after its update... */
    drop(t1, rw_obj);
    ck_assert_uint_eq(rw->rcu_hb, 1);
    rw_take(t0, rw, RT_ACQ_READ); /* ...which t0's read acquisition follows */
    drop(t0, rw_obj);
    write_ptr(t0, &r, c, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNLOCKED_UPDATE), 1);
}
END_TEST

/* A call_rcu callback reclaims an object nobody can reach: its loads are
 * not judged. */
START_TEST(dereference_in_a_callback_is_not_judged)
{
    char a[16] = "";
    void *q = NULL;
    write_ptr(t1, &q, a, L, RT_RCU_ASSIGN);
    t0->rcu.in_callback = 1;
    deref_outside(t0, &q, NULL);
    t0->rcu.in_callback = 0;
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 0);
    deref_outside(t0, &q, NULL);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1);
}
END_TEST

/* One site, many pointers: one report. */
START_TEST(dereferences_reported_once_per_site)
{
    char objs[8][16];
    void *cells[8];
    for (int i = 0; i < 8; i++) {
        cells[i] = NULL;
        write_ptr(t1, &cells[i], objs[i], L, RT_RCU_ASSIGN);
    }
    for (int i = 0; i < 8; i++)
        deref_outside(t0, &cells[i], NULL);
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1);
    deref_outside(t0, &cells[0], NULL); /* another site */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1); /* that pointer was reported */
}
END_TEST

/* rcu_deref_rule=lockdep: no section and no lock is reported at once,
 * with no update to follow; the default rule waits for one. */
START_TEST(lockdep_rule_reports_without_an_update)
{
    char a[16] = "";
    void *q = NULL, *r = NULL;
    write_ptr(t0, &q, a, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, &r, a, NULL, RT_RCU_ASSIGN);
    deref_outside(t0, &q, NULL); /* the pointer's only updater */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 0);
    rt_opt.rcu_deref_rule = RT_DEREF_LOCKDEP;
    deref_outside(t0, &r, M); /* a lock held: not under this rule */
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 0);
    deref_outside(t0, &r, NULL);
    rt_opt.rcu_deref_rule = RT_DEREF_UPDATERS;
    ck_assert_uint_eq(count(RT_KIND_RCU_UNPROTECTED_DEREFERENCE), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "rcu_deref_rule=lockdep"));
}
END_TEST

/* A list node replaced by a copy is retired: its next pointer still holds
 * the successor, whose free is no bug. The same pointer in a node still
 * published is one. */
struct node { long key; struct node *next; };
START_TEST(a_retired_copy_does_not_publish)
{
    struct node *x = calloc(1, sizeof *x), *y = calloc(1, sizeof *y), *y2 = calloc(1, sizeof *y2);
    struct node *x2 = calloc(1, sizeof *x2);
    void **head = &static_ptr[8];
    t1->rcu.sections = 1; /* a reader */
    write_ptr(t0, head, x, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, (void **)&x->next, y, NULL, RT_RCU_ASSIGN);
    *x2 = *x; /* the copy */
    write_ptr(t0, head, x2, NULL, RT_RCU_ASSIGN); /* x retired */
    write_ptr(t0, (void **)&x2->next, y2, NULL, RT_RCU_ASSIGN); /* y unpublished */
    rt_rcu_on_free(t0, (uintptr_t)y, sizeof *y, PC(0x60));
    rt_rcuptr_at_exit();
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 0);
    /* y2 freed while x2 (published) still points at it: a bug. */
    rt_rcu_on_free(t0, (uintptr_t)y2, sizeof *y2, PC(0x61));
    rt_rcu_read_enter(t1, RT_RCU_RTDD, PC(0x30));
    rt_rcu_dereference(t1, &x2->next, y2, PC(0x21));
    rt_rcu_read_exit(t1, RT_RCU_RTDD, PC(0x31));
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    free(x);
    free(x2);
    free(y);
    free(y2);
}
END_TEST

/* An insertion before a node leaves it published through the new node. */
START_TEST(a_node_kept_by_its_replacement_is_not_retired)
{
    struct node *x = calloc(1, sizeof *x), *y = calloc(1, sizeof *y), *n = calloc(1, sizeof *n);
    void **head = &static_ptr[9];
    t1->rcu.sections = 1;
    write_ptr(t0, head, x, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, (void **)&x->next, y, NULL, RT_RCU_ASSIGN);
    n->next = x;
    write_ptr(t0, head, n, NULL, RT_RCU_ASSIGN); /* x is still in the list */
    rt_rcu_on_free(t0, (uintptr_t)y, sizeof *y, PC(0x60));
    rt_rcu_read_enter(t1, RT_RCU_RTDD, PC(0x30));
    rt_rcu_dereference(t1, &x->next, y, PC(0x21));
    rt_rcu_read_exit(t1, RT_RCU_RTDD, PC(0x31));
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    free(x);
    free(y);
    free(n);
}
END_TEST

/* A published value need not be memory (a sentinel): replacing an object
 * by it reads nothing that is not there. */
START_TEST(a_sentinel_replacement_is_not_read)
{
    char *obj = calloc(1, 64);
    void *q = NULL;
    write_ptr(t0, &q, obj, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, &q, (void *)0x1000, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, &q, obj, NULL, RT_RCU_ASSIGN);
    write_ptr(t0, &q, NULL, NULL, RT_RCU_ASSIGN);
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 0);
    free(obj);
}
END_TEST

/* A freed address published again: liburcu's loads (the value alone) of
 * it are loads of the new object, not of the freed one. */
START_TEST(a_reused_address_is_not_the_freed_object)
{
    void **table = calloc(4, sizeof(void *));
    char *obj = calloc(1, 64);
    void **other = &static_ptr[10];
    t1->rcu.sections = 1;
    write_ptr(t0, &table[1], obj, NULL, RT_RCU_ASSIGN);
    rt_rcu_on_free(t0, (uintptr_t)obj, 64, PC(0x60)); /* table[1] dangles */
    write_ptr(t0, other, obj, NULL, RT_RCU_ASSIGN);  /* the address, a new object */
    write_ptr(t0, other, NULL, NULL, RT_RCU_ASSIGN); /* ...no longer followed there */
    rt_rcu_read_enter(t1, RT_RCU_RTDD, PC(0x30));
    rt_rcu_dereference(t1, NULL, obj, PC(0x22));
    rt_rcu_read_exit(t1, RT_RCU_RTDD, PC(0x31));
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 0);
    rt_rcu_read_enter(t1, RT_RCU_RTDD, PC(0x30)); /* by its slot: still the bug */
    rt_rcu_dereference(t1, &table[1], obj, PC(0x23));
    rt_rcu_read_exit(t1, RT_RCU_RTDD, PC(0x31));
    ck_assert_uint_eq(count(RT_KIND_RCU_FREED_WHILE_PUBLISHED), 1);
    free(obj);
    free(table);
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
    tcase_add_test(tc, updates_ordered_by_a_semaphore_are_not_reported);
    tcase_add_test(tc, updates_ordered_by_a_condition_are_not_reported);
    tcase_add_test(tc, updates_ordered_by_a_join_are_not_reported);
    tcase_add_test(tc, updates_ordered_by_a_mutex_handoff_are_not_reported);
    tcase_add_test(tc, updates_under_own_locks_stay_concurrent);
    tcase_add_test(tc, only_writers_write_holds_publish);
    tcase_add_test(tc, dereference_in_a_callback_is_not_judged);
    tcase_add_test(tc, dereferences_reported_once_per_site);
    tcase_add_test(tc, lockdep_rule_reports_without_an_update);
    tcase_add_test(tc, a_retired_copy_does_not_publish);
    tcase_add_test(tc, a_node_kept_by_its_replacement_is_not_retired);
    tcase_add_test(tc, a_reused_address_is_not_the_freed_object);
    tcase_add_test(tc, a_sentinel_replacement_is_not_read);
    suite_add_tcase(s, tc);
    return s;
}

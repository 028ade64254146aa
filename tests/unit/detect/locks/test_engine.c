/* Lock events, held-lock stacks and the active-lock-freed check, driven
 * with plain calls as interpose/ would make them. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "report/report.h"
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x400000 + (n))

static struct rt_thread *self(void)
{
    return rt_thread_new((int)syscall(SYS_gettid));
}

START_TEST(held_stack_follows_lock_and_unlock)
{
    struct rt_thread *t = self();
    char a[40], b[40];
    struct rt_lock *la = rt_lock_lookup(t, (uintptr_t)a, RT_LOCK_MUTEX, PC(1));
    struct rt_lock *lb = rt_lock_lookup(t, (uintptr_t)b, RT_LOCK_MUTEX, PC(2));
    rt_on_lock_acquired(t, la, 0, 0, PC(1));
    rt_on_lock_acquired(t, lb, 0, 0, PC(2));
    ck_assert_uint_eq(t->nheld, 2);
    ck_assert_int_eq(rt_lock_owner(la, NULL), t->tid);
    /* Out-of-order release is legal. */
    rt_on_lock_release(t, (uintptr_t)a, PC(3));
    ck_assert_uint_eq(t->nheld, 1);
    ck_assert_int_eq(rt_lock_owner(la, NULL), 0);
    ck_assert_ptr_eq(t->held[0].lock, lb);
    rt_on_lock_release(t, (uintptr_t)b, PC(4));
    ck_assert_uint_eq(t->nheld, 0);
    /* Releasing something not held changes nothing here. */
    rt_on_lock_release(t, (uintptr_t)b, PC(4));
    ck_assert_uint_eq(t->nheld, 0);
}
END_TEST

START_TEST(recursive_mutex_counts)
{
    struct rt_thread *t = self();
    char m[40];
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)m, RT_LOCK_MUTEX_RECURSIVE, PC(1));
    rt_on_lock_acquired(t, l, 0, 0, PC(1));
    rt_on_lock_acquired(t, l, 0, 0, PC(1));
    ck_assert_uint_eq(t->nheld, 1);
    rt_on_lock_release(t, (uintptr_t)m, PC(2));
    ck_assert_int_eq(rt_lock_owner(l, NULL), t->tid);
    rt_on_lock_release(t, (uintptr_t)m, PC(2));
    ck_assert_int_eq(rt_lock_owner(l, NULL), 0);
    ck_assert_uint_eq(t->nheld, 0);
}
END_TEST

START_TEST(reinit_makes_a_new_lock)
{
    struct rt_thread *t = self();
    char m[40];
    rt_on_lock_init(t, (uintptr_t)m, RT_LOCK_MUTEX, PC(1));
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)m, RT_LOCK_MUTEX, PC(2));
    uint64_t id = l->id;
    ck_assert_int_eq(l->statically_initialized, 0);
    rt_on_lock_init(t, (uintptr_t)m, RT_LOCK_MUTEX, PC(1));
    struct rt_lock *l2 = rt_lock_lookup(t, (uintptr_t)m, RT_LOCK_MUTEX, PC(2));
    uint64_t id2 = l2->id;
    ck_assert_uint_gt(id2, id);
    rt_on_lock_destroy(t, (uintptr_t)m, PC(3));
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)m));
    /* First use without init: a statically initialized lock. */
    struct rt_lock *l3 = rt_lock_lookup(t, (uintptr_t)m, RT_LOCK_MUTEX, PC(4));
    ck_assert_int_eq(l3->statically_initialized, 1);
    ck_assert_uint_gt(l3->id, id2);
}
END_TEST

START_TEST(thousands_of_held_locks)
{
    struct rt_thread *t = self();
    enum { N = 5000 };
    static char locks[N][40];
    for (int i = 0; i < N; i++)
        rt_on_lock_acquired(t, rt_lock_lookup(t, (uintptr_t)locks[i], RT_LOCK_MUTEX, PC(i)), 0, 0, PC(i));
    ck_assert_int_eq(t->untracked, 0);
    ck_assert_uint_eq(t->nheld, N);
    ck_assert_uint_ge(t->held_cap, N);
    for (int i = N; i-- > 0;)
        rt_on_lock_release(t, (uintptr_t)locks[i], PC(i));
    ck_assert_uint_eq(t->nheld, 0);
}
END_TEST

START_TEST(free_of_lock_held_by_this_thread_is_reported)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self();
    char *obj = malloc(128);
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)obj + 64, RT_LOCK_MUTEX, PC(1));
    rt_on_lock_acquired(t, l, 0, 0, PC(1));
    rt_on_free(t, (uintptr_t)obj, 128, PC(2));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 1);
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)obj + 64));
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "active lock [0x"));
    ck_assert_ptr_nonnull(strstr(log, "is held by this thread"));
    ck_assert_ptr_nonnull(strstr(log, "SUMMARY: rtdd: active-lock-freed "));
    free(obj);
}
END_TEST

START_TEST(free_of_lock_held_by_another_thread_is_reported)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *holder = rt_thread_new(getpid()); /* any live tid works for naming */
    struct rt_thread *freer = self();
    char *obj = malloc(64);
    struct rt_lock *l = rt_lock_lookup(holder, (uintptr_t)obj, RT_LOCK_MUTEX, PC(1));
    rt_on_lock_acquired(holder, l, 0, 0, PC(1));
    ck_assert_uint_eq(freer->nheld, 0);
    rt_on_free(freer, (uintptr_t)obj, 64, PC(2));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "is held by "));
    free(obj);
}
END_TEST

START_TEST(free_of_unheld_lock_retires_silently)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self();
    char *obj = malloc(64);
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)obj, RT_LOCK_MUTEX, PC(1));
    uint64_t id = l->id;
    rt_on_lock_acquired(t, l, 0, 0, PC(1));
    rt_on_lock_release(t, (uintptr_t)obj, PC(2));
    rt_on_free(t, (uintptr_t)obj, 64, PC(3));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 0);
    ck_assert_str_eq(test_log_read(), "");
    /* A new lock at the old address is a new lock. */
    struct rt_lock *again = rt_lock_lookup(t, (uintptr_t)obj, RT_LOCK_MUTEX, PC(4));
    ck_assert_uint_ne(again->id, id);
    free(obj);
}
END_TEST

START_TEST(free_outside_any_lock_is_silent)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self();
    char *obj = malloc(256), *other = malloc(64);
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)other, RT_LOCK_MUTEX, PC(1));
    rt_on_lock_acquired(t, l, 0, 0, PC(1));
    rt_on_free(t, (uintptr_t)obj, 256, PC(2));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 0);
    ck_assert_ptr_eq(rt_locktab_find((uintptr_t)other), l);
    free(obj);
    free(other);
}
END_TEST

/* The holder's release of a lock freed under it writes to freed memory:
 * its own report; a lock made again at the address is a new one. */
START_TEST(release_of_a_lock_freed_while_held_is_reported)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *holder = rt_thread_new(getppid()), *freer = self();
    char *obj = malloc(64);
    struct rt_lock *l = rt_lock_lookup(holder, (uintptr_t)obj, RT_LOCK_MUTEX, PC(1));
    rt_on_lock_acquired(holder, l, 0, 0, PC(1));
    rt_on_free(freer, (uintptr_t)obj, 64, PC(2));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 1);
    ck_assert_int_eq(holder->held_freed, 1);
    rt_on_lock_release(holder, (uintptr_t)obj, PC(3));
    ck_assert_uint_eq(rt_report_count(RT_KIND_USE_AFTER_DESTROY), 1);
    ck_assert_uint_eq(holder->nheld, 0);
    ck_assert_int_eq(holder->held_freed, 0);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "freed while this thread held it"));
    /* A new lock at the address, taken and released: nothing more. */
    struct rt_lock *again = rt_lock_lookup(holder, (uintptr_t)obj, RT_LOCK_MUTEX, PC(4));
    rt_on_lock_acquired(holder, again, 0, 0, PC(4));
    rt_on_lock_release(holder, (uintptr_t)obj, PC(5));
    ck_assert_uint_eq(rt_report_count(RT_KIND_USE_AFTER_DESTROY), 1);
    ck_assert_uint_eq(holder->nheld, 0);
    free(obj);
}
END_TEST

/* Released before the free, as it should be: no report at all. */
START_TEST(release_before_the_free_is_silent)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *holder = rt_thread_new(getppid()), *freer = self();
    char *obj = malloc(64);
    struct rt_lock *l = rt_lock_lookup(holder, (uintptr_t)obj, RT_LOCK_MUTEX, PC(1));
    rt_on_lock_acquired(holder, l, 0, 0, PC(1));
    rt_on_lock_release(holder, (uintptr_t)obj, PC(3));
    rt_on_free(freer, (uintptr_t)obj, 64, PC(2));
    ck_assert_int_eq(holder->held_freed, 0);
    ck_assert_str_eq(test_log_read(), "");
    free(obj);
}
END_TEST

/* dlclose: a library's data is gone when the check runs; the holds taken
 * just before the dlclose decide. */
START_TEST(unmapped_lock_held_across_the_unmapping_is_reported)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self(), *holder = rt_thread_new(getppid());
    static char data[256];
    struct rt_lock *held = rt_lock_lookup(holder, (uintptr_t)data + 64, RT_LOCK_MUTEX, PC(1));
    struct rt_lock *idle = rt_lock_lookup(t, (uintptr_t)data + 128, RT_LOCK_MUTEX, PC(2));
    ck_assert_ptr_nonnull(idle);
    rt_on_lock_acquired(holder, held, 0, 0, PC(1));
    struct rt_unmap_held before;
    rt_unmap_held_take(&before, (uintptr_t)data, (uintptr_t)data + sizeof data);
    ck_assert_uint_eq(before.n, 1);
    rt_on_unmapped(t, (uintptr_t)data, sizeof data, "the data of libx.so", PC(3), &before);
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "the data of libx.so, unmapped by"));
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)data + 64));
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)data + 128));
    rt_on_lock_release(holder, (uintptr_t)data + 64, PC(4));
}
END_TEST

/* Another thread mapped a library at the same address after the unmapping
 * and took its lock before the check: that lock is not the gone one. */
START_TEST(unmapped_lock_taken_after_the_unmapping_is_another_lock)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self(), *loader = rt_thread_new(getppid());
    static char data[256];
    struct rt_unmap_held before;
    rt_unmap_held_take(&before, (uintptr_t)data, (uintptr_t)data + sizeof data);
    ck_assert_uint_eq(before.n, 0);
    struct rt_lock *l = rt_lock_lookup(loader, (uintptr_t)data + 64, RT_LOCK_MUTEX, PC(1));
    rt_on_lock_acquired(loader, l, 0, 0, PC(1));
    rt_on_unmapped(t, (uintptr_t)data, sizeof data, "the data of libx.so", PC(2), &before);
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 0);
    ck_assert_ptr_eq(rt_locktab_find((uintptr_t)data + 64), l);
    ck_assert_int_eq(rt_lock_owner(l, NULL), loader->tid);
    rt_on_lock_release(loader, (uintptr_t)data + 64, PC(3));
    ck_assert_uint_eq(loader->nheld, 0);
    ck_assert_str_eq(test_log_read(), "");
}
END_TEST

/* GLib bit locks: one lock per bit, keyed by rt_bit_key (locktab.h). */
START_TEST(bit_locks_of_one_word_are_separate_locks)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self(), *other = rt_thread_new(getppid());
    static int word;
    uintptr_t k0 = rt_bit_key((uintptr_t)&word, 0), k1 = rt_bit_key((uintptr_t)&word, 1);
    struct rt_lock *b0 = rt_lock_lookup(t, k0, RT_LOCK_GBITLOCK, PC(1));
    struct rt_lock *b1 = rt_lock_lookup(t, k1, RT_LOCK_GBITLOCK, PC(2));
    ck_assert_ptr_ne(b0, b1);
    /* Both held at once by one thread: two locks, no recursion. */
    rt_on_lock_acquired(t, b0, 0, rt_on_lock_pre(t, b0, 0, PC(1)), PC(1));
    rt_on_lock_acquired(t, b1, 0, rt_on_lock_pre(t, b1, 0, PC(2)), PC(2));
    ck_assert_uint_eq(t->nheld, 2);
    ck_assert_uint_eq(rt_report_count(RT_KIND_RECURSIVE_LOCKING), 0);
    ck_assert_int_eq(rt_lock_owner(b0, NULL), t->tid);
    ck_assert_int_eq(rt_lock_owner(b1, NULL), t->tid);
    rt_on_lock_release(t, k0, PC(3)); /* out of order */
    ck_assert_int_eq(rt_lock_owner(b0, NULL), 0);
    ck_assert_int_eq(rt_lock_owner(b1, NULL), t->tid);
    rt_on_lock_release(t, k1, PC(4));
    ck_assert_uint_eq(t->nheld, 0);
    /* The same bit again while held: a recursion, named as the bit. */
    rt_on_lock_acquired(t, b1, 0, rt_on_lock_pre(t, b1, 0, PC(2)), PC(2));
    rt_on_lock_pre(t, b1, 0, PC(5));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RECURSIVE_LOCKING), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "[bit 1 of the word at 0x"));
    rt_on_lock_release(t, k1, PC(6));
    /* Bit 0 then bit 1 here, bit 1 then bit 0 by another thread: an inversion. */
    rt_on_lock_acquired(t, b0, 0, rt_on_lock_pre(t, b0, 0, PC(1)), PC(1));
    rt_on_lock_acquired(t, b1, 0, rt_on_lock_pre(t, b1, 0, PC(2)), PC(2));
    rt_on_lock_release(t, k1, PC(4));
    rt_on_lock_release(t, k0, PC(3));
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_ORDER_INVERSION), 0);
    rt_on_lock_acquired(other, b1, 0, rt_on_lock_pre(other, b1, 0, PC(7)), PC(7));
    rt_on_lock_acquired(other, b0, 0, rt_on_lock_pre(other, b0, 0, PC(8)), PC(8));
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_ORDER_INVERSION), 1);
    rt_on_lock_release(other, k0, PC(9));
    rt_on_lock_release(other, k1, PC(9));
}
END_TEST

START_TEST(free_of_a_word_with_a_held_bit_is_reported)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self();
    int *obj = malloc(64);
    uintptr_t held = rt_bit_key((uintptr_t)&obj[3], 9), free_bit = rt_bit_key((uintptr_t)&obj[3], 10);
    struct rt_lock *l = rt_lock_lookup(t, held, RT_LOCK_GBITLOCK, PC(1));
    struct rt_lock *unheld = rt_lock_lookup(t, free_bit, RT_LOCK_GBITLOCK, PC(2));
    ck_assert_ptr_ne(l, unheld);
    rt_on_lock_acquired(t, l, 0, 0, PC(1));
    /* Memory beside the word: nothing. */
    rt_on_free(t, (uintptr_t)obj, 12, PC(3));
    rt_on_free(t, (uintptr_t)&obj[4], 4, PC(3));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 0);
    ck_assert_ptr_eq(rt_locktab_find(held), l);
    /* A range that holds only the word's second byte (bits 8..15) still frees it. */
    rt_on_free(t, (uintptr_t)&obj[3] + 1, 1, PC(4));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 1);
    ck_assert_ptr_null(rt_locktab_find(held));
    ck_assert_ptr_null(rt_locktab_find(free_bit)); /* retired silently with it */
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "the lock [bit 9 of the word at 0x"));
    ck_assert_ptr_nonnull(strstr(log, "(GLib bit lock) is held by this thread"));
    free(obj);
}
END_TEST

/* pthread_mutex_destroy of a held mutex fails (EBUSY): reported, and the
 * lock lives on, so the free that follows while it is held is reported. */
START_TEST(refused_destroy_keeps_the_lock)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *holder = rt_thread_new(getpid());
    struct rt_thread *t = self();
    char *obj = malloc(64);
    struct rt_lock *l = rt_lock_lookup(holder, (uintptr_t)obj, RT_LOCK_MUTEX, PC(1));
    uint64_t id = l->id;
    rt_on_lock_acquired(holder, l, 0, 0, PC(1));
    rt_on_lock_destroyed(t, (uintptr_t)obj, 0, PC(2));
    ck_assert_uint_eq(rt_report_count(RT_KIND_DESTROY_LOCKED), 1);
    ck_assert_ptr_eq(rt_locktab_find((uintptr_t)obj), l);
    ck_assert_uint_eq(l->id, id);
    ck_assert_int_eq(rt_lock_owner(l, NULL), holder->tid);
    rt_on_free(t, (uintptr_t)obj, 64, PC(3));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 1);
    free(obj);
}
END_TEST

/* The look-alike: refused, unlocked, destroyed for real, then freed. */
START_TEST(retried_destroy_ends_the_lock)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *holder = rt_thread_new(getpid());
    struct rt_thread *t = self();
    char *obj = malloc(64);
    struct rt_lock *l = rt_lock_lookup(holder, (uintptr_t)obj, RT_LOCK_MUTEX, PC(1));
    rt_on_lock_acquired(holder, l, 0, 0, PC(1));
    rt_on_lock_destroyed(t, (uintptr_t)obj, 0, PC(2));
    rt_on_lock_release(holder, (uintptr_t)obj, PC(4));
    rt_on_lock_destroyed(t, (uintptr_t)obj, 1, PC(5));
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)obj));
    rt_on_free(t, (uintptr_t)obj, 64, PC(3));
    ck_assert_uint_eq(rt_report_count(RT_KIND_DESTROY_LOCKED), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 0);
    free(obj);
}
END_TEST

/* A use after destroy names the destroy of the lock's current life only:
 * an init at the address forgets the earlier one. */
START_TEST(init_forgets_an_earlier_life_destroy)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    struct rt_thread *t = self();
    static char m[40];
    rt_on_lock_init(t, (uintptr_t)m, RT_LOCK_MUTEX_ERRORCHECK, PC(1));
    rt_on_lock_destroyed(t, (uintptr_t)m, 1, PC(2));
    rt_on_destroyed_lock_use(t, (uintptr_t)m, "pthread_mutex_lock", 1, PC(3));
    ck_assert_ptr_nonnull(strstr(test_log_read(), "it was destroyed by "));
    rt_on_lock_init(t, (uintptr_t)m, RT_LOCK_MUTEX_ERRORCHECK, PC(1));
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    rt_on_destroyed_lock_use(t, (uintptr_t)m, "pthread_mutex_unlock", 1, PC(4));
    const char *log = test_log_read();
    ck_assert_ptr_nonnull(strstr(log, "rtdd did not see it destroyed"));
    ck_assert_ptr_null(strstr(log, "it was destroyed by "));
}
END_TEST

Suite *locks_suite(void)
{
    Suite *s = suite_create("locks");
    TCase *tc = tcase_create("locks");
    tcase_add_test(tc, held_stack_follows_lock_and_unlock);
    tcase_add_test(tc, recursive_mutex_counts);
    tcase_add_test(tc, reinit_makes_a_new_lock);
    tcase_add_test(tc, thousands_of_held_locks);
    tcase_add_test(tc, bit_locks_of_one_word_are_separate_locks);
    tcase_add_test(tc, refused_destroy_keeps_the_lock);
    tcase_add_test(tc, retried_destroy_ends_the_lock);
    tcase_add_test(tc, init_forgets_an_earlier_life_destroy);
    suite_add_tcase(s, tc);
    return s;
}

Suite *freed_suite(void)
{
    Suite *s = suite_create("freed");
    TCase *tc = tcase_create("freed");
    tcase_add_test(tc, free_of_lock_held_by_this_thread_is_reported);
    tcase_add_test(tc, free_of_lock_held_by_another_thread_is_reported);
    tcase_add_test(tc, free_of_unheld_lock_retires_silently);
    tcase_add_test(tc, free_outside_any_lock_is_silent);
    tcase_add_test(tc, free_of_a_word_with_a_held_bit_is_reported);
    tcase_add_test(tc, release_of_a_lock_freed_while_held_is_reported);
    tcase_add_test(tc, release_before_the_free_is_silent);
    tcase_add_test(tc, unmapped_lock_held_across_the_unmapping_is_reported);
    tcase_add_test(tc, unmapped_lock_taken_after_the_unmapping_is_another_lock);
    suite_add_tcase(s, tc);
    return s;
}

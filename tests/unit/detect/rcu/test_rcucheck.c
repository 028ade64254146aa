/* RCU checking driven with plain calls, as the hooks and wrappers make them. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "rcu/rcu.h"
#include "report/report.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x600000 + (n))
static struct rt_thread *reader, *updater;

static void setup(void)
{
    test_log_setup(NULL);
    reader = rt_thread_new((int)syscall(SYS_gettid));
    updater = rt_thread_new(getppid()); /* a tid of its own: a second thread */
}

START_TEST(freed_while_referenced)
{
    char *obj = malloc(64);
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    ck_assert_uint_ne(rt_free_checks & RT_FREE_RCU, 0); /* free() now asks the RCU line clocks */
    rt_rcu_dereference(reader, NULL, obj, PC(2));
    rt_rcu_publish(updater, NULL, obj, NULL, RT_RCU_ASSIGN, PC(3));
    rt_rcu_on_free(updater, (uintptr_t)obj, 64, PC(4));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_FREED_WHILE_REFERENCED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "obtained this object with rcu_dereference()"));
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(5));
    free(obj);
}
END_TEST

/* Without rseq areas (glibc's or the runtime's: a kernel or sandbox
 * without rseq) the CPU would cost a call: the fast paths always decline. */
START_TEST(fast_paths_decline_without_cpu_areas)
{
    int saved = rt_cpu_rseq;
    rt_cpu_rseq = 0;
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(0x10)); /* learns the pseudo-lock and the site */
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    ck_assert_int_eq(rt_rcu_read_enter_fast(reader, RT_RCU_RTDD, PC(0x10)), 0);
    ck_assert_uint_eq(reader->rcu.depth, 0);
    ck_assert_uint_eq(reader->nheld, 0);
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(0x10));
    ck_assert_int_eq(rt_rcu_read_exit_fast(reader, RT_RCU_RTDD), 0);
    ck_assert_uint_eq(reader->rcu.depth, 1);
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    ck_assert_uint_eq(reader->rcu.depth, 0);
    rt_cpu_rseq = saved;
}
END_TEST

/* The leaf fast paths the hooks use record what the general functions do,
 * and decline (changing nothing) where those must run. */
START_TEST(fast_paths_match_the_general_ones)
{
    char *obj = malloc(64); /* call sites apart, as real ones are: each its own cache slot */
    if (!rt_cpu_rseq) { /* the kernel takes no rseq area: the test above covers it */
        free(obj);
        return;
    }
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(0x10)); /* learns the pseudo-lock and the site */
    rt_rcu_dereference(reader, NULL, obj, PC(0x20));
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    ck_assert_int_eq(rt_rcu_read_enter_fast(reader, RT_RCU_RTDD, PC(0x10)), 1);
    ck_assert_uint_eq(reader->rcu.depth, 1);
    ck_assert_uint_eq(reader->nheld, 1);
    ck_assert(rt_rcu_is_pseudo(reader->held[0].lock));
    ck_assert_int_eq(rt_rcu_read_enter_fast(reader, RT_RCU_RTDD, PC(0x40)), 1); /* nested: only counts */
    ck_assert_uint_eq(reader->rcu.depth, 2);
    ck_assert_int_eq(rt_rcu_read_exit_fast(reader, RT_RCU_RTDD), 1);
    ck_assert_int_eq(rt_rcu_dereference_fast(reader, obj, PC(0x20)), 1);
    ck_assert_uint_eq(reader->rcu.nderef, 1);
    rt_rcu_on_free(updater, (uintptr_t)obj, 64, PC(0x50));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_FREED_WHILE_REFERENCED), 1);
    ck_assert_int_eq(rt_rcu_read_exit_fast(reader, RT_RCU_RTDD), 1);
    ck_assert_uint_eq(reader->rcu.depth, 0);
    ck_assert_uint_eq(reader->nheld, 0);
    /* Declined: an unknown call site, and a thread already holding a lock. */
    ck_assert_int_eq(rt_rcu_read_enter_fast(reader, RT_RCU_RTDD, PC(0x60)), 0);
    reader->nheld = 1;
    ck_assert_int_eq(rt_rcu_read_enter_fast(reader, RT_RCU_RTDD, PC(0x10)), 0);
    reader->nheld = 0;
    ck_assert_uint_eq(reader->rcu.depth, 0);
    ck_assert_int_eq(rt_rcu_read_exit_fast(reader, RT_RCU_RTDD), 0); /* unbalanced: the general path reports */
    free(obj);
}
END_TEST

/* free()'s cheap answer: memory RCU never touched needs no look at the
 * readers; memory readers referenced needs one until every RCU in use has
 * completed a grace period that began after those readers entered. */
START_TEST(line_clocks_decide_frees_cheaply)
{
    char *obj = malloc(64), *other = malloc(4096);
    ck_assert_int_eq(rt_rcu_may_reference((uintptr_t)other + 2048, 64), 0);
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(0x10));
    rt_rcu_dereference(reader, NULL, obj, PC(0x20));
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    ck_assert_int_eq(rt_rcu_may_reference((uintptr_t)obj, 64), 1);
    ck_assert_int_eq(rt_rcu_may_reference_small((uintptr_t)obj), 1);
    rt_rcu_wait_begin(updater, RT_RCU_RTDD, 0, PC(0x40));
    rt_rcu_wait_end(updater, RT_RCU_RTDD, 0, PC(0x40));
    ck_assert_int_eq(rt_rcu_may_reference((uintptr_t)obj, 64), 0);
    ck_assert_int_eq(rt_rcu_may_reference_small((uintptr_t)obj), 0);
    /* A second RCU in use with no grace period yet: no line is decided. */
    rt_rcu_read_enter(reader, RT_RCU_MEMB, PC(0x50));
    rt_rcu_read_exit(reader, RT_RCU_MEMB, PC(0x60));
    ck_assert_int_eq(rt_rcu_may_reference((uintptr_t)obj, 64), 1);
    /* An unpublish is recent until a grace period begun after it ends. */
    rt_rcu_wait_begin(updater, RT_RCU_MEMB, 0, PC(0x70));
    rt_rcu_wait_end(updater, RT_RCU_MEMB, 0, PC(0x70));
    ck_assert_int_eq(rt_rcu_may_reference((uintptr_t)obj, 64), 0);
    rt_rcu_publish(updater, NULL, obj, NULL, RT_RCU_ASSIGN, PC(0x80));
    ck_assert_int_eq(rt_rcu_may_reference((uintptr_t)obj, 64), 1);
    free(obj);
    free(other);
}
END_TEST

START_TEST(unpublished_freed_without_grace_period)
{
    char *obj = malloc(64);
    rt_rcu_read_enter(reader, RT_RCU_MEMB, PC(1)); /* predates the unpublish, never dereferenced obj */
    rt_rcu_publish(updater, NULL, obj, NULL, RT_RCU_ASSIGN, PC(3));
    rt_rcu_on_free(updater, (uintptr_t)obj, 64, PC(4));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_FREED_WHILE_REFERENCED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "unpublished with no grace period"));
    free(obj);
}
END_TEST

START_TEST(grace_period_between_makes_free_safe)
{
    char *obj = malloc(64);
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    rt_rcu_dereference(reader, NULL, obj, PC(2));
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(5));
    rt_rcu_publish(updater, NULL, obj, NULL, RT_RCU_ASSIGN, PC(3));
    rt_rcu_wait_begin(updater, RT_RCU_RTDD, 0, PC(6));
    rt_rcu_wait_end(updater, RT_RCU_RTDD, 0, PC(6));
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1)); /* a new reader cannot see obj */
    rt_rcu_on_free(updater, (uintptr_t)obj, 64, PC(4));
    ck_assert_uint_eq(rt_report_errors(), 0);
    free(obj);
}
END_TEST

START_TEST(grace_period_with_old_reader_is_a_violation)
{
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    rt_rcu_wait_begin(updater, RT_RCU_RTDD, 0, PC(6));
    rt_rcu_wait_end(updater, RT_RCU_RTDD, 0, PC(6)); /* a broken RCU let it return */
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_GP_VIOLATION), 1);
}
END_TEST

START_TEST(reader_after_grace_period_start_is_fine)
{
    rt_rcu_wait_begin(updater, RT_RCU_RTDD, 0, PC(6));
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    rt_rcu_wait_end(updater, RT_RCU_RTDD, 0, PC(6));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_GP_VIOLATION), 0);
}
END_TEST

static void cb(void) {}

START_TEST(double_call_is_reported_and_dropped)
{
    static char head[16];
    ck_assert_int_eq(rt_rcu_call(updater, RT_RCU_MEMB, head, (void *)cb, PC(7)), RT_RCU_QUEUED);
    ck_assert_int_eq(rt_rcu_call(updater, RT_RCU_MEMB, head, (void *)cb, PC(8)), RT_RCU_DUPLICATE);
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_DOUBLE_CALL), 1);
    ck_assert_ptr_eq(rt_rcu_callback_begin(updater, RT_RCU_MEMB, head), (void *)cb);
    rt_rcu_callback_end(updater, RT_RCU_MEMB, head);
    /* Once its callback ran, the head may be queued again. */
    ck_assert_int_eq(rt_rcu_call(updater, RT_RCU_MEMB, head, (void *)cb, PC(7)), RT_RCU_QUEUED);
}
END_TEST

START_TEST(unbalanced_unlock)
{
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(2));
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(2));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_UNBALANCED), 0);
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(2));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_UNBALANCED), 1);
}
END_TEST

START_TEST(sync_in_reader)
{
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    rt_rcu_wait_begin(reader, RT_RCU_RTDD, 0, PC(6));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_SYNC_IN_READER), 1);
    rt_rcu_wait_begin(reader, RT_RCU_RTDD, 1, PC(9)); /* rcu_barrier, same kind */
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_SYNC_IN_READER), 2);
}
END_TEST

START_TEST(exit_in_reader)
{
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(1));
    rt_on_thread_exit(reader, 0, 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_EXIT_IN_READER), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_EXIT), 0);
}
END_TEST

/* Record mode: librtdd_rcu's slot holds the section (its word: nesting and
 * the entry clock, from the grace-period word), the inline read side fills
 * the record, and the section is not on the held stack. A lock taken
 * inside pushes it first (the rcu_read_lock -> M edge) and withholds the
 * record so that the section's end reaches the runtime, which pops it;
 * those who look for holders see the unpushed section as a read hold. */
static uint64_t gp_word = 1; /* nesting 1, phase 0, clock 0 */
static struct rtdd_rcu_reader slot;

/* What rcu_read_lock() does inline, and rcu_read_unlock() before it calls out. */
static void lock_in_place(uintptr_t pc)
{
    __atomic_store_n(&slot.ctr, __atomic_load_n(&gp_word, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    reader->rcu.entry = pc;
}
static void unlock_in_place(void)
{
    __atomic_store_n(&slot.ctr, slot.ctr - 1, __ATOMIC_RELAXED);
}

START_TEST(section_recorded_in_place)
{
    static pthread_mutex_t m_obj;
    uintptr_t m_addr = (uintptr_t)&m_obj;
    rt_rcu_read_enter(reader, RT_RCU_RTDD, PC(0x10)); /* creates the pseudo-lock */
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    rt_rcu_set_clock_word(&gp_word);
    rt_rcu_attach(reader, &slot);
    ck_assert_ptr_eq(slot.record, &reader->rcu);
    ck_assert_ptr_null(rt_rcu_unmaterialized_lock(reader));
    lock_in_place(PC(0x10));
    ck_assert_uint_eq(rt_thread_busy(reader), 1); /* the lock paths look */
    struct rt_lock *section = rt_rcu_unmaterialized_lock(reader);
    ck_assert(rt_rcu_is_pseudo(section));
    ck_assert_uint_eq(reader->nheld, 0);
    ck_assert_int_eq(rt_lock_readers(section, NULL, NULL), 1);
    struct rt_lock *m = rt_lock_lookup(reader, m_addr, RT_LOCK_MUTEX, PC(0x40));
    uint64_t chain = rt_on_lock_pre(reader, m, 0, PC(0x40));
    rt_on_lock_acquired(reader, m, 0, chain, PC(0x40));
    ck_assert_uint_eq(reader->nheld, 2);
    ck_assert_ptr_eq(reader->held[0].lock, section);
    ck_assert_ptr_eq(reader->held[1].lock, m);
    ck_assert_ptr_null(rt_rcu_unmaterialized_lock(reader));
    ck_assert_ptr_null(slot.record); /* withheld: the unlock calls out */
    rt_on_lock_release(reader, m_addr, PC(0x48));
    unlock_in_place();
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    ck_assert_uint_eq(reader->nheld, 0);
    ck_assert_ptr_eq(slot.record, &reader->rcu);
    ck_assert_uint_eq(reader->rcu.sections, 2);
    /* The other half of the cycle: M held -> synchronize_rcu(). */
    struct rt_lock *um = rt_lock_lookup(updater, m_addr, RT_LOCK_MUTEX, PC(0x50));
    chain = rt_on_lock_pre(updater, um, 0, PC(0x50));
    rt_on_lock_acquired(updater, um, 0, chain, PC(0x50));
    rt_rcu_wait_begin(updater, RT_RCU_RTDD, 0, PC(0x58));
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_ORDER_INVERSION), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "rcu_read_lock"));
    rt_rcu_wait_end(updater, RT_RCU_RTDD, 0, PC(0x58));
    rt_on_lock_release(updater, m_addr, PC(0x5c));
    /* A thread ending inside such a section: that report alone. */
    lock_in_place(PC(0x10));
    rt_on_thread_exit(reader, 0, 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_EXIT_IN_READER), 1);
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_HELD_AT_EXIT), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_BAD_UNLOCK), 0);
    ck_assert_ptr_null(reader->rcu_slot); /* librtdd_rcu ends that section */
}
END_TEST

/* The section's entry clock is the slot's snapshot of the grace-period
 * word's 31 clock bits, widened to the runtime's 64-bit clock; a reference
 * noted on a call-out and a free() then meet as with any section. */
START_TEST(slot_section_clock_and_references)
{
    char *obj = malloc(64);
    __atomic_store_n(&rt_rcu_epoch, (1ull << 31) + 5, __ATOMIC_RELAXED); /* past a wrap of the 31 bits */
    rt_rcu_set_clock_word(&gp_word);
    ck_assert_uint_eq(gp_word >> RTDD_RCU_CLOCK_SHIFT, 5);
    rt_rcu_attach(reader, &slot);
    lock_in_place(PC(0x10));
    ck_assert_uint_eq(rt_rcu_enter_clock(reader), (1ull << 31) + 5);
    rt_rcu_dereference(reader, NULL, obj, PC(0x20)); /* the inline side called out: the line is noted */
    ck_assert_uint_eq(reader->rcu.nderef, 1);
    ck_assert_uint_eq(reader->rcu.deref[0].pc, PC(0x20));
    rt_rcu_publish(updater, NULL, obj, NULL, RT_RCU_ASSIGN, PC(0x28)); /* a clock step: the word's clock bits follow */
    ck_assert_uint_eq(gp_word >> RTDD_RCU_CLOCK_SHIFT, 6);
    ck_assert_uint_eq(__atomic_load_n(&rt_rcu_epoch, __ATOMIC_RELAXED), (1ull << 31) + 6);
    rt_rcu_on_free(updater, (uintptr_t)obj, 64, PC(0x2c));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_FREED_WHILE_REFERENCED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "obtained this object with rcu_dereference()"));
    unlock_in_place();
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    ck_assert_uint_eq(reader->rcu.nderef, 0); /* forgotten as the section ends */
    ck_assert_uint_eq(rt_rcu_enter_clock(reader), 0);
    /* A grace period's begin is a clock step too; the reader that entered
     * after it is not one the grace period waits for. */
    rt_rcu_wait_begin(updater, RT_RCU_RTDD, 0, PC(0x58));
    lock_in_place(PC(0x10));
    rt_rcu_wait_end(updater, RT_RCU_RTDD, 0, PC(0x58));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RCU_GP_VIOLATION), 0);
    unlock_in_place();
    rt_rcu_read_exit(reader, RT_RCU_RTDD, PC(0x30));
    /* The slot released by librtdd_rcu (the thread unregisters): detached. */
    rt_rcu_slot_released(reader);
    ck_assert_ptr_null(reader->rcu_slot);
    ck_assert_ptr_null(slot.record);
    free(obj);
}
END_TEST

/* What is published now is noted at each publish (record mode's readers
 * then need no call-out for it); what it replaced is not noted again, and
 * a grace period's start notes nothing (free() would keep checking the
 * neighbours of every published object). */
START_TEST(published_lines_follow_the_clock)
{
    char *a = calloc(1, 4096), *b = calloc(1, 4096), *c = calloc(1, 4096);
    rt_rcu_publish(updater, NULL, NULL, a, RT_RCU_ASSIGN, PC(1));
    ck_assert(rt_rcu_referenced_known((uintptr_t)a, rt_rcu_epoch));
    rt_rcu_publish(updater, NULL, a, b, RT_RCU_ASSIGN, PC(2));
    ck_assert(rt_rcu_referenced_known((uintptr_t)b, rt_rcu_epoch));
    rt_rcu_publish(updater, NULL, b, c, RT_RCU_ASSIGN, PC(2));
    ck_assert(rt_rcu_referenced_known((uintptr_t)c, rt_rcu_epoch));
    ck_assert(!rt_rcu_referenced_known((uintptr_t)a, rt_rcu_epoch));
    rt_rcu_wait_begin(updater, RT_RCU_RTDD, 0, PC(3));
    ck_assert(!rt_rcu_referenced_known((uintptr_t)c, rt_rcu_epoch));
    rt_rcu_wait_end(updater, RT_RCU_RTDD, 0, PC(3));
    free(a);
    free(b);
    free(c);
}
END_TEST

Suite *rcucheck_suite(void)
{
    Suite *s = suite_create("rcucheck");
    TCase *tc = tcase_create("rcucheck");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, freed_while_referenced);
    tcase_add_test(tc, fast_paths_match_the_general_ones);
    tcase_add_test(tc, fast_paths_decline_without_cpu_areas);
    tcase_add_test(tc, line_clocks_decide_frees_cheaply);
    tcase_add_test(tc, unpublished_freed_without_grace_period);
    tcase_add_test(tc, grace_period_between_makes_free_safe);
    tcase_add_test(tc, grace_period_with_old_reader_is_a_violation);
    tcase_add_test(tc, reader_after_grace_period_start_is_fine);
    tcase_add_test(tc, double_call_is_reported_and_dropped);
    tcase_add_test(tc, unbalanced_unlock);
    tcase_add_test(tc, sync_in_reader);
    tcase_add_test(tc, exit_in_reader);
    tcase_add_test(tc, section_recorded_in_place);
    tcase_add_test(tc, slot_section_clock_and_references);
    tcase_add_test(tc, published_lines_follow_the_clock);
    suite_add_tcase(s, tc);
    return s;
}

/* The lock table, the stack depot and stack capture. */
#include "detect/suites.h"
#include "locks/freegate.h"
#include "locks/locktab.h"
#include "core/core.h"
#include "locks/thread.h"
#include "report/report.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void count_visit(struct rt_lock *l, void *arg)
{
    (void)l;
    (*(int *)arg)++;
}

START_TEST(ids_are_never_reused)
{
    static char obj[64];
    int created;
    struct rt_lock *a = rt_locktab_get((uintptr_t)obj, RT_LOCK_MUTEX, &created);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(created, 1);
    ck_assert_uint_ne(rt_free_checks & RT_FREE_LOCKS, 0); /* free() now asks the lock lines */
    uint64_t id = a->id;
    ck_assert_ptr_eq(rt_locktab_get((uintptr_t)obj, RT_LOCK_MUTEX, &created), a);
    ck_assert_int_eq(created, 0);
    ck_assert_ptr_eq(rt_locktab_find((uintptr_t)obj), a);
    rt_locktab_retire(a);
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)obj));
    struct rt_lock *b = rt_locktab_get((uintptr_t)obj, RT_LOCK_MUTEX, &created);
    ck_assert_int_eq(created, 1);
    ck_assert_uint_gt(b->id, id);
    rt_locktab_retire(b);
}
END_TEST

START_TEST(range_visits_overlapping_locks_only)
{
    static char area[4096] __attribute__((aligned(4096)));
    int created, n = 0;
    long live = rt_locktab_live();
    struct rt_lock *in1 = rt_locktab_get((uintptr_t)area + 100, RT_LOCK_MUTEX, &created);
    struct rt_lock *in2 = rt_locktab_get((uintptr_t)area + 1000, RT_LOCK_SPIN, &created);
    struct rt_lock *edge = rt_locktab_get((uintptr_t)area + 2000 - 20, RT_LOCK_MUTEX, &created); /* reaches in */
    struct rt_lock *out = rt_locktab_get((uintptr_t)area + 3000, RT_LOCK_MUTEX, &created);
    ck_assert_int_eq(rt_locktab_live(), live + 4);
    rt_locktab_for_range((uintptr_t)area + 100, 1900, count_visit, &n);
    ck_assert_int_eq(n, 3);
    n = 0;
    rt_locktab_for_range((uintptr_t)area + 101, 800, count_visit, &n); /* in1 only: in2 begins at 1000 */
    ck_assert_int_eq(n, 1);
    rt_locktab_retire(in1);
    rt_locktab_retire(in2);
    rt_locktab_retire(edge);
    rt_locktab_retire(out);
    ck_assert_int_eq(rt_locktab_live(), live);
}
END_TEST

/* free()'s filter may err towards "maybe", never towards "no": a range
 * that overlaps a lock object must always be flagged, by the small-range
 * test too, also where its two lines straddle two filter words. */
START_TEST(line_filter_never_misses_a_lock)
{
    const size_t words = 4, span = words * 64 * 256; /* lines of 4 whole filter words */
    char *area = aligned_alloc(span, span);
    ck_assert_ptr_nonnull(area);
    int created;
    size_t lock_at[] = {63 * 256 + 200, 64 * 256 + 8, 130 * 256 - 40}; /* around word boundaries */
    for (size_t k = 0; k < sizeof lock_at / sizeof lock_at[0]; k++) {
        uintptr_t lock = (uintptr_t)area + lock_at[k];
        struct rt_lock *l = rt_locktab_get(lock, RT_LOCK_MUTEX, &created);
        ck_assert_ptr_nonnull(l);
        for (uintptr_t start = lock - 300; start < lock + 300; start += 8) {
            for (size_t len = 8; len <= RT_MEDIUM_RANGE; len += 8) {
                if (start + len <= lock || start >= lock + rt_lock_type_size(l->type))
                    continue; /* no overlap: either answer is allowed */
                ck_assert_msg(rt_locktab_may_overlap(start, len), "range %+ld len %zu", (long)(start - lock), len);
                ck_assert_msg(rt_locktab_may_overlap_medium(start, len), "medium range %+ld len %zu",
                              (long)(start - lock), len);
                if (len <= RT_SMALL_RANGE)
                    ck_assert_msg(rt_locktab_may_overlap_small(start), "small range %+ld", (long)(start - lock));
            }
        }
        rt_locktab_retire(l);
    }
    free(area);
}
END_TEST

/* The two-line question at the last line of the filter reads line 0's
 * copy: a lock there is not missed across the wrap. */
START_TEST(line_filter_wraps_without_missing)
{
    static uint8_t filter[RT_FILTER_LINES + RT_FILTER_PAD];
    uintptr_t last_line_start = (uintptr_t)(RT_FILTER_LINES - 1) << RT_LINE_SHIFT;
    ck_assert_int_eq(rt_filter_may_overlap_small(filter, last_line_start + RT_FILTER_REACH), 0);
    rt_filter_mark(filter, (uintptr_t)RT_FILTER_LINES << RT_LINE_SHIFT, 1); /* line 0, modulo */
    ck_assert_int_eq(rt_filter_may_overlap_small(filter, last_line_start + RT_FILTER_REACH), 1);
    ck_assert_int_eq(rt_filter_may_overlap(filter, last_line_start + RT_FILTER_REACH, 256), 1);
    /* Eight lines from the last one: the last seven are lines 0..6's copies. */
    static uint8_t fresh[RT_FILTER_LINES + RT_FILTER_PAD];
    uintptr_t from = last_line_start + RT_FILTER_REACH;
    ck_assert_int_eq(rt_filter_may_overlap_medium(fresh, from, 7 * 256), 0);
    rt_filter_mark(fresh, ((uintptr_t)RT_FILTER_LINES + 6) << RT_LINE_SHIFT, 1);
    ck_assert_int_eq(rt_filter_may_overlap_medium(fresh, from, 7 * 256), 1);
    ck_assert_int_eq(rt_filter_may_overlap_medium(fresh, from, 6 * 256), 0); /* up to line 5 */
}
END_TEST

static void *insert_many(void *arg)
{
    char *base = arg;
    int created;
    for (int i = 0; i < 20000; i++)
        rt_locktab_get((uintptr_t)base + (size_t)i * 64, RT_LOCK_MUTEX, &created);
    return NULL;
}

START_TEST(concurrent_inserts_find_one_record)
{
    char *base = malloc(20000 * 64);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, insert_many, base);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    int n = 0;
    rt_locktab_for_range((uintptr_t)base, 20000 * 64, count_visit, &n);
    ck_assert_int_eq(n, 20000);
    for (int i = 0; i < 20000; i++)
        rt_locktab_retire(rt_locktab_find((uintptr_t)base + (size_t)i * 64));
    free(base);
}
END_TEST

/* Threads make, find and retire records of the same few lines at once (so
 * inserts race with unlinks in the same buckets, and records are reused).
 * Each thread owns every fourth address, interleaved with the others', so
 * what it sees of its own is exact: the record it made until it retires
 * it, none after. At the end each address has one record at most. */
#define CHURN_ADDRS 48
static char churn_area[CHURN_ADDRS * 16] __attribute__((aligned(256)));
static _Atomic int churn_wrong;

static void *make_find_retire(void *arg)
{
    unsigned owner = (unsigned)(uintptr_t)arg, seed = owner * 7919u + 1;
    struct rt_lock *mine[CHURN_ADDRS] = { 0 };
    for (int i = 0; i < 200000; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned k = ((seed >> 8) % (CHURN_ADDRS / 4)) * 4 + owner;
        uintptr_t addr = (uintptr_t)churn_area + k * 16;
        int created;
        struct rt_lock *l = rt_locktab_get(addr, RT_LOCK_SPIN, &created);
        if (!l || l->addr != addr || created != (mine[k] == NULL) || (mine[k] && l != mine[k]))
            churn_wrong = 1;
        mine[k] = l;
        if (rt_locktab_find(addr) != l)
            churn_wrong = 2;
        if ((seed >> 20) % 3 == 0) {
            rt_locktab_retire(l);
            mine[k] = NULL;
            if (rt_locktab_find(addr) != NULL)
                churn_wrong = 3;
        }
    }
    return NULL;
}

START_TEST(concurrent_make_and_retire_stay_consistent)
{
    long live = rt_locktab_live();
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, make_find_retire, (void *)i);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(churn_wrong, 0);
    int n = 0, found = 0;
    /* Every line of the area is probed, as free() of it would. */
    rt_locktab_for_range((uintptr_t)churn_area, sizeof churn_area, count_visit, &n);
    for (int i = 0; i < CHURN_ADDRS; i++)
        found += rt_locktab_find((uintptr_t)churn_area + (size_t)i * 16) != NULL;
    ck_assert_int_eq(n, found); /* no address has two records */
    ck_assert_int_eq(rt_locktab_live(), live + found);
    for (int i = 0; i < CHURN_ADDRS; i++) {
        struct rt_lock *l = rt_locktab_find((uintptr_t)churn_area + (size_t)i * 16);
        if (l)
            rt_locktab_retire(l);
    }
    ck_assert_int_eq(rt_locktab_live(), live);
}
END_TEST

START_TEST(depot_hash_conses)
{
    uintptr_t a[] = { 0x1000, 0x2000, 0x3000 }, b[] = { 0x1000, 0x2000, 0x3001 };
    uint32_t fs[] = { 16, 32, 0 };
    rt_stack_id ia = rt_stack_intern(a, fs, 3), ib = rt_stack_intern(b, NULL, 3);
    ck_assert_uint_ne(ia, 0);
    ck_assert_uint_ne(ia, ib);
    ck_assert_uint_eq(rt_stack_intern(a, fs, 3), ia);
    ck_assert_uint_ne(rt_stack_intern(a, fs, 2), ia);
    const uintptr_t *pcs;
    const uint32_t *sizes;
    ck_assert_uint_eq(rt_stack_get(ia, &pcs, &sizes), 3);
    ck_assert_uint_eq(pcs[2], 0x3000);
    ck_assert_uint_eq(sizes[1], 32);
    ck_assert_uint_eq(rt_stack_get(0, &pcs, &sizes), 0);
    ck_assert_uint_eq(rt_stack_get(0xffffff, &pcs, &sizes), 0);
    ck_assert_uint_eq(rt_stack_intern(a, fs, 0), 0);
}
END_TEST

static __attribute__((noinline)) void capture_both(rt_stack_id *gcc, rt_stack_id *lu)
{
    *gcc = rt_stack_capture(RT_STACK_MAX);
    *lu = rt_stack_capture_libunwind(RT_STACK_MAX);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

static __attribute__((noinline)) void capture_deeper(int depth, rt_stack_id *gcc, rt_stack_id *lu)
{
    char pad[200];
    __asm__ volatile("" : : "r"(pad) : "memory"); /* a frame of its own size */
    if (depth == 0)
        capture_both(gcc, lu);
    else
        capture_deeper(depth - 1, gcc, lu);
    __asm__ volatile("" ::: "memory");
}

/* The two unwinders see the same callers with the same frame sizes (the
 * frames inside them differ: the captures themselves). */
START_TEST(unwinders_agree_on_callers_and_frame_sizes)
{
    rt_unwind_init();
    rt_stack_id g, l;
    capture_deeper(4, &g, &l);
    const uintptr_t *gp, *lp;
    const uint32_t *gs, *ls;
    unsigned gn = rt_stack_get(g, &gp, &gs), ln = rt_stack_get(l, &lp, &ls);
    ck_assert_uint_ge(gn, 8);
    ck_assert_uint_ge(ln, 8);
    unsigned common = 0;
    while (common < gn && common < ln && gp[gn - 1 - common] == lp[ln - 1 - common])
        common++;
    ck_assert_uint_ge(common, 6); /* the five capture_deeper frames and their caller */
    for (unsigned k = 1; k < common; k++) /* the outermost frame has no size */
        ck_assert_uint_eq(gs[gn - 1 - k], ls[ln - 1 - k]);
    ck_assert_uint_ge(gs[gn - common], 200); /* the innermost capture_deeper */
}
END_TEST

static volatile int unwinders_stop;

static void *unwind_forever(void *arg)
{
    (void)arg;
    while (!unwinders_stop)
        rt_stack_capture(64);
    return NULL;
}

static void child_after_fork(void)
{
    rt_unwind_fork_child();
    rt_alloc_after_fork();
}

/* A child forked while other threads unwind must be able to unwind: without
 * the fork gate it inherits libunwind's lock held and hangs. */
START_TEST(fork_while_others_unwind)
{
    rt_unwind_init();
    pthread_atfork(rt_unwind_fork_prepare, rt_unwind_fork_parent, child_after_fork);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, unwind_forever, NULL);
    int bad = 0;
    for (int i = 0; i < 300 && !bad; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            sigset_t alrm; /* a hang ends as SIGALRM (the child inherits a mask) */
            sigemptyset(&alrm);
            sigaddset(&alrm, SIGALRM);
            sigprocmask(SIG_UNBLOCK, &alrm, NULL);
            alarm(10);
            _exit(rt_stack_capture(16) != 0 ? 0 : 1);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            bad = i + 1;
    }
    unwinders_stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    ck_assert_msg(bad == 0, "child of fork %d hung or captured no stack", bad);
}
END_TEST

/* Bit keys (GLib bit locks): one per bit, never an address, decoded back
 * to their int and bit, and found by a range over any byte of the int. */
START_TEST(bit_keys_are_per_bit_and_found_by_their_word)
{
    static int words[4] __attribute__((aligned(16)));
    uintptr_t w = (uintptr_t)&words[1];
    ck_assert_uint_ne(rt_bit_key(w, 0), rt_bit_key(w, 1));
    ck_assert_uint_ne(rt_bit_key(w, 31), rt_bit_key(w + 4, 0));
    ck_assert_int_eq(rt_is_bit_key(rt_bit_key(w, 5)), 1);
    ck_assert_int_eq(rt_is_bit_key(w), 0);
    /* The same bit seen through another word is the same lock (a
     * pointer's bit 33 is its second int's bit 1; byte 1's bit 0 is bit 8). */
    ck_assert_uint_eq(rt_bit_key(w, 33), rt_bit_key(w + 4, 1));
    ck_assert_uint_eq(rt_bit_key(w + 1, 0), rt_bit_key(w, 8));
    ck_assert_uint_eq(rt_bit_key_word(rt_bit_key(w, 7)), w);
    ck_assert_uint_eq(rt_bit_key_bit(rt_bit_key(w, 7)), 7);
    ck_assert_uint_eq(rt_bit_key_word(rt_bit_key(w, 33)), w + 4);
    ck_assert_uint_eq(rt_lock_object_start(rt_bit_key(w, 20)), w);
    /* The per-thread cache (indexed by key >> 3) tells a word's bits apart. */
    ck_assert_uint_ne((rt_bit_key(w, 0) >> 3) & (RT_LOCK_CACHE - 1), (rt_bit_key(w, 1) >> 3) & (RT_LOCK_CACHE - 1));

    int created, n = 0;
    struct rt_lock *b0 = rt_locktab_get(rt_bit_key(w, 0), RT_LOCK_GBITLOCK, &created);
    struct rt_lock *b1 = rt_locktab_get(rt_bit_key(w, 1), RT_LOCK_GBITLOCK, &created);
    ck_assert_ptr_ne(b0, b1);
    ck_assert_ptr_eq(rt_locktab_find(rt_bit_key(w, 1)), b1);
    ck_assert_ptr_null(rt_locktab_find(w)); /* the word itself is no lock */
    ck_assert_int_ne(rt_locktab_may_overlap_small(w), 0);
    rt_locktab_for_range(w + 3, 1, count_visit, &n); /* the int's last byte */
    ck_assert_int_eq(n, 2);
    n = 0;
    rt_locktab_for_range((uintptr_t)&words[0], 4, count_visit, &n); /* the int before */
    rt_locktab_for_range((uintptr_t)&words[2], 8, count_visit, &n); /* the ints after */
    ck_assert_int_eq(n, 0);
    rt_locktab_retire(b0);
    rt_locktab_retire(b1);
}
END_TEST

Suite *locktab_suite(void)
{
    Suite *s = suite_create("locktab");
    TCase *tc = tcase_create("locktab");
    tcase_add_test(tc, ids_are_never_reused);
    tcase_add_test(tc, range_visits_overlapping_locks_only);
    tcase_add_test(tc, line_filter_never_misses_a_lock);
    tcase_add_test(tc, line_filter_wraps_without_missing);
    tcase_add_test(tc, concurrent_inserts_find_one_record);
    tcase_add_test(tc, concurrent_make_and_retire_stay_consistent);
    tcase_add_test(tc, bit_keys_are_per_bit_and_found_by_their_word);
    suite_add_tcase(s, tc);
    return s;
}

Suite *stackdepot_suite(void)
{
    Suite *s = suite_create("stackdepot");
    TCase *tc = tcase_create("stackdepot");
    tcase_add_test(tc, depot_hash_conses);
    tcase_add_test(tc, unwinders_agree_on_callers_and_frame_sizes);
    tcase_add_test(tc, fork_while_others_unwind);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

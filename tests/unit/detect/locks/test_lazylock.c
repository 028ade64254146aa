/* Mutexes without records (lazylock.c) and the unnamed held entries of the
 * engine (locks.c): the table against a model, and what the engine does
 * when such a lock is nested, waited for, destroyed or freed. */
#include "detect/suites.h"
#include "locks/locks.h"
#include "locks/lazylock.h"
#include "core/core.h"
#include "report/report.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PC(n) ((uintptr_t)0x500000 + (n))

static struct rt_thread *self(void)
{
    return rt_thread_new((int)syscall(SYS_gettid));
}

/* An aligned arena of its own per test: lines nobody else uses. */
static char *arena(size_t len)
{
    char *p = aligned_alloc(256, len);
    ck_assert_ptr_nonnull(p);
    memset(p, 0, len);
    return p;
}

static void mark(uintptr_t addr) { rt_filter_mark(rt_line_filter, addr, RT_FILTER_LAZY); }

START_TEST(add_take_and_first_use)
{
    char *a = arena(1024);
    uintptr_t m = (uintptr_t)a + 40;
    uint32_t site = rt_lazylock_site(PC(1), 77);
    ck_assert_uint_ne(site, 0);
    ck_assert_uint_eq(rt_lazylock_site(PC(1), 77), site);
    mark(m);
    ck_assert_int_eq(rt_lazylock_add(m, site, 1234), 1);
    ck_assert_int_eq(rt_lazylock_test(m), 1);
    ck_assert_int_eq(rt_lazylock_test(m + 8), 0);
    /* Acquired once without a record, the second time it needs one. */
    ck_assert_int_eq(rt_lazylock_first_use(m), 1);
    ck_assert_int_eq(rt_lazylock_first_use(m), 0);
    /* Initialized again: a new life, not acquired yet. */
    ck_assert_int_eq(rt_lazylock_add(m, site, 1234), 1);
    ck_assert_int_eq(rt_lazylock_first_use(m), 1);
    struct rt_lazy_init init;
    ck_assert_int_eq(rt_lazylock_take(m, &init), 1);
    ck_assert_uint_eq(init.pc, PC(1));
    ck_assert_uint_eq(init.stack, 77);
    ck_assert_int_eq(init.tid, 1234);
    ck_assert_int_eq(rt_lazylock_test(m), 0);
    ck_assert_int_eq(rt_lazylock_take(m, &init), 0); /* taken once only */
    ck_assert_int_eq(rt_lazylock_first_use(m), 0);
    free(a);
}
END_TEST

START_TEST(a_line_holds_one_site_and_thread)
{
    char *a = arena(1024);
    uintptr_t line = (uintptr_t)a;
    uint32_t s1 = rt_lazylock_site(PC(2), 1), s2 = rt_lazylock_site(PC(3), 2);
    ck_assert_int_eq(rt_lazylock_add(line, s1, 10), 1);
    ck_assert_int_eq(rt_lazylock_add(line + 40, s1, 10), 1);
    ck_assert_int_eq(rt_lazylock_add(line + 80, s2, 10), 0);  /* another site */
    ck_assert_int_eq(rt_lazylock_add(line + 120, s1, 11), 0); /* another thread */
    ck_assert_int_eq(rt_lazylock_add(line + 256, s2, 11), 1); /* another line */
    ck_assert_int_eq(rt_lazylock_add(line + 4, s1, 10), 0);   /* not a mutex's alignment */
    ck_assert_int_eq(rt_lazylock_add(line + 160, 0, 10), 0);  /* no site */
    /* The line's lazy locks gone, the entry is free for any site. */
    ck_assert_int_eq(rt_lazylock_take(line, NULL), 1);
    ck_assert_int_eq(rt_lazylock_take(line + 40, NULL), 1);
    ck_assert_int_eq(rt_lazylock_add(line + 80, s2, 12), 1);
    ck_assert_int_eq(rt_lazylock_take(line + 80, NULL), 1);
    ck_assert_int_eq(rt_lazylock_take(line + 256, NULL), 1);
    free(a);
}
END_TEST

struct seen { uintptr_t addr[64]; unsigned n; };
static void collect(uintptr_t addr, const struct rt_lazy_init *init, void *arg)
{
    struct seen *s = arg;
    (void)init;
    if (s->n < 64)
        s->addr[s->n++] = addr;
}

START_TEST(range_takes_what_overlaps)
{
    char *a = arena(2048);
    uintptr_t base = (uintptr_t)a;
    uint32_t site = rt_lazylock_site(PC(4), 3);
    /* Mutexes at 0, 40, ..., 1000 (the stride of an array of them). */
    for (uintptr_t off = 0; off + 40 <= 1040; off += 40) {
        mark(base + off);
        ck_assert_int_eq(rt_lazylock_add(base + off, site, 20), 1);
    }
    struct seen s = { .n = 0 };
    /* [100, 200): the mutexes at 80 (reaches to 120), 120 and 160. */
    ck_assert_uint_eq(rt_lazylock_take_range(base + 100, 100, collect, &s), 3);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_uint_eq(s.addr[0], base + 80);
    ck_assert_uint_eq(s.addr[1], base + 120);
    ck_assert_uint_eq(s.addr[2], base + 160);
    ck_assert_int_eq(rt_lazylock_test(base + 40), 1);
    ck_assert_int_eq(rt_lazylock_test(base + 200), 1);
    /* A range wider than the table is walked by entry. */
    s.n = 0;
    ck_assert_uint_ge(rt_lazylock_take_range(base - ((size_t)1 << 40), ((size_t)2 << 40), collect, &s), 23);
    for (uintptr_t off = 0; off + 40 <= 1040; off += 40)
        ck_assert_int_eq(rt_lazylock_test(base + off), 0);
    free(a);
}
END_TEST

static int entry_of(int line) { return line == 3 ? 0 : line; }

/* Random adds, takes and range takes over a few lines (two of which
 * alias in the table), against a model that knows which site, thread and
 * line each entry holds. */
START_TEST(table_matches_a_model)
{
    enum { LINES = 4, SLOTS = 32, ROUNDS = 20000 };
    char *a = arena(LINES * 256);
    uintptr_t base = (uintptr_t)a;
    /* Line 3 is base's line 0 plus 2^21 lines: the same table entry. */
    uintptr_t lines[LINES] = { base, base + 256, base + 512, base + ((uintptr_t)1 << (21 + 8)) };
    uint32_t sites[3] = { rt_lazylock_site(PC(10), 1), rt_lazylock_site(PC(11), 2), rt_lazylock_site(PC(12), 3) };
    int model[LINES][SLOTS]; /* 0: none, else 1 + site index * 2 + tid index */
    memset(model, 0, sizeof model);
    for (int l = 0; l < LINES; l++)
        mark(lines[l]);
    srand(7);
    for (int round = 0; round < ROUNDS; round++) {
        int l = rand() % LINES, slot = rand() % SLOTS, op = rand() % 8;
        uintptr_t addr = lines[l] + (uintptr_t)slot * 8;
        if (op < 4) {
            int si = rand() % 3, ti = rand() % 2;
            /* The entry may take it if it is free or holds the same line, site and thread. */
            int owner_line = -1, owner = 0;
            for (int k = 0; k < LINES; k++)
                for (int j = 0; j < SLOTS; j++)
                    if (model[k][j] && entry_of(k) == entry_of(l))
                        owner_line = k, owner = model[k][j];
            int expect = owner_line < 0 || (owner_line == l && owner == 1 + si * 2 + ti);
            ck_assert_int_eq(rt_lazylock_add(addr, sites[si], 100 + ti), expect);
            if (expect)
                model[l][slot] = 1 + si * 2 + ti;
        } else if (op < 7) {
            struct rt_lazy_init init;
            int had = model[l][slot] != 0;
            ck_assert_int_eq(rt_lazylock_take(addr, &init), had);
            if (had) {
                int si = (model[l][slot] - 1) / 2, ti = (model[l][slot] - 1) % 2;
                ck_assert_uint_eq(init.pc, PC(10 + si));
                ck_assert_int_eq(init.tid, 100 + ti);
            }
            model[l][slot] = 0;
        } else {
            /* The whole line, and the mutexes of the line before it (if
             * ours) that reach into it: slots 28..31. */
            struct seen s = { .n = 0 };
            unsigned expect = 0;
            for (int j = 0; j < SLOTS; j++)
                expect += model[l][j] != 0;
            memset(model[l], 0, sizeof model[l]);
            if (l == 1 || l == 2)
                for (int j = 28; j < SLOTS; j++) {
                    expect += model[l - 1][j] != 0;
                    model[l - 1][j] = 0;
                }
            ck_assert_uint_eq(rt_lazylock_take_range(lines[l], 256, collect, &s), expect);
        }
        for (int k = 0; k < LINES; k++)
            for (int j = 0; j < SLOTS; j++)
                ck_assert_int_eq(rt_lazylock_test(lines[k] + (uintptr_t)j * 8), model[k][j] != 0);
    }
    for (int l = 0; l < LINES; l++)
        for (int j = 0; j < SLOTS; j++)
            rt_lazylock_take(lines[l] + (uintptr_t)j * 8, NULL);
    free(a);
}
END_TEST

/* Threads adding and taking their own slots of the same lines (one
 * entry, changed by all) while others take whole ranges: every add of a
 * clear bit is taken exactly once. */
enum { RACE_THREADS = 4, RACE_LINES = 64, RACE_ROUNDS = 300 };
static char *race_area;
static _Atomic long race_added, race_taken;
static void *racer(void *arg)
{
    int me = (int)(intptr_t)arg;
    uint32_t site = rt_lazylock_site(PC(20), 5);
    struct seen s;
    for (int round = 0; round < RACE_ROUNDS; round++) {
        for (int l = 0; l < RACE_LINES; l++) {
            uintptr_t addr = (uintptr_t)race_area + (uintptr_t)l * 256 + (uintptr_t)me * 64;
            /* Only this thread adds this slot: after its take the bit is clear. */
            race_taken += rt_lazylock_take(addr, NULL);
            race_added += rt_lazylock_add(addr, site, 200);
        }
        if (round % 7 == me) {
            s.n = 0;
            race_taken += rt_lazylock_take_range((uintptr_t)race_area + (uintptr_t)(round % RACE_LINES) * 256, 512,
                                                 collect, &s);
        }
    }
    return NULL;
}

START_TEST(concurrent_adds_and_takes_balance)
{
    race_area = arena(RACE_LINES * 256);
    for (int l = 0; l < RACE_LINES; l++)
        mark((uintptr_t)race_area + (uintptr_t)l * 256);
    pthread_t th[RACE_THREADS];
    for (int i = 0; i < RACE_THREADS; i++)
        pthread_create(&th[i], NULL, racer, (void *)(intptr_t)i);
    for (int i = 0; i < RACE_THREADS; i++)
        pthread_join(th[i], NULL);
    struct seen s = { .n = 0 };
    long rest = rt_lazylock_take_range((uintptr_t)race_area, RACE_LINES * 256, collect, &s);
    ck_assert_int_gt(race_added, RACE_LINES);
    ck_assert_int_eq(race_added, race_taken + rest);
    free(race_area);
}
END_TEST

/* ---- the engine ------------------------------------------------------- */

/* The object's own word, as interpose/fastlock.c reads a glibc mutex. */
static int word_unlocked(const struct rt_lock *l)
{
    return *(const int *)__atomic_load_n(&l->addr, __ATOMIC_RELAXED) == 0;
}
static void set_word(void *m, int v) { *(int *)m = v; }

static struct rt_thread *setup(void)
{
    ck_assert_ptr_nonnull(test_log_setup(NULL));
    __atomic_store_n(&rt_lock_object_unlocked, word_unlocked, __ATOMIC_RELEASE);
    return self();
}

/* A lazy mutex taken as the wrappers' fast path takes it. */
static void fast_take(struct rt_thread *t, void *m, uintptr_t pc)
{
    set_word(m, 1);
    rt_on_lock_acquired_uncached(t, (uintptr_t)m, RT_LOCK_MUTEX, pc);
}
static void drop(struct rt_thread *t, void *m)
{
    rt_on_lock_release(t, (uintptr_t)m, PC(90));
    set_word(m, 0);
}

START_TEST(first_use_makes_no_record)
{
    struct rt_thread *t = setup();
    char *a = arena(256);
    rt_on_lock_init(t, (uintptr_t)a, RT_LOCK_MUTEX, PC(30));
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)a));
    fast_take(t, a, PC(31));
    ck_assert_uint_eq(t->nheld, 1);
    ck_assert_uint_eq(t->held[0].id, RT_HELD_UNNAMED);
    ck_assert_int_eq(rt_held_live(&t->held[0]), 1);
    ck_assert_int_eq(rt_lock_held_by(t, (uintptr_t)a), 1);
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)a));
    drop(t, a);
    ck_assert_uint_eq(t->nheld, 0);
    /* The second time it gets the record its init would have made. */
    fast_take(t, a, PC(31));
    struct rt_lock *l = rt_locktab_find((uintptr_t)a);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(l->statically_initialized, 0);
    ck_assert_uint_eq(l->class_key, PC(30));
    ck_assert_int_eq(l->init_tid, t->tid);
    ck_assert_ptr_eq(t->held[0].lock, l);
    drop(t, a);
    /* Destroyed unlocked: no record needed, none made. */
    char *b = arena(256);
    rt_on_lock_init(t, (uintptr_t)b, RT_LOCK_MUTEX, PC(30));
    fast_take(t, b, PC(31));
    drop(t, b);
    rt_on_lock_destroy(t, (uintptr_t)b, PC(32));
    ck_assert_ptr_null(rt_locktab_find((uintptr_t)b));
    ck_assert_int_eq(rt_lazylock_test((uintptr_t)b), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_DESTROY_LOCKED), 0);
    rt_on_lock_destroy(t, (uintptr_t)a, PC(32));
    free(a);
    free(b);
}
END_TEST

START_TEST(nesting_names_the_entry_and_finds_the_inversion)
{
    struct rt_thread *t = setup();
    char *a = arena(512);
    void *x = a, *y = a + 256;
    rt_on_lock_init(t, (uintptr_t)x, RT_LOCK_MUTEX, PC(40));
    rt_on_lock_init(t, (uintptr_t)y, RT_LOCK_MUTEX, PC(41));
    /* x (unnamed), then y under it: the edge x -> y. */
    fast_take(t, x, PC(42));
    struct rt_lock *ly = rt_lock_lookup(t, (uintptr_t)y, RT_LOCK_MUTEX, PC(43));
    uint64_t chain = rt_on_lock_pre(t, ly, 0, PC(43));
    ck_assert_uint_ne(t->held[0].id, RT_HELD_UNNAMED);
    ck_assert_ptr_eq(t->held[0].lock, rt_locktab_find((uintptr_t)x));
    rt_on_lock_acquired(t, ly, 0, chain, PC(43));
    drop(t, y);
    drop(t, x);
    /* y, then x, by another thread: the inversion. */
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_ORDER_INVERSION), 0);
    struct rt_thread *other = rt_thread_new(getppid());
    struct rt_lock *lx = rt_lock_lookup(other, (uintptr_t)x, RT_LOCK_MUTEX, PC(44));
    rt_on_lock_acquired(other, ly, 0, rt_on_lock_pre(other, ly, 0, PC(45)), PC(45));
    rt_on_lock_acquired(other, lx, 0, rt_on_lock_pre(other, lx, 0, PC(44)), PC(44));
    ck_assert_uint_eq(rt_report_count(RT_KIND_LOCK_ORDER_INVERSION), 1);
    drop(other, x);
    drop(other, y);
    rt_on_lock_destroy(t, (uintptr_t)x, PC(46));
    rt_on_lock_destroy(t, (uintptr_t)y, PC(46));
    free(a);
}
END_TEST

START_TEST(freed_while_held_unnamed_is_reported_with_its_holder)
{
    struct rt_thread *t = setup();
    struct rt_thread *holder = rt_thread_new(getpid());
    char *obj = arena(256);
    rt_on_lock_init(t, (uintptr_t)obj + 64, RT_LOCK_MUTEX, PC(50));
    fast_take(holder, obj + 64, PC(51));
    ck_assert_uint_eq(holder->held[0].id, RT_HELD_UNNAMED);
    /* Another thread finds the holder by the record the lock gets. */
    struct rt_lock *l = rt_lock_find((uintptr_t)obj + 64);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(rt_lock_owner(l, NULL), holder->tid);
    ck_assert_uint_eq(holder->held[0].id, RT_HELD_UNNAMED); /* still its own to name */
    rt_on_free(t, (uintptr_t)obj, 256, PC(52));
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 1);
    ck_assert_ptr_nonnull(strstr(test_log_read(), "initialized by thread"));
    /* The holder's entry died with the lock. */
    ck_assert_int_eq(rt_held_live(&holder->held[0]), 0);
    rt_on_lock_release(holder, (uintptr_t)obj + 64, PC(53));
    ck_assert_uint_eq(holder->nheld, 0);
    free(obj);
}
END_TEST

START_TEST(freed_unheld_lazy_locks_make_no_records)
{
    struct rt_thread *t = setup();
    char *obj = arena(4096);
    for (int i = 0; i < 100; i++)
        rt_on_lock_init(t, (uintptr_t)obj + (uintptr_t)i * 40, RT_LOCK_MUTEX, PC(60));
    long live = rt_locktab_live();
    fast_take(t, obj + 400, PC(61));
    drop(t, obj + 400);
    rt_on_free(t, (uintptr_t)obj, 4096, PC(62));
    ck_assert_int_eq(rt_locktab_live(), live);
    ck_assert_int_eq(rt_lazylock_test((uintptr_t)obj + 400), 0);
    ck_assert_uint_eq(rt_report_count(RT_KIND_ACTIVE_LOCK_FREED), 0);
    free(obj);
}
END_TEST

START_TEST(destroyed_while_held_unnamed_is_reported)
{
    struct rt_thread *t = setup();
    char *a = arena(256);
    rt_on_lock_init(t, (uintptr_t)a, RT_LOCK_MUTEX, PC(70));
    fast_take(t, a, PC(71));
    rt_on_lock_destroy(t, (uintptr_t)a, PC(72));
    ck_assert_uint_eq(rt_report_count(RT_KIND_DESTROY_LOCKED), 1);
    ck_assert_int_eq(rt_held_live(&t->held[0]), 0);
    /* Initialized again and taken: a new lock, no recursive locking. */
    set_word(a, 0);
    rt_on_lock_init(t, (uintptr_t)a, RT_LOCK_MUTEX, PC(70));
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)a, RT_LOCK_MUTEX, PC(73));
    rt_on_lock_acquired(t, l, 0, rt_on_lock_pre(t, l, 0, PC(73)), PC(73));
    ck_assert_uint_eq(rt_report_count(RT_KIND_RECURSIVE_LOCKING), 0);
    rt_on_lock_release(t, (uintptr_t)a, PC(74));
    rt_on_lock_release(t, (uintptr_t)a, PC(74));
    ck_assert_uint_eq(t->nheld, 0);
    free(a);
}
END_TEST

START_TEST(unlock_by_another_thread_ends_the_unnamed_holding)
{
    struct rt_thread *t = setup();
    struct rt_thread *holder = rt_thread_new(getppid());
    char *a = arena(256);
    rt_on_lock_init(t, (uintptr_t)a, RT_LOCK_MUTEX, PC(80));
    fast_take(holder, a, PC(81));
    ck_assert_uint_eq(holder->held[0].id, RT_HELD_UNNAMED);
    rt_on_lock_release(t, (uintptr_t)a, PC(82)); /* t never took it */
    ck_assert_uint_eq(rt_report_count(RT_KIND_NON_OWNER_UNLOCK), 1);
    set_word(a, 0);
    /* The holder's entry went with the hand-off: nobody holds the lock. */
    ck_assert_int_eq(rt_held_live(&holder->held[0]), 0);
    ck_assert_int_eq(rt_lock_owner(rt_lock_find((uintptr_t)a), NULL), 0);
    rt_on_lock_destroy(t, (uintptr_t)a, PC(83));
    ck_assert_uint_eq(rt_report_count(RT_KIND_DESTROY_LOCKED), 0);
    free(a);
}
END_TEST

Suite *lazylock_suite(void)
{
    Suite *s = suite_create("lazylock");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, add_take_and_first_use);
    tcase_add_test(tc, a_line_holds_one_site_and_thread);
    tcase_add_test(tc, range_takes_what_overlaps);
    tcase_add_test(tc, table_matches_a_model);
    tcase_add_test(tc, concurrent_adds_and_takes_balance);
    tcase_add_test(tc, first_use_makes_no_record);
    tcase_add_test(tc, nesting_names_the_entry_and_finds_the_inversion);
    tcase_add_test(tc, freed_while_held_unnamed_is_reported_with_its_holder);
    tcase_add_test(tc, freed_unheld_lazy_locks_make_no_records);
    tcase_add_test(tc, destroyed_while_held_unnamed_is_reported);
    tcase_add_test(tc, unlock_by_another_thread_ends_the_unnamed_holding);
    suite_add_tcase(s, tc);
    return s;
}

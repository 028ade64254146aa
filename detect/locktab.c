#include "locktab.h"
#include "freegate.h"
#include "rt_alloc.h"
#include "rt_common.h"
#include <signal.h>
#include <stdbool.h>

/* Records are hashed by their 256-byte line, so every lock that overlaps a
 * freed range is found by probing that range's lines. */
#define LINE_SHIFT RT_LINE_SHIFT
#define BUCKET_BITS 17
#define BUCKETS (1u << BUCKET_BITS)
#define STRIPES 1024
/* Beyond this many lines a range check visits every live record instead. */
#define MAX_LINE_PROBES 65536

struct stripe {
    rt_spin_t lock;
    _Atomic unsigned seq; /* odd while a writer changes a chain of this stripe */
    char pad[56];
};

uint8_t rt_line_filter[RT_FILTER_LINES + 1];
static struct rt_lock *_Atomic *buckets;
static struct stripe stripes[STRIPES];
static struct rt_pool lock_pool = RT_POOL_INIT(struct rt_lock);
static _Atomic uint64_t next_id = 1;
static _Atomic long live_count;
static rt_spin_t init_lock = RT_SPIN_INIT;

static inline unsigned bucket_of_line(uintptr_t line)
{
    return (unsigned)(rt_hash64(line) >> (64 - BUCKET_BITS));
}
static inline unsigned bucket_of(uintptr_t addr) { return bucket_of_line(addr >> LINE_SHIFT); }
static inline struct stripe *stripe_of(unsigned bucket) { return &stripes[bucket % STRIPES]; }

static bool ensure_table(void)
{
    if (likely(__atomic_load_n(&buckets, __ATOMIC_ACQUIRE) != NULL))
        return true;
    rt_spin_lock(&init_lock);
    if (!buckets) {
        void *b = rt_zalloc(BUCKETS * sizeof(*buckets));
        __atomic_store_n(&buckets, b, __ATOMIC_RELEASE);
    }
    rt_spin_unlock(&init_lock);
    return buckets != NULL;
}

const char *rt_lock_type_name(enum rt_lock_type t)
{
    switch (t) {
    case RT_LOCK_MUTEX: return "pthread_mutex_t";
    case RT_LOCK_MUTEX_RECURSIVE: return "pthread_mutex_t, recursive";
    case RT_LOCK_MUTEX_ERRORCHECK: return "pthread_mutex_t, errorcheck";
    case RT_LOCK_RWLOCK: return "pthread_rwlock_t";
    case RT_LOCK_SPIN: return "pthread_spinlock_t";
    case RT_LOCK_COND: return "pthread_cond_t";
    }
    return "lock";
}

uint32_t rt_lock_type_size(enum rt_lock_type t)
{
    switch (t) {
    case RT_LOCK_RWLOCK: return 56;
    case RT_LOCK_SPIN: return 4;
    case RT_LOCK_COND: return 48;
    default: return 40;
    }
}

static struct rt_lock *scan(unsigned b, uintptr_t addr)
{
    struct stripe *s = stripe_of(b);
    for (;;) {
        unsigned seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (seq & 1) {
            __builtin_ia32_pause();
            continue;
        }
        struct rt_lock *found = NULL;
        unsigned steps = 0;
        for (struct rt_lock *l = __atomic_load_n(&buckets[b], __ATOMIC_ACQUIRE); l && steps < 100000;
             l = __atomic_load_n(&l->next, __ATOMIC_ACQUIRE), steps++) {
            if (__atomic_load_n(&l->addr, __ATOMIC_ACQUIRE) == addr) {
                found = l;
                break;
            }
        }
        if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == seq)
            return found;
    }
}

struct rt_lock *rt_locktab_find(uintptr_t addr)
{
    if (!ensure_table() || addr == 0)
        return NULL;
    return scan(bucket_of(addr), addr);
}

/* A writer holds its stripe with signals blocked: readers of the stripe
 * wait for it, and a signal handler run in between could block on a
 * program lock that one of those readers holds while it waits (seen in
 * stress/signal-storm: a handler's lock call took a mutex in place, then
 * spun on a stripe whose writer's own handler waited for that mutex). */
static void stripe_lock(struct stripe *s, sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
    rt_spin_lock(&s->lock);
}

static void stripe_unlock(struct stripe *s, const sigset_t *old)
{
    rt_spin_unlock(&s->lock);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void write_begin(struct stripe *s, sigset_t *old)
{
    stripe_lock(s, old);
    __atomic_fetch_add(&s->seq, 1, __ATOMIC_ACQ_REL);
}

static void write_end(struct stripe *s, const sigset_t *old)
{
    __atomic_fetch_add(&s->seq, 1, __ATOMIC_RELEASE);
    stripe_unlock(s, old);
}

struct rt_lock *rt_locktab_get(uintptr_t addr, enum rt_lock_type type, int *created)
{
    *created = 0;
    if (!ensure_table() || addr == 0)
        return NULL;
    unsigned b = bucket_of(addr);
    struct rt_lock *l = scan(b, addr);
    if (l)
        return l;
    struct rt_lock *fresh = rt_pool_get(&lock_pool);
    if (!fresh) {
        rt_out_of_memory("lock records");
        return NULL;
    }
    struct stripe *s = stripe_of(b);
    sigset_t old;
    stripe_lock(s, &old);
    /* Re-check under the lock: another thread may have created it. */
    for (l = buckets[b]; l; l = l->next)
        if (l->addr == addr)
            break;
    if (l) {
        stripe_unlock(s, &old);
        rt_pool_put(&lock_pool, fresh);
        return l;
    }
    __atomic_fetch_add(&s->seq, 1, __ATOMIC_ACQ_REL);
    fresh->type = (uint8_t)type;
    fresh->size = rt_lock_type_size(type);
    __atomic_store_n(&fresh->id, __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    __atomic_store_n(&fresh->next, buckets[b], __ATOMIC_RELAXED);
    __atomic_store_n(&fresh->addr, addr, __ATOMIC_RELEASE);
    /* The filter bit is set before the record is visible: a free() that
     * finds the bit clear cannot race with a lock it should have seen. */
    rt_filter_set(rt_line_filter, addr);
    rt_free_checks_add(RT_FREE_LOCKS);
    __atomic_store_n(&buckets[b], fresh, __ATOMIC_RELEASE);
    __atomic_fetch_add(&live_count, 1, __ATOMIC_RELAXED);
    write_end(s, &old);
    *created = 1;
    return fresh;
}

void rt_locktab_retire(struct rt_lock *lock)
{
    uintptr_t addr = __atomic_load_n(&lock->addr, __ATOMIC_ACQUIRE);
    if (addr == 0)
        return;
    unsigned b = bucket_of(addr);
    struct stripe *s = stripe_of(b);
    sigset_t old;
    write_begin(s, &old);
    int unlinked = 0;
    for (struct rt_lock *_Atomic *pp = &buckets[b]; *pp; pp = &(*pp)->next) {
        if (*pp == lock) {
            __atomic_store_n(pp, lock->next, __ATOMIC_RELEASE);
            __atomic_store_n(&lock->addr, 0, __ATOMIC_RELEASE);
            unlinked = 1;
            break;
        }
    }
    write_end(s, &old);
    if (unlinked) {
        __atomic_fetch_sub(&live_count, 1, __ATOMIC_RELAXED);
        rt_pool_put(&lock_pool, lock);
    }
}

uint64_t rt_locktab_new_id(void)
{
    return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

long rt_locktab_live(void)
{
    return __atomic_load_n(&live_count, __ATOMIC_RELAXED);
}

/* Collects matches first and visits them after the scan, so the callback
 * may retire records (which rewrites chains) without confusing the walk. */
static unsigned visit_bucket(uintptr_t line, uintptr_t start, uintptr_t end, rt_lock_visit_fn fn, void *arg)
{
    unsigned b = bucket_of_line(line);
    struct rt_lock *hits[64];
    unsigned nhits, total = 0;
    struct stripe *s = stripe_of(b);
    if (!__atomic_load_n(&buckets[b], __ATOMIC_ACQUIRE))
        return 0;
    do {
        nhits = 0;
        sigset_t old;
        stripe_lock(s, &old);
        for (struct rt_lock *l = buckets[b]; l && nhits < RT_ARRAY_SIZE(hits); l = l->next) {
            uintptr_t a = l->addr;
            /* Other lines share buckets: each record is visited for its own line only. */
            if (a >> LINE_SHIFT == line && a < end && a + l->size > start)
                hits[nhits++] = l;
        }
        stripe_unlock(s, &old);
        for (unsigned i = 0; i < nhits; i++)
            fn(hits[i], arg);
        total += nhits;
        /* A full batch may have left more behind; callbacks normally retire. */
    } while (nhits == RT_ARRAY_SIZE(hits) && total < 1u << 20);
    return total;
}

/* For huge ranges: every live record, bucket by bucket. */
static unsigned visit_all(uintptr_t start, uintptr_t end, rt_lock_visit_fn fn, void *arg)
{
    unsigned total = 0;
    for (unsigned b = 0; b < BUCKETS; b++) {
        struct rt_lock *hits[64];
        unsigned nhits = 0;
        if (!__atomic_load_n(&buckets[b], __ATOMIC_ACQUIRE))
            continue;
        struct stripe *s = stripe_of(b);
        sigset_t old;
        stripe_lock(s, &old);
        for (struct rt_lock *l = buckets[b]; l && nhits < RT_ARRAY_SIZE(hits); l = l->next)
            if (l->addr < end && l->addr + l->size > start)
                hits[nhits++] = l;
        stripe_unlock(s, &old);
        for (unsigned i = 0; i < nhits; i++)
            fn(hits[i], arg);
        total += nhits;
    }
    return total;
}

unsigned rt_locktab_for_range(uintptr_t start, size_t len, rt_lock_visit_fn fn, void *arg)
{
    if (!buckets || len == 0 || rt_locktab_live() == 0)
        return 0;
    uintptr_t end = start + len;
    /* A lock that starts before the range may reach into it. */
    uintptr_t first = (start >= 64 ? start - 64 : 0) >> LINE_SHIFT, last = (end - 1) >> LINE_SHIFT;
    unsigned total = 0;
    if (last - first < MAX_LINE_PROBES) {
        for (uintptr_t line = first; line <= last; line++) {
            if (rt_filter_test(rt_line_filter, line))
                total += visit_bucket(line, start, end, fn, arg);
        }
    } else {
        total += visit_all(start, end, fn, arg);
    }
    return total;
}

void rt_locktab_after_fork(void)
{
    for (unsigned i = 0; i < STRIPES; i++) {
        rt_spin_reinit(&stripes[i].lock);
        __atomic_store_n(&stripes[i].seq, 0, __ATOMIC_RELAXED);
    }
    rt_spin_reinit(&init_lock);
    rt_spin_reinit(&lock_pool.lock);
}

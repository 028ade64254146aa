#include "locks/locktab.h"
#include "locks/freegate.h"
#include "core/core.h"
#include <stdbool.h>
#include <sys/mman.h>

_Static_assert(sizeof(struct rt_lock) == 64, "a lock record is one cache line");

/* Records are bucketed by their 64-byte line, so every lock that overlaps a
 * freed range is found by probing that range's lines. Within a window of
 * BUCKETS lines (64 MiB) consecutive lines get consecutive buckets, each
 * window rotated by a hash of its number: an array of locks fills a run of
 * buckets, and the table's pages are touched only where locks live (the
 * array is mapped, not written: 8 MiB of address space, 4 KiB of memory
 * per 32 KiB of address space that holds locks). A line holds one or two
 * mutexes, so a lookup that misses the thread's cache reads the bucket and
 * about one record: with 256-byte lines an array of mutexes (memcached's
 * item locks) made chains of six, walked record by record, each a cache
 * miss. The line filter keeps its coarser lines (RT_LINE_SHIFT). */
#define LINE_SHIFT 6
_Static_assert(LINE_SHIFT <= RT_LINE_SHIFT, "a filter line covers whole bucket lines");
#define BUCKET_BITS 20
#define BUCKETS (1u << BUCKET_BITS)
#define STRIPES 1024
/* Beyond this many filter lines (16 MiB) a range check visits every live
 * record instead. */
#define MAX_LINE_PROBES 65536

/* Readers never wait and writers never wait for one another (a thread
 * may be stopped in a signal handler that blocks on a program lock while
 * it writes): records are inserted with a compare-and-swap on the bucket
 * head, retired by clearing their address, and unlinked only by a thread
 * that gets the stripe without waiting. The stripe's count changes with
 * every unlink, before the record can be reused, so a reader that may
 * have followed a reused record's link scans again. */
struct stripe {
    rt_spin_t sweeping;
    _Atomic unsigned unlinks;
    _Atomic long live;     /* records of the stripe's buckets (no global count to contend on) */
    char pad[48];
};

uint8_t rt_line_filter[RT_FILTER_LINES + RT_FILTER_PAD];
static struct rt_lock *_Atomic *buckets;
static struct stripe stripes[STRIPES];
static struct rt_pool lock_pool = RT_POOL_INIT(struct rt_lock);
static _Atomic uint64_t next_id = 1;
/* Ids are unique, not ordered: threads take them in blocks. */
#define ID_BLOCK 256
static __thread uint64_t ids_next, ids_end __attribute__((tls_model("initial-exec")));
static rt_spin_t init_lock = RT_SPIN_INIT;

static inline unsigned bucket_of_line(uintptr_t line)
{
    return (unsigned)((line + (rt_hash64(line >> BUCKET_BITS) >> 32)) & (BUCKETS - 1));
}
/* A bit lock lives in the line of its int: a range check finds it there. */
static inline unsigned bucket_of(uintptr_t addr) { return bucket_of_line(rt_lock_object_start(addr) >> LINE_SHIFT); }
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
    case RT_LOCK_SEM: return "sem_t";
    case RT_LOCK_USER: return "annotated lock";
    case RT_LOCK_USER_RECURSIVE: return "annotated recursive lock";
    case RT_LOCK_USER_RW: return "annotated reader-writer lock";
    case RT_LOCK_GMUTEX: return "GMutex";
    case RT_LOCK_GRECMUTEX: return "GRecMutex";
    case RT_LOCK_GRWLOCK: return "GRWLock";
    case RT_LOCK_GCOND: return "GCond";
    case RT_LOCK_GBITLOCK: return "GLib bit lock";
    case RT_LOCK_BARRIER: return "pthread_barrier_t";
    }
    return "lock";
}

uint32_t rt_lock_type_size(enum rt_lock_type t)
{
    switch (t) {
    case RT_LOCK_RWLOCK: return 56;
    case RT_LOCK_SPIN: return 4;
    case RT_LOCK_COND: return 48;
    case RT_LOCK_SEM: return 32;
    case RT_LOCK_USER:
    case RT_LOCK_USER_RECURSIVE:
    case RT_LOCK_USER_RW: return 1; /* size unknown: a free that covers its first byte */
    case RT_LOCK_GMUTEX: return 8; /* a union of a pointer and two words */
    case RT_LOCK_GRECMUTEX:
    case RT_LOCK_GRWLOCK:
    case RT_LOCK_GCOND: return 16;  /* a pointer and two words */
    case RT_LOCK_GBITLOCK: return 4; /* the int that holds its bit */
    case RT_LOCK_BARRIER: return 32;
    default: return 40;
    }
}

static struct rt_lock *scan_from(struct rt_lock *l, struct rt_lock *stop, uintptr_t addr)
{
    for (unsigned steps = 0; l && l != stop && steps < 100000; l = __atomic_load_n(&l->next, __ATOMIC_ACQUIRE), steps++)
        if (__atomic_load_n(&l->addr, __ATOMIC_ACQUIRE) == addr)
            return l;
    return NULL;
}

static struct rt_lock *scan(unsigned b, uintptr_t addr)
{
    struct stripe *s = stripe_of(b);
    for (;;) {
        unsigned seen = __atomic_load_n(&s->unlinks, __ATOMIC_ACQUIRE);
        struct rt_lock *found = scan_from(__atomic_load_n(&buckets[b], __ATOMIC_ACQUIRE), NULL, addr);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (found || __atomic_load_n(&s->unlinks, __ATOMIC_RELAXED) == seen)
            return found;
    }
}

struct rt_lock *rt_locktab_find(uintptr_t addr)
{
    if (!ensure_table() || addr == 0)
        return NULL;
    return scan(bucket_of(addr), addr);
}

/* Unlinks the bucket's retired records, if the stripe is free at once:
 * the next writer of the stripe finds what is left. An unlinked record's
 * own link is left alone until the count has changed: a reader standing
 * on it still reaches the rest of the chain, or knows to scan again. */
#define SWEEP_MAX 32
static void sweep(unsigned b)
{
    struct stripe *s = stripe_of(b);
    if (!rt_spin_trylock(&s->sweeping))
        return;
    struct rt_lock *dead[SWEEP_MAX];
    unsigned ndead = 0;
    struct rt_lock *_Atomic *pp = &buckets[b];
    struct rt_lock *l;
    while (ndead < SWEEP_MAX && (l = __atomic_load_n(pp, __ATOMIC_ACQUIRE)) != NULL) {
        if (__atomic_load_n(&l->addr, __ATOMIC_ACQUIRE) != 0) {
            pp = &l->next;
            continue;
        }
        struct rt_lock *after = __atomic_load_n(&l->next, __ATOMIC_ACQUIRE);
        /* Inserts change only the head: elsewhere a plain store is enough. */
        if (pp == &buckets[b]) {
            if (!__atomic_compare_exchange_n(pp, &l, after, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                continue; /* a new head: look again from it */
        } else {
            __atomic_store_n(pp, after, __ATOMIC_RELEASE);
        }
        dead[ndead++] = l;
    }
    if (ndead)
        __atomic_fetch_add(&s->unlinks, 1, __ATOMIC_RELEASE);
    rt_spin_unlock(&s->sweeping);
    for (unsigned i = 0; i < ndead; i++)
        rt_pool_put(&lock_pool, dead[i]);
}

struct rt_lock *rt_locktab_get(uintptr_t addr, enum rt_lock_type type, int *created)
{
    *created = 0;
    if (!ensure_table() || addr == 0)
        return NULL;
    unsigned b = bucket_of(addr);
    struct stripe *s = stripe_of(b);
    /* A scan that may have been misled by an unlink is checked at the end. */
    unsigned seen = __atomic_load_n(&s->unlinks, __ATOMIC_ACQUIRE);
    struct rt_lock *head = __atomic_load_n(&buckets[b], __ATOMIC_ACQUIRE);
    struct rt_lock *l = scan_from(head, NULL, addr);
    if (l)
        return l;
    struct rt_lock *fresh = rt_pool_get(&lock_pool);
    if (!fresh) {
        rt_out_of_memory("lock records");
        return NULL;
    }
    fresh->type = (uint8_t)type;
    __atomic_store_n(&fresh->id, rt_locktab_new_id(), __ATOMIC_RELAXED);
    __atomic_store_n(&fresh->addr, addr, __ATOMIC_RELAXED);
    /* The filter bit is set before the record is visible: a free() that
     * finds the bit clear cannot race with a lock it should have seen. */
    rt_filter_mark(rt_line_filter, rt_lock_object_start(addr), RT_FILTER_RECORDS);
    rt_free_checks_add(RT_FREE_LOCKS);
    for (struct rt_lock *checked = head;; checked = head) {
        __atomic_store_n(&fresh->next, head, __ATOMIC_RELAXED);
        if (__atomic_compare_exchange_n(&buckets[b], &head, fresh, false, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
            break;
        /* Records made since: another thread may have made this one. */
        if ((l = scan_from(head, checked, addr)) != NULL) {
            rt_pool_put(&lock_pool, fresh);
            return l;
        }
    }
    /* An unlink during the scans (a record reused elsewhere, a reused head
     * put back in place) may have hidden a record made meanwhile below
     * ours: then the older one stays. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    for (unsigned now; (now = __atomic_load_n(&s->unlinks, __ATOMIC_ACQUIRE)) != seen;) {
        seen = now;
        /* A record reused above ours may lead back to ours: stop there. */
        l = scan_from(__atomic_load_n(&fresh->next, __ATOMIC_ACQUIRE), fresh, addr);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (l) {
            __atomic_store_n(&fresh->addr, 0, __ATOMIC_RELEASE);
            sweep(b);
            return l;
        }
    }
    __atomic_fetch_add(&s->live, 1, __ATOMIC_RELAXED);
    *created = 1;
    return fresh;
}

void rt_locktab_retire(struct rt_lock *lock)
{
    uintptr_t addr = __atomic_load_n(&lock->addr, __ATOMIC_ACQUIRE);
    if (addr == 0 || !__atomic_compare_exchange_n(&lock->addr, &addr, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    unsigned b = bucket_of(addr);
    __atomic_fetch_sub(&stripe_of(b)->live, 1, __ATOMIC_RELAXED);
    sweep(b);
}

uint64_t rt_locktab_new_id(void)
{
    if (unlikely(ids_next == ids_end)) {
        ids_next = __atomic_fetch_add(&next_id, ID_BLOCK, __ATOMIC_RELAXED);
        ids_end = ids_next + ID_BLOCK;
    }
    return ids_next++;
}

long rt_locktab_live(void)
{
    long n = 0;
    for (unsigned i = 0; i < STRIPES; i++)
        n += __atomic_load_n(&stripes[i].live, __ATOMIC_RELAXED);
    return n;
}

/* Collects matches first and visits them after the scan, so the callback
 * may retire records without confusing the walk. */
static unsigned collect(unsigned b, uintptr_t line, uintptr_t start, uintptr_t end, struct rt_lock **hits, unsigned max)
{
    struct stripe *s = stripe_of(b);
    for (;;) {
        unsigned seen = __atomic_load_n(&s->unlinks, __ATOMIC_ACQUIRE), n = 0, steps = 0;
        for (struct rt_lock *l = __atomic_load_n(&buckets[b], __ATOMIC_ACQUIRE); l && n < max && steps < 100000;
             l = __atomic_load_n(&l->next, __ATOMIC_ACQUIRE), steps++) {
            uintptr_t key = __atomic_load_n(&l->addr, __ATOMIC_ACQUIRE), a = rt_lock_object_start(key);
            /* Other lines share buckets: each record is visited for its own line only. */
            if (key && (line == UINTPTR_MAX || a >> LINE_SHIFT == line) && a < end && a + rt_lock_type_size(l->type) > start)
                hits[n++] = l;
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&s->unlinks, __ATOMIC_RELAXED) == seen)
            return n;
    }
}

static unsigned visit_bucket(unsigned b, uintptr_t line, uintptr_t start, uintptr_t end, rt_lock_visit_fn fn, void *arg)
{
    struct rt_lock *hits[64];
    unsigned nhits, total = 0;
    if (!__atomic_load_n(&buckets[b], __ATOMIC_ACQUIRE))
        return 0;
    do {
        nhits = collect(b, line, start, end, hits, RT_ARRAY_SIZE(hits));
        for (unsigned i = 0; i < nhits; i++)
            fn(hits[i], arg);
        total += nhits;
        /* A full batch may have left more behind; callbacks normally retire. */
    } while (nhits == RT_ARRAY_SIZE(hits) && total < 1u << 20);
    return total;
}

unsigned rt_locktab_for_range(uintptr_t start, size_t len, rt_lock_visit_fn fn, void *arg)
{
    if (!buckets || len == 0)
        return 0;
    uintptr_t end = start + len;
    /* A lock that starts before the range may reach into it. */
    uintptr_t first = (start >= 64 ? start - 64 : 0) >> LINE_SHIFT, last = (end - 1) >> LINE_SHIFT;
    const unsigned per_filter_line = 1u << (RT_LINE_SHIFT - LINE_SHIFT);
    unsigned total = 0;
    if ((last - first) / per_filter_line < MAX_LINE_PROBES) {
        /* Filter line by filter line; the bucket lines of a marked one. */
        for (uintptr_t fline = first / per_filter_line; fline <= last / per_filter_line; fline++) {
            if (!rt_filter_test(rt_line_filter, fline))
                continue;
            uintptr_t lo = fline * per_filter_line, hi = lo + per_filter_line - 1;
            for (uintptr_t line = lo < first ? first : lo; line <= (hi > last ? last : hi); line++)
                total += visit_bucket(bucket_of_line(line), line, start, end, fn, arg);
        }
    } else {
        /* For huge ranges: every live record, bucket by bucket. */
        for (unsigned b = 0; b < BUCKETS; b++)
            total += visit_bucket(b, UINTPTR_MAX, start, end, fn, arg);
    }
    return total;
}

/* A stripe another thread was sweeping stays locked in the child. Only
 * pages of the table the parent touched can hold one: mincore tells them,
 * and the rest is not read (a read would map each page into the child,
 * 16 faults per fork for a table most of whose stripes never see a lock). */
void rt_locktab_after_fork(void)
{
    enum { PAGE = 4096, NPAGES = sizeof stripes / PAGE + 2 };
    uintptr_t lo = (uintptr_t)stripes & ~(uintptr_t)(PAGE - 1);
    unsigned char resident[NPAGES];
    int known = mincore((void *)lo, (uintptr_t)(stripes + STRIPES) - lo, resident) == 0;
    for (unsigned i = 0; i < STRIPES; i++) {
        if (known && !(resident[((uintptr_t)&stripes[i] - lo) / PAGE] & 1))
            continue;
        rt_spin_reinit(&stripes[i].sweeping);
    }
    rt_spin_reinit(&init_lock);
    rt_spin_reinit(&lock_pool.lock);
}

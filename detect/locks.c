/* Lock events: identity, the held-lock stack, owner tracking. */
#include "engine.h"
#include "report.h"
#include "rt_common.h"
#include "runtime.h"
#include "unwind.h"

/* A global pc -> stack map, so each call site's stack is captured once per
 * process; the per-thread cache in front keeps the hot path local. */
#define SITE_BUCKETS 4096
struct site { struct site *_Atomic next; uintptr_t pc; rt_stack_id stack; };
static struct site *_Atomic site_buckets[SITE_BUCKETS];

#include "rt_alloc.h"

static rt_stack_id site_lookup_global(uintptr_t pc)
{
    struct site *_Atomic *bucket = &site_buckets[rt_hash64(pc) & (SITE_BUCKETS - 1)];
    struct site *head = __atomic_load_n(bucket, __ATOMIC_ACQUIRE);
    for (struct site *s = head; s; s = s->next)
        if (s->pc == pc)
            return s->stack;
    rt_stack_id stack = rt_stack_capture((unsigned)rt_opt.stack_depth);
    struct site *s = rt_zalloc(sizeof *s);
    if (!s)
        return stack;
    s->pc = pc;
    s->stack = stack;
    /* A concurrent insert of the same pc only duplicates a list node. */
    do
        s->next = head;
    while (!__atomic_compare_exchange_n(bucket, &head, s, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
    return stack;
}

rt_stack_id rt_site_stack_slow(struct rt_thread *t, uintptr_t pc)
{
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    rt_stack_id stack = site_lookup_global(pc);
    t->site_cache[slot].pc = pc;
    t->site_cache[slot].stack = stack;
    return stack;
}

struct rt_lock *rt_lock_lookup_slow(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc)
{
    unsigned slot = (unsigned)(addr >> 3) & (RT_LOCK_CACHE - 1);
    int created;
    struct rt_lock *l = rt_locktab_get(addr, type, &created);
    if (!l)
        return NULL;
    if (created) {
        /* Never initialized through us: statically initialized (or set up
         * before the runtime was ready); its first use stands for its init. */
        l->statically_initialized = 1;
        l->init_stack = rt_site_stack(t, pc);
        l->init_tid = t->tid;
    }
    t->lock_cache[slot].addr = addr;
    t->lock_cache[slot].lock = l;
    t->lock_cache[slot].id = __atomic_load_n(&l->id, __ATOMIC_RELAXED);
    return l;
}

void rt_on_lock_init(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc)
{
    struct rt_lock *old = rt_locktab_find(addr);
    if (old)
        rt_locktab_retire(old);
    int created;
    struct rt_lock *l = rt_locktab_get(addr, type, &created);
    if (!l)
        return;
    l->type = (uint8_t)type;
    l->size = rt_lock_type_size(type);
    l->statically_initialized = 0;
    l->init_stack = rt_site_stack(t, pc);
    l->init_tid = t->tid;
}

void rt_on_lock_destroy(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    (void)t;
    (void)pc;
    struct rt_lock *l = rt_locktab_find(addr);
    if (l)
        rt_locktab_retire(l);
}

void rt_on_lock_acquired_slow(struct rt_thread *t, struct rt_lock *lock, uintptr_t pc)
{
    if (unlikely(t->untracked))
        return;
    uint64_t id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    uintptr_t addr = __atomic_load_n(&lock->addr, __ATOMIC_RELAXED);
    /* A recursive mutex taken again by its owner: count, no new entry. */
    if (lock->type == RT_LOCK_MUTEX_RECURSIVE) {
        for (unsigned i = t->nheld; i-- > 0;)
            if (t->held[i].lock == lock && t->held[i].id == id) {
                t->held[i].count++;
                return;
            }
    }
    if (unlikely(t->nheld >= RT_MAX_HELD)) {
        t->untracked = 1;
        return;
    }
    rt_stack_id stack = rt_site_stack(t, pc);
    struct rt_held *h = &t->held[t->nheld++];
    h->lock = lock;
    h->id = id;
    h->addr = addr;
    h->pc = pc;
    h->stack = stack;
    h->count = 1;
    __atomic_store_n(&lock->owner_stack, stack, __ATOMIC_RELAXED);
    __atomic_store_n(&lock->owner_tid, t->tid, __ATOMIC_RELEASE);
}

void rt_on_lock_release_slow(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    (void)pc;
    if (unlikely(t->untracked))
        return;
    for (unsigned i = t->nheld; i-- > 0;) {
        struct rt_held *h = &t->held[i];
        if (h->addr != addr)
            continue;
        if (--h->count > 0)
            return;
        struct rt_lock *l = h->lock;
        if (__atomic_load_n(&l->id, __ATOMIC_RELAXED) == h->id &&
            __atomic_load_n(&l->owner_tid, __ATOMIC_RELAXED) == t->tid)
            __atomic_store_n(&l->owner_tid, 0, __ATOMIC_RELEASE);
        t->nheld--;
        for (unsigned j = i; j < t->nheld; j++)
            t->held[j] = t->held[j + 1];
        return;
    }
    /* Not held by this thread: misuse checks (bad-unlock, non-owner-unlock)
     * belong to the lock-checking layer; the owner field is left alone. */
}

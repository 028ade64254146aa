/* Lock events: identity, the held-lock stack, owners and readers. The
 * checks that judge them live in misuse.c and lockorder.c. */
#include "locks/locks.h"
#include "locks/lookup.h"
#include "locks/lazylock.h"
#include "locks/lockgroup.h"
#include "rcu/rcu.h"
#include "order/order.h"
#include "locks/misuse.h"
#include "core/core.h"
#include "report/report.h"
#include "hang/hang.h"

/* A global pc -> stack map, so each call site's stack is captured once per
 * process; the per-thread cache in front keeps the hot path local. */
#define SITE_BUCKETS 4096
struct site { struct site *_Atomic next; uintptr_t pc; rt_stack_id stack; };
static struct site *_Atomic site_buckets[SITE_BUCKETS];

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

static const struct site *site_find(uintptr_t pc)
{
    const struct site *s = __atomic_load_n(&site_buckets[rt_hash64(pc) & (SITE_BUCKETS - 1)], __ATOMIC_ACQUIRE);
    for (; s; s = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE))
        if (s->pc == pc)
            return s;
    return NULL;
}

rt_stack_id rt_site_stack_known(uintptr_t pc)
{
    const struct site *s = site_find(pc);
    if (s)
        return s->stack;
    return pc ? rt_stack_intern(&pc, NULL, 1) : 0;
}

/* pc, then the frames of stack id that lie beyond its frame in the
 * function [lo, hi) (return addresses: lo < frame <= hi); 0 if the stack
 * does not pass through that function. */
static rt_stack_id through_function(rt_stack_id id, uintptr_t lo, uintptr_t hi, uintptr_t pc)
{
    const uintptr_t *pcs;
    const uint32_t *sizes;
    unsigned n = id ? rt_stack_get(id, &pcs, &sizes) : 0;
    for (unsigned i = 0; i < n; i++) {
        if (pcs[i] <= lo || pcs[i] > hi)
            continue;
        uintptr_t out[RT_STACK_MAX];
        uint32_t out_sizes[RT_STACK_MAX];
        unsigned k = 0;
        for (unsigned j = i; j < n && k < RT_STACK_MAX; j++, k++) {
            out[k] = j == i ? pc : pcs[j];
            out_sizes[k] = sizes ? sizes[j] : 0;
        }
        return rt_stack_intern(out, out_sizes, k);
    }
    return 0;
}

rt_stack_id rt_site_stack_complete(uintptr_t pc, rt_stack_id hint)
{
    const struct site *s = site_find(pc);
    if (s)
        return s->stack;
    struct rt_symbol sym;
    if (!pc || !rt_opt.symbolize || rt_symbolize(pc, &sym) != 0 || !sym.size)
        return rt_site_stack_known(pc);
    uintptr_t lo = pc - 1 - sym.offset, hi = lo + sym.size;
    rt_stack_id found = through_function(hint, lo, hi, pc);
    for (unsigned b = 0; !found && b < SITE_BUCKETS; b++)
        for (s = __atomic_load_n(&site_buckets[b], __ATOMIC_ACQUIRE); s && !found;
             s = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE))
            found = through_function(s->stack, lo, hi, pc);
    return found ? found : rt_site_stack_known(pc);
}

rt_stack_id rt_site_stack_slow(struct rt_thread *t, uintptr_t pc)
{
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    rt_stack_id stack = site_lookup_global(pc);
    t->rcu.sites[slot].pc = pc;
    t->rcu.sites[slot].stack = stack;
    return stack;
}

static void push_held(struct rt_thread *t, struct rt_lock *lock, uint64_t id, uintptr_t addr, unsigned flags,
                      uint64_t chain, rt_stack_id stack, int cpu);

/* Held entries of lazy mutexes taken with nothing held point here, so
 * that code reading an entry's lock never follows NULL (rt_held_name). */
struct rt_lock rt_unnamed_lock = { .type = RT_LOCK_MUTEX };

int rt_mutex_word_unlocked(uintptr_t addr)
{
    int (*unlocked)(const struct rt_lock *) = __atomic_load_n(&rt_lock_object_unlocked, __ATOMIC_ACQUIRE);
    struct rt_lock probe = { .type = RT_LOCK_MUTEX };
    __atomic_store_n(&probe.addr, addr, __ATOMIC_RELAXED);
    return unlocked && unlocked(&probe);
}

struct kill_unnamed { uintptr_t addr; };

static void kill_unnamed_of(struct rt_thread *t, void *arg)
{
    const struct kill_unnamed *k = arg;
    struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && held; i++)
        if (__atomic_load_n(&held[i].id, __ATOMIC_RELAXED) == RT_HELD_UNNAMED &&
            __atomic_load_n(&held[i].addr, __ATOMIC_RELAXED) == k->addr)
            /* The pair, so that an entry its thread reused meanwhile is left alone. */
            rt_cas_pair(&held[i].id, RT_HELD_UNNAMED, k->addr, 0, k->addr);
}

void rt_held_kill_unnamed(uintptr_t addr)
{
    struct kill_unnamed k = { addr };
    rt_thread_for_each(kill_unnamed_of, &k);
}

void rt_lock_retire(struct rt_lock *l, int memory_gone)
{
    uintptr_t addr = __atomic_load_n(&l->addr, __ATOMIC_ACQUIRE);
    /* Unnamed entries exist only while the mutex is locked: one that goes
     * while held ends theirs, as a retired record ends named entries'. */
    int unnamed = addr && l->type == RT_LOCK_MUTEX && (memory_gone || !rt_mutex_word_unlocked(addr));
    rt_lockorder_forget(l);
    rt_locktab_retire(l);
    if (unnamed)
        rt_held_kill_unnamed(addr);
}

void rt_held_name_slow(struct rt_thread *t)
{
    t->unnamed = 0;
    for (unsigned i = 0; i < t->nheld; i++) {
        struct rt_held *h = &t->held[i];
        if (__atomic_load_n(&h->id, __ATOMIC_RELAXED) != RT_HELD_UNNAMED)
            continue;
        struct rt_lock *l = rt_lock_find(h->addr);
        uint64_t id = l ? __atomic_load_n(&l->id, __ATOMIC_RELAXED) : 0;
        if (l)
            __atomic_store_n(&h->lock, l, __ATOMIC_RELEASE);
        /* No record: its lock went while held (id 0, dead, as a killed one). */
        if (!rt_cas_pair(&h->id, RT_HELD_UNNAMED, h->addr, id, h->addr) && l)
            __atomic_store_n(&h->lock, &rt_unnamed_lock, __ATOMIC_RELEASE);
    }
}

int rt_held_is(const struct rt_held *h, const struct rt_lock *l, uint64_t id)
{
    uint64_t hid = __atomic_load_n(&h->id, __ATOMIC_ACQUIRE);
    if (hid == RT_HELD_UNNAMED)
        return l->type == RT_LOCK_MUTEX && __atomic_load_n(&h->addr, __ATOMIC_RELAXED) == __atomic_load_n(&l->addr, __ATOMIC_RELAXED) &&
               __atomic_load_n(&l->id, __ATOMIC_RELAXED) == id;
    return hid == id && __atomic_load_n(&h->lock, __ATOMIC_RELAXED) == l;
}

struct rt_lock *rt_held_record(const struct rt_held *h, uint64_t *id)
{
    uint64_t hid = __atomic_load_n(&h->id, __ATOMIC_ACQUIRE);
    struct rt_lock *l = hid == RT_HELD_UNNAMED ? rt_lock_find(__atomic_load_n(&h->addr, __ATOMIC_RELAXED))
                                               : __atomic_load_n(&h->lock, __ATOMIC_RELAXED);
    if (id)
        *id = hid == RT_HELD_UNNAMED && l ? __atomic_load_n(&l->id, __ATOMIC_RELAXED) : hid;
    return l;
}

/* A lazy mutex acquired with nothing held: an unnamed held entry. */
static void acquired_unnamed(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    if (t->waiting_for)
        __atomic_store_n(&t->waiting_for, NULL, __ATOMIC_RELEASE);
    if (t->untracked)
        return;
    push_held(t, &rt_unnamed_lock, RT_HELD_UNNAMED, addr, 0, 0, rt_site_stack(t, pc), rt_thread_cpu(t));
    t->unnamed++;
}

void rt_on_lock_acquired_uncached(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc)
{
    struct rt_lock *l = rt_lock_cached(t, addr);
    /* A mutex initialized without a record, taken the first time with
     * nothing held, needs none yet; the second time it gets one. */
    if (!l && type == RT_LOCK_MUTEX && t->nheld == 0 && rt_lazylock_first_use(addr))
        acquired_unnamed(t, addr, pc);
    else if ((l = l ? l : rt_lock_lookup_slow(t, addr, type, pc)) != NULL)
        rt_on_lock_acquired_slow(t, l, 0, 0, pc);
}


void rt_on_lock_reinit(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *old = rt_lock_find(addr);
    if (!old)
        return;
    if (rt_lock_is_held(old) && !rt_lock_held_since_fork_only(old))
        rt_report_destroy_locked(t, old, "re-initializing", pc);
    rt_lock_retire(old, 0);
}

void rt_on_lock_init(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc)
{
    rt_forget_destroy(addr);
    /* A plain mutex gets its record when it first needs one. */
    uint8_t traits = rt_lock_traits_read(addr, type);
    if (type == RT_LOCK_MUTEX && !traits && rt_lock_lazy_init(t, addr, pc))
        return;
    int created;
    struct rt_lock *l = rt_locktab_get(addr, type, &created);
    if (l && !created) {
        if (rt_lock_is_held(l) && !rt_lock_held_since_fork_only(l))
            rt_report_destroy_locked(t, l, "re-initializing", pc);
        rt_lock_retire(l, 0);
        l = rt_locktab_get(addr, type, &created);
    }
    if (!l)
        return;
    rt_lazylock_take(addr, NULL); /* a lazy life of the address ends here */
    l->type = (uint8_t)type;
    l->statically_initialized = 0;
    l->traits = traits;
    l->init_stack = rt_site_stack(t, pc);
    l->init_tid = t->tid;
    l->class_key = rt_lock_type_is_event(type) ? 0 : pc;
    l->history_known = 1;
    /* The locks one site makes are one node of the order graph until a
     * thread nests two of them (lockgroup.h). */
    if (!rt_lock_type_is_event(type) && rt_opt.lock_classes == RT_CLASSES_AUTO && rt_opt.detect_deadlocks)
        l->group = rt_lockgroup_get(pc, type);
    /* A lock is often taken right after it is made. */
    rt_lock_cache_fill(t, (unsigned)(addr >> 3) & (RT_LOCK_CACHE - 1), l);
}

void rt_on_lock_destroy(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    rt_on_lock_destroyed(t, addr, 1, pc);
}

/* A destroy the object refused (a held mutex: EBUSY) ends nothing: the
 * lock lives on, held, and its later free or unlock is judged as any. */
static void destroy_refused(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    struct rt_lock *l = rt_locktab_find(addr);
    if (!l && rt_lazylock_test(addr) && !rt_mutex_word_unlocked(addr))
        l = rt_lock_find(addr);
    if (!l)
        return;
    if (__atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE) == RT_HOLDER_FORKED_AWAY)
        rt_on_fork_stray_use(t, l, "destroys", pc);
    if (rt_lock_is_held(l))
        rt_report_destroy_locked(t, l, "destroying", pc);
}

void rt_on_lock_destroyed(struct rt_thread *t, uintptr_t addr, int ok, uintptr_t pc)
{
    if (!ok) {
        destroy_refused(t, addr, pc);
        return;
    }
    rt_remember_destroy(t, addr, pc);
    struct rt_lock *l = rt_locktab_find(addr);
    if (!l && rt_lazylock_test(addr)) {
        /* Unlocked, as it should be: no record was ever needed. */
        if (rt_mutex_word_unlocked(addr) && rt_lazylock_take(addr, NULL))
            return;
        l = rt_lock_find(addr);
    }
    if (!l)
        return;
    if (__atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE) == RT_HOLDER_FORKED_AWAY)
        rt_on_fork_stray_use(t, l, "destroys", pc);
    if (rt_lock_type_cond(l->type) && rt_cond_blocked(l) > 0)
        rt_report_cond_destroy_busy(t, l, pc);
    else if (rt_lock_is_held(l))
        rt_report_destroy_locked(t, l, "destroying", pc);
    rt_lock_retire(l, 0);
}

/* Would this acquisition block forever on a lock the thread already holds? */
static const struct rt_held *self_deadlock(const struct rt_thread *t, const struct rt_lock *lock, unsigned flags)
{
    uint64_t id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    for (unsigned i = t->nheld; i-- > 0;) {
        const struct rt_held *h = &t->held[i];
        if (h->lock != lock || h->id != id)
            continue;
        switch (lock->type) {
        case RT_LOCK_MUTEX:
        case RT_LOCK_SPIN:
        case RT_LOCK_USER:
        case RT_LOCK_GMUTEX:
        case RT_LOCK_GBITLOCK:
            return h;
        case RT_LOCK_RWLOCK:
        case RT_LOCK_USER_RW:
        case RT_LOCK_GRWLOCK:
            /* Read after read re-enters a reader-preferring rwlock. */
            if ((flags & RT_ACQ_READ) && h->mode == RT_HOLD_READ && !rt_lock_writer_preferring(lock))
                return NULL;
            return h;
        default: /* recursive mutexes nest; errorcheck ones return EDEADLK */
            return NULL;
        }
    }
    return NULL;
}

static void remove_held(struct rt_thread *t, unsigned i);

/* The chain key of the held sequence up to entry i, filling in the keys
 * the fast path left at 0. */
static uint64_t held_chain(struct rt_thread *t, unsigned i)
{
    unsigned j = i + 1;
    while (j > 0 && t->held[j - 1].chain == 0)
        j--;
    uint64_t chain = j ? t->held[j - 1].chain : 0;
    for (; j <= i; j++) {
        chain = rt_chain_step(chain, t->held[j].lock, t->held[j].mode == RT_HOLD_READ ? RT_ACQ_READ : 0);
        t->held[j].chain = chain;
    }
    return chain;
}

/* A thread that waits for one lock of a group while it holds another
 * nests the group in itself: its locks are ordered one by one for good. */
static void split_if_nested(struct rt_thread *t, const struct rt_lock *lock)
{
    for (unsigned i = 0; i < t->nheld; i++) {
        const struct rt_held *h = &t->held[i];
        if (h->lock != lock && h->lock->group == lock->group && rt_held_live(h)) {
            rt_lockorder_split_group(lock->group);
            return;
        }
    }
}

static int held_here(const struct rt_thread *t, const struct rt_lock *lock)
{
    uint64_t id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < t->nheld; i++)
        if (t->held[i].lock == lock && t->held[i].id == id)
            return 1;
    return 0;
}

uint64_t rt_on_lock_pre_nested(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uintptr_t pc)
{
    rt_held_name(t);
    /* A read section entered inline comes first on the stack: the edge
     * rcu_read_lock -> lock. */
    if (t->rcu.depth || (t->rcu_ctr && (uint32_t)*t->rcu_ctr))
        rt_rcu_materialize(t);
    if (t->nheld == 0)
        return 0;
    /* A recursive lock its holder takes again cannot block: no wait, and no
     * order edge into it (GStreamer pauses a pad's task from the task,
     * re-taking the stream lock it holds under the pad's object lock). Its
     * entry only counts one more: no chain key either (SQLite re-enters its
     * connection mutex on every call). */
    if (rt_lock_type_recursive(lock->type) && held_here(t, lock))
        return 0;
    uint32_t g = __atomic_load_n(&lock->group, __ATOMIC_RELAXED);
    if (__builtin_expect(g != 0, 0)) {
        const struct rt_lock_group *grp = &rt_lock_groups[g - 1];
        if (!__atomic_load_n(&grp->split, __ATOMIC_ACQUIRE)) {
            if (!(flags & RT_ACQ_TRY))
                split_if_nested(t, lock);
        } else if (!__atomic_load_n(&grp->remnant, __ATOMIC_ACQUIRE)) {
            /* Split for good, no node to share: the lock is a lock like any
             * other, and its chain steps need not look at the group. */
            __atomic_store_n(&lock->group, 0, __ATOMIC_RELAXED);
        }
    }
    uint64_t chain = rt_chain_step(held_chain(t, t->nheld - 1), lock, flags);
    if (t->untracked || (flags & RT_ACQ_TRY))
        return chain;
    /* A rerun steered into a cycle (confirm_plan) may pause here, before
     * the wait is shown: the paused thread is not blocked on a lock. */
    if (__builtin_expect(rt_steer_on, 0))
        rt_steer_before_wait(t, pc);
    /* The wait is shown before the checks: a thread that closes a cycle
     * then sees the others of the cycle blocked, whichever came first
     * (the graph lock orders them). */
    rt_on_lock_wait(t, lock, flags, pc);
    const struct rt_held *again = self_deadlock(t, lock, flags);
    int (*unlocked)(const struct rt_lock *) = __atomic_load_n(&rt_lock_object_unlocked, __ATOMIC_ACQUIRE);
    if (again && unlocked && unlocked(lock)) {
        /* Held, yet its own word says unlocked: its memory was reset under
         * the holder (a static initializer assigned over it). The old
         * holding is void; this acquisition is a new one. */
        rt_report_reset_while_held(t, lock, again, pc);
        remove_held(t, (unsigned)(again - t->held));
        if (t->nheld == 0)
            return 0;
        again = NULL;
        chain = rt_chain_step(held_chain(t, t->nheld - 1), lock, flags);
    }
    if (again)
        rt_report_recursive_locking(t, lock, again, flags, pc);
    else if (rt_opt.detect_deadlocks && !lock->no_order) {
        /* Validated per thread: a chain another thread made may be new
         * for this one's set of threads on its edges. */
        uint64_t mine = chain ^ t->order_salt;
        uint64_t *known = &t->known_chains[mine & (RT_CHAIN_CACHE - 1)];
        if (__builtin_expect(*known == mine && mine, 1))
            return chain;
        if (rt_lockorder_chain_known(mine))
            *known = mine;
        else
            rt_lockorder_check(t, lock, flags, mine, pc);
    }
    return chain;
}

void rt_on_lock_wait(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uintptr_t pc)
{
    /* Blocked from here until acquired: the watchdog may look. */
    t->wait_stack = rt_site_stack(t, pc);
    t->wait_mode = (flags & RT_ACQ_READ) ? RT_HOLD_READ : RT_HOLD_WRITE;
    t->wait_timed = (flags & RT_ACQ_TIMED) != 0;
    rt_wait_seq_next(&t->wait_seq);
    __atomic_store_n(&t->waiting_for, lock, __ATOMIC_RELEASE);
    /* A lock whose holder is gone (exited, or a parent's thread in a
     * forked child) is locked for good: this wait never ends. */
    int orphan = __atomic_load_n(&lock->held_by_exited, __ATOMIC_ACQUIRE);
    if (__builtin_expect(orphan != 0, 0) && !lock->rcu_pseudo) {
        int (*unlocked)(const struct rt_lock *) = __atomic_load_n(&rt_lock_object_unlocked, __ATOMIC_ACQUIRE);
        if (!unlocked || !unlocked(lock)) {
            if (orphan == RT_HOLDER_FORKED_AWAY)
                rt_on_fork_stray_use(t, lock, "waits for", pc);
            if (!(flags & (RT_ACQ_TIMED | RT_ACQ_TRY)))
                rt_report_wait_on_orphan(t, lock);
        }
    }
    rt_watchdog_ensure();
}

static void push_held(struct rt_thread *t, struct rt_lock *lock, uint64_t id, uintptr_t addr, unsigned flags,
                      uint64_t chain, rt_stack_id stack, int cpu)
{
    if (t->nheld >= t->held_cap && rt_thread_grow_held(t) < 0) {
        t->untracked = 1;
        return;
    }
    struct rt_held *h = &t->held[t->nheld++];
    h->lock = lock;
    /* The address before the id: another thread that sees an unnamed id
     * sees its address (rt_held_kill_unnamed). */
    __atomic_store_n(&h->addr, addr, __ATOMIC_RELAXED);
    __atomic_store_n(&h->id, id, __ATOMIC_RELEASE);
    h->chain = chain;
    h->stack = stack;
    h->count = 1;
    h->mode = (flags & RT_ACQ_READ) ? RT_HOLD_READ : RT_HOLD_WRITE;
    h->trylock = (flags & RT_ACQ_TRY) != 0;
    h->cpu = (int16_t)cpu;
    h->taken_ns = rt_opt.hold_threshold_ms ? rt_hold_clock_ns() : 0;
}

void rt_on_lock_acquired_slow(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uint64_t chain,
                              uintptr_t pc)
{
    if (t->waiting_for)
        __atomic_store_n(&t->waiting_for, NULL, __ATOMIC_RELEASE);
    if (__atomic_load_n(&lock->rcu_hb, __ATOMIC_RELAXED))
        rt_rcuhb_lock_acquire(t, lock); /* a release published RCU update orderings into it */
    if (t->untracked)
        return;
    if (__builtin_expect(__atomic_load_n(&lock->held_by_exited, __ATOMIC_RELAXED), 0))
        __atomic_store_n(&lock->held_by_exited, 0, __ATOMIC_RELAXED); /* a robust mutex, recovered */
    uint64_t id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    if (rt_lock_type_recursive(lock->type)) {
        for (unsigned i = t->nheld; i-- > 0;)
            if (t->held[i].lock == lock && t->held[i].id == id) {
                t->held[i].count++;
                return;
            }
    }
    push_held(t, lock, id, __atomic_load_n(&lock->addr, __ATOMIC_RELAXED), flags, chain, rt_site_stack(t, pc),
              rt_thread_cpu(t));
}

void rt_on_lock_acquired_at(struct rt_thread *t, struct rt_lock *lock, unsigned flags, rt_stack_id stack, int cpu)
{
    if (!t->untracked)
        push_held(t, lock, __atomic_load_n(&lock->id, __ATOMIC_RELAXED), __atomic_load_n(&lock->addr, __ATOMIC_RELAXED),
                  flags, 0, stack, cpu);
}

/* Removes entry i; the chain keys above it are recomputed, since a chain
 * describes the sequence of locks below it. */
static void remove_held(struct rt_thread *t, unsigned i)
{
    t->nheld--;
    for (unsigned j = i; j < t->nheld; j++) {
        t->held[j] = t->held[j + 1];
        t->held[j].chain = 0; /* recomputed when needed: the sequence below changed */
    }
    t->held[t->nheld].id = 0; /* the vacated slot is dead, as after a fast pop */
}

void rt_held_forget_shared(struct rt_thread *t)
{
    rt_held_name(t);
    for (unsigned i = t->nheld; i-- > 0;)
        if (rt_held_live(&t->held[i]) && (t->held[i].lock->traits & RT_TRAIT_PSHARED))
            remove_held(t, i);
}

/* A thread that wrote an RCU pointer releases held entry h (rcuhb.h): a
 * lazy mutex's record is made for it, since its next acquirer needs one. */
static void publish_release(struct rt_thread *t, const struct rt_held *h)
{
    uint64_t id;
    struct rt_lock *l;
    if (h->mode == RT_HOLD_WRITE && (l = rt_held_record(h, &id)) != NULL && l != &rt_unnamed_lock && id)
        rt_rcuhb_lock_release(t, l, id);
}

/* The release once the top entry was not it (the fast path's case, or a
 * release that publishes). */
static int release_below_top(struct rt_thread *t, uintptr_t addr, uintptr_t pc, int word_unlocked)
{
    if (t->untracked)
        return 0;
    int freed;
    if (__atomic_load_n(&t->held_freed, __ATOMIC_RELAXED) && (freed = rt_release_of_freed(t, addr)) >= 0) {
        remove_held(t, (unsigned)freed);
        return 0;
    }
    for (unsigned i = t->nheld; i-- > 0;) {
        struct rt_held *h = &t->held[i];
        if (h->addr != addr)
            continue;
        if (--h->count > 0)
            return 0;
        if (t->rcu_wrote)
            publish_release(t, h);
        if (h->taken_ns)
            rt_hold_check(t, h, pc);
        remove_held(t, i);
        return 0;
    }
    return rt_check_unheld_release(t, addr, pc, word_unlocked);
}

int rt_on_lock_release_judged(struct rt_thread *t, uintptr_t addr, uintptr_t pc, int word_unlocked)
{
    return rt_lock_release_fast(t, addr) ? 0 : release_below_top(t, addr, pc, word_unlocked);
}

void rt_on_lock_release_slow(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    release_below_top(t, addr, pc, -1); /* the caller tried the top entry */
}

/* Holders are found in the held stacks: the fast path writes nothing
 * shared. A scan of every thread, so it runs only when a holder matters. */
struct holder_search {
    const struct rt_lock *lock;
    uint64_t id;
    uint8_t mode;
    int count, tid;
    rt_stack_id stack;
    uintptr_t section_pc; /* a read section recorded inline: where it began (its stack is made after the walk) */
};

static void find_holder(struct rt_thread *t, void *arg)
{
    struct holder_search *s = arg;
    if (s->mode == RT_HOLD_READ && s->lock->rcu_pseudo == 1 && rt_rcu_unmaterialized_lock(t) == s->lock) {
        if (!s->count++) {
            s->tid = t->tid;
            s->section_pc = rt_rcu_enter_pc(t);
        }
        return;
    }
    const struct rt_held *held = __atomic_load_n(&t->held, __ATOMIC_ACQUIRE);
    unsigned n = __atomic_load_n(&t->nheld, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && held; i++)
        if (rt_held_is(&held[i], s->lock, s->id) && held[i].mode == s->mode) {
            if (!s->count++) {
                s->tid = t->tid;
                s->stack = held[i].stack;
            }
            return;
        }
}

static struct holder_search search_holders(const struct rt_lock *l, uint8_t mode)
{
    struct holder_search s = { .lock = l, .id = __atomic_load_n(&l->id, __ATOMIC_RELAXED), .mode = mode };
    rt_thread_for_each(find_holder, &s);
    return s;
}

int rt_lock_readers(const struct rt_lock *l, int *tid, rt_stack_id *stack)
{
    struct holder_search s = { 0 };
    if (rt_lock_type_rw(l->type))
        s = search_holders(l, RT_HOLD_READ);
    if (tid)
        *tid = s.tid;
    if (stack)
        *stack = s.section_pc ? rt_site_stack_known(s.section_pc) : s.stack;
    return s.count;
}

int rt_lock_owner(const struct rt_lock *l, rt_stack_id *stack)
{
    struct holder_search s = search_holders(l, RT_HOLD_WRITE);
    if (stack)
        *stack = s.stack;
    return s.tid;
}

int (*rt_lock_object_unlocked)(const struct rt_lock *l);

int rt_lock_is_held_by_record(const struct rt_lock *l)
{
    return rt_lock_owner(l, NULL) != 0 || rt_lock_readers(l, NULL, NULL) > 0;
}

int rt_lock_held_by(const struct rt_thread *t, uintptr_t addr)
{
    for (unsigned i = 0; i < t->nheld; i++)
        if (t->held[i].addr == addr && rt_held_live(&t->held[i]))
            return 1;
    return 0;
}

int rt_lock_is_held(const struct rt_lock *l)
{
    int (*unlocked)(const struct rt_lock *) = __atomic_load_n(&rt_lock_object_unlocked, __ATOMIC_ACQUIRE);
    if (unlocked && unlocked(l))
        return 0;
    /* A lock a parent's thread held at fork is locked in the child too, but
     * freeing it there is how children clean up: only a wait is reported. */
    return rt_lock_is_held_by_record(l) || __atomic_load_n(&l->held_by_exited, __ATOMIC_ACQUIRE) == RT_HOLDER_EXITED;
}

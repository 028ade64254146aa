/* The engine's event interface. interpose/ translates intercepted calls
 * into these; tests call them directly. Every function expects the
 * caller's reentrancy guard to be set and takes the caller's return
 * address (pc) for cheap call-site identification. */
#ifndef RTDD_ENGINE_H
#define RTDD_ENGINE_H
#include "core/core.h"
#include "report/report.h"
#include "locks/failedcall.h"
#include "locks/freegate.h"
#include "locks/invalid.h"
#include "locks/lazylock.h"
#include "locks/lockdesc.h"
#include "locks/locktab.h"
#include "locks/lockgroup.h"
#include "locks/rcuhb.h"
#include "locks/thread.h"
#include <stddef.h>
#include <stdint.h>

/* How a lock is being acquired. */
enum {
    RT_ACQ_TRY = 1,      /* trylock: never blocks, no order edge into it */
    RT_ACQ_READ = 2,     /* shared (rwlock read) */
    RT_ACQ_TIMED = 4,    /* the wait has a timeout: a deadlock through it may end */
};

/* Lock identity. */
void rt_on_lock_init(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc);
/* Before an init call overwrites a lock the runtime knows: a held one is a
 * destroy-locked ("re-initializing"); the old record is retired. */
void rt_on_lock_reinit(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
/* Before a destroy call that may block (a condvar's waits for its waiters). */
void rt_on_lock_destroy(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
/* After the real destroy call (ok: it succeeded), so that judging and
 * reporting do not delay the call and change what it finds. A refused
 * destroy (EBUSY) reports a held lock and changes nothing else. */
void rt_on_lock_destroyed(struct rt_thread *t, uintptr_t addr, int ok, uintptr_t pc);
/* The live record of the lock at addr; a lazy mutex (lazylock.h) gets its
 * record now. NULL: no lock the runtime knows. */
struct rt_lock *rt_lock_find(uintptr_t addr);
/* Ends a record's life (destroy, re-init, free): its order node goes, and
 * unnamed held entries of its address die with it. memory_gone: the
 * object cannot be read any more. */
void rt_lock_retire(struct rt_lock *l, int memory_gone);
/* The record of lazy mutex addr, whose lazy life the caller took. */
struct rt_lazy_init;
struct rt_lock *rt_lock_record_lazy(uintptr_t addr, const struct rt_lazy_init *init);
/* What the mutex's own word says: 1 unlocked, 0 locked or not known. */
int rt_mutex_word_unlocked(uintptr_t addr);
/* A lock taken by a wrapper's in-place fast path (nothing held before)
 * that the caches did not know. */
void rt_on_lock_acquired_uncached(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc);
/* Kills every unnamed held entry of addr (its lock stopped being held
 * without those threads releasing it: freed, destroyed, or unlocked by
 * another thread). */
void rt_held_kill_unnamed(uintptr_t addr);
/* Names the thread's unnamed entries (gives their locks records): run by
 * the thread itself before code that reads its held locks' records. */
void rt_held_name_slow(struct rt_thread *t);
static inline void rt_held_name(struct rt_thread *t)
{
    if (__builtin_expect(t->unnamed != 0, 0))
        rt_held_name_slow(t);
}
/* For code reading another thread's entries: does h stand for lock l
 * (whose id is id)? And the record it stands for (made for an unnamed
 * entry if need be), with its id; NULL: none. */
int rt_held_is(const struct rt_held *h, const struct rt_lock *l, uint64_t id);
struct rt_lock *rt_held_record(const struct rt_held *h, uint64_t *id);
/* Before memory [start, start+len) dies (free, realloc, munmap, a thread's
 * stack at exit): reports locks in it that any thread holds, and retires
 * every lock record in it. */
void rt_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc);
/* t releases addr, and held_freed is set: if the entry for addr is one
 * whose lock another thread freed while t held it, reports the release
 * (use-after-destroy: the unlock writes to freed memory) and returns its
 * index in t->held, for the caller to remove; -1 otherwise. */
int rt_release_of_freed(struct rt_thread *t, uintptr_t addr);
/* The locks in [lo, hi) that threads hold just before memory there goes
 * without the runtime seeing the unmapping itself (dlclose). Another
 * thread may map a library at the same address and take its locks between
 * the unmapping and the check after it: only holds seen here are the gone
 * memory's. */
#define RT_UNMAP_HELD_MAX 64
struct rt_unmap_held {
    uintptr_t lo, hi;
    unsigned n;
    int overflow; /* more holds than fit: every hold in the range counts */
    struct { int tid; uintptr_t addr; } held[RT_UNMAP_HELD_MAX];
};
void rt_unmap_held_take(struct rt_unmap_held *before, uintptr_t lo, uintptr_t hi);
/* The same as rt_on_free after the memory is gone already (a library's
 * data after dlclose; what says so in reports): a lock is reported only if
 * a thread held it in before and holds it still, judged from the threads'
 * held-lock records, never by reading the lock; a lock held now but not
 * then belongs to whatever was mapped there since and keeps its record. */
void rt_on_unmapped(struct rt_thread *t, uintptr_t start, size_t len, const char *what, uintptr_t pc,
                    const struct rt_unmap_held *before);

/* The thread may block on lock from here until it is acquired (or the
 * attempt fails): the deadlock watchdog follows the wait. rt_on_lock_pre
 * does this itself; a thread that holds nothing calls it only when a
 * pthread_join could be waiting for it (a contended first lock). */
void rt_on_lock_wait(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uintptr_t pc);

/* A thread ends: reports locks it still holds (lock-held-at-exit) and
 * checks its stack [stack_lo, stack_hi) like freed memory. */
void rt_on_thread_exit(struct rt_thread *t, uintptr_t stack_lo, uintptr_t stack_hi);

/* Threads holding lock l for reading (an rwlock's readers live only in
 * the holders' held stacks: no counter every reader would write). Returns
 * their number; *tid and *stack describe one of them. */
int rt_lock_readers(const struct rt_lock *l, int *tid, rt_stack_id *stack);
/* The thread holding lock l for writing (0: none) and, in *stack, where
 * it took it. Holders are known from the held stacks alone: taking a lock
 * writes nothing shared. */
int rt_lock_owner(const struct rt_lock *l, rt_stack_id *stack);
/* What the lock object itself says, when the runtime can read it (a hook
 * the preload layer sets): 1 if it is unlocked, so that nobody can hold
 * it. NULL, or 0: unknown, look at the held stacks. */
extern int (*rt_lock_object_unlocked)(const struct rt_lock *l);
/* What the lock object's attributes say (RT_TRAIT_*: robust, process-
 * shared, ...), read by the hook the preload layer sets when a record is
 * made for it. NULL: nothing known (tests set rt_lock.traits). */
extern uint8_t (*rt_lock_object_traits)(uintptr_t addr, enum rt_lock_type type);
/* Is l held by anyone: an owner, or readers. */
int rt_lock_is_held(const struct rt_lock *l);
/* The same from the held-lock records alone, without reading the lock. */
int rt_lock_is_held_by_record(const struct rt_lock *l);
/* Does t hold the lock at addr (in any mode)? lockdep_is_held(). */
int rt_lock_held_by(const struct rt_thread *t, uintptr_t addr);

/* In a forked child (the only thread left is self): notes the locks other
 * threads held at the fork (strays, reported at the child's first use of
 * one: rt_on_fork_stray_use) and resets the thread registry. */
void rt_on_fork_child(struct rt_thread *self, int new_tid);
/* Non-zero in a forked child while its strays are not reported yet. */
extern _Atomic int rt_fork_strays_pending;
/* t uses lock l (how: "waits for", "releases", ...): the first use of a
 * stray reports lock-held-at-fork (INFO), once per process. */
void rt_on_fork_stray_use(struct rt_thread *t, struct rt_lock *l, const char *how, uintptr_t pc);
/* A lock call on addr failed (trylock, timeout): a use of a stray? Callers
 * test rt_fork_strays_pending first. */
void rt_on_lock_refused(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
/* Forgets t's holds of process-shared locks: in a forked child the lock
 * object is the parent's, held by the parent's thread, not by t. */
void rt_held_forget_shared(struct rt_thread *t);
/* In a forked child: is l held only as the forking thread held it at the
 * fork (taken before the fork, not since)? A child that initializes such a
 * lock again, or frees its memory, resets the copy it inherited. */
int rt_lock_held_since_fork_only(const struct rt_lock *l);
/* Before fork, in the parent: warms what the child will report. */
void rt_on_fork_prepare(struct rt_thread *self);

/* Annotations (include/rtdd/annotate.h). */
void rt_annotate_name(struct rt_thread *t, uintptr_t addr, const char *name, uintptr_t pc);
void rt_annotate_no_order(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
void rt_annotate_nested(struct rt_thread *t, uintptr_t addr, unsigned subclass, uintptr_t pc);
/* RTDD_COND_WAIT_BEGIN / END: the condition wait, after checking that the
 * annotations pair up on the thread; a mistake is reported as what it is
 * (an annotation misused), and the model of the lock is left alone. */
void rt_annotate_cond_wait_begin(struct rt_thread *t, uintptr_t cond, uintptr_t lock, int timed, uintptr_t pc);
void rt_annotate_cond_wait_end(struct rt_thread *t, uintptr_t cond, uintptr_t lock, uintptr_t pc);
/* The name given to l with RTDD_LOCK_NAME, or NULL. */
const char *rt_lock_annotated_name(const struct rt_lock *l);
/* l got a new id (a new identity, same object): its name follows. */
void rt_lock_name_follows(const struct rt_lock *l, uint64_t old_id);

/* Slow paths of the inline fast paths below. */
struct rt_lock *rt_lock_lookup_slow(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc);
rt_stack_id rt_site_stack_slow(struct rt_thread *t, uintptr_t pc);
/* The stack a call site's first call was captured with, from any thread
 * (for a site never seen: a stack of that one address); no capture. */
rt_stack_id rt_site_stack_known(uintptr_t pc);
/* The same for reports (it symbolizes): a site never seen, such as one
 * record mode recorded inline, gets the callers of its function from a
 * captured stack through that function, hint's first. */
rt_stack_id rt_site_stack_complete(uintptr_t pc, rt_stack_id hint);
uint64_t rt_on_lock_pre_nested(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uintptr_t pc);
void rt_on_lock_acquired_slow(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uint64_t chain,
                              uintptr_t pc);
void rt_on_lock_release_slow(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
/* The unlock wrappers' release: word_unlocked says what the object's own
 * word said before the real unlock (1 unlocked, 0 locked, -1 not read).
 * Returns 1 when rtdd knows nothing of the lock and did not report: the
 * wrapper then judges the real unlock's failure (rt_on_unlock_rejected). */
int rt_on_lock_release_judged(struct rt_thread *t, uintptr_t addr, uintptr_t pc, int word_unlocked);
/* The real unlock failed (err) on memory rtdd never saw locked: bad-unlock. */
void rt_on_unlock_rejected(struct rt_thread *t, uintptr_t addr, const char *call, int err, uintptr_t pc);
/* call() on a lock destroyed and not initialized again: use-after-destroy. */
/* marked: the bytes are exactly glibc's mark of a destroyed mutex (kind -1,
 * no users, lock word 0); otherwise the memory is no mutex at all. */
void rt_on_destroyed_lock_use(struct rt_thread *t, uintptr_t addr, const char *call, int marked, uintptr_t pc);
/* Pushes lock as acquired with the given stack and CPU, with no checks
 * (a read section recorded inline, pushed late: rcu/rcu.h). */
void rt_on_lock_acquired_at(struct rt_thread *t, struct rt_lock *lock, unsigned flags, rt_stack_id stack, int cpu);

#define RT_FAST static inline __attribute__((always_inline))

/* The fast paths are inline: they run on every lock and unlock, and a
 * lock/unlock pair must cost only a few nanoseconds more than native. */

/* The lock record for addr if the per-thread cache can vouch for it, else
 * NULL. A cached record still at addr with the id it had when cached was
 * not retired meanwhile: it is addr's record. Calls nothing, so it needs no
 * reentrancy guard. */
RT_FAST struct rt_lock *rt_lock_cached_id(const struct rt_thread *t, uintptr_t addr, uint64_t *id)
{
    unsigned slot = (unsigned)(addr >> 3) & (RT_LOCK_CACHE - 1);
    struct rt_lock *l = t->lock_cache[slot].lock;
    *id = t->lock_cache[slot].id;
    if (__builtin_expect(l && __atomic_load_n(&l->addr, __ATOMIC_ACQUIRE) == addr &&
                             __atomic_load_n(&l->id, __ATOMIC_RELAXED) == *id,
                         1))
        return l;
    return NULL;
}

RT_FAST struct rt_lock *rt_lock_cached(const struct rt_thread *t, uintptr_t addr)
{
    uint64_t id;
    return rt_lock_cached_id(t, addr, &id);
}

/* The lock record for addr (created on first sight). NULL only when out
 * of memory. */
RT_FAST struct rt_lock *rt_lock_lookup(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type,
                                             uintptr_t pc)
{
    struct rt_lock *l = rt_lock_cached(t, addr);
    return __builtin_expect(l != NULL, 1) ? l : rt_lock_lookup_slow(t, addr, type, pc);
}

/* The stack of the first time call site pc was seen (captured once). */
RT_FAST rt_stack_id rt_site_stack(struct rt_thread *t, uintptr_t pc)
{
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    if (__builtin_expect(t->rcu.sites[slot].pc == pc, 1))
        return t->rcu.sites[slot].stack;
    return rt_site_stack_slow(t, pc);
}

/* The chain key: a hash of the held-lock sequence, as lockdep's. */
RT_FAST uint64_t rt_chain_step(uint64_t chain, const struct rt_lock *lock, unsigned flags)
{
    uint64_t x = chain ^ (rt_lock_order_id(lock) * 0x9e3779b97f4a7c15ULL) ^ (flags & RT_ACQ_READ);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    return x ^ (x >> 29);
}

/* Before the real lock call: what must be checked before the thread may
 * block (recursive locking, lock order). Returns the chain key that
 * rt_on_lock_acquired records (0: not computed yet). With no lock held
 * nothing can go wrong. */
RT_FAST uint64_t rt_on_lock_pre(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uintptr_t pc)
{
    /* The chain of a lone lock is computed only when something nests in it. */
    if (__builtin_expect(rt_thread_busy(t) == 0, 1))
        return 0;
    return rt_on_lock_pre_nested(t, lock, flags, pc);
}

/* The lock call succeeded: push it on the held stack and mark the owner,
 * when nothing unusual is going on. Returns 0, having changed nothing, when
 * the slow path must run instead: that one may capture a stack or
 * allocate, so callers outside the runtime enter it first. */
RT_FAST int rt_lock_acquired_fast(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uint64_t chain,
                                  uintptr_t pc)
{
    unsigned n = t->nheld;
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    /* Without rseq areas the CPU costs a call: the slow path makes it. */
    /* A flagged record carries RCU update orderings (rcuhb.h): merged there. */
    if (__builtin_expect(n >= t->held_cap || t->acquire_unusual || t->rcu.sites[slot].pc != pc || !rt_cpu_rseq ||
                             __atomic_load_n(&lock->held_by_exited, __ATOMIC_RELAXED) ||
                             (__atomic_load_n(&lock->rcu_hb, __ATOMIC_RELAXED) && rt_rcuhb_acquire_due(t, lock)),
                         0))
        return 0;
    /* The wait shown before the call (a nested or contended acquisition)
     * ends before the lock shows as held, as on the slow path. */
    if (t->waiting_for)
        __atomic_store_n(&t->waiting_for, NULL, __ATOMIC_RELEASE);
    if (__builtin_expect(rt_lock_type_recursive(lock->type), 0)) {
        /* A recursive lock its holder takes again counts one more. */
        uint64_t id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
        for (unsigned i = n; i-- > 0;)
            if (t->held[i].lock == lock && t->held[i].id == id) {
                t->held[i].count++;
                return 1;
            }
    }
    __atomic_store_n(&t->nheld, n + 1, __ATOMIC_RELAXED); /* taken before filled, as above */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    struct rt_held *h = &t->held[n];
    h->lock = lock;
    h->id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    h->addr = __atomic_load_n(&lock->addr, __ATOMIC_RELAXED);
    h->chain = chain;
    h->stack = t->rcu.sites[slot].stack;
    h->count = 1;
    h->mode = (flags & RT_ACQ_READ) ? RT_HOLD_READ : RT_HOLD_WRITE;
    h->trylock = (flags & RT_ACQ_TRY) != 0;
    h->cpu = (int16_t)rt_thread_cpu_fast(t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return 1;
}

/* The same for a thread that held no lock (nothing to check, no chain
 * to extend, entry 0), with the lock's id and address known and the CPU
 * read by the caller: the wrappers' in-place fast paths (which tested
 * t->acquire_unusual). */
RT_FAST int rt_lock_first_acquired_fast(struct rt_thread *t, struct rt_lock *lock, uint64_t id, uintptr_t addr,
                                        unsigned flags, uintptr_t pc, int cpu)
{
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    if (__builtin_expect(t->rcu.sites[slot].pc != pc, 0) ||
        __builtin_expect(__atomic_load_n(&lock->rcu_hb, __ATOMIC_RELAXED) && rt_rcuhb_acquire_due(t, lock), 0))
        return 0;
    /* The slot is taken before it is filled: a signal handler that locks
     * in between uses the next one. */
    __atomic_store_n(&t->nheld, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    struct rt_held *h = &t->held[0];
    h->lock = lock;
    h->id = id;
    h->addr = addr;
    h->chain = 0;
    h->stack = t->rcu.sites[slot].stack;
    h->state = RT_HELD_STATE(1, (flags & RT_ACQ_READ) ? RT_HOLD_READ : RT_HOLD_WRITE, (flags & RT_ACQ_TRY) != 0, cpu);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return 1;
}

RT_FAST void rt_on_lock_acquired(struct rt_thread *t, struct rt_lock *lock, unsigned flags, uint64_t chain,
                                 uintptr_t pc)
{
    if (!rt_lock_acquired_fast(t, lock, flags, chain, pc))
        rt_on_lock_acquired_slow(t, lock, flags, chain, pc);
}

/* The lock call failed (timeout, EBUSY, EDEADLK): nothing is held. */
RT_FAST void rt_on_lock_failed(struct rt_thread *t)
{
    if (t->waiting_for)
        __atomic_store_n(&t->waiting_for, NULL, __ATOMIC_RELEASE);
}

/* Before the real unlock call: most unlocks release the most recent
 * lock. Returns 0, having changed nothing, when the slow path must run. */
RT_FAST int rt_lock_release_fast(struct rt_thread *t, uintptr_t addr)
{
    unsigned n = t->nheld;
    uint32_t unusual = t->release_unusual; /* untracked, hold times, wrote an RCU pointer, a held lock freed */
    if (__builtin_expect(n > 0, 1)) {
        struct rt_held *h = &t->held[n - 1];
        /* Count 1 (read or write): the entry goes, nothing else changes. A
         * thread that wrote an RCU pointer may publish (rcuhb.h) there. */
        if (__builtin_expect(h->addr == addr && (uint32_t)h->state == 1, 1) &&
            __builtin_expect(!unusual || (!t->acquire_unusual && !__atomic_load_n(&t->held_freed, __ATOMIC_RELAXED) &&
                                          (!t->rcu_wrote || !rt_rcuhb_release_due(t, h))),
                             1)) {
            /* A popped slot is left dead (id 0, never a lock's): the next
             * acquisition reserves it before filling it, and a signal
             * handler in between must not take the old entry for a held
             * lock (it reported recursive-locking once in stress/signal-storm). */
            __atomic_store_n(&h->id, 0, __ATOMIC_RELAXED);
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            __atomic_store_n(&t->nheld, n - 1, __ATOMIC_RELEASE);
            return 1;
        }
        /* A recursive lock released while still taken more times: one fewer. */
        if (__builtin_expect(h->addr == addr && h->count > 1, 0)) {
            h->count--;
            return 1;
        }
    }
    return 0;
}

RT_FAST void rt_on_lock_release(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    if (!rt_lock_release_fast(t, addr))
        rt_on_lock_release_slow(t, addr, pc);
}
/* Dynamic annotations (locks/annotate.c): claims no real lock allows. */
/* t acquires lock l (at addr), in read mode if read: reports, and returns
 * 1, when another thread holds it in a mode that excludes this one. */
int rt_annotated_acquire_check(struct rt_thread *t, struct rt_lock *l, uintptr_t addr, int read);
/* t releases addr in read mode if read: reports, and returns 1, when t
 * holds it in the other mode. */
int rt_annotated_release_check(struct rt_thread *t, uintptr_t addr, int read);
/* Remembers where the lock at addr was destroyed (a lossy table, for a
 * later use-after-destroy): hang/cond.c's busy destroy ends here too. */
void rt_remember_destroy(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
/* Was the object at addr destroyed, as far as that table remembers? Where
 * and by whom in *stack and *tid (either may be NULL). */
int rt_destroyed_at(uintptr_t addr, rt_stack_id *stack, int *tid);
#endif

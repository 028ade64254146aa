/* The engine's event interface. interpose/ translates intercepted calls
 * into these; tests call them directly. Every function expects the
 * caller's reentrancy guard to be set and takes the caller's return
 * address (pc) for cheap call-site identification. */
#ifndef RTDD_ENGINE_H
#define RTDD_ENGINE_H
#include "locktab.h"
#include "thread.h"
#include <stddef.h>
#include <stdint.h>

/* Slow paths of the inline fast paths below. */
struct rt_lock *rt_lock_lookup_slow(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc);
rt_stack_id rt_site_stack_slow(struct rt_thread *t, uintptr_t pc);
void rt_on_lock_acquired_slow(struct rt_thread *t, struct rt_lock *lock, uintptr_t pc);
void rt_on_lock_release_slow(struct rt_thread *t, uintptr_t addr, uintptr_t pc);

/* pthread_*_init: the object at addr starts a new life (new id). */
void rt_on_lock_init(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type, uintptr_t pc);
/* pthread_*_destroy: the object's life ends. */
void rt_on_lock_destroy(struct rt_thread *t, uintptr_t addr, uintptr_t pc);
/* Before memory [start, start+len) is freed (free, realloc that moves,
 * munmap): reports locks in it that are held by any thread, and retires
 * every lock record in it. */
void rt_on_free(struct rt_thread *t, uintptr_t start, size_t len, uintptr_t pc);

/* The fast paths are inline: they run on every lock and unlock, and a
 * lock/unlock pair must cost only a few nanoseconds more than native. */

/* The lock record for addr, from the per-thread cache when it is still
 * valid (same address, same id: not retired meanwhile). NULL only when out
 * of memory. */
static inline struct rt_lock *rt_lock_lookup(struct rt_thread *t, uintptr_t addr, enum rt_lock_type type,
                                             uintptr_t pc)
{
    unsigned slot = (unsigned)(addr >> 3) & (RT_LOCK_CACHE - 1);
    struct rt_lock *l = t->lock_cache[slot].lock;
    if (__builtin_expect(t->lock_cache[slot].addr == addr && l &&
                             __atomic_load_n(&l->addr, __ATOMIC_ACQUIRE) == addr &&
                             __atomic_load_n(&l->id, __ATOMIC_RELAXED) == t->lock_cache[slot].id,
                         1))
        return l;
    return rt_lock_lookup_slow(t, addr, type, pc);
}

/* The stack of the first time call site pc was seen (captured once). */
static inline rt_stack_id rt_site_stack(struct rt_thread *t, uintptr_t pc)
{
    unsigned slot = (unsigned)(pc >> 2) & (RT_SITE_CACHE - 1);
    if (__builtin_expect(t->site_cache[slot].pc == pc, 1))
        return t->site_cache[slot].stack;
    return rt_site_stack_slow(t, pc);
}

/* The lock call succeeded: push it on the held stack, mark the owner. */
static inline void rt_on_lock_acquired(struct rt_thread *t, struct rt_lock *lock, uintptr_t pc)
{
    if (__builtin_expect(t->untracked || t->nheld >= RT_MAX_HELD || lock->type == RT_LOCK_MUTEX_RECURSIVE, 0)) {
        rt_on_lock_acquired_slow(t, lock, pc);
        return;
    }
    rt_stack_id stack = rt_site_stack(t, pc);
    struct rt_held *h = &t->held[t->nheld++];
    h->lock = lock;
    h->id = __atomic_load_n(&lock->id, __ATOMIC_RELAXED);
    h->addr = __atomic_load_n(&lock->addr, __ATOMIC_RELAXED);
    h->pc = pc;
    h->stack = stack;
    h->count = 1;
    __atomic_store_n(&lock->owner_stack, stack, __ATOMIC_RELAXED);
    __atomic_store_n(&lock->owner_tid, t->tid, __ATOMIC_RELEASE);
}

/* Before the real unlock call. Most unlocks release the most recent lock. */
static inline void rt_on_lock_release(struct rt_thread *t, uintptr_t addr, uintptr_t pc)
{
    unsigned n = t->nheld;
    if (__builtin_expect(n > 0 && !t->untracked, 1)) {
        struct rt_held *h = &t->held[n - 1];
        if (__builtin_expect(h->addr == addr && h->count == 1, 1)) {
            struct rt_lock *l = h->lock;
            if (__atomic_load_n(&l->id, __ATOMIC_RELAXED) == h->id &&
                __atomic_load_n(&l->owner_tid, __ATOMIC_RELAXED) == t->tid)
                __atomic_store_n(&l->owner_tid, 0, __ATOMIC_RELEASE);
            t->nheld = n - 1;
            return;
        }
    }
    rt_on_lock_release_slow(t, addr, pc);
}
#endif

/* The lock-order graph's lock. Its holder sometimes works long (a cycle
 * search, re-sorting the order, merging a group), so waiters must not burn
 * a CPU meanwhile: a waiter spins a little while the holder does short work
 * and sleeps on a futex at once while the holder searches. Like rt_spin_t a
 * leaf lock of the runtime's own, never an interposed pthread lock. */
#ifndef RTDD_SLEEPLOCK_H
#define RTDD_SLEEPLOCK_H
#include <linux/futex.h>
#include <sys/syscall.h>

#include "core/core.h"

typedef struct {
    _Atomic int state;     /* 0 free, 1 held, 2 held and a waiter may sleep */
    _Atomic int searching; /* the holder is in a long operation: do not spin */
} rt_sleeplock_t;
#define RT_SLEEPLOCK_INIT { 0, 0 }

#define RT_SLEEPLOCK_SPINS 128

static inline int rt_sleeplock_trylock(rt_sleeplock_t *l)
{
    int free_state = 0;
    return !__atomic_load_n(&l->state, __ATOMIC_RELAXED) &&
           __atomic_compare_exchange_n(&l->state, &free_state, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void rt_sleeplock_lock(rt_sleeplock_t *l)
{
    if (likely(rt_sleeplock_trylock(l)))
        return;
    for (unsigned spins = 0; spins < RT_SLEEPLOCK_SPINS && !__atomic_load_n(&l->searching, __ATOMIC_RELAXED); spins++) {
        __builtin_ia32_pause();
        if (rt_sleeplock_trylock(l))
            return;
    }
    /* Drepper's third mutex ("Futexes are tricky"): state 2 tells the
     * unlocker that someone may sleep. */
    while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
        rt_raw_syscall6(SYS_futex, (long)&l->state, FUTEX_WAIT_PRIVATE, 2, 0, 0, 0);
}

/* The holder says it starts a long operation; unlocking ends it. */
static inline void rt_sleeplock_searching(rt_sleeplock_t *l)
{
    __atomic_store_n(&l->searching, 1, __ATOMIC_RELAXED);
}

static inline void rt_sleeplock_unlock(rt_sleeplock_t *l)
{
    if (__atomic_load_n(&l->searching, __ATOMIC_RELAXED))
        __atomic_store_n(&l->searching, 0, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2)
        rt_raw_syscall6(SYS_futex, (long)&l->state, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/* After fork the child has one thread: whatever the parent's other threads
 * held is free again. */
static inline void rt_sleeplock_reinit(rt_sleeplock_t *l)
{
    /* Stores only where needed: a store copies the page into the child. */
    if (__atomic_load_n(&l->state, __ATOMIC_RELAXED))
        __atomic_store_n(&l->state, 0, __ATOMIC_RELAXED);
    if (__atomic_load_n(&l->searching, __ATOMIC_RELAXED))
        __atomic_store_n(&l->searching, 0, __ATOMIC_RELAXED);
}
#endif

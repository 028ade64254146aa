/* Retired RCU objects (rcuretired.h): a direct-mapped table of starts. */
#include "rcu/rcuretired.h"
#include "core/core.h"

#define RETIRED_BITS 12
#define RETIRED (1u << RETIRED_BITS)
#define GRAIN 8 /* objects begin at pointer alignment at least */

static uintptr_t retired[RETIRED];
static rt_spin_t retired_lock = RT_SPIN_INIT;
static _Atomic unsigned nretired; /* entries in use: 0 keeps lookups free */

static unsigned slot_of(uintptr_t obj)
{
    return (unsigned)(rt_hash64(obj) >> (64 - RETIRED_BITS));
}

void rt_rcuretired_add(uintptr_t obj)
{
    unsigned s = slot_of(obj);
    rt_spin_lock(&retired_lock);
    if (!retired[s])
        __atomic_fetch_add(&nretired, 1, __ATOMIC_RELAXED);
    retired[s] = obj;
    rt_spin_unlock(&retired_lock);
}

/* The caller holds the lock. */
static void remove_locked(uintptr_t obj)
{
    unsigned s = slot_of(obj);
    if (retired[s] == obj) {
        retired[s] = 0;
        __atomic_fetch_sub(&nretired, 1, __ATOMIC_RELAXED);
    }
}

void rt_rcuretired_remove(uintptr_t obj)
{
    if (!__atomic_load_n(&nretired, __ATOMIC_RELAXED))
        return;
    rt_spin_lock(&retired_lock);
    remove_locked(obj);
    rt_spin_unlock(&retired_lock);
}

void rt_rcuretired_freed(uintptr_t start, size_t len)
{
    if (!__atomic_load_n(&nretired, __ATOMIC_RELAXED))
        return;
    /* An object begins at the block or a little inside it (a header). */
    uintptr_t end = start + (len < RT_RETIRED_REACH ? len : RT_RETIRED_REACH);
    rt_spin_lock(&retired_lock);
    for (uintptr_t a = start & ~(uintptr_t)(GRAIN - 1); a < end; a += GRAIN)
        remove_locked(a);
    rt_spin_unlock(&retired_lock);
}

uintptr_t rt_rcuretired_below(uintptr_t addr)
{
    if (!__atomic_load_n(&nretired, __ATOMIC_RELAXED))
        return 0;
    uintptr_t found = 0, a = addr & ~(uintptr_t)(GRAIN - 1);
    rt_spin_lock(&retired_lock);
    for (unsigned i = 0; i < RT_RETIRED_REACH / GRAIN && !found; i++, a -= GRAIN)
        if (retired[slot_of(a)] == a && a)
            found = a;
    rt_spin_unlock(&retired_lock);
    return found;
}

void rt_rcuretired_after_fork(void)
{
    rt_spin_reinit(&retired_lock);
}

/* Small shared definitions for the engine: branch hints, the internal
 * spinlock (internal locks must never be the interposed pthread ones). */
#ifndef RTDD_COMMON_H
#define RTDD_COMMON_H
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Test-and-test-and-set lock that yields under contention; a leaf lock:
 * nothing that may take another internal lock runs while it is held. */
typedef struct { _Atomic int locked; } rt_spin_t;
#define RT_SPIN_INIT { 0 }

static inline int rt_spin_trylock(rt_spin_t *l)
{
    return !__atomic_load_n(&l->locked, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void rt_spin_lock(rt_spin_t *l)
{
    for (unsigned spins = 0; !rt_spin_trylock(l); spins++) {
        if (spins < 64)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
}

static inline void rt_spin_unlock(rt_spin_t *l)
{
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* After fork the child has one thread: whatever the parent's other threads
 * held is free again. Only a held lock is written: a store to a free one
 * would still copy its page in the child (tables of striped locks span
 * pages: 17 copies per fork for the lock table alone). */
static inline void rt_spin_reinit(rt_spin_t *l)
{
    if (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
        __atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED);
}

/* Compare-and-swap of two adjacent 64-bit words, 16-byte aligned. */
#if defined(__x86_64__)
__attribute__((target("cx16")))
#endif
static inline int rt_cas_pair(uint64_t *p, uint64_t old0, uint64_t old1, uint64_t new0, uint64_t new1)
{
    unsigned __int128 o = (unsigned __int128)old1 << 64 | old0, n = (unsigned __int128)new1 << 64 | new0;
#if defined(__x86_64__)
    return __sync_bool_compare_and_swap((unsigned __int128 *)p, o, n);
#else
    return __atomic_compare_exchange_n((unsigned __int128 *)p, &o, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
#endif
}

static inline uint64_t rt_hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
#endif

/* The engine's own memory: mmap-backed, never passes through the
 * interposed malloc/free, never unmapped (hooks run after destructors). */
#ifndef RTDD_ALLOC_H
#define RTDD_ALLOC_H
#include <stddef.h>
#include "core/rt_common.h"

/* Zeroed memory that lives as long as the process. NULL when the system
 * is out of memory (the caller degrades and says so once). */
void *rt_zalloc(size_t size);

/* Grows the array *arr of *cap elements of size bytes to hold need (at
 * least doubling; 256 at first), keeping its contents. The old array is
 * not returned: for arrays one owner grows (its readers hold the owner's
 * lock or are the owner). -1, with the array unchanged, when out of memory. */
int rt_grow_array(void **arr, unsigned *cap, unsigned need, size_t size);

/* Type-stable pool of fixed-size objects: freed objects are reused only as
 * objects of the same pool, so lock-free readers may still dereference a
 * stale pointer safely and validate what they read. Each thread keeps a
 * few objects of each pool for itself (a lock per batch, not per object);
 * runtime code never re-enters itself on a thread (its guard), so the
 * per-thread lists need no lock. */
struct rt_pool {
    size_t objsize;
    void *_Atomic freelist;
    rt_spin_t lock;
    _Atomic unsigned slot; /* 1 + its index in the threads' caches, 0 until first use */
};
/* The slot of a pool whose objects threads do not keep (big, rare ones). */
#define RT_POOL_SHARED UINT32_MAX
/* Objects of a cache line or more take whole lines (rt_zalloc starts such
 * blocks on one): no two objects, and so no two threads' objects, share a
 * line. Smaller ones are packed. */
#define RT_POOL_OBJSIZE(type)                                                                          \
    (sizeof(type) < sizeof(void *) ? sizeof(void *) : sizeof(type) < 64 ? sizeof(type) : (sizeof(type) + 63) & ~(size_t)63)
#define RT_POOL_INIT_SHARED(type) { RT_POOL_OBJSIZE(type), NULL, RT_SPIN_INIT, RT_POOL_SHARED }
#define RT_POOL_INIT(type) { RT_POOL_OBJSIZE(type), NULL, RT_SPIN_INIT, 0 }
void *rt_pool_get(struct rt_pool *pool);
void rt_pool_put(struct rt_pool *pool, void *obj);
/* Gives the calling thread's cached objects back to their pools (thread exit). */
void rt_pool_thread_flush(void);
/* In a forked child: the arena lock may have been held by a vanished thread. */
void rt_alloc_after_fork(void);
/* Says once on stderr that the runtime ran out of memory for bookkeeping. */
void rt_out_of_memory(const char *what);
#endif

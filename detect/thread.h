/* Per-thread engine state: the held-lock stack and the caches that keep
 * repeated lock/unlock of the same lock off shared memory. */
#ifndef RTDD_THREAD_H
#define RTDD_THREAD_H
#include "locktab.h"
#include "stackdepot.h"
#include <stdint.h>

#define RT_MAX_HELD 64
#define RT_LOCK_CACHE 64
#define RT_SITE_CACHE 64

struct rt_held {
    struct rt_lock *lock;
    uint64_t id;
    uintptr_t addr;
    uintptr_t pc;        /* return address of the acquiring call */
    rt_stack_id stack;   /* stack of the first acquisition from pc */
    int count;           /* recursive re-acquisitions */
};

struct rt_thread {
    int tid;
    int untracked;                  /* held stack overflowed: stop checking */
    unsigned nheld;
    struct rt_held held[RT_MAX_HELD];
    struct { uintptr_t addr; struct rt_lock *lock; uint64_t id; } lock_cache[RT_LOCK_CACHE];
    struct { uintptr_t pc; rt_stack_id stack; } site_cache[RT_SITE_CACHE];
    struct rt_thread *next;         /* registry of live threads */
    struct rt_thread *prev;
};

/* Registry: threads are visible to other threads' checks (deadlock
 * watchdog, reports naming holders). */
struct rt_thread *rt_thread_new(int tid);
void rt_thread_free(struct rt_thread *t);
/* Drops every registered thread but keep (the forking thread in a child). */
void rt_thread_after_fork(struct rt_thread *keep, int new_tid);
#endif

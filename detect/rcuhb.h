/* Happens-before for the RCU update check alone (rcu-unlocked-update): two
 * updates of a pointer need no lock in common when something else orders
 * them. A semaphore post, a condition signal or a thread's exit releases
 * what its thread knows into the object (the poster's own RCU pointer
 * clock, rcuptr.h, and what it acquired before); a wait that returns, or a
 * join, acquires it. A thread's knowledge is a few (thread, clock) pairs:
 * each of that thread's writes up to that clock happened before. Nothing
 * here runs on a lock path, and sem and condvar paths pay one load until
 * the program writes an RCU pointer. */
#ifndef RTDD_RCUHB_H
#define RTDD_RCUHB_H
#include "rcuptr.h"
#include "thread.h"
#include <stdint.h>

/* t (a poster, signaller, or exiting thread) releases into object obj. */
void rt_rcuhb_release_slow(struct rt_thread *t, uintptr_t obj);
/* t's wait on obj returned (or its join of the thread with handle obj). */
void rt_rcuhb_acquire_slow(struct rt_thread *t, uintptr_t obj);

static inline void rt_rcuhb_release(struct rt_thread *t, uintptr_t obj)
{
    if (__builtin_expect(__atomic_load_n(&rt_rcuptr_tracked, __ATOMIC_RELAXED) != 0, 0) && obj)
        rt_rcuhb_release_slow(t, obj);
}

static inline void rt_rcuhb_acquire(struct rt_thread *t, uintptr_t obj)
{
    if (__builtin_expect(__atomic_load_n(&rt_rcuptr_tracked, __ATOMIC_RELAXED) != 0, 0) && obj)
        rt_rcuhb_acquire_slow(t, obj);
}

/* Did t acquire, since, what tid released after its write at clock? */
int rt_rcuhb_ordered(const struct rt_thread *t, int tid, uint64_t clock);
void rt_rcuhb_after_fork(void);
#endif

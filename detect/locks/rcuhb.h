/* Happens-before for the RCU update check alone (rcu-unlocked-update): two
 * updates of a pointer need no lock in common when something else orders
 * them. A semaphore post, a condition signal, a thread's exit or the
 * release of a lock it holds for writing releases what its thread knows
 * into the object (the poster's own RCU pointer
 * clock, rcuptr.h, and what it acquired before); a wait that returns, a
 * join or the lock's next acquisition acquires it. A thread's knowledge is a few (thread, clock) pairs:
 * each of that thread's writes up to that clock happened before. Sem and
 * condvar paths pay one load until the program writes an RCU pointer; lock
 * paths, a test of a byte (below). */
#ifndef RTDD_RCUHB_H
#define RTDD_RCUHB_H
#include "locks/thread.h"
#include <stdint.h>

/* Counts RCU pointer writes (rcu/rcuptr.c): a thread whose state was made
 * at clock c came after every write with a clock <= c. */
extern _Atomic uint64_t rt_rcuptr_clock;
extern _Atomic unsigned rt_rcuptr_tracked; /* 0 until the first tracked pointer */

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

/* Locks. A thread that has written an RCU pointer publishes into each
 * lock it releases in write mode and sets the record's rcu_hb flag; an
 * acquisition of a flagged record merges. Other programs pay a test of
 * that byte per acquisition (in the record's line, read anyway) and none
 * per release (rcu_wrote shares untracked's load). Repeats
 * skip the table: a release that has nothing new since the thread last
 * published into that lock, and an acquisition of the lock the thread last
 * merged with no publication anywhere since. */
extern _Atomic uint64_t rt_rcuhb_lock_pubs; /* publications into locks so far */

/* Must the release of held entry h run the slow path to publish? */
static inline int rt_rcuhb_release_due(const struct rt_thread *t, const struct rt_held *h)
{
    return h->mode == RT_HOLD_WRITE && (t->rcu_hb_pub_id != h->id || t->rcu_hb_pub_gen != t->rcu_hb_gen);
}

/* Must the acquisition of lock (flag set) run the slow path to merge? */
static inline int rt_rcuhb_acquire_due(const struct rt_thread *t, const struct rt_lock *lock)
{
    return t->rcu_hb_acq_id != __atomic_load_n(&lock->id, __ATOMIC_RELAXED) ||
           t->rcu_hb_acq_seq != __atomic_load_n(&rt_rcuhb_lock_pubs, __ATOMIC_ACQUIRE);
}

/* The slow paths: t releases lock (held as id; write mode), t acquired lock. */
void rt_rcuhb_lock_release(struct rt_thread *t, struct rt_lock *lock, uint64_t id);
void rt_rcuhb_lock_acquire(struct rt_thread *t, struct rt_lock *lock);

/* Did t acquire, since, what tid released after its write at clock? */
int rt_rcuhb_ordered(const struct rt_thread *t, int tid, uint64_t clock);
void rt_rcuhb_after_fork(void);
#endif

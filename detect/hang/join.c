/* pthread_join as a wait in the wait-for graph: the joiner waits for the
 * joined thread to end, as if for a lock that thread holds until then. So
 * "A holds M and joins B" while "B waits for M" is a deadlock the watchdog
 * reports, not a silent hang. */
#include "locks/locks.h"
#include "rcu/rcu.h"
#include "hang/hang.h"
#include "hang/threadends.h"

/* The watchdog finds the joined thread by its handle when it looks: it may
 * not have made its first tracked call yet. */
void rt_on_join_begin(struct rt_thread *t, uintptr_t handle, int timed, uintptr_t pc)
{
    /* A join of itself fails at once (EDEADLK): no wait. */
    if (!handle || handle == t->handle)
        return;
    t->wait_stack = rt_site_stack(t, pc);
    t->wait_mode = RT_HOLD_WRITE;
    t->wait_timed = (uint8_t)(timed != 0);
    rt_wait_seq_next(&t->wait_seq);
    __atomic_store_n(&t->joining, handle, __ATOMIC_RELEASE);
    rt_watchdog_ensure();
}

void rt_on_join_target(struct rt_thread *t, int tid)
{
    if (__atomic_load_n(&t->joining, __ATOMIC_RELAXED))
        __atomic_store_n(&t->joining_tid, tid, __ATOMIC_RELEASE);
}

void rt_on_join_end(struct rt_thread *t, int ok)
{
    __atomic_store_n(&t->joining_tid, 0, __ATOMIC_RELAXED);
    uintptr_t joined = __atomic_load_n(&t->joining, __ATOMIC_RELAXED);
    rt_rcuhb_acquire(t, joined); /* what the joined thread released at its exit */
    if (joined && ok)
        rt_thread_ends_joined(joined, t->tid); /* its life happened before what t does next */
    if (joined)
        __atomic_store_n(&t->joining, 0, __ATOMIC_RELEASE);
}

void rt_on_thread_start(struct rt_thread *t)
{
    rt_thread_ends_start(t->handle, t->tid);
}

/* Out-of-line half of the read side, entered only when rtdd_rcu_read_slow is
 * non-zero (debug hooks, no membarrier, a sleeping grace period) or on an
 * unbalanced unlock.  Everything here is async-signal-safe.  Without
 * membarrier(2) the lock side fences here; the unlock side needs no fence
 * because its slot store is a release store. */
#include "rcu_internal.h"

/* Read-mostly words, each starting its own cache line; every variable that
 * is written often is cache-line aligned too, so none can share these lines. */
RTDD_CACHELINE uint64_t rtdd_rcu_gp_ctr = 1; /* nesting 1, phase 0 */
RTDD_CACHELINE unsigned int rtdd_rcu_read_slow = RTDD_RCU_SLOW_FENCE; /* until membarrier is known */

/* A statistic, counted in the reader's own slot (its own cache line, so
 * readers never share a written line); a plain load and store, as a signal
 * handler's count may be lost. The shared unregistered slot is never written. */
static inline void count_slow_call(void)
{
    struct rtdd_rcu_reader *self = rtdd_rcu_self;
    if (self != &rtdd_rcu_unregistered)
        __atomic_store_n(&self->slow_calls, __atomic_load_n(&self->slow_calls, __ATOMIC_RELAXED) + 1,
                         __ATOMIC_RELAXED);
}

void rtdd_rcu_read_lock_slow(void)
{
    const void *caller = __builtin_return_address(0);
    unsigned int flags = __atomic_load_n(&rtdd_rcu_read_slow, __ATOMIC_RELAXED);
    count_slow_call();
    if (flags & RTDD_RCU_SLOW_FENCE)
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* order ctr store before the section */
    if (flags & RTDD_RCU_SLOW_HOOKS) {
        const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
        if (ops && ops->read_enter)
            ops->read_enter(caller, rcu_read_depth());
    }
}

/* Called after the slot store: the section has ended already. */
void rtdd_rcu_read_unlock_slow(unsigned int depth_before)
{
    const void *caller = __builtin_return_address(0);
    unsigned int flags = __atomic_load_n(&rtdd_rcu_read_slow, __ATOMIC_RELAXED);
    count_slow_call();
    if (flags & RTDD_RCU_SLOW_HOOKS) {
        const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
        if (ops && ops->read_exit)
            ops->read_exit(caller, depth_before);
    }
    /* Only a waiter seen in the same load that sent us here needs the
     * fence and the wake: with hooks alone this is the fast path's case. */
    if (depth_before == 1 && (flags & RTDD_RCU_SLOW_WAITER)) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* release visible before testing waiter */
        rtdd_rcu_wake_gp_waiter();
    }
}

void rtdd_rcu_read_unbalanced(void)
{
    const void *caller = __builtin_return_address(0);
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && ops->read_unbalanced)
        ops->read_unbalanced(caller);
    static int warned;
    rtdd_rcu_warn_once(&warned, "rtdd_rcu: rcu_read_unlock() without rcu_read_lock(); ignored\n");
}

/* Debug hook table: installed by the rtdd runtime, tested by one global
 * each on the fast paths (see include/rtdd/rcu_debug.h). */
#include "rcu_internal.h"
#include <stddef.h>

const struct rtdd_rcu_debug_ops *rtdd_rcu_debug_ops_active;

/* The installed table's size: members past it are not there (an installer
 * built against an older header). Never above the table's while it is
 * installed: lowered before a table is swapped in, raised after. */
#define FIRST_LAYOUT offsetof(struct rtdd_rcu_debug_ops, dereference_unprotected)
static _Atomic size_t ops_size;
#define HAS(ops, member) \
    (offsetof(struct rtdd_rcu_debug_ops, member) + sizeof((ops)->member) <= \
     __atomic_load_n(&ops_size, __ATOMIC_ACQUIRE) && (ops)->member)

const struct rtdd_rcu_debug_ops *rtdd_rcu_set_debug_hooks(const struct rtdd_rcu_debug_ops *ops)
{
    return rtdd_rcu_set_debug_hooks_sized(ops, FIRST_LAYOUT);
}

const struct rtdd_rcu_debug_ops *rtdd_rcu_set_debug_hooks_sized(const struct rtdd_rcu_debug_ops *ops, size_t size)
{
    if (size > sizeof *ops)
        size = sizeof *ops;
    if (size < __atomic_load_n(&ops_size, __ATOMIC_RELAXED))
        __atomic_store_n(&ops_size, size, __ATOMIC_RELEASE);
    const struct rtdd_rcu_debug_ops *old =
        __atomic_exchange_n(&rtdd_rcu_debug_ops_active, ops, __ATOMIC_ACQ_REL);
    __atomic_store_n(&ops_size, size, __ATOMIC_RELEASE);
    if (ops)
        __atomic_fetch_or(&rtdd_rcu_read_slow, RTDD_RCU_SLOW_HOOKS, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_and(&rtdd_rcu_read_slow, ~(RTDD_RCU_SLOW_HOOKS | RTDD_RCU_SLOW_RECORD), __ATOMIC_SEQ_CST);
    return old;
}

const unsigned int rtdd_rcu_record_layout = RTDD_RCU_REC_LAYOUT;

void rtdd_rcu_set_read_record(int on)
{
    if (on && __atomic_load_n(&rtdd_rcu_debug_ops_active, __ATOMIC_ACQUIRE))
        __atomic_fetch_or(&rtdd_rcu_read_slow, RTDD_RCU_SLOW_RECORD, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_and(&rtdd_rcu_read_slow, ~RTDD_RCU_SLOW_RECORD, __ATOMIC_SEQ_CST);
}

void rtdd_rcu_debug_dereference(const void *value, const void *slot)
{
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && ops->dereference)
        ops->dereference(value, slot, __builtin_return_address(0));
}

void rtdd_rcu_debug_publish(const void *value, const void *slot)
{
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && ops->publish)
        ops->publish(value, slot, __builtin_return_address(0));
}

void rtdd_rcu_debug_dereference_unprotected(const void *value, const void *slot, int protected_form)
{
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && HAS(ops, dereference_unprotected))
        ops->dereference_unprotected(value, slot, __builtin_return_address(0), protected_form);
}

/* Without a checker nothing says otherwise: a condition built on it holds. */
int rtdd_lock_is_held(const void *lock)
{
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    return ops && HAS(ops, lock_held) ? ops->lock_held(lock) : 1;
}

void rtdd_rcu_debug_publish_atomic(const void *old, const void *value, const void *slot, int cmpxchg)
{
    const struct rtdd_rcu_debug_ops *ops = rtdd_rcu_hooks();
    if (ops && HAS(ops, publish_atomic))
        ops->publish_atomic(old, value, slot, __builtin_return_address(0), cmpxchg);
}

/* librtdd_rcu's debug hooks, installed when the program uses it: every
 * event becomes an rcucheck event of the librtdd_rcu flavour. */
#include "interpose.h"
#include "modules.h"
#include "rcucheck.h"
#include "unwind.h"
#include <dlfcn.h>
#include <rtdd/rcu_debug.h>

#define HOOK_ENTER()                        \
    struct rt_thread *t = rti_enter();      \
    if (!t)                                 \
        return
#define HOOK_ENTER_OR(value)                \
    struct rt_thread *t = rti_enter();      \
    if (!t)                                 \
        return value

/* The read side's common cases run as leaves (rcucheck.h), without
 * entering the runtime; the rest, and anything to report, the general way. */
static void read_enter(const void *caller, unsigned int depth)
{
    (void)depth;
    struct rt_thread *self = rti_self_unguarded();
    if (likely(self && rt_rcu_read_enter_fast(self, RT_RCU_RTDD, (uintptr_t)caller)))
        return;
    HOOK_ENTER();
    rt_rcu_read_enter(t, RT_RCU_RTDD, (uintptr_t)caller);
    rti_leave();
}

static void read_exit(const void *caller, unsigned int depth)
{
    (void)depth;
    struct rt_thread *self = rti_self_unguarded();
    if (likely(self && rt_rcu_read_exit_fast(self, RT_RCU_RTDD)))
        return;
    HOOK_ENTER();
    rt_rcu_read_exit(t, RT_RCU_RTDD, (uintptr_t)caller);
    rti_leave();
}

static void read_unbalanced(const void *caller)
{
    HOOK_ENTER();
    if (t->rcu.depth == 0) /* the library saw none: neither did we */
        rt_rcu_read_exit(t, RT_RCU_RTDD, (uintptr_t)caller);
    rti_leave();
}

static void dereference(const void *value, const void *slot, const void *caller)
{
    (void)slot;
    struct rt_thread *self = rti_self_unguarded();
    if (likely(self && rt_rcu_dereference_fast(self, value, (uintptr_t)caller)))
        return;
    HOOK_ENTER();
    rt_rcu_dereference(t, value, (uintptr_t)caller);
    rti_leave();
}

static void publish(const void *value, const void *slot, const void *caller)
{
    (void)value;
    HOOK_ENTER();
    rt_rcu_publish(t, __atomic_load_n((void *const *)slot, __ATOMIC_RELAXED), (uintptr_t)caller);
    rti_leave();
}

static void sync_begin(const void *caller, unsigned int depth)
{
    (void)depth;
    HOOK_ENTER();
    rt_rcu_wait_begin(t, RT_RCU_RTDD, 0, (uintptr_t)caller);
    rti_leave();
}

static void sync_end(const void *caller)
{
    HOOK_ENTER();
    rt_rcu_wait_end(t, RT_RCU_RTDD, 0, (uintptr_t)caller);
    rti_leave();
}

static void barrier_begin(const void *caller, unsigned int depth)
{
    (void)depth;
    HOOK_ENTER();
    rt_rcu_wait_begin(t, RT_RCU_RTDD, 1, (uintptr_t)caller);
    rti_leave();
}

static void barrier_end(const void *caller)
{
    HOOK_ENTER();
    rt_rcu_wait_end(t, RT_RCU_RTDD, 1, (uintptr_t)caller);
    rti_leave();
}

static int call_enqueue(struct rcu_head *head, void (*func)(struct rcu_head *), const void *caller)
{
    HOOK_ENTER_OR(0);
    int r = rt_rcu_call(t, RT_RCU_RTDD, head, (void *)func, (uintptr_t)caller);
    rti_leave();
    return r == RT_RCU_DUPLICATE;
}

static void callback_begin(struct rcu_head *head, void (*func)(struct rcu_head *))
{
    (void)func;
    HOOK_ENTER();
    rt_rcu_callback_begin(t, RT_RCU_RTDD, head);
    rti_leave();
}

static void callback_end(struct rcu_head *head, void (*func)(struct rcu_head *))
{
    (void)func;
    HOOK_ENTER();
    rt_rcu_callback_end(t, RT_RCU_RTDD, head);
    rti_leave();
}

static const struct rtdd_rcu_debug_ops ops = {
    .read_enter = read_enter,
    .read_exit = read_exit,
    .read_unbalanced = read_unbalanced,
    .dereference = dereference,
    .publish = publish,
    .sync_begin = sync_begin,
    .sync_end = sync_end,
    .call_enqueue = call_enqueue,
    .callback_begin = callback_begin,
    .callback_end = callback_end,
    .barrier_begin = barrier_begin,
    .barrier_end = barrier_end,
    /* exit_in_reader: the runtime sees thread exits itself. */
};

/* Called once the runtime is set up: a program linked with librtdd_rcu
 * exports its hook setter. */
RT_HIDDEN void rti_install_rcu_hooks(void)
{
    const struct rtdd_rcu_debug_ops *(*set)(const struct rtdd_rcu_debug_ops *) =
        (const struct rtdd_rcu_debug_ops *(*)(const struct rtdd_rcu_debug_ops *))dlsym(RTLD_DEFAULT,
                                                                                     "rtdd_rcu_set_debug_hooks");
    if (!set)
        return;
    /* Reports start at the program's call into the library, not inside it. */
    struct rt_module m, prog;
    /* ...unless the library is linked into the program itself. */
    if (rt_module_find((uintptr_t)set, &m) == 0 &&
        !(rt_module_find((uintptr_t)dlsym(RTLD_DEFAULT, "main"), &prog) == 0 && prog.base == m.base))
        rt_unwind_add_skip_range(m.lo, m.hi);
    set(&ops);
}

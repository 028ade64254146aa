/* liburcu, for programs built without _LGPL_SOURCE (whose read side and
 * pointer operations are exported functions): each flavour's entry points
 * become rcucheck events. With _LGPL_SOURCE they are inlined and unseen. */
#include "interpose.h"
#include "rcu/rcu.h"

struct urcu_head;
typedef void (*urcu_cb)(struct urcu_head *);
/* liburcu's struct rcu_head: a queue node, then the callback. */
struct urcu_head { void *next; urcu_cb func; };

struct urcu_flavor_fns {
    void (*read_lock)(void);
    void (*read_unlock)(void);
    void (*synchronize)(void);
    void (*barrier)(void);
    void (*call)(struct urcu_head *, urcu_cb);
};
static struct urcu_flavor_fns real_fns[RT_RCU_FLAVORS];

/* liburcu may be loaded late (dlopen): resolve at first use. */
#define REAL(f, member, name)                                                             \
    (__atomic_load_n(&real_fns[f].member, __ATOMIC_ACQUIRE)                               \
         ? real_fns[f].member                                                             \
         : (__atomic_store_n(&real_fns[f].member, (__typeof__(real_fns[f].member))rti_next_symbol(name), \
                             __ATOMIC_RELEASE),                                           \
            real_fns[f].member))

/* A callback's own function is kept by rcucheck; the trampoline knows the
 * flavour, brackets the call, and calls it. */
static void run_callback(enum rt_rcu_flavor f, struct urcu_head *head)
{
    urcu_cb func = NULL;
    struct rt_thread *t = rti_enter();
    if (t) {
        func = (urcu_cb)rt_rcu_callback_begin(t, f, head);
        rti_leave();
    }
    if (!func)
        return; /* cannot happen: only tracked calls get the trampoline */
    func(head);
    if ((t = rti_enter())) {
        rt_rcu_callback_end(t, f, head);
        rti_leave();
    }
}

#define URCU_FLAVOR(F, prefix)                                                            \
    static void trampoline_##prefix(struct urcu_head *head) { run_callback(F, head); }   \
    RTI_EXPORT void urcu_##prefix##_read_lock(void)                                       \
    {                                                                                     \
        REAL(F, read_lock, "urcu_" #prefix "_read_lock")();                               \
        struct rt_thread *t = rti_self_unguarded();                                       \
        if (likely(t && rt_rcu_read_enter_fast(t, F, RTI_CALLER())))                      \
            return;                                                                       \
        if ((t = rti_enter())) {                                                          \
            rt_rcu_read_enter(t, F, RTI_CALLER());                                        \
            rti_leave();                                                                  \
        }                                                                                 \
    }                                                                                     \
    RTI_EXPORT void urcu_##prefix##_read_unlock(void)                                     \
    {                                                                                     \
        struct rt_thread *t = rti_self_unguarded();                                       \
        if (likely(t && rt_rcu_read_exit_fast(t, F)))                                     \
            t = NULL;                                                                     \
        else if ((t = rti_enter())) {                                                     \
            rt_rcu_read_exit(t, F, RTI_CALLER());                                         \
            rti_leave();                                                                  \
        }                                                                                 \
        REAL(F, read_unlock, "urcu_" #prefix "_read_unlock")();                           \
    }                                                                                     \
    RTI_EXPORT void urcu_##prefix##_synchronize_rcu(void)                                 \
    {                                                                                     \
        struct rt_thread *t = rti_enter();                                                \
        if (t) {                                                                          \
            rt_rcu_wait_begin(t, F, 0, RTI_CALLER());                                     \
            rti_leave();                                                                  \
        }                                                                                 \
        REAL(F, synchronize, "urcu_" #prefix "_synchronize_rcu")();                       \
        if ((t = rti_enter())) {                                                          \
            rt_rcu_wait_end(t, F, 0, RTI_CALLER());                                       \
            rti_leave();                                                                  \
        }                                                                                 \
    }                                                                                     \
    RTI_EXPORT void urcu_##prefix##_barrier(void)                                         \
    {                                                                                     \
        struct rt_thread *t = rti_enter();                                                \
        if (t) {                                                                          \
            rt_rcu_wait_begin(t, F, 1, RTI_CALLER());                                     \
            rti_leave();                                                                  \
        }                                                                                 \
        REAL(F, barrier, "urcu_" #prefix "_barrier")();                                   \
        if ((t = rti_enter())) {                                                          \
            rt_rcu_wait_end(t, F, 1, RTI_CALLER());                                       \
            rti_leave();                                                                  \
        }                                                                                 \
    }                                                                                     \
    RTI_EXPORT void urcu_##prefix##_call_rcu(struct urcu_head *head, urcu_cb func)        \
    {                                                                                     \
        int tracked = RT_RCU_UNTRACKED;                                                   \
        struct rt_thread *t = rti_enter();                                                \
        if (t) {                                                                          \
            tracked = rt_rcu_call(t, F, head, (void *)func, RTI_CALLER());                \
            rti_leave();                                                                  \
        }                                                                                 \
        if (tracked == RT_RCU_DUPLICATE)                                                  \
            return;                                                                       \
        REAL(F, call, "urcu_" #prefix "_call_rcu")(                                       \
            head, tracked == RT_RCU_QUEUED ? trampoline_##prefix : func);                 \
    }

URCU_FLAVOR(RT_RCU_MEMB, memb)
URCU_FLAVOR(RT_RCU_MB, mb)
URCU_FLAVOR(RT_RCU_BP, bp)
URCU_FLAVOR(RT_RCU_QSBR, qsbr)
URCU_FLAVOR(RT_RCU_SIGNAL, signal)

/* QSBR readers are in a read section whenever they are online, without
 * a call that says so: a registration is what shows them. */
RTI_EXPORT void urcu_qsbr_register_thread(void)
{
    static void (*real_register)(void);
    if (!real_register)
        real_register = (void (*)(void))rti_next_symbol("urcu_qsbr_register_thread");
    __atomic_store_n(&rt_rcu_qsbr_registered, 1, __ATOMIC_RELAXED);
    if (real_register)
        real_register();
}

/* The pointer operations are shared by all flavours. */
static void *(*real_deref)(void *);
static void *(*real_set)(void **, void *);
static void *(*real_xchg)(void **, void *);
static void *(*real_cmpxchg)(void **, void *, void *);

RTI_EXPORT void *rcu_dereference_sym(void *p)
{
    if (!real_deref)
        real_deref = (void *(*)(void *))rti_next_symbol("rcu_dereference_sym");
    void *v = real_deref(p);
    struct rt_thread *t = rti_self_unguarded();
    if (likely(t && rt_rcu_dereference_fast(t, v, RTI_CALLER())))
        return v;
    if ((t = rti_enter())) {
        rt_rcu_dereference(t, NULL, v, RTI_CALLER()); /* the value alone: found by what it holds */
        rti_leave();
    }
    return v;
}

RTI_EXPORT void *rcu_set_pointer_sym(void **p, void *v)
{
    if (!real_set)
        real_set = (void *(*)(void **, void *))rti_next_symbol("rcu_set_pointer_sym");
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_rcu_publish(t, p, __atomic_load_n(p, __ATOMIC_RELAXED), v, RT_RCU_ASSIGN, RTI_CALLER());
        rti_leave();
    }
    return real_set(p, v);
}

RTI_EXPORT void *rcu_xchg_pointer_sym(void **p, void *v)
{
    if (!real_xchg)
        real_xchg = (void *(*)(void **, void *))rti_next_symbol("rcu_xchg_pointer_sym");
    void *old = real_xchg(p, v);
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_rcu_publish(t, p, old, v, RT_RCU_XCHG, RTI_CALLER());
        rti_leave();
    }
    return old;
}

RTI_EXPORT void *rcu_cmpxchg_pointer_sym(void **p, void *old, void *v)
{
    if (!real_cmpxchg)
        real_cmpxchg = (void *(*)(void **, void *, void *))rti_next_symbol("rcu_cmpxchg_pointer_sym");
    void *seen = real_cmpxchg(p, old, v);
    struct rt_thread *t;
    if (seen == old && (t = rti_enter())) {
        rt_rcu_publish(t, p, old, v, RT_RCU_CMPXCHG, RTI_CALLER());
        rti_leave();
    }
    return seen;
}

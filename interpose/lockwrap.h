/* The shape every lock wrapper shares: look the lock up and check the
 * acquisition inside the runtime (before the thread may block), make the
 * real call outside it, then record what happened. */
#ifndef RTDD_LOCKWRAP_H
#define RTDD_LOCKWRAP_H
#include "interpose.h"
#include <errno.h>

/* Expands to the body of a wrapper for object obj of rt_lock_type type;
 * ok(r) says whether the real call acquired the lock. */
#define RTI_LOCK_BODY(obj, type, flags, real_call, ok) \
    RTI_LOCK_BODY_LOOKUP(rt_lock_lookup(t, (uintptr_t)(obj), (type), pc), flags, real_call, ok)

/* The same with the lookup given as an expression of t and pc. A thread
 * holding no lock has nothing to check before the call (no order edge, no
 * self-deadlock): it enters the runtime once, after the call. */
#define RTI_LOCK_BODY_LOOKUP(lookup, flags, real_call, ok)                      \
    uintptr_t pc = RTI_CALLER();                                                \
    struct rt_thread *t = rti_self;                                             \
    if (likely(t != NULL && t->nheld == 0 && !rti_guard &&                      \
               __atomic_load_n(&rti_state, __ATOMIC_RELAXED) == RTI_READY)) {   \
        int r = (real_call);                                                    \
        if (likely(ok(r))) {                                                    \
            rti_guard++;                                                        \
            __atomic_signal_fence(__ATOMIC_SEQ_CST);                            \
            struct rt_lock *l = (lookup);                                       \
            if (likely(l != NULL))                                              \
                rt_on_lock_acquired(t, l, (flags), 0, pc);                      \
            rti_leave();                                                        \
        }                                                                       \
        return r;                                                               \
    }                                                                           \
    t = rti_enter();                                                            \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0; /* single-threaded bootstrap */ \
    struct rt_lock *l = (lookup);                                               \
    uint64_t chain = 0;                                                         \
    if (likely(l != NULL))                                                      \
        chain = rt_on_lock_pre(t, l, (flags), pc);                              \
    rti_leave();                                                                \
    int r = (real_call);                                                        \
    if (likely(l != NULL)) {                                                    \
        rti_guard++;                                                            \
        if (ok(r))                                                              \
            rt_on_lock_acquired(t, l, (flags), chain, pc);                      \
        else                                                                    \
            rt_on_lock_failed(t);                                               \
        rti_guard--;                                                            \
    }                                                                           \
    return r

#define RTI_UNLOCK_BODY(obj, real_call)                                         \
    struct rt_thread *t = rti_enter();                                          \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0;                                \
    rt_on_lock_release(t, (uintptr_t)(obj), RTI_CALLER());                      \
    rti_leave();                                                                \
    return (real_call)

/* After a successful pthread_*_init: the object starts a new life. */
static inline int rti_after_init(int r, uintptr_t obj, enum rt_lock_type type, uintptr_t pc)
{
    struct rt_thread *t;
    if (r == 0 && (t = rti_enter())) {
        rt_on_lock_init(t, obj, type, pc);
        rti_leave();
    }
    return r;
}

/* Before pthread_*_destroy: the object's life ends. */
static inline void rti_before_destroy(uintptr_t obj, uintptr_t pc)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_destroy(t, obj, pc);
        rti_leave();
    }
}

/* A robust mutex whose owner died is acquired, in an inconsistent state. */
#define RTI_PTHREAD_OK(r) (likely((r) == 0) || (r) == EOWNERDEAD)
#endif

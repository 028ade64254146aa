/* The shape every lock wrapper shares: look the lock up and check the
 * acquisition inside the runtime (before the thread may block), make the
 * real call outside it, then record what happened. */
#ifndef RTDD_LOCKWRAP_H
#define RTDD_LOCKWRAP_H
#include "interpose.h"
#include <errno.h>

/* Expands to the body of a wrapper for object obj of rt_lock_type type;
 * ok(r) says whether the real call acquired the lock. */
#define RTI_LOCK_BODY(obj, type, flags, real_call, ok)                          \
    uintptr_t pc = RTI_CALLER();                                                \
    struct rt_thread *t = rti_enter();                                          \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0; /* single-threaded bootstrap */ \
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)(obj), (type), pc);        \
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

/* A robust mutex whose owner died is acquired, in an inconsistent state. */
#define RTI_PTHREAD_OK(r) (likely((r) == 0) || (r) == EOWNERDEAD)
#endif

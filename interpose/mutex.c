/* pthread_mutex_*: translated into lock events for the engine. The real
 * call happens outside the runtime (guard released), so signal handlers
 * and blocking behave as without us. */
#include "interpose.h"
#include <errno.h>

/* The type as glibc stores it (works for static initializers too). */
static inline enum rt_lock_type mutex_type(pthread_mutex_t *m)
{
    switch (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & 3) {
    case PTHREAD_MUTEX_RECURSIVE: return RT_LOCK_MUTEX_RECURSIVE;
    case PTHREAD_MUTEX_ERRORCHECK: return RT_LOCK_MUTEX_ERRORCHECK;
    default: return RT_LOCK_MUTEX;
    }
}

static inline int resolved(void)
{
    if (unlikely(__atomic_load_n(&rti_state, __ATOMIC_ACQUIRE) != RTI_READY)) {
        rti_init();
        return rti_real.mutex_lock != NULL;
    }
    return 1;
}

RTI_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    if (unlikely(!resolved()))
        return 0;
    int r = rti_real.mutex_init(m, attr);
    struct rt_thread *t;
    if (r == 0 && (t = rti_enter())) {
        rt_on_lock_init(t, (uintptr_t)m, mutex_type(m), RTI_CALLER());
        rti_leave();
    }
    return r;
}

RTI_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
    if (unlikely(!resolved()))
        return 0;
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_destroy(t, (uintptr_t)m, RTI_CALLER());
        rti_leave();
    }
    return rti_real.mutex_destroy(m);
}

/* The lock wrappers share one shape: look the lock up (and, later,
 * check the acquisition) inside the runtime, make the real call outside
 * it, record the acquisition if it succeeded. */
#define LOCK_WRAPPER(real_call)                                                   \
    uintptr_t pc = RTI_CALLER();                                                  \
    struct rt_thread *t = rti_enter();                                            \
    if (unlikely(!t))                                                             \
        return resolved() ? real_call : 0; /* single-threaded bootstrap */        \
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)m, mutex_type(m), pc);       \
    rti_leave();                                                                  \
    int r = real_call;                                                            \
    if (likely(l != NULL) && (likely(r == 0) || r == EOWNERDEAD)) {               \
        rti_guard++;                                                              \
        rt_on_lock_acquired(t, l, pc);                                            \
        rti_guard--;                                                              \
    }                                                                             \
    return r

RTI_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    LOCK_WRAPPER(rti_real.mutex_lock(m));
}

RTI_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    LOCK_WRAPPER(rti_real.mutex_trylock(m));
}

RTI_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
    LOCK_WRAPPER(rti_real.mutex_timedlock(m, abstime));
}

RTI_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
    LOCK_WRAPPER(rti_real.mutex_clocklock(m, clock, abstime));
}

RTI_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    struct rt_thread *t = rti_enter();
    if (unlikely(!t))
        return resolved() ? rti_real.mutex_unlock(m) : 0;
    rt_on_lock_release(t, (uintptr_t)m, RTI_CALLER());
    rti_leave();
    return rti_real.mutex_unlock(m);
}

/* pthread_mutex_*: translated into lock events for the engine. */
#include "fastlock.h"
#include "lockwrap.h"

/* The type as glibc stores it (works for static initializers too). */
static inline enum rt_lock_type mutex_type(const pthread_mutex_t *m)
{
    switch (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & 3) {
    case PTHREAD_MUTEX_RECURSIVE: return RT_LOCK_MUTEX_RECURSIVE;
    case PTHREAD_MUTEX_ERRORCHECK: return RT_LOCK_MUTEX_ERRORCHECK;
    default: return RT_LOCK_MUTEX;
    }
}

RT_HIDDEN enum rt_lock_type rti_mutex_type(const void *m)
{
    return mutex_type(m);
}

RTI_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    rti_before_init((uintptr_t)m, 0, pc);
    /* the type is read from the initialized object */
    int r = RTI_CHECKED("pthread_mutex_init", m, 0, rti_real.mutex_init(m, attr));
    rti_after_init(r, (uintptr_t)m, mutex_type(m), RTI_CALLER());
    int pshared;
    struct rt_lock *l;
    /* A robust mutex's object says process-shared either way: its attribute knows. */
    if (unlikely(r == 0 && (m->__data.__kind & rti_fastlock.robust_kind)) &&
        pthread_mutexattr_getpshared(attr, &pshared) == 0 && pshared == PTHREAD_PROCESS_PRIVATE &&
        (l = rt_locktab_find((uintptr_t)m)) != NULL)
        l->traits &= (uint8_t)~RT_TRAIT_PSHARED;
    return r;
}

RTI_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    int r = rti_real.mutex_destroy(m);
    rti_after_destroy(r == 0, (uintptr_t)m, pc);
    RTI_CHECK_FAILED("pthread_mutex_destroy", m, 0, r);
    return r;
}

/* A blocking call on mutex m (lockwrap.h). */
#define MUTEX_BLOCKING(call) RTI_PEEK_THEN_BLOCK(m, mutex_type(m), 0, rti_mutex_word_taken(m), call, RTI_PTHREAD_OK)
#define MUTEX_TIMED_BLOCKING(call)                                                                            \
    RTI_PEEK_THEN_BLOCK(m, mutex_type(m), RT_ACQ_TIMED, rti_mutex_word_taken(m), call, RTI_PTHREAD_OK)

/* Every kind, nested, contended. */
static __attribute__((noinline)) int mutex_lock_general(pthread_mutex_t *m, uintptr_t caller)
{
    RTI_FAIL_MARK();
    rti_check_destroyed_mutex(m, "pthread_mutex_lock", caller);
    rti_steer_lone(caller);
    RTI_LOCK_BODY_AT(caller, m, mutex_type(m), RTI_AS_IS, 0,
                     MUTEX_BLOCKING(RTI_CHECKED("pthread_mutex_lock", m, 0, rti_real.mutex_lock(m))), RTI_PTHREAD_OK);
}

RTI_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    RTI_FAST_LOCK_BODY(m, RT_LOCK_MUTEX, rti_fast_mutex_trylock(m, t->tid), mutex_lock_general);
}

RTI_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    RTI_FAIL_MARK();
    rti_check_destroyed_mutex(m, "pthread_mutex_trylock", RTI_CALLER());
    RTI_LOCK_BODY(m, mutex_type(m), RT_ACQ_TRY,
                  RTI_CHECKED("pthread_mutex_trylock", m, RT_CALL_TRY, rti_real.mutex_trylock(m)), RTI_PTHREAD_OK);
}

RTI_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
    RTI_FAIL_MARK();
    rti_check_destroyed_mutex(m, "pthread_mutex_timedlock", RTI_CALLER());
    RTI_LOCK_BODY(m, mutex_type(m), RT_ACQ_TIMED,
                  MUTEX_TIMED_BLOCKING(RTI_CHECKED("pthread_mutex_timedlock", m, RT_CALL_TIMED,
                                                   rti_real.mutex_timedlock(m, abstime))),
                  RTI_PTHREAD_OK);
}

RTI_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
    RTI_FAIL_MARK();
    rti_check_destroyed_mutex(m, "pthread_mutex_clocklock", RTI_CALLER());
    RTI_LOCK_BODY(m, mutex_type(m), RT_ACQ_TIMED,
                  MUTEX_TIMED_BLOCKING(RTI_CHECKED("pthread_mutex_clocklock", m, RT_CALL_TIMED,
                                                   rti_real.mutex_clocklock(m, clock, abstime))),
                  RTI_PTHREAD_OK);
}

static __attribute__((noinline)) int mutex_unlock_general(pthread_mutex_t *m, uintptr_t caller)
{
    if (unlikely(__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) == -1)) {
        rti_check_destroyed_mutex(m, "pthread_mutex_unlock", caller);
        return rti_real.mutex_unlock(m); /* EINVAL: nothing was held */
    }
    RTI_UNLOCK_BODY_AT(caller, m, rti_real.mutex_unlock(m), "pthread_mutex_unlock",
                       __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 0, RTI_PTHREAD_REJECTED);
}

RTI_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    RTI_FAST_UNLOCK_BODY(m, rti_fast_mutex_unlock(m), rti_real.mutex_unlock(m), mutex_unlock_general);
}

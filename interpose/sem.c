/* Semaphores: sem_wait is a wait that some sem_post ends, followed like a
 * condition wait (detect/hang/condwait.c). glibc's sem_t is a 64-bit value word
 * and then its futex sharing word: 0 for a private semaphore, 128 for a
 * process-shared or named one (seen on glibc 2.36: sem_init with pshared
 * 0 and 1). */
#include "lockwrap.h"
#include <semaphore.h>

static int sem_shared(const sem_t *s)
{
    return __atomic_load_n(&((const int *)s)[2], __ATOMIC_RELAXED) != 0;
}

static void sem_wait_done(void *arg)
{
    rti_guard++;
    rt_on_event_wait_end(arg);
    rti_guard--;
}

/* A cancelled sem_wait (a cancellation point) is no longer a wait. */
#define SEM_WAIT_BODY(s, timed, real_call)                                      \
    RTI_FAIL_MARK();                                                            \
    uintptr_t pc = RTI_CALLER();                                                \
    struct rt_thread *t = rti_enter();                                          \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0;                                \
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)(s), RT_LOCK_SEM, pc);     \
    if (l)                                                                      \
        rt_on_event_wait_begin(t, l, 0, (timed), sem_shared(s), pc);            \
    rti_leave();                                                                \
    int r;                                                                      \
    pthread_cleanup_push(sem_wait_done, t);                                     \
    r = (real_call);                                                            \
    pthread_cleanup_pop(0);                                                     \
    sem_wait_done(t);                                                           \
    return r

RTI_EXPORT int sem_wait(sem_t *s)
{
    SEM_WAIT_BODY(s, 0, RTI_CHECKED_ERRNO("sem_wait", s, RT_CALL_SIGNALS, rti_real.sem_wait(s)));
}

RTI_EXPORT int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abstime)
{
    SEM_WAIT_BODY(s, 1, RTI_CHECKED_ERRNO("sem_timedwait", s, RT_CALL_SIGNALS | RT_CALL_TIMED,
                                          rti_real.sem_timedwait(s, abstime)));
}

RTI_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clock, const struct timespec *restrict abstime)
{
    SEM_WAIT_BODY(s, 1, RTI_CHECKED_ERRNO("sem_clockwait", s, RT_CALL_SIGNALS | RT_CALL_TIMED,
                                          rti_real.sem_clockwait(s, clock, abstime)));
}

RTI_EXPORT int sem_post(sem_t *s)
{
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_enter();
    if (unlikely(!t))
        return rti_resolved() ? rti_real.sem_post(s) : 0;
    rt_on_event_signal(t, (uintptr_t)s, RT_LOCK_SEM, pc);
    rti_leave();
    return RTI_CHECKED_ERRNO("sem_post", s, 0, rti_real.sem_post(s));
}

/* A semaphore made where another object lived is a new object: the old
 * record goes (a freed mutex's, a destroyed semaphore's). */
RTI_EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t;
    if (rt_filter_test(rt_line_filter, (uintptr_t)s >> RT_LINE_SHIFT) && (t = rti_enter()) != NULL) {
        rt_on_lock_reinit(t, (uintptr_t)s, pc);
        rti_leave();
    }
    return rti_after_init(RTI_CHECKED_ERRNO("sem_init", s, 0, rti_real.sem_init(s, pshared, value)), (uintptr_t)s,
                          RT_LOCK_SEM, pc);
}

RTI_EXPORT int sem_destroy(sem_t *s)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    int r = rti_real.sem_destroy(s);
    int err = errno;
    rti_after_destroy(r == 0, (uintptr_t)s, pc);
    if (r != 0)
        RTI_CHECK_FAILED("sem_destroy", s, 0, err);
    return r;
}

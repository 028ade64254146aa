/* Condition variables and C11 threads. glibc re-takes the mutex inside
 * pthread_cond_wait, and mtx_* call the mutex code directly: neither
 * passes through the pthread_mutex_* wrappers, so both are modelled here. */
#include "lockwrap.h"
#include <threads.h>

RT_HIDDEN enum rt_lock_type rti_mutex_type(const void *m);

struct wait_ctx { struct rt_thread *t; void *cond, *mutex; uintptr_t pc; };

/* A cancelled wait re-takes the mutex before cleanup handlers run. */
static void wait_cancelled(void *arg)
{
    struct wait_ctx *w = arg;
    rti_guard++;
    rt_on_cond_wait_end(w->t, (uintptr_t)w->cond, (uintptr_t)w->mutex, RT_WAIT_TIMEDOUT, w->pc);
    rti_guard--;
}

/* A process-shared condition variable (glibc keeps the flag in the low
 * bit of __wrefs) may be signalled from another process. */
static int cond_shared(const void *c)
{
    return (__atomic_load_n(&((const pthread_cond_t *)c)->__data.__wrefs, __ATOMIC_RELAXED) & 1) != 0;
}

/* check: r is an error number, its failure reported after the wait's
 * bookkeeping (failed-call, lockwrap.h), under the name call; C11's
 * thrd_error says nothing more. */
#define COND_BODY(cond, mutex, timed, real_call, how_of, check, call, flags)    \
    RTI_FAIL_MARK();                                                            \
    uintptr_t pc = RTI_CALLER();                                                \
    struct rt_thread *t = rti_enter();                                          \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0;                                \
    if (unlikely(rt_steer_on)) /* a cond-lock-order rerun: the waiter's site */ \
        rt_steer_before_event_wait(t, pc);                                      \
    rt_on_cond_wait_begin(t, (uintptr_t)(cond), (uintptr_t)(mutex),             \
                          rti_mutex_owner(mutex) == t->tid, (timed),            \
                          cond_shared(cond), pc);                               \
    rti_leave();                                                                \
    struct wait_ctx w = { t, (void *)(cond), (void *)(mutex), pc };             \
    int r;                                                                      \
    pthread_cleanup_push(wait_cancelled, &w);                                   \
    r = (real_call);                                                            \
    pthread_cleanup_pop(0);                                                     \
    rti_guard++;                                                                \
    rt_on_cond_wait_end(t, (uintptr_t)(cond), (uintptr_t)(mutex), how_of(r), pc); \
    rti_guard--;                                                                \
    if ((check) && unlikely(r != 0) && !rt_call_failure_normal(r, (flags)))     \
        rti_call_failed((call), (uintptr_t)(cond), r, rti_mark, pc);            \
    return r

/* How the wait ended (detect/locks/locks.h): an error other than a timeout (or a
 * robust mutex's dead owner) returned before the mutex was released. */
#define PTHREAD_WAIT_HOW(r) \
    ((r) == 0 ? RT_WAIT_WOKEN : (r) == ETIMEDOUT || (r) == EOWNERDEAD ? RT_WAIT_TIMEDOUT : RT_WAIT_FAILED)
#define C11_WAIT_HOW(r) \
    ((r) == thrd_success ? RT_WAIT_WOKEN : (r) == thrd_timedout ? RT_WAIT_TIMEDOUT : RT_WAIT_FAILED)

RTI_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    COND_BODY(c, m, 0, rti_real.cond_wait(c, m), PTHREAD_WAIT_HOW, 1, "pthread_cond_wait", 0);
}

RTI_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
    COND_BODY(c, m, 1, rti_real.cond_timedwait(c, m, abstime), PTHREAD_WAIT_HOW, 1, "pthread_cond_timedwait",
              RT_CALL_TIMED);
}

RTI_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                                      const struct timespec *abstime)
{
    COND_BODY(c, m, 1, rti_real.cond_clockwait(c, m, clock, abstime), PTHREAD_WAIT_HOW, 1, "pthread_cond_clockwait",
              RT_CALL_TIMED);
}

/* Signals and broadcasts: who wakes the condition's waiters, and with
 * which locks (detect/hang/condwait.c). */
/* A condvar's signal or broadcast, and then the waiters it released
 * (counted after the call: a waiter it woke was counted before). */
#define COND_SIGNAL_BODY(c, all, real_call)                                     \
    RTI_FAIL_MARK();                                                            \
    uintptr_t pc = RTI_CALLER();                                                \
    struct rt_thread *t = rti_enter();                                          \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0;                                \
    rt_on_cond_signal(t, (uintptr_t)(c), pc); /* before its lookups fill the cache */ \
    rt_on_event_signal(t, (uintptr_t)(c), RT_LOCK_COND, pc);                    \
    rti_leave();                                                                \
    int r = (real_call);                                                        \
    rti_guard++;                                                                \
    rt_on_cond_released(t, (uintptr_t)(c), (all));                              \
    rti_guard--;                                                                \
    return r

RTI_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
    COND_SIGNAL_BODY(c, 0, RTI_CHECKED("pthread_cond_signal", c, 0, rti_real.cond_signal(c)));
}

RTI_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
    COND_SIGNAL_BODY(c, 1, RTI_CHECKED("pthread_cond_broadcast", c, 0, rti_real.cond_broadcast(c)));
}

/* glibc's cnd_signal calls its pthread code directly, not the symbols above. */
RTI_EXPORT int cnd_signal(cnd_t *c)
{
    COND_SIGNAL_BODY(c, 0, rti_real.cnd_signal(c));
}

RTI_EXPORT int cnd_broadcast(cnd_t *c)
{
    COND_SIGNAL_BODY(c, 1, rti_real.cnd_broadcast(c));
}

RTI_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    return rti_after_init(RTI_CHECKED("pthread_cond_init", c, 0, rti_real.cond_init(c, attr)), (uintptr_t)c,
                          RT_LOCK_COND, pc);
}

/* glibc's destroy waits for the threads blocked on the condition: then it
 * is a wait the watchdog follows, until it returns. */
RTI_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_enter();
    int waits = 0;
    if (t) {
        waits = rt_on_cond_destroy_begin(t, (uintptr_t)c, cond_shared(c), pc);
        rti_leave();
    }
    int r = rti_real.cond_destroy(c);
    if (waits) {
        rti_guard++;
        rt_on_cond_destroy_end(t, (uintptr_t)c, pc);
        rti_guard--;
    }
    RTI_CHECK_FAILED("pthread_cond_destroy", c, 0, r);
    return r;
}

RTI_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
    COND_BODY(c, m, 0, rti_real.cnd_wait(c, m), C11_WAIT_HOW, 0, "cnd_wait", 0);
}

RTI_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict ts)
{
    COND_BODY(c, m, 1, rti_real.cnd_timedwait(c, m, ts), C11_WAIT_HOW, 0, "cnd_timedwait", 0);
}

/* mtx_t is glibc's pthread_mutex_t underneath. */
RTI_EXPORT int mtx_init(mtx_t *m, int type)
{
    if (unlikely(!rti_resolved()))
        return thrd_error;
    rti_before_init((uintptr_t)m, 0, RTI_CALLER());
    int r = rti_real.mtx_init(m, type);
    rti_after_init(r == thrd_success ? 0 : r, (uintptr_t)m, rti_mutex_type(m), RTI_CALLER());
    return r;
}

RTI_EXPORT void mtx_destroy(mtx_t *m)
{
    if (unlikely(!rti_resolved()))
        return;
    rti_real.mtx_destroy(m);
    /* It returns nothing: a destroyed mutex is marked kind -1, a held one is left alone. */
    rti_after_destroy(__atomic_load_n(&((pthread_mutex_t *)m)->__data.__kind, __ATOMIC_RELAXED) == -1,
                      (uintptr_t)m, RTI_CALLER());
}

#define THRD_OK(r) ((r) == thrd_success)
/* A blocking call on mtx_t m (lockwrap.h). */
#define MTX_BLOCKING_F(flags, call) \
    RTI_PEEK_THEN_BLOCK(m, rti_mutex_type(m), (flags), rti_mutex_word_taken(m), call, THRD_OK)
#define MTX_BLOCKING(call) MTX_BLOCKING_F(0, call)
RTI_EXPORT int mtx_lock(mtx_t *m)
{
    rti_check_destroyed_mutex(m, "mtx_lock", RTI_CALLER());
    RTI_LOCK_BODY(m, rti_mutex_type(m), 0, MTX_BLOCKING(rti_real.mtx_lock(m)), THRD_OK);
}

RTI_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
    rti_check_destroyed_mutex(m, "mtx_timedlock", RTI_CALLER());
    RTI_LOCK_BODY(m, rti_mutex_type(m), RT_ACQ_TIMED, MTX_BLOCKING_F(RT_ACQ_TIMED, rti_real.mtx_timedlock(m, ts)), THRD_OK);
}

RTI_EXPORT int mtx_trylock(mtx_t *m)
{
    rti_check_destroyed_mutex(m, "mtx_trylock", RTI_CALLER());
    RTI_LOCK_BODY(m, rti_mutex_type(m), RT_ACQ_TRY, rti_real.mtx_trylock(m), THRD_OK);
}

#define THRD_REJECTED(r) ((r) == thrd_error)
RTI_EXPORT int mtx_unlock(mtx_t *m)
{
    const pthread_mutex_t *pm = (const pthread_mutex_t *)m;
    if (unlikely(__atomic_load_n(&pm->__data.__kind, __ATOMIC_RELAXED) == -1)) {
        rti_check_destroyed_mutex(m, "mtx_unlock", RTI_CALLER());
        return rti_real.mtx_unlock(m);
    }
    RTI_UNLOCK_BODY(m, rti_real.mtx_unlock(m), "mtx_unlock", __atomic_load_n(&pm->__data.__lock, __ATOMIC_RELAXED) == 0,
                    THRD_REJECTED);
}

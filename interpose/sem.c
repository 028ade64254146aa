/* Semaphores: sem_wait is a wait that some sem_post ends, followed like a
 * condition wait (detect/hang/condwait.c); the calls are judged for misuse
 * (detect/hang/semcheck.c). glibc's sem_t is a 64-bit word (the count in its
 * low 32 bits, the waiters in its high 32), then its futex sharing word:
 * 0 for a private semaphore, 128 for a process-shared or named one (seen
 * on glibc 2.36: sem_init with pshared 0 and 1, sem_open).
 *
 * Fast paths, with no lock held and the semaphore's record in the
 * thread's cache: a wait whose count is there is a sem_trywait (it cannot
 * block: nothing for the watchdog), and a post from the call site that
 * last posted it, with nobody blocked, has nothing new to record. */
#include "lockwrap.h"
#include "locks/locks.h"
#include "hang/semcheck.h"
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdarg.h>

#define SHARING_WORD(s) __atomic_load_n(&((const int *)(s))[2], __ATOMIC_RELAXED)
#define SEM_COUNT(s) (unsigned)__atomic_load_n((const uint64_t *)(s), __ATOMIC_RELAXED)

static enum rt_sem_word sem_word(const sem_t *s)
{
    int w = SHARING_WORD(s);
    if ((w & ~128) != 0 || SEM_COUNT(s) > SEM_VALUE_MAX)
        return RT_SEM_BAD;
    return w ? RT_SEM_SHARED : RT_SEM_PRIVATE;
}

/* The thread may skip the runtime for this semaphore: the record it
 * knows (NULL: it may not). */
static inline struct rt_lock *sem_fast(struct rt_thread *t, const sem_t *s)
{
    if (unlikely(t == NULL || rti_guard || rt_thread_busy(t) != 0 || (SHARING_WORD(s) & ~128) != 0 ||
                 __atomic_load_n(&rt_rcuptr_tracked, __ATOMIC_RELAXED) != 0))
        return NULL;
    struct rt_lock *l = rt_lock_cached(t, (uintptr_t)s);
    return likely(l != NULL && l->type == RT_LOCK_SEM) ? l : NULL;
}

struct sem_wait_ctx { struct rt_thread *t; };

static void sem_wait_cancelled(void *arg)
{
    rti_guard++;
    rt_on_sem_wait_end(arg, 0);
    rti_guard--;
}

/* A cancelled sem_wait (a cancellation point) is no longer a wait. The
 * timed waits check their timeout before they take a count (EINVAL even
 * when the count is there): they have no fast path. */
#define SEM_WAIT_BODY(s, timed, call, real_call)                                \
    RTI_FAIL_MARK();                                                            \
    uintptr_t pc = RTI_CALLER();                                                \
    struct rt_thread *t = rti_self;                                             \
    if (!(timed) && likely(sem_fast(t, s) != NULL)) {                           \
        int saved = errno;                                                      \
        if (likely(rti_real.sem_trywait(s) == 0))                               \
            return 0;                                                           \
        errno = saved;                                                          \
    }                                                                           \
    t = rti_enter();                                                            \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0;                                \
    if (unlikely(rt_steer_on)) /* a cond-lock-order rerun: the waiter's site */ \
        rt_steer_before_event_wait(t, pc);                                      \
    struct rt_lock *l = rt_on_sem_use(t, (uintptr_t)(s), sem_word(s), call, pc); \
    if (l)                                                                      \
        rt_on_sem_wait_begin(t, l, (timed), SHARING_WORD(s) != 0, pc);          \
    rti_leave();                                                                \
    int r;                                                                      \
    pthread_cleanup_push(sem_wait_cancelled, t);                                \
    r = (real_call);                                                            \
    pthread_cleanup_pop(0);                                                     \
    rti_guard++;                                                                \
    rt_on_sem_wait_end(t, r == 0);                                              \
    rti_guard--;                                                                \
    return r

RTI_EXPORT int sem_wait(sem_t *s)
{
    SEM_WAIT_BODY(s, 0, "sem_wait", RTI_CHECKED_ERRNO("sem_wait", s, RT_CALL_SIGNALS, rti_real.sem_wait(s)));
}

RTI_EXPORT int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abstime)
{
    SEM_WAIT_BODY(s, 1, "sem_timedwait",
                  RTI_CHECKED_ERRNO("sem_timedwait", s, RT_CALL_SIGNALS | RT_CALL_TIMED, rti_real.sem_timedwait(s, abstime)));
}

RTI_EXPORT int sem_clockwait(sem_t *restrict s, clockid_t clock, const struct timespec *restrict abstime)
{
    SEM_WAIT_BODY(s, 1, "sem_clockwait",
                  RTI_CHECKED_ERRNO("sem_clockwait", s, RT_CALL_SIGNALS | RT_CALL_TIMED,
                                    rti_real.sem_clockwait(s, clock, abstime)));
}

/* Never blocks: judged, and a success acquires what the poster released. */
RTI_EXPORT int sem_trywait(sem_t *s)
{
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_self;
    if (likely(sem_fast(t, s) != NULL))
        return rti_real.sem_trywait(s);
    t = rti_enter();
    if (unlikely(!t))
        return rti_resolved() ? rti_real.sem_trywait(s) : 0;
    rt_on_sem_use(t, (uintptr_t)s, sem_word(s), "sem_trywait", pc);
    rti_leave();
    int r = rti_real.sem_trywait(s);
    if (r == 0 && (t = rti_enter()) != NULL) {
        rt_rcuhb_acquire(t, (uintptr_t)s);
        rti_leave();
    }
    return r;
}

RTI_EXPORT int sem_getvalue(sem_t *restrict s, int *restrict value)
{
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_self;
    if (likely(sem_fast(t, s) != NULL))
        return rti_real.sem_getvalue(s, value);
    if ((t = rti_enter()) != NULL) {
        rt_on_sem_use(t, (uintptr_t)s, sem_word(s), "sem_getvalue", pc);
        rti_leave();
    }
    return rti_resolved() ? rti_real.sem_getvalue(s, value) : 0;
}

static int sem_post_overflowed(sem_t *s, int r, uintptr_t pc)
{
    struct rt_thread *t;
    if (r != 0 && errno == EOVERFLOW && (t = rti_enter()) != NULL) {
        int saved = errno;
        rt_on_sem_overflow(t, (uintptr_t)s, SEM_VALUE_MAX, pc);
        rti_leave();
        errno = saved;
    }
    return r;
}

RTI_EXPORT int sem_post(sem_t *s)
{
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_self;
    struct rt_lock *l = sem_fast(t, s);
    if (likely(l != NULL && t->signal_seen == l && t->signal_seen_pc == pc &&
               t->signal_seen_id == __atomic_load_n(&l->id, __ATOMIC_RELAXED) &&
               __atomic_load_n(&l->cond_waiters, __ATOMIC_RELAXED) == 0)) {
        int r = rti_real.sem_post(s);
        return likely(r == 0) ? 0 : sem_post_overflowed(s, r, pc);
    }
    t = rti_enter();
    if (unlikely(!t))
        return rti_resolved() ? rti_real.sem_post(s) : 0;
    l = rt_on_sem_use(t, (uintptr_t)s, sem_word(s), "sem_post", pc);
    if (l)
        rt_on_sem_post(t, l, pc);
    rti_leave();
    int r = rti_real.sem_post(s);
    if (likely(r == 0))
        return 0;
    int err = errno;
    sem_post_overflowed(s, r, pc); /* sem-misuse: the count past SEM_VALUE_MAX */
    errno = err;
    RTI_CHECK_FAILED("sem_post", s, 0, err); /* unless that report came */
    return r;
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
    if ((value > SEM_VALUE_MAX || rt_filter_test(rt_line_filter, (uintptr_t)s >> RT_LINE_SHIFT)) &&
        (t = rti_enter()) != NULL) {
        rt_on_sem_init(t, (uintptr_t)s, value, SEM_VALUE_MAX, pc);
        if (value <= SEM_VALUE_MAX)
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
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_sem_destroy(t, (uintptr_t)s, sem_word(s), pc);
        rti_leave();
    }
    int r = rti_real.sem_destroy(s);
    if (r != 0)
        RTI_CHECK_FAILED("sem_destroy", s, 0, errno);
    return r;
}

/* Named semaphores: the address sem_open returns is the semaphore until
 * its last sem_close. */
RTI_EXPORT sem_t *sem_open(const char *name, int oflag, ...)
{
    mode_t mode = 0;
    unsigned value = 0;
    if (oflag & O_CREAT) {
        va_list ap;
        va_start(ap, oflag);
        mode = va_arg(ap, mode_t);
        value = va_arg(ap, unsigned);
        va_end(ap);
    }
    if (unlikely(!rti_resolved()))
        return SEM_FAILED;
    sem_t *s = rti_real.sem_open(name, oflag, mode, value);
    struct rt_thread *t;
    if (s != SEM_FAILED && (t = rti_enter()) != NULL) {
        int saved = errno;
        rt_on_sem_open(t, (uintptr_t)s, RTI_CALLER());
        rti_leave();
        errno = saved;
    }
    return s;
}

RTI_EXPORT int sem_close(sem_t *s)
{
    if (unlikely(!rti_resolved()))
        return 0;
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_sem_close(t, (uintptr_t)s, RTI_CALLER());
        rti_leave();
    }
    return rti_real.sem_close(s);
}

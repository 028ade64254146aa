/* The shape every lock wrapper shares: look the lock up and check the
 * acquisition inside the runtime (before the thread may block), make the
 * real call outside it, then record what happened. */
#ifndef RTDD_LOCKWRAP_H
#define RTDD_LOCKWRAP_H
#include "interpose.h"
#include "order/order.h"
#include <errno.h>

/* A rerun steered into a cond-lock-order cycle (docs/confirm.md): the
 * signaller may hold nothing when it takes the lock the waiter holds, so
 * its lock call is a site to pause at. Called from the wrappers' general
 * paths, which such a plan sends every acquisition to (hold_timed). */
static inline void rti_steer_lone(uintptr_t pc)
{
    struct rt_thread *t;
    /* rti_enter: a thread's first lock call may come before its record. */
    if (unlikely(rt_thread_slow_acquire && rt_steer_on) && (t = rti_enter()) != NULL) {
        if (rt_thread_busy(t) == 0) /* else the nested path steers it */
            rt_steer_before_wait(t, pc);
        rti_leave();
    }
}

/* Expands to the body of a wrapper for object obj of rt_lock_type type;
 * ok(r) says whether the real call acquired the lock. */
#define RTI_LOCK_BODY(obj, type, flags, real_call, ok) RTI_LOCK_BODY_FIX(obj, type, RTI_AS_IS, flags, real_call, ok)
#define RTI_AS_IS(l) (l)
#define RTI_LOCK_BODY_FIX(obj, type, fix, flags, real_call, ok) \
    RTI_LOCK_BODY_AT(RTI_CALLER(), obj, type, fix, flags, real_call, ok)

/* The same, with fix(record) applied to every record looked up and the
 * call site given (caller). A thread holding no lock (and in no RCU read
 * section) has nothing to check before the call (no order edge, no
 * self-deadlock); when the caches know the lock and the call site, the
 * bookkeeping after the call calls nothing and needs no guard. */
#define RTI_LOCK_BODY_AT(caller, obj, type, fix, flags, real_call, ok)          \
    uintptr_t pc = (caller);                                                    \
    struct rt_thread *t = rti_self; /* set only once the runtime is ready */    \
    if (likely(t != NULL && rt_thread_busy(t) == 0 && !rti_guard)) {    \
        int r = (real_call);                                                    \
        if (likely(ok(r))) {                                                    \
            struct rt_lock *l = fix(rt_lock_cached(t, (uintptr_t)(obj)));       \
            if (unlikely(!l || !rt_lock_acquired_fast(t, l, (flags), 0, pc))) { \
                rti_guard++;                                                    \
                __atomic_signal_fence(__ATOMIC_SEQ_CST);                        \
                if (!l)                                                         \
                    l = fix(rt_lock_lookup_slow(t, (uintptr_t)(obj), (type), pc)); \
                if (l)                                                          \
                    rt_on_lock_acquired_slow(t, l, (flags), 0, pc);             \
                rti_leave();                                                    \
            }                                                                   \
        } else if (unlikely(__atomic_load_n(&rt_fork_strays_pending, __ATOMIC_RELAXED))) { \
            rti_lock_refused((uintptr_t)(obj), pc);                             \
        }                                                                       \
        return r;                                                               \
    }                                                                           \
    t = rti_enter();                                                            \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0; /* single-threaded bootstrap */ \
    struct rt_lock *l = fix(rt_lock_lookup(t, (uintptr_t)(obj), (type), pc));   \
    uint64_t chain = 0;                                                         \
    if (likely(l != NULL))                                                      \
        chain = rt_on_lock_pre(t, l, (flags), pc);                              \
    rti_leave();                                                                \
    int r = (real_call);                                                        \
    if (likely(l != NULL)) {                                                    \
        rti_guard++;                                                            \
        if (ok(r))                                                              \
            rt_on_lock_acquired(t, l, (flags), chain, pc);                      \
        else {                                                                  \
            rt_on_lock_failed(t);                                               \
            if (unlikely(__atomic_load_n(&rt_fork_strays_pending, __ATOMIC_RELAXED))) \
                rt_on_lock_refused(t, (uintptr_t)(obj), pc);                    \
        }                                                                       \
        rti_guard--;                                                            \
    }                                                                           \
    return r

/* The blocking call of a lock wrapper. A thread that holds nothing has
 * had nothing checked before it (the bodies above), but a pthread_join may
 * wait for it (detect/hang/join.c): when a peek at the lock word (busy, one
 * relaxed load) says the call will likely block, the wait is shown to the
 * deadlock watchdog first. A wrong guess costs a report nothing: a wait
 * shown for a call that did not block is withdrawn when it returns, and
 * the one that deadlocks stays blocked where the peek sees it. Uses the
 * body's t and pc. */
#define RTI_PEEK_THEN_BLOCK(obj, type, flags, busy, real_call, ok)                       \
    ({                                                                                   \
        int noted_ = 0;                                                                  \
        if (unlikely(t != NULL && rt_thread_busy(t) == 0 && (busy))) {           \
            rti_note_lock_wait((uintptr_t)(obj), (type), (flags), pc);                   \
            noted_ = 1;                                                                  \
        }                                                                                \
        int r_ = (real_call);                                                            \
        if (unlikely(noted_) && !ok(r_))                                                 \
            rti_note_lock_wait_over();                                                   \
        r_;                                                                              \
    })
/* A pthread_mutex_t's (or C11 mtx_t's, the same object in glibc) lock
 * word is non-zero while it is owned. */
static inline int rti_mutex_word_taken(const void *m)
{
    return __atomic_load_n(&((const pthread_mutex_t *)m)->__data.__lock, __ATOMIC_RELAXED) != 0;
}
/* The tid glibc records as a mutex's owner (0: none). */
static inline int rti_mutex_owner(const void *m)
{
    return __atomic_load_n(&((const pthread_mutex_t *)m)->__data.__owner, __ATOMIC_RELAXED);
}
RT_HIDDEN void rti_note_lock_wait(uintptr_t obj, enum rt_lock_type type, unsigned flags, uintptr_t pc);
/* A lock call failed in a forked child that has strays: rt_on_lock_refused. */
RT_HIDDEN void rti_lock_refused(uintptr_t obj, uintptr_t pc);
RT_HIDDEN void rti_note_lock_wait_over(void);

/* Releasing the most recent lock calls nothing either. */
/* word_unlocked: what the object's own word says before the real call (1
 * unlocked, 0 locked, -1 unknown): an unlock of a lock rtdd never saw
 * taken is judged by it. rejected(r): the real call refused the object
 * (not a lock), reported when rtdd knew nothing of it either. */
#define RTI_UNLOCK_BODY(obj, real_call, call, word_unlocked, rejected) \
    RTI_UNLOCK_BODY_AT(RTI_CALLER(), obj, real_call, call, word_unlocked, rejected)
#define RTI_UNLOCK_BODY_AT(caller, obj, real_call, call, word_unlocked, rejected) \
    struct rt_thread *t = rti_self;                                             \
    if (likely(t != NULL && !rti_guard && rt_lock_release_fast(t, (uintptr_t)(obj)))) \
        return (real_call);                                                     \
    t = rti_enter();                                                            \
    if (unlikely(!t))                                                           \
        return rti_resolved() ? (real_call) : 0;                                \
    int rti_unknown = rt_on_lock_release_judged(t, (uintptr_t)(obj), (caller), (word_unlocked)); \
    rti_leave();                                                                \
    int rti_r = (real_call);                                                    \
    if (unlikely(rti_unknown && rejected(rti_r)) && (t = rti_enter()) != NULL) { \
        rt_on_unlock_rejected(t, (uintptr_t)(obj), (call), rti_r, (caller)); \
        rti_leave();                                                            \
    }                                                                           \
    return rti_r
#define RTI_PTHREAD_REJECTED(r) ((r) == EINVAL || (r) == EPERM)

/* A call on a destroyed glibc mutex (its kind is -1 until re-initialized)
 * fails with EINVAL: the program runs its critical section unlocked. */
static inline void rti_check_destroyed_mutex(const void *m, const char *call, uintptr_t caller)
{
    struct rt_thread *t;
    if (unlikely(__atomic_load_n(&((const pthread_mutex_t *)m)->__data.__kind, __ATOMIC_RELAXED) == -1) &&
        (t = rti_enter()) != NULL) {
        const pthread_mutex_t *pm = m;
        int marked = __atomic_load_n(&pm->__data.__lock, __ATOMIC_RELAXED) == 0 &&
                     __atomic_load_n(&pm->__data.__nusers, __ATOMIC_RELAXED) == 0;
        rt_on_destroyed_lock_use(t, (uintptr_t)m, call, marked, caller);
        rti_leave();
    }
}

/* A lock taken by a fast path (fastlock.h) whose record or call site the
 * caches did not know: the bookkeeping the slow way. */
RT_HIDDEN int rti_acquired_uncached(struct rt_thread *t, uintptr_t obj, enum rt_lock_type type, uintptr_t pc);

/* The whole wrapper for a lock with an in-place fast path: fast_trylock
 * is tried only when there is nothing to check first (no lock held), and
 * its bookkeeping is a leaf; the rest is general(obj, pc). */
#define RTI_FAST_LOCK_BODY(obj, type, fast_trylock, general)                    \
    uintptr_t pc = RTI_CALLER();                                                \
    struct rt_thread *t = rti_self;                                             \
    if (likely(t != NULL && (rt_thread_busy(t) | (unsigned)t->acquire_unusual | (unsigned)rti_guard) == 0 && (fast_trylock))) { \
        uint64_t id;                                                            \
        struct rt_lock *l = rt_lock_cached_id(t, (uintptr_t)(obj), &id);        \
        if (unlikely(!l || !rt_lock_first_acquired_fast(t, l, id, (uintptr_t)(obj), 0, pc, rt_thread_cpu_fast(t)))) \
            return rti_acquired_uncached(t, (uintptr_t)(obj), (type), pc); /* 0, as a tail call */ \
        return 0;                                                               \
    }                                                                           \
    return general((obj), pc)

/* Its unlock: the most recent lock, released in place when it can be. */
#define RTI_FAST_UNLOCK_BODY(obj, fast_unlock, real_call, general)             \
    struct rt_thread *t = rti_self;                                             \
    if (likely(t != NULL && !rti_guard && rt_lock_release_fast(t, (uintptr_t)(obj)))) \
        return likely(fast_unlock) ? 0 : (real_call);                           \
    return general((obj), RTI_CALLER())

/* After a successful pthread_*_init: the object starts a new life. */
#if defined(__x86_64__) || defined(__i386__)
#define RTI_SPIN_UNLOCKED 1 /* glibc's x86 spinlocks count down from 1 */
#else
#define RTI_SPIN_UNLOCKED 0
#endif

/* Before pthread_*_init (or mtx_init) overwrites a lock: one still held is
 * reported, judged while its word still says so. An unlocked mutex or
 * rwlock has a first word of 0 (unlocked_word), glibc's x86-64 spinlock 1:
 * a fresh or free object costs a load. */
static inline void rti_before_init(uintptr_t obj, int unlocked_word, uintptr_t pc)
{
    struct rt_thread *t;
    /* A line that never held a lock record holds no lock to re-initialize:
     * the word is not read (on fresh memory that read would map a page the
     * init then faults in a second time). */
    if (likely(!rt_filter_test(rt_line_filter, obj >> RT_LINE_SHIFT)) ||
        likely(*(const volatile int *)obj == unlocked_word))
        return;
    if ((t = rti_enter()) != NULL) {
        rt_on_lock_reinit(t, obj, pc);
        rti_leave();
    }
}

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

/* After pthread_*_destroy returned (ok: it succeeded): judged from its
 * result, and any report written after the call, not before it. The
 * call's errno (sem_destroy sets one) is the program's. */
static inline void rti_after_destroy(int ok, uintptr_t obj, uintptr_t pc)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        int saved = errno;
        rt_on_lock_destroyed(t, obj, ok, pc);
        rti_leave();
        errno = saved;
    }
}

/* failed-call (detect/locks/failedcall.h): the wrapper notes, first thing, how
 * many reports its thread has begun (RTI_FAIL_MARK); RTI_CHECKED then
 * reports the real call's failure, unless it is one the call's normal use
 * gives (flags: RT_CALL_*) or a check already reported on this call (its
 * report wins: destroy-locked, recursive-locking, cond-misuse, ...).
 * A failure costs the wrapper a compare; success nothing more. Uses the
 * body's pc. */
#define RTI_FAIL_MARK() unsigned rti_mark __attribute__((unused)) = rt_reports_begun_here
RT_HIDDEN void rti_call_failed(const char *call, uintptr_t obj, int err, unsigned mark, uintptr_t pc);
#define RTI_CHECKED(call, obj, flags, real_call)                                                      \
    ({                                                                                                \
        int rc_ = (real_call);                                                                        \
        RTI_CHECK_FAILED(call, obj, flags, rc_);                                                      \
        rc_;                                                                                          \
    })
/* The check alone, on an error number r the wrapper judged first (a
 * destroy is judged after its call: its report comes first). */
#define RTI_CHECK_FAILED(call, obj, flags, r)                                                         \
    do {                                                                                              \
        if (unlikely((r) != 0) && !rt_call_failure_normal((r), (flags)))                              \
            rti_call_failed((call), (uintptr_t)(obj), (r), rti_mark, pc);                             \
    } while (0)
/* The same for a call that returns -1 and sets errno (sem_*). */
#define RTI_CHECKED_ERRNO(call, obj, flags, real_call)                                                \
    ({                                                                                                \
        int rc_ = (real_call), e_;                                                                    \
        if (unlikely(rc_ != 0) && !rt_call_failure_normal(e_ = errno, (flags)))                       \
            rti_call_failed((call), (uintptr_t)(obj), e_, rti_mark, pc);                              \
        rc_;                                                                                          \
    })

/* A robust mutex whose owner died is acquired, in an inconsistent state. */
#define RTI_PTHREAD_OK(r) (likely((r) == 0) || (r) == EOWNERDEAD)
#endif

/* pthread_rwlock_* and pthread_spin_*. */
#include "fastlock.h"
#include "lockwrap.h"

/* glibc's PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP (a waiting writer
 * blocks new readers, so a reader must not re-enter) and process sharing:
 * every writer stores all of the object's traits, so racing ones agree. */
static inline struct rt_lock *note_kind(struct rt_lock *l, const pthread_rwlock_t *rw)
{
    uint8_t traits = rti_rwlock_traits(rw);
    if (l && unlikely(l->traits != traits))
        l->traits = traits;
    return l;
}

RTI_EXPORT int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    rti_before_init((uintptr_t)rw, 0, pc);
    int r = rti_after_init(RTI_CHECKED("pthread_rwlock_init", rw, 0, rti_real.rwlock_init(rw, attr)), (uintptr_t)rw,
                           RT_LOCK_RWLOCK, pc);
    if (r == 0)
        note_kind(rt_locktab_find((uintptr_t)rw), rw);
    return r;
}

RTI_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
    if (unlikely(!rti_resolved()))
        return 0;
    RTI_FAIL_MARK();
    uintptr_t pc = RTI_CALLER();
    int r = rti_real.rwlock_destroy(rw);
    rti_after_destroy(r == 0, (uintptr_t)rw, pc);
    RTI_CHECK_FAILED("pthread_rwlock_destroy", rw, 0, r);
    return r;
}

/* The lookup also records the rwlock's kind, which a static initializer
 * may have set. */
#define RW_BODY(rw, flags, call) RTI_LOCK_BODY_FIX(rw, RT_LOCK_RWLOCK, RW_KIND, flags, call, RW_OK)
#define RW_KIND(l) note_kind((l), rw)
#define RW_OK(r) ((r) == 0)
/* The real call, its failure reported (failed-call; lockwrap.h). */
#define RW_CALL(name, flags, call) RTI_CHECKED("pthread_rwlock_" #name, rw, (flags), call)
/* glibc's state (nptl/pthread_rwlock_common.c): a writer owns the lock, or
 * readers hold it (counted above bit 3 of __readers). Peeks only. */
#define RW_WRITER(rw) (__atomic_load_n(&(rw)->__data.__cur_writer, __ATOMIC_RELAXED) != 0)
#define RW_READERS(rw) ((__atomic_load_n(&(rw)->__data.__readers, __ATOMIC_RELAXED) >> 3) != 0)
/* Blocking calls (lockwrap.h): a reader waits for a writer, a writer for
 * anyone. */
#define RW_READ_BLOCKING_F(flags, call) \
    RTI_PEEK_THEN_BLOCK(rw, RT_LOCK_RWLOCK, RT_ACQ_READ | (flags), RW_WRITER(rw), call, RW_OK)
#define RW_WRITE_BLOCKING_F(flags, call) \
    RTI_PEEK_THEN_BLOCK(rw, RT_LOCK_RWLOCK, (flags), RW_WRITER(rw) || RW_READERS(rw), call, RW_OK)
#define RW_READ_BLOCKING(call) RW_READ_BLOCKING_F(0, call)
#define RW_WRITE_BLOCKING(call) RW_WRITE_BLOCKING_F(0, call)

RTI_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, RT_ACQ_READ, RW_READ_BLOCKING(RW_CALL(rdlock, 0, rti_real.rwlock_rdlock(rw))));
}

RTI_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, RT_ACQ_READ | RT_ACQ_TRY, RW_CALL(tryrdlock, RT_CALL_TRY, rti_real.rwlock_tryrdlock(rw)));
}

RTI_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, RT_ACQ_READ | RT_ACQ_TIMED,
            RW_READ_BLOCKING_F(RT_ACQ_TIMED,
                RW_CALL(timedrdlock, RT_CALL_TIMED, rti_real.rwlock_timedrdlock(rw, abstime))));
}

RTI_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clock, const struct timespec *abstime)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, RT_ACQ_READ | RT_ACQ_TIMED,
            RW_READ_BLOCKING_F(RT_ACQ_TIMED,
                RW_CALL(clockrdlock, RT_CALL_TIMED, rti_real.rwlock_clockrdlock(rw, clock, abstime))));
}

RTI_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, 0, RW_WRITE_BLOCKING(RW_CALL(wrlock, 0, rti_real.rwlock_wrlock(rw))));
}

RTI_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, RT_ACQ_TRY, RW_CALL(trywrlock, RT_CALL_TRY, rti_real.rwlock_trywrlock(rw)));
}

RTI_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, RT_ACQ_TIMED,
            RW_WRITE_BLOCKING_F(RT_ACQ_TIMED,
                RW_CALL(timedwrlock, RT_CALL_TIMED, rti_real.rwlock_timedwrlock(rw, abstime))));
}

RTI_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clock, const struct timespec *abstime)
{
    RTI_FAIL_MARK();
    RW_BODY(rw, RT_ACQ_TIMED,
            RW_WRITE_BLOCKING_F(RT_ACQ_TIMED,
                RW_CALL(clockwrlock, RT_CALL_TIMED, rti_real.rwlock_clockwrlock(rw, clock, abstime))));
}

/* glibc's rwlock: neither write-locked (bit 1) nor any reader (bits 3 and up). */
static inline int rwlock_word_unlocked(const pthread_rwlock_t *rw)
{
    unsigned readers = __atomic_load_n(&rw->__data.__readers, __ATOMIC_RELAXED);
    return (readers & 2) == 0 && (readers >> 3) == 0;
}

RTI_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
    RTI_UNLOCK_BODY(rw, rti_real.rwlock_unlock(rw), "pthread_rwlock_unlock", rwlock_word_unlocked(rw),
                    RTI_PTHREAD_REJECTED);
}

RTI_EXPORT int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
    if (unlikely(!rti_resolved()))
        return 0;
    rti_before_init((uintptr_t)s, RTI_SPIN_UNLOCKED, RTI_CALLER());
    return rti_after_init(rti_real.spin_init(s, pshared), (uintptr_t)s, RT_LOCK_SPIN, RTI_CALLER());
}

RTI_EXPORT int pthread_spin_destroy(pthread_spinlock_t *s)
{
    if (unlikely(!rti_resolved()))
        return 0;
    int r = rti_real.spin_destroy(s);
    rti_after_destroy(r == 0, (uintptr_t)s, RTI_CALLER());
    return r;
}

#define SPIN_OK(r) ((r) == 0)
/* Held: not the unlocked value (1 on x86-64, where glibc's spinlock
 * counts down; fastlock.c reads it off a fresh spinlock). */
#define SPIN_TAKEN(s) (__atomic_load_n((volatile int *)(s), __ATOMIC_RELAXED) != rti_fastlock.spin_unlocked)
static __attribute__((noinline)) int spin_lock_general(pthread_spinlock_t *s, uintptr_t caller)
{
    rti_steer_lone(caller);
    RTI_LOCK_BODY_AT(caller, s, RT_LOCK_SPIN, RTI_AS_IS, 0,
                     RTI_PEEK_THEN_BLOCK(s, RT_LOCK_SPIN, 0, SPIN_TAKEN(s),
                                         rti_real.spin_lock(s), SPIN_OK),
                     SPIN_OK);
}

RTI_EXPORT int pthread_spin_lock(pthread_spinlock_t *s)
{
    RTI_FAST_LOCK_BODY(s, RT_LOCK_SPIN, rti_fast_spin_trylock(s), spin_lock_general);
}

RTI_EXPORT int pthread_spin_trylock(pthread_spinlock_t *s)
{
    RTI_LOCK_BODY(s, RT_LOCK_SPIN, RT_ACQ_TRY, rti_real.spin_trylock(s), SPIN_OK);
}

static __attribute__((noinline)) int spin_unlock_general(pthread_spinlock_t *s, uintptr_t caller)
{
    RTI_UNLOCK_BODY_AT(caller, s, rti_real.spin_unlock(s), "pthread_spin_unlock",
                       __atomic_load_n(s, __ATOMIC_RELAXED) == RTI_SPIN_UNLOCKED, RTI_PTHREAD_REJECTED);
}

RTI_EXPORT int pthread_spin_unlock(pthread_spinlock_t *s)
{
    RTI_FAST_UNLOCK_BODY(s, rti_fast_spin_unlock(s), rti_real.spin_unlock(s), spin_unlock_general);
}

/* The uncontended fast paths of glibc's default mutex and of its spinlock,
 * done in the wrapper itself. A forwarded call costs a second call level
 * and glibc's own type dispatch, which is as much as the whole native
 * lock; doing the same few stores in place leaves room for the checks.
 *
 * Only what the real functions were seen doing at start-up is done here
 * (rti_fastlock_init probes them on a scratch object): a default mutex
 * (kind 0: not recursive, not errorcheck, not robust, not PI, not
 * process-shared, no lock elision) taken with the word going 0 -> 1, owner
 * and user count stored, glibc's single-threaded shortcut kept; a spinlock
 * going from its unlocked to its locked value. Anything else, and every
 * contended case, calls the real function. */
#ifndef RTDD_FASTLOCK_H
#define RTDD_FASTLOCK_H
#include "interpose.h"
#include <linux/futex.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

struct rti_fastlock {
    int mutex;             /* the mutex protocol was verified */
    int spin;              /* the spinlock protocol was verified */
    int spin_unlocked, spin_locked;
    int rwlock_pshared;    /* an rwlock's __shared field says process-shared (probed) */
    int robust_kind, pshared_kind; /* the bits of a mutex's __kind that say so (probed; 0: unknown) */
};
extern RT_HIDDEN struct rti_fastlock rti_fastlock;

/* Probes the real functions (call once, at set-up) and lets the engine
 * read lock objects (rt_lock_object_unlocked). */
RT_HIDDEN void rti_fastlock_init(void);

/* An rwlock's RT_TRAIT_* bits, as its object says. */
static inline uint8_t rti_rwlock_traits(const pthread_rwlock_t *rw)
{
    uint8_t t = __atomic_load_n(&rw->__data.__flags, __ATOMIC_RELAXED) == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP
                    ? RT_TRAIT_WRITER_PREFERRING
                    : 0;
    if (rti_fastlock.rwlock_pshared && __atomic_load_n(&rw->__data.__shared, __ATOMIC_RELAXED))
        t |= RT_TRAIT_PSHARED;
    return t;
}

/* Takes a free default mutex as glibc would; 0 (nothing changed) when it
 * is not a default mutex, not free, or the protocol is not known. */
static inline int rti_fast_mutex_trylock(pthread_mutex_t *m, int tid)
{
    if (!rti_fastlock.mutex || __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) != 0)
        return 0;
    if (__libc_single_threaded) {
        /* No other thread, and the mutex is not process-shared (kind 0). */
        if (m->__data.__lock != 0)
            return 0;
        m->__data.__lock = 1;
    } else {
        int expected = 0;
        if (!__atomic_compare_exchange_n(&m->__data.__lock, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 0;
    }
    m->__data.__owner = tid;
    m->__data.__nusers++;
    return 1;
}

/* Releases a default mutex as glibc would, waking a waiter if the lock
 * word says there is one; 0 (nothing changed) when not a default mutex. */
static inline int rti_fast_mutex_unlock(pthread_mutex_t *m)
{
    if (!rti_fastlock.mutex || __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) != 0)
        return 0;
    m->__data.__owner = 0;
    m->__data.__nusers--;
    if (__libc_single_threaded) {
        __atomic_store_n(&m->__data.__lock, 0, __ATOMIC_RELEASE);
    } else if (__atomic_exchange_n(&m->__data.__lock, 0, __ATOMIC_RELEASE) > 1) {
        /* Straight to the kernel: syscall() is the runtime's own wrapper. */
        rt_raw_syscall6(SYS_futex, (long)&m->__data.__lock, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
    }
    return 1;
}

/* Takes a free spinlock; 0 (nothing changed) when it is held or the
 * protocol is not known. */
static inline int rti_fast_spin_trylock(pthread_spinlock_t *s)
{
    int expected = rti_fastlock.spin_unlocked;
    return rti_fastlock.spin && __atomic_compare_exchange_n(s, &expected, rti_fastlock.spin_locked, 0,
                                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline int rti_fast_spin_unlock(pthread_spinlock_t *s)
{
    if (!rti_fastlock.spin)
        return 0;
    __atomic_store_n(s, rti_fastlock.spin_unlocked, __ATOMIC_RELEASE);
    return 1;
}
#endif

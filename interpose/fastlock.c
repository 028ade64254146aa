/* Start-up probe of the lock protocols the wrappers' fast paths follow
 * (fastlock.h): the real functions are run on scratch objects and every
 * word they touch is checked; one surprise and the fast paths stay off. */
#include "fastlock.h"
#include "lockwrap.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

RT_HIDDEN struct rti_fastlock rti_fastlock;

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* Lock elision changes what locking a default mutex writes. */
static int elision_requested(void)
{
    const char *tunables = getenv("GLIBC_TUNABLES");
    return tunables && strstr(tunables, "glibc.elision.enable=1");
}

static int probe_mutex(void)
{
    pthread_mutex_t m;
    int tid = (int)rt_raw_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
    memset(&m, 0xa5, sizeof m);
    if (elision_requested() || rti_real.mutex_init(&m, NULL) != 0 || !all_zero(&m, sizeof m))
        return 0;
    /* The real lock as the fast path would do it. */
    if (rti_real.mutex_lock(&m) != 0)
        return 0;
    int ok = m.__data.__lock == 1 && m.__data.__owner == tid && m.__data.__nusers == 1 && m.__data.__kind == 0;
    if (rti_real.mutex_unlock(&m) != 0 || !ok || !all_zero(&m, sizeof m))
        return 0;
    /* The fast path's lock is one the real functions recognize. */
    rti_fastlock.mutex = 1;
    ok = rti_fast_mutex_trylock(&m, tid) && rti_real.mutex_trylock(&m) == EBUSY;
    ok = rti_fast_mutex_unlock(&m) && ok;
    rti_fastlock.mutex = 0;
    if (!ok || !all_zero(&m, sizeof m) || rti_real.mutex_trylock(&m) != 0)
        return 0;
    ok = m.__data.__owner == tid && m.__data.__nusers == 1;
    return rti_real.mutex_unlock(&m) == 0 && ok && all_zero(&m, sizeof m) && rti_real.mutex_destroy(&m) == 0;
}

static int probe_spin(void)
{
    pthread_spinlock_t s;
    if (rti_real.spin_init(&s, PTHREAD_PROCESS_PRIVATE) != 0)
        return 0;
    int unlocked = s;
    if (rti_real.spin_lock(&s) != 0)
        return 0;
    int locked = s;
    if (locked == unlocked || rti_real.spin_trylock(&s) != EBUSY || s != locked || rti_real.spin_unlock(&s) != 0 ||
        s != unlocked)
        return 0;
    rti_fastlock.spin_unlocked = unlocked;
    rti_fastlock.spin_locked = locked;
    rti_fastlock.spin = 1;
    int ok = rti_fast_spin_trylock(&s) && s == locked && rti_real.spin_trylock(&s) == EBUSY;
    ok = rti_fast_spin_unlock(&s) && ok && s == unlocked && rti_real.spin_trylock(&s) == 0;
    ok = ok && rti_real.spin_unlock(&s) == 0 && s == unlocked;
    rti_fastlock.spin = ok;
    return ok && rti_real.spin_destroy(&s) == 0;
}

int rti_acquired_uncached(struct rt_thread *t, uintptr_t obj, enum rt_lock_type type, uintptr_t pc)
{
    rti_guard++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    rt_on_lock_acquired_uncached(t, obj, type, pc);
    rti_leave();
    return 0;
}

/* What a lock object's own word says (rt_lock_object_unlocked): glibc's
 * mutex lock word is 0 only when unlocked, whatever the kind; a spinlock
 * holds its probed unlocked value. Read before the memory goes, so that a
 * free of an object whose lock nobody holds scans no held stacks. */
static int object_unlocked(const struct rt_lock *l)
{
    uintptr_t addr = __atomic_load_n(&l->addr, __ATOMIC_RELAXED);
    if (!addr || l->rcu_pseudo)
        return 0;
    switch (l->type) {
    case RT_LOCK_MUTEX:
    case RT_LOCK_MUTEX_RECURSIVE:
    case RT_LOCK_MUTEX_ERRORCHECK:
        return rti_fastlock.mutex &&
               __atomic_load_n(&((const pthread_mutex_t *)addr)->__data.__lock, __ATOMIC_ACQUIRE) == 0;
    case RT_LOCK_SPIN:
        return rti_fastlock.spin &&
               __atomic_load_n((const int *)addr, __ATOMIC_ACQUIRE) == rti_fastlock.spin_unlocked;
    default:
        return 0;
    }
}

/* Which bits of glibc's mutex kind, and which rwlock field, say robust and
 * process-shared: learnt from what the real init writes for each
 * attribute, not assumed. 0: not known (nothing is marked). */
static int kind_for(int robust, int pshared)
{
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    int kind = -1;
    if (pthread_mutexattr_init(&a) != 0)
        return -1;
    if ((!robust || pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0) &&
        (!pshared || pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0) &&
        rti_real.mutex_init(&m, &a) == 0) {
        kind = m.__data.__kind;
        rti_real.mutex_destroy(&m);
    }
    pthread_mutexattr_destroy(&a);
    return kind;
}

static int rwlock_shared_for(int pshared)
{
    pthread_rwlockattr_t a;
    pthread_rwlock_t rw;
    int shared = -1;
    if (pthread_rwlockattr_init(&a) != 0)
        return -1;
    if ((!pshared || pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0) &&
        rti_real.rwlock_init(&rw, &a) == 0) {
        shared = rw.__data.__shared;
        rti_real.rwlock_destroy(&rw);
    }
    pthread_rwlockattr_destroy(&a);
    return shared;
}

static void probe_traits(void)
{
    if (!rti_real.mutex_init || !rti_real.mutex_destroy || !rti_real.rwlock_init || !rti_real.rwlock_destroy)
        return;
    /* glibc marks every robust mutex with its process-shared bit (the
     * kernel wakes robust futexes as shared ones): the object alone cannot
     * tell a private robust mutex from a shared one, and takes it for a
     * shared one until its init says otherwise (pthread_mutex_init). */
    int plain = kind_for(0, 0), robust = kind_for(1, 0), pshared = kind_for(0, 1);
    if (plain >= 0 && robust >= 0 && pshared >= 0) {
        rti_fastlock.pshared_kind = pshared & ~plain;
        rti_fastlock.robust_kind = robust & ~plain & ~rti_fastlock.pshared_kind;
    }
    rti_fastlock.rwlock_pshared = rwlock_shared_for(0) == 0 && rwlock_shared_for(1) > 0;
}

/* What a mutex's attributes say (rt_lock_object_traits), read when its
 * record is made: addr is a live mutex then. */
static uint8_t object_traits(uintptr_t addr, enum rt_lock_type type)
{
    switch (type) {
    case RT_LOCK_MUTEX:
    case RT_LOCK_MUTEX_RECURSIVE:
    case RT_LOCK_MUTEX_ERRORCHECK: {
        int kind = __atomic_load_n(&((const pthread_mutex_t *)addr)->__data.__kind, __ATOMIC_RELAXED);
        if (kind == -1) /* destroyed */
            return 0;
        return (uint8_t)((kind & rti_fastlock.robust_kind ? RT_TRAIT_ROBUST : 0) |
                         (kind & rti_fastlock.pshared_kind ? RT_TRAIT_PSHARED : 0));
    }
    case RT_LOCK_RWLOCK: /* its wrappers note them on every lookup (rwlock.c) */
    default:
        return 0;
    }
}

void rti_fastlock_init(void)
{
    probe_traits();
    __atomic_store_n(&rt_lock_object_traits, object_traits, __ATOMIC_RELEASE);
    /* The fast paths read the CPU from the rseq area (detect/core/cpu.h). */
    rti_fastlock.mutex = rt_cpu_rseq && rti_real.mutex_init && rti_real.mutex_lock && rti_real.mutex_unlock &&
                         rti_real.mutex_trylock && rti_real.mutex_destroy && probe_mutex();
    /* The unlocked value, for the wrappers' peek (rwlock.c), fast path or not. */
    pthread_spinlock_t fresh;
    if (rti_real.spin_init && rti_real.spin_init(&fresh, PTHREAD_PROCESS_PRIVATE) == 0)
        rti_fastlock.spin_unlocked = fresh;
    if (!(rt_cpu_rseq && rti_real.spin_init && rti_real.spin_lock && rti_real.spin_unlock && rti_real.spin_trylock &&
          rti_real.spin_destroy && probe_spin()))
        rti_fastlock.spin = 0;
    __atomic_store_n(&rt_lock_object_unlocked, object_unlocked, __ATOMIC_RELEASE);
}

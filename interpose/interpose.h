/* Shared state of the preload layer: the real functions, the per-thread
 * reentrancy guard and thread pointer (initial-exec TLS: no allocation, no
 * loader lock on access), and the bootstrap state machine. */
#ifndef RTDD_INTERPOSE_H
#define RTDD_INTERPOSE_H
#include "locks/locks.h"
#include "hang/hang.h"
#include "core/core.h"
#include <pthread.h>
#include <threads.h>
#include <stdarg.h>
#include <stddef.h>

#define RTI_TLS __thread __attribute__((tls_model("initial-exec")))
#define RTI_EXPORT __attribute__((visibility("default")))
#define RTI_CALLER() ((uintptr_t)__builtin_return_address(0))

enum rti_state { RTI_UNINIT, RTI_RESOLVING, RTI_RESOLVED, RTI_READY };

extern RT_HIDDEN _Atomic int rti_state;
extern RTI_TLS int rti_guard;        /* >0 while runtime code runs on this thread */
extern RTI_TLS int rti_thread_dead;  /* the thread's state was torn down at exit */
extern RTI_TLS struct rt_thread *rti_self;

struct rti_real {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void *(*reallocarray)(void *, size_t, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    size_t (*malloc_usable_size)(void *);
    int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
    int (*mutex_destroy)(pthread_mutex_t *);
    int (*mutex_lock)(pthread_mutex_t *);
    int (*mutex_trylock)(pthread_mutex_t *);
    int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
    int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*mutex_unlock)(pthread_mutex_t *);
    int (*rwlock_init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
    int (*rwlock_destroy)(pthread_rwlock_t *);
    int (*rwlock_rdlock)(pthread_rwlock_t *);
    int (*rwlock_tryrdlock)(pthread_rwlock_t *);
    int (*rwlock_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
    int (*rwlock_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
    int (*rwlock_wrlock)(pthread_rwlock_t *);
    int (*rwlock_trywrlock)(pthread_rwlock_t *);
    int (*rwlock_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
    int (*rwlock_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
    int (*rwlock_unlock)(pthread_rwlock_t *);
    int (*spin_init)(pthread_spinlock_t *, int);
    int (*spin_destroy)(pthread_spinlock_t *);
    int (*spin_lock)(pthread_spinlock_t *);
    int (*spin_trylock)(pthread_spinlock_t *);
    int (*spin_unlock)(pthread_spinlock_t *);
    int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
    int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*cond_destroy)(pthread_cond_t *);
    int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
    int (*mtx_init)(void *, int);
    int (*mtx_lock)(void *);
    int (*mtx_timedlock)(void *, const struct timespec *);
    int (*mtx_trylock)(void *);
    int (*mtx_unlock)(void *);
    void (*mtx_destroy)(void *);
    int (*cnd_wait)(void *, void *);
    int (*cnd_timedwait)(void *, void *, const struct timespec *);
    int (*cond_signal)(pthread_cond_t *);
    int (*cond_broadcast)(pthread_cond_t *);
    int (*cnd_signal)(void *);
    int (*cnd_broadcast)(void *);
    int (*sem_init)(void *, int, unsigned);
    int (*sem_destroy)(void *);
    int (*sem_wait)(void *);
    int (*sem_timedwait)(void *, const struct timespec *);
    int (*sem_clockwait)(void *, clockid_t, const struct timespec *);
    int (*sem_post)(void *);
    int (*munmap)(void *, size_t);
    int (*dlclose)(void *);
    int (*close)(int);
    int (*dup2)(int, int);
    int (*dup3)(int, int, int);
    int (*close_range)(unsigned, unsigned, int);
    void (*closefrom)(int);
    int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    int (*thrd_create)(thrd_t *, thrd_start_t, void *);
    int (*pthread_join)(pthread_t, void **);
    int (*pthread_timedjoin_np)(pthread_t, void **, const struct timespec *);
    int (*pthread_clockjoin_np)(pthread_t, void **, clockid_t, const struct timespec *);
    int (*thrd_join)(thrd_t, int *);
};
extern RT_HIDDEN struct rti_real rti_real;

/* Resolves the real functions (idempotent) and, once, sets the runtime up. */
RT_HIDDEN void rti_init(void);
/* Creates the calling thread's engine state. NULL when it must not be
 * tracked (exiting thread, out of memory). */
RT_HIDDEN struct rt_thread *rti_thread_attach(void);

/* Bootstrap arena for allocations made while the real allocator is unknown. */
RT_HIDDEN void *rti_arena_alloc(size_t size, size_t align);
RT_HIDDEN int rti_arena_owns(const void *p);
RT_HIDDEN size_t rti_arena_size(const void *p);
RT_HIDDEN int rti_resolving_here(void);
/* dlsym(RTLD_NEXT, name) as the runtime's own call (never a tail call:
 * RTLD_NEXT is relative to the caller), for functions found at first use. */
RT_HIDDEN void *rti_next_symbol(const char *name);

/* Resolves (and sets up) if needed; 0 while the real functions are still
 * unknown (a call made from inside the resolver itself). */
static inline int rti_resolved(void)
{
    if (unlikely(__atomic_load_n(&rti_state, __ATOMIC_ACQUIRE) != RTI_READY)) {
        rti_init();
        return rti_real.mutex_lock != NULL;
    }
    return 1;
}

/* A thread's state goes: its librtdd_rcu reader slot lets go of its
 * record (rcu_hooks.c). */
RT_HIDDEN void rti_rcu_detach(struct rt_thread *t);
/* syscall(2) as glibc's, SYS_rseq seen on the way (rseq.c): the program's
 * calls and the private librtdd_rcu's. */
RT_HIDDEN long rti_vsyscall(long number, va_list ap);

/* Enters the runtime for bookkeeping: NULL means pass straight through. */
static inline struct rt_thread *rti_enter(void)
{
    if (unlikely(__atomic_load_n(&rti_state, __ATOMIC_RELAXED) != RTI_READY || rti_guard))
        return NULL;
    struct rt_thread *t = rti_self;
    if (unlikely(!t)) {
        if (rti_thread_dead)
            return NULL;
        rti_guard++;
        t = rti_thread_attach();
        rti_guard--;
        if (!t)
            return NULL;
    }
    rti_guard++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return t;
}

/* The thread's state for a leaf fast path, which runs without entering
 * the runtime: NULL before set-up, after teardown and inside the runtime. */
static inline struct rt_thread *rti_self_unguarded(void)
{
    struct rt_thread *t = rti_self;
    return likely(t != NULL && !rti_guard) ? t : NULL;
}

static inline void rti_leave(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    rti_guard--;
}
#endif

/* Resolving the real functions, and the arena that serves allocations made
 * while that is under way (older glibc's dlsym allocates). */
#include "interpose.h"
#include "locks/locks.h"
#include <dlfcn.h>
#include <string.h>

RT_HIDDEN _Atomic int rti_state;
RTI_TLS int rti_guard;
RTI_TLS int rti_thread_dead;
RTI_TLS struct rt_thread *rti_self;
RT_HIDDEN struct rti_real rti_real;

static RTI_TLS int resolving_here;

#define ARENA_SIZE (256 * 1024)
static char arena[ARENA_SIZE] __attribute__((aligned(64)));
static _Atomic size_t arena_used;

/* Each arena block is preceded by its size, for realloc and usable_size. */
void *rti_arena_alloc(size_t size, size_t align)
{
    if (align < 16)
        align = 16;
    size_t old = __atomic_load_n(&arena_used, __ATOMIC_RELAXED), start, end;
    do {
        start = (old + 16 + align - 1) & ~(align - 1);
        end = start + size;
        if (end > ARENA_SIZE)
            return NULL;
    } while (!__atomic_compare_exchange_n(&arena_used, &old, end, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    /* Before the block exists for anyone: free() must then look for it. */
    rt_free_checks_add(RT_FREE_ARENA);
    *(size_t *)(arena + start - sizeof(size_t)) = size;
    return arena + start;
}

int rti_arena_owns(const void *p)
{
    return (uintptr_t)p - (uintptr_t)arena < ARENA_SIZE; /* one compare: below arena wraps high */
}

size_t rti_arena_size(const void *p)
{
    return *(const size_t *)((const char *)p - sizeof(size_t));
}

int rti_resolving_here(void)
{
    return resolving_here;
}

/* Not inlined and never a tail call: RTLD_NEXT is relative to the caller. */
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) RT_HIDDEN void *rti_next_symbol(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    __asm__ volatile("" ::"r"(p) : "memory");
    return p;
}

__attribute__((noinline, optimize("no-optimize-sibling-calls"))) static void *next_versioned(const char *name,
                                                                                      const char *version)
{
    void *p = dlvsym(RTLD_NEXT, name, version);
    if (!p)
        p = dlsym(RTLD_NEXT, name);
    __asm__ volatile("" ::"r"(p) : "memory");
    return p;
}

#define RESOLVE_VERSIONED(field, name, version) \
    rti_real.field = (__typeof__(rti_real.field))next_versioned(name, version)
#define RESOLVE(field, name) rti_real.field = (__typeof__(rti_real.field))rti_next_symbol(name)

RT_HIDDEN void rti_resolve(void)
{
    int expected = RTI_UNINIT;
    if (__atomic_compare_exchange_n(&rti_state, &expected, RTI_RESOLVING, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        resolving_here = 1;
        RESOLVE(malloc, "malloc");
        RESOLVE(calloc, "calloc");
        RESOLVE(realloc, "realloc");
        RESOLVE(reallocarray, "reallocarray");
        RESOLVE(free, "free");
        RESOLVE(posix_memalign, "posix_memalign");
        RESOLVE(aligned_alloc, "aligned_alloc");
        RESOLVE(memalign, "memalign");
        RESOLVE(valloc, "valloc");
        RESOLVE(pvalloc, "pvalloc");
        RESOLVE(malloc_usable_size, "malloc_usable_size");
        RESOLVE(mutex_init, "pthread_mutex_init");
        RESOLVE(mutex_destroy, "pthread_mutex_destroy");
        RESOLVE(mutex_lock, "pthread_mutex_lock");
        RESOLVE(mutex_trylock, "pthread_mutex_trylock");
        RESOLVE(mutex_timedlock, "pthread_mutex_timedlock");
        RESOLVE(mutex_clocklock, "pthread_mutex_clocklock");
        RESOLVE(mutex_unlock, "pthread_mutex_unlock");
        RESOLVE(rwlock_init, "pthread_rwlock_init");
        RESOLVE(rwlock_destroy, "pthread_rwlock_destroy");
        RESOLVE(rwlock_rdlock, "pthread_rwlock_rdlock");
        RESOLVE(rwlock_tryrdlock, "pthread_rwlock_tryrdlock");
        RESOLVE(rwlock_timedrdlock, "pthread_rwlock_timedrdlock");
        RESOLVE(rwlock_clockrdlock, "pthread_rwlock_clockrdlock");
        RESOLVE(rwlock_wrlock, "pthread_rwlock_wrlock");
        RESOLVE(rwlock_trywrlock, "pthread_rwlock_trywrlock");
        RESOLVE(rwlock_timedwrlock, "pthread_rwlock_timedwrlock");
        RESOLVE(rwlock_clockwrlock, "pthread_rwlock_clockwrlock");
        RESOLVE(rwlock_unlock, "pthread_rwlock_unlock");
        RESOLVE(spin_init, "pthread_spin_init");
        RESOLVE(spin_destroy, "pthread_spin_destroy");
        RESOLVE(spin_lock, "pthread_spin_lock");
        RESOLVE(spin_trylock, "pthread_spin_trylock");
        RESOLVE(spin_unlock, "pthread_spin_unlock");
        /* The condvar ABI of 2.3.2; plain dlsym could give the old one. */
        RESOLVE_VERSIONED(cond_wait, "pthread_cond_wait", "GLIBC_2.3.2");
        RESOLVE_VERSIONED(cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2");
        RESOLVE_VERSIONED(cond_destroy, "pthread_cond_destroy", "GLIBC_2.3.2");
        RESOLVE_VERSIONED(cond_init, "pthread_cond_init", "GLIBC_2.3.2");
        RESOLVE(cond_clockwait, "pthread_cond_clockwait");
        RESOLVE(mtx_init, "mtx_init");
        RESOLVE(mtx_lock, "mtx_lock");
        RESOLVE(mtx_timedlock, "mtx_timedlock");
        RESOLVE(mtx_trylock, "mtx_trylock");
        RESOLVE(mtx_unlock, "mtx_unlock");
        RESOLVE(mtx_destroy, "mtx_destroy");
        RESOLVE(cnd_wait, "cnd_wait");
        RESOLVE(cnd_timedwait, "cnd_timedwait");
        RESOLVE_VERSIONED(cond_signal, "pthread_cond_signal", "GLIBC_2.3.2");
        RESOLVE_VERSIONED(cond_broadcast, "pthread_cond_broadcast", "GLIBC_2.3.2");
        RESOLVE(cnd_signal, "cnd_signal");
        RESOLVE(cnd_broadcast, "cnd_broadcast");
        RESOLVE(sem_init, "sem_init");
        RESOLVE(sem_destroy, "sem_destroy");
        RESOLVE(sem_wait, "sem_wait");
        RESOLVE(sem_timedwait, "sem_timedwait");
        RESOLVE(sem_clockwait, "sem_clockwait");
        RESOLVE(sem_post, "sem_post");
        RESOLVE(munmap, "munmap");
        RESOLVE(dlclose, "dlclose");
        RESOLVE(close, "close");
        RESOLVE(dup2, "dup2");
        RESOLVE(dup3, "dup3");
        RESOLVE(close_range, "close_range");
        RESOLVE(closefrom, "closefrom");
        RESOLVE(pthread_create, "pthread_create");
        RESOLVE(thrd_create, "thrd_create");
        RESOLVE(pthread_join, "pthread_join");
        RESOLVE(pthread_timedjoin_np, "pthread_timedjoin_np");
        RESOLVE(pthread_clockjoin_np, "pthread_clockjoin_np");
        RESOLVE(thrd_join, "thrd_join");
        resolving_here = 0;
        __atomic_store_n(&rti_state, RTI_RESOLVED, __ATOMIC_RELEASE);
        return;
    }
    /* Another thread is resolving: wait for it, unless it is this thread. */
    while (!resolving_here && __atomic_load_n(&rti_state, __ATOMIC_ACQUIRE) == RTI_RESOLVING)
        sched_yield();
}

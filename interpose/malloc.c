/* The malloc family: pure pass-through, except that memory being freed or
 * moved is checked for the locks it contains (active-lock-freed) and for
 * RCU readers that may still use it (rcu-freed-while-referenced). */
#include "interpose.h"
#include "locks/locks.h"
#include "rcu/rcu.h"
#include <errno.h>
#include <string.h>

static inline int ready(void)
{
    if (likely(rti_real.free != NULL))
        return 1;
    if (rti_resolving_here())
        return 0;
    rti_init();
    return rti_real.free != NULL && !rti_resolving_here();
}

__attribute__((noinline)) static void check_freed_block(void *p, size_t size, uintptr_t pc)
{
    struct rt_thread *t = rti_enter();
    if (!t)
        return;
    int saved = errno;
    if (rt_locktab_may_overlap((uintptr_t)p, size))
        rt_on_free(t, (uintptr_t)p, size, pc);
    if (rt_rcu_in_use())
        rt_rcu_on_free(t, (uintptr_t)p, size, pc);
    errno = saved;
    rti_leave();
}

/* Set at setup when the real allocator is glibc's: then a block's size is
 * read from its chunk header (as malloc_usable_size does) without a call. */
RT_HIDDEN int rti_glibc_malloc;

static inline size_t glibc_block_size(const void *p)
{
    size_t head = ((const size_t *)p)[-1];
    /* mmapped chunks (bit 1) carry a two-word header, others one word. */
    return (head & ~(size_t)7) - ((head & 2) ? 2 * sizeof(size_t) : sizeof(size_t));
}

static inline size_t block_size(void *p)
{
    if (likely(rti_glibc_malloc))
        return glibc_block_size(p);
    return rti_real.malloc_usable_size ? rti_real.malloc_usable_size(p) : 1;
}

/* Before memory's life ends: held locks inside it are bugs; every lock
 * record inside it is retired so the address can be a new lock later. The
 * inline part only asks the filters whether anything was ever near. */
static inline void lifetime_ends(void *p, uintptr_t pc)
{
    unsigned checks = __atomic_load_n(&rt_free_checks, __ATOMIC_ACQUIRE);
    if (likely((checks & (RT_FREE_LOCKS | RT_FREE_RCU)) == 0))
        return;
    size_t size = block_size(p);
    /* Up to 1.5 KiB the lock lines are one load. */
    if (((checks & RT_FREE_LOCKS) && (size <= RT_MEDIUM_RANGE ? rt_locktab_may_overlap_medium((uintptr_t)p, size)
                                                              : rt_locktab_may_overlap((uintptr_t)p, size))) ||
        ((checks & RT_FREE_RCU) &&
         (rt_rcu_may_reference((uintptr_t)p, size) || rt_rcuptr_may_overlap((uintptr_t)p, size))))
        check_freed_block(p, size, pc);
}

RTI_EXPORT void *malloc(size_t size)
{
    /* One load: the real malloc is usable as soon as it is resolved. */
    void *(*real_malloc)(size_t) = rti_real.malloc;
    if (likely(real_malloc != NULL))
        return real_malloc(size);
    if (unlikely(!ready()))
        return rti_arena_alloc(size, 16);
    return rti_real.malloc(size);
}

RTI_EXPORT void *calloc(size_t n, size_t size)
{
    if (unlikely(!ready())) {
        if (size && n > SIZE_MAX / size)
            return NULL;
        return rti_arena_alloc(n * size, 16); /* the arena is zeroed static memory */
    }
    return rti_real.calloc(n, size);
}

/* glibc's chunk size word of a block whose usable size is at most
 * RT_SMALL_RANGE: the size (usable + one header word) with its three flag
 * bits, so one compare of the raw word decides. */
#define SMALL_CHUNK_WORD ((size_t)RT_SMALL_RANGE + sizeof(size_t) + 7)
#define MEDIUM_CHUNK_WORD ((size_t)RT_MEDIUM_RANGE + sizeof(size_t) + 7)

/* The common free, decided without a call: nothing to check at all, or a
 * small glibc block whose two lines (up to eight for blocks up to 1.5 KiB)
 * no lock record (and no recently referenced RCU object) was ever near. Kept a frameless leaf that jumps
 * to the real free; anything else (arena blocks, another allocator, large
 * blocks, NULL once checks exist) goes to free_checked. */
static inline int free_needs_no_check(void *p)
{
    unsigned checks = __atomic_load_n(&rt_free_checks, __ATOMIC_ACQUIRE);
    if (likely(checks == 0))
        return 1;
    if (likely(checks == RT_FREE_LOCKS)) {
        if (unlikely(p == NULL))
            return 0;
        size_t word = ((const size_t *)p)[-1];
        if (likely(word <= SMALL_CHUNK_WORD))
            return !rt_locktab_may_overlap_small((uintptr_t)p);
        /* Up to 1.5 KiB: eight lines in one load (no mmapped chunk is this small). */
        return word <= MEDIUM_CHUNK_WORD &&
               !rt_locktab_may_overlap_medium((uintptr_t)p, (word & ~(size_t)7) - sizeof(size_t));
    }
    if (unlikely((checks & ~(RT_FREE_LOCKS | RT_FREE_RCU)) != 0) || unlikely(!p) ||
        unlikely(((const size_t *)p)[-1] > SMALL_CHUNK_WORD))
        return 0;
    return !(((checks & RT_FREE_LOCKS) && rt_locktab_may_overlap_small((uintptr_t)p)) ||
             ((checks & RT_FREE_RCU) && (rt_rcu_may_reference_small((uintptr_t)p) ||
                                         rt_filter_may_overlap_small(rt_rcuptr_filter, (uintptr_t)p))));
}

__attribute__((noinline)) static void free_checked(void *p, uintptr_t pc)
{
    if (!p || rti_arena_owns(p))
        return;
    if (unlikely(!ready()))
        return; /* cannot happen for memory the real allocator gave out */
    lifetime_ends(p, pc);
    rti_real.free(p);
}

RTI_EXPORT void free(void *p)
{
    void (*real_free)(void *) = rti_real.free;
    if (likely(real_free != NULL) && likely(free_needs_no_check(p))) {
        real_free(p);
        return;
    }
    free_checked(p, RTI_CALLER());
}

static void *arena_realloc(void *p, size_t size)
{
    void *q = malloc(size);
    if (q && p) {
        size_t old = rti_arena_size(p);
        memcpy(q, p, old < size ? old : size);
    }
    return q;
}

RTI_EXPORT void *realloc(void *p, size_t size)
{
    if (p && unlikely(rti_arena_owns(p)))
        return arena_realloc(p, size);
    if (unlikely(!ready()))
        return p ? NULL : rti_arena_alloc(size, 16);
    /* A lock must not be moved or copied: the old object's life ends even
     * when the block stays in place. */
    if (p)
        lifetime_ends(p, RTI_CALLER());
    return rti_real.realloc(p, size);
}

RTI_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    if (p && unlikely(rti_arena_owns(p)))
        return arena_realloc(p, n * size);
    if (unlikely(!ready()))
        return p ? NULL : rti_arena_alloc(n * size, 16);
    if (p)
        lifetime_ends(p, RTI_CALLER());
    return rti_real.reallocarray(p, n, size);
}

RTI_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    if (unlikely(!ready())) {
        *out = rti_arena_alloc(size, align);
        return *out ? 0 : ENOMEM;
    }
    return rti_real.posix_memalign(out, align, size);
}

RTI_EXPORT void *aligned_alloc(size_t align, size_t size)
{
    if (unlikely(!ready()))
        return rti_arena_alloc(size, align);
    return rti_real.aligned_alloc(align, size);
}

RTI_EXPORT void *memalign(size_t align, size_t size)
{
    if (unlikely(!ready()))
        return rti_arena_alloc(size, align);
    return rti_real.memalign(align, size);
}

RTI_EXPORT void *valloc(size_t size)
{
    if (unlikely(!ready()))
        return rti_arena_alloc(size, 4096);
    return rti_real.valloc(size);
}

RTI_EXPORT void *pvalloc(size_t size)
{
    if (unlikely(!ready()))
        return rti_arena_alloc((size + 4095) & ~(size_t)4095, 4096);
    return rti_real.pvalloc(size);
}

RTI_EXPORT size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    if (unlikely(rti_arena_owns(p)))
        return rti_arena_size(p);
    if (unlikely(!ready()))
        return 0;
    return rti_real.malloc_usable_size(p);
}

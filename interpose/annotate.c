/* The entry points include/rtdd/annotate.h finds with dlsym. */
#include "interpose.h"

RTI_EXPORT void rtdd_annotate_lock_name(void *lock, const char *name)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_annotate_name(t, (uintptr_t)lock, name, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void rtdd_annotate_lock_nested(void *lock, unsigned level)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_annotate_nested(t, (uintptr_t)lock, level, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void rtdd_annotate_lock_no_order(void *lock)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_annotate_no_order(t, (uintptr_t)lock, RTI_CALLER());
        rti_leave();
    }
}

/* Locks of other libraries (annotate.h's RTDD_LOCK_CREATE ... RELEASE): the
 * same engine events as the pthread wrappers make, at the points the
 * library's own lock code calls them. Flags as in annotate.h. */
enum { ANN_RECURSIVE = 1, ANN_RW = 2, ANN_READ = 4, ANN_TRY = 8, ANN_TIMED = 16 };

static enum rt_lock_type annotated_type(unsigned flags)
{
    return (flags & ANN_RW) ? RT_LOCK_USER_RW : (flags & ANN_RECURSIVE) ? RT_LOCK_USER_RECURSIVE : RT_LOCK_USER;
}

static unsigned acquire_flags(unsigned flags)
{
    return ((flags & ANN_READ) ? RT_ACQ_READ : 0) | ((flags & ANN_TRY) ? RT_ACQ_TRY : 0) |
           ((flags & ANN_TIMED) ? RT_ACQ_TIMED : 0);
}

RTI_EXPORT void rtdd_annotate_lock_create(void *lock, unsigned flags)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_init(t, (uintptr_t)lock, annotated_type(flags), RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void rtdd_annotate_lock_destroy(void *lock)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_destroy(t, (uintptr_t)lock, RTI_CALLER());
        rti_leave();
    }
}

/* Before the attempt: the checks that must come before the thread can
 * block, and (unless a trylock) the wait the watchdog follows. A lock never
 * announced with RTDD_LOCK_CREATE is made here, not recursive. */
RTI_EXPORT void rtdd_annotate_lock_pre(void *lock, unsigned flags)
{
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_enter();
    if (!t)
        return;
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)lock, annotated_type(flags), pc);
    if (l) {
        rt_on_lock_pre(t, l, acquire_flags(flags), pc);
        if (!(flags & ANN_TRY))
            rt_on_lock_wait(t, l, acquire_flags(flags), pc);
    }
    rti_leave();
}

RTI_EXPORT void rtdd_annotate_lock_post(void *lock, unsigned flags, int acquired)
{
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_enter();
    if (!t)
        return;
    struct rt_lock *l = rt_lock_lookup(t, (uintptr_t)lock, annotated_type(flags), pc);
    if (l && acquired)
        rt_on_lock_acquired(t, l, acquire_flags(flags), 0, pc);
    else
        rt_on_lock_failed(t);
    rti_leave();
}

RTI_EXPORT void rtdd_annotate_lock_release(void *lock, unsigned flags)
{
    (void)flags;
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_release(t, (uintptr_t)lock, RTI_CALLER());
        rti_leave();
    }
}

/* A condition wait of the library's own: it releases lock and takes it
 * again around the wait, as pthread_cond_wait does. */
RTI_EXPORT void rtdd_annotate_cond_wait_begin(void *cond, void *lock, unsigned flags)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_cond_wait_begin(t, (uintptr_t)cond, (uintptr_t)lock, 0, (flags & ANN_TIMED) != 0, 0, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void rtdd_annotate_cond_wait_end(void *cond, void *lock)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_cond_wait_end(t, (uintptr_t)cond, (uintptr_t)lock, RT_WAIT_WOKEN, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void rtdd_annotate_cond_signal(void *cond)
{
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_event_signal(t, (uintptr_t)cond, RT_LOCK_COND, RTI_CALLER());
        /* Said before the library's own signal, which may be a broadcast:
         * every waiter counts as released (no destroy report for them). */
        rt_on_cond_released(t, (uintptr_t)cond, 1);
        rti_leave();
    }
}

/* The dynamic annotations of code annotated for ThreadSanitizer or
 * Helgrind (Chromium's and Abseil's dynamic_annotations, compiler-rt's
 * tests): plain functions such code calls, often defined weak or in a
 * shared library, so these definitions take their place under LD_PRELOAD
 * and the locks they describe join the lock-order graph and the misuse
 * checks with no rebuild. Called after the lock is taken and before it is
 * released, as TSan expects; the two claims no real lock allows are
 * checked (detect/annotated.c). */
RTI_EXPORT void AnnotateRWLockCreate(const char *file, int line, const volatile void *lock)
{
    (void)file, (void)line;
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_init(t, (uintptr_t)lock, RT_LOCK_USER_RW, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void AnnotateRWLockCreateStatic(const char *file, int line, const volatile void *lock)
{
    (void)file, (void)line;
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_init(t, (uintptr_t)lock, RT_LOCK_USER_RW, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void AnnotateRWLockDestroy(const char *file, int line, const volatile void *lock)
{
    (void)file, (void)line;
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_lock_destroy(t, (uintptr_t)lock, RTI_CALLER());
        rti_leave();
    }
}

RTI_EXPORT void AnnotateRWLockAcquired(const char *file, int line, const volatile void *lock, long is_w)
{
    (void)file, (void)line;
    uintptr_t pc = RTI_CALLER(), addr = (uintptr_t)lock;
    struct rt_thread *t = rti_enter();
    if (!t)
        return;
    unsigned flags = is_w ? 0 : RT_ACQ_READ;
    struct rt_lock *l = rt_lock_lookup(t, addr, RT_LOCK_USER_RW, pc);
    if (l) {
        rt_annotated_acquire_check(t, l, addr, !is_w);
        uint64_t chain = rt_on_lock_pre(t, l, flags, pc);
        rt_on_lock_acquired(t, l, flags, chain, pc);
    }
    rti_leave();
}

RTI_EXPORT void AnnotateRWLockReleased(const char *file, int line, const volatile void *lock, long is_w)
{
    (void)file, (void)line;
    uintptr_t pc = RTI_CALLER(), addr = (uintptr_t)lock;
    struct rt_thread *t = rti_enter();
    if (!t)
        return;
    /* A release of a lock never announced is judged with a record of it
     * (bad-unlock: nobody holds it), not as unknown memory. */
    rt_lock_lookup(t, addr, RT_LOCK_USER_RW, pc);
    rt_annotated_release_check(t, addr, !is_w);
    rt_on_lock_release(t, addr, pc);
    rti_leave();
}

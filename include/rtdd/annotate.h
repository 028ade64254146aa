/* rtdd annotations: tell the runtime what a lock is. Every macro is a
 * no-op costing one load and one branch when the program does not run
 * under rtdd, so they can stay in production builds.
 *
 *   RTDD_LOCK_NAME(&lock, "cfg_mutex")   name the lock in reports
 *   RTDD_LOCK_NESTED(&lock, level)       a nesting level: with lock_classes=site,
 *                                        locks of one class at different levels
 *                                        are ordered separately (as lockdep's
 *                                        mutex_lock_nested)
 *   RTDD_LOCK_NO_ORDER(&lock)            leave the lock out of lock-order checking
 *
 * A lock rtdd cannot see (a library's own futex or spinlock: Qt's QMutex,
 * Abseil's Mutex, a program's hand-written spinlock) is checked like a
 * pthread lock when its code says what it does (docs/custom-locks.md):
 *
 *   RTDD_LOCK_CREATE(&lock, flags)       made (flags: RTDD_LOCK_RECURSIVE,
 *                                        RTDD_LOCK_RW); optional: a lock first
 *                                        seen in RTDD_LOCK_PRE is not recursive
 *   RTDD_LOCK_DESTROY(&lock)             its life ends (free() of its memory too)
 *   RTDD_LOCK_PRE(&lock, flags)          before the attempt to take it, where the
 *                                        checks run (flags: RTDD_LOCK_READ,
 *                                        RTDD_LOCK_TRY, RTDD_LOCK_TIMED)
 *   RTDD_LOCK_POST(&lock, flags, ok)     after it: ok != 0 the thread holds it
 *   RTDD_LOCK_RELEASE(&lock, flags)      before releasing it
 *   RTDD_COND_WAIT_BEGIN(&cond, &lock, flags)  a condition wait that releases lock
 *   RTDD_COND_WAIT_END(&cond, &lock)           ... and has taken it again
 *   RTDD_COND_SIGNAL(&cond)              a signal or broadcast of cond
 */
#ifndef RTDD_ANNOTATE_H
#define RTDD_ANNOTATE_H
#include <dlfcn.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's entry points, found once with dlsym: absent without rtdd. */
static inline void *rtdd__annotation(const char *name, void **cache)
{
    void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!fn) {
        fn = dlsym(RTLD_DEFAULT, name);
        __atomic_store_n(cache, fn ? fn : (void *)1, __ATOMIC_RELEASE);
    }
    return fn == (void *)1 ? NULL : fn;
}

/* Flags of the lock annotations. */
#define RTDD_LOCK_RECURSIVE 1u /* CREATE: its holder may take it again */
#define RTDD_LOCK_RW 2u        /* CREATE: a reader-writer lock */
#define RTDD_LOCK_READ 4u      /* PRE, POST, RELEASE: a shared (read) acquisition */
#define RTDD_LOCK_TRY 8u       /* PRE, POST: a trylock (never blocks, orders nothing after it) */
#define RTDD_LOCK_TIMED 16u    /* PRE, POST, COND_WAIT_BEGIN: the wait has a timeout */

#define RTDD__CALL(name, type, ...)                                 \
    do {                                                            \
        static void *rtdd__cache;                                   \
        __extension__ __typeof__(type) rtdd__fn = (type)rtdd__annotation(name, &rtdd__cache); \
        if (rtdd__fn)                                               \
            rtdd__fn(__VA_ARGS__);                                  \
    } while (0)

static inline void rtdd_lock_name(void *lock, const char *name)
{
    RTDD__CALL("rtdd_annotate_lock_name", void (*)(void *, const char *), lock, name);
}
static inline void rtdd_lock_nested(void *lock, unsigned level)
{
    RTDD__CALL("rtdd_annotate_lock_nested", void (*)(void *, unsigned), lock, level);
}
static inline void rtdd_lock_no_order(void *lock)
{
    RTDD__CALL("rtdd_annotate_lock_no_order", void (*)(void *), lock);
}
static inline void rtdd_lock_create(void *lock, unsigned flags)
{
    RTDD__CALL("rtdd_annotate_lock_create", void (*)(void *, unsigned), lock, flags);
}
static inline void rtdd_lock_destroy(void *lock)
{
    RTDD__CALL("rtdd_annotate_lock_destroy", void (*)(void *), lock);
}
static inline void rtdd_lock_pre(void *lock, unsigned flags)
{
    RTDD__CALL("rtdd_annotate_lock_pre", void (*)(void *, unsigned), lock, flags);
}
static inline void rtdd_lock_post(void *lock, unsigned flags, int acquired)
{
    RTDD__CALL("rtdd_annotate_lock_post", void (*)(void *, unsigned, int), lock, flags, acquired);
}
static inline void rtdd_lock_release(void *lock, unsigned flags)
{
    RTDD__CALL("rtdd_annotate_lock_release", void (*)(void *, unsigned), lock, flags);
}
static inline void rtdd_cond_wait_begin(void *cond, void *lock, unsigned flags)
{
    RTDD__CALL("rtdd_annotate_cond_wait_begin", void (*)(void *, void *, unsigned), cond, lock, flags);
}
static inline void rtdd_cond_wait_end(void *cond, void *lock)
{
    RTDD__CALL("rtdd_annotate_cond_wait_end", void (*)(void *, void *), cond, lock);
}
static inline void rtdd_cond_signal(void *cond)
{
    RTDD__CALL("rtdd_annotate_cond_signal", void (*)(void *), cond);
}

#define RTDD_LOCK_CREATE(lock, flags) rtdd_lock_create((void *)(lock), (flags))
#define RTDD_LOCK_DESTROY(lock) rtdd_lock_destroy((void *)(lock))
#define RTDD_LOCK_PRE(lock, flags) rtdd_lock_pre((void *)(lock), (flags))
#define RTDD_LOCK_POST(lock, flags, ok) rtdd_lock_post((void *)(lock), (flags), (ok))
#define RTDD_LOCK_RELEASE(lock, flags) rtdd_lock_release((void *)(lock), (flags))
#define RTDD_COND_WAIT_BEGIN(cond, lock, flags) rtdd_cond_wait_begin((void *)(cond), (void *)(lock), (flags))
#define RTDD_COND_WAIT_END(cond, lock) rtdd_cond_wait_end((void *)(cond), (void *)(lock))
#define RTDD_COND_SIGNAL(cond) rtdd_cond_signal((void *)(cond))

#define RTDD_LOCK_NAME(lock, name) rtdd_lock_name((void *)(lock), (name))
#define RTDD_LOCK_NESTED(lock, level) rtdd_lock_nested((void *)(lock), (level))
#define RTDD_LOCK_NO_ORDER(lock) rtdd_lock_no_order((void *)(lock))

#ifdef __cplusplus
}
#endif
#endif

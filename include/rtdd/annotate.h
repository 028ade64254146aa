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

static inline void rtdd_lock_name(void *lock, const char *name)
{
    static void *cache;
    void (*fn)(void *, const char *) = (void (*)(void *, const char *))rtdd__annotation("rtdd_annotate_lock_name", &cache);
    if (fn)
        fn(lock, name);
}

static inline void rtdd_lock_nested(void *lock, unsigned level)
{
    static void *cache;
    void (*fn)(void *, unsigned) = (void (*)(void *, unsigned))rtdd__annotation("rtdd_annotate_lock_nested", &cache);
    if (fn)
        fn(lock, level);
}

static inline void rtdd_lock_no_order(void *lock)
{
    static void *cache;
    void (*fn)(void *) = (void (*)(void *))rtdd__annotation("rtdd_annotate_lock_no_order", &cache);
    if (fn)
        fn(lock);
}

#define RTDD_LOCK_NAME(lock, name) rtdd_lock_name((void *)(lock), (name))
#define RTDD_LOCK_NESTED(lock, level) rtdd_lock_nested((void *)(lock), (level))
#define RTDD_LOCK_NO_ORDER(lock) rtdd_lock_no_order((void *)(lock))

#ifdef __cplusplus
}
#endif
#endif

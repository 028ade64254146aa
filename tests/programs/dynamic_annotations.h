/* Dynamic annotations as code annotated for ThreadSanitizer declares them
 * (Chromium's and Abseil's dynamic_annotations): weak, so that the program
 * runs without a runtime that defines them, and under one (TSan, or rtdd's
 * librtdd.so) reports what they describe. */
#ifndef DYNAMIC_ANNOTATIONS_H
#define DYNAMIC_ANNOTATIONS_H
#define DA_WEAK __attribute__((weak))
void AnnotateRWLockCreate(const char *file, int line, const volatile void *lock) DA_WEAK;
void AnnotateRWLockDestroy(const char *file, int line, const volatile void *lock) DA_WEAK;
void AnnotateRWLockAcquired(const char *file, int line, const volatile void *lock, long is_w) DA_WEAK;
void AnnotateRWLockReleased(const char *file, int line, const volatile void *lock, long is_w) DA_WEAK;
#define DA_CALL(fn, ...) do { if (fn) fn(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define ANNOTATE_RWLOCK_CREATE(l) DA_CALL(AnnotateRWLockCreate, (l))
#define ANNOTATE_RWLOCK_DESTROY(l) DA_CALL(AnnotateRWLockDestroy, (l))
#define ANNOTATE_RWLOCK_ACQUIRED(l, is_w) DA_CALL(AnnotateRWLockAcquired, (l), (is_w))
#define ANNOTATE_RWLOCK_RELEASED(l, is_w) DA_CALL(AnnotateRWLockReleased, (l), (is_w))

/* A spinlock of the program's own, annotated: rtdd cannot see its atomics,
 * only what the annotations say. */
struct spin { int word; };
static inline void spin_init(struct spin *s) { s->word = 0; ANNOTATE_RWLOCK_CREATE(s); }
static inline void spin_lock(struct spin *s)
{
    while (__atomic_exchange_n(&s->word, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&s->word, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
    ANNOTATE_RWLOCK_ACQUIRED(s, 1);
}
static inline void spin_unlock(struct spin *s)
{
    ANNOTATE_RWLOCK_RELEASED(s, 1);
    __atomic_store_n(&s->word, 0, __ATOMIC_RELEASE);
}
static inline void spin_destroy(struct spin *s) { ANNOTATE_RWLOCK_DESTROY(s); }
#endif

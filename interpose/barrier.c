/* Barriers: pthread_barrier_wait is a wait that the other threads' arrival
 * ends (detect/barrier.c). glibc's pthread_barrier_t (2.36) holds, as
 * unsigned ints: in, current_round, count, then its futex sharing word (0
 * private, 128 process-shared), then out. A barrier round is a futex
 * wake-up anyway: its wrapper has no fast path. */
#include "hang/barrier.h"
#include "interpose.h"

#define BARRIER_WORD(b, i) __atomic_load_n(&((const unsigned *)(b))[i], __ATOMIC_RELAXED)
#define BARRIER_COUNT(b) BARRIER_WORD(b, 2)
#define BARRIER_SHARING(b) BARRIER_WORD(b, 3)

static enum rt_barrier_word barrier_word(const pthread_barrier_t *b)
{
    unsigned w = BARRIER_SHARING(b);
    if ((w & ~128u) != 0)
        return RT_BARRIER_BAD;
    return w ? RT_BARRIER_SHARED : RT_BARRIER_PRIVATE;
}

RTI_EXPORT int pthread_barrier_init(pthread_barrier_t *restrict b, const pthread_barrierattr_t *restrict attr,
                                    unsigned count)
{
    if (unlikely(!rti_resolved()))
        return 0;
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t;
    if ((!count || rt_filter_test(rt_line_filter, (uintptr_t)b >> RT_LINE_SHIFT)) && (t = rti_enter()) != NULL) {
        rt_on_barrier_init(t, (uintptr_t)b, count, pc);
        rti_leave();
    }
    int r = rti_real.barrier_init(b, attr, count);
    if (r == 0 && (t = rti_enter()) != NULL) {
        rt_on_barrier_inited(t, (uintptr_t)b, count, pc);
        rti_leave();
    }
    return r;
}

RTI_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
    if (unlikely(!rti_resolved()))
        return 0;
    struct rt_thread *t = rti_enter();
    if (t) {
        rt_on_barrier_destroy(t, (uintptr_t)b, barrier_word(b), RTI_CALLER());
        rti_leave();
    }
    return rti_real.barrier_destroy(b);
}

/* Not a cancellation point: the wait always returns. */
RTI_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
    uintptr_t pc = RTI_CALLER();
    struct rt_thread *t = rti_enter();
    if (unlikely(!t))
        return rti_resolved() ? rti_real.barrier_wait(b) : 0;
    rt_on_barrier_wait_begin(t, (uintptr_t)b, barrier_word(b), BARRIER_COUNT(b), BARRIER_SHARING(b) != 0, pc);
    rti_leave();
    int r = rti_real.barrier_wait(b);
    rti_guard++;
    rt_on_barrier_wait_end(t);
    rti_guard--;
    return r;
}

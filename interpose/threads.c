/* Thread creation and joining. Creation is the one place where the runtime may start its watchdog
 * thread safely. Starting it lazily where a thread begins to wait could
 * happen inside a signal handler that interrupted malloc, and creating a
 * thread allocates (seen: a handler's pthread_mutex_lock deadlocked on the
 * arena lock its thread held). A program's pthread_create runs where the
 * program may allocate, so the watchdog is started here, before the
 * program's second thread exists. */
#include "interpose.h"
#include "hang/hang.h"
#include "report/report.h"
#include <errno.h>
#include <threads.h>

static void before_thread_creation(void)
{
    if (rti_resolved() && !rti_guard && __atomic_load_n(&rti_state, __ATOMIC_ACQUIRE) == RTI_READY) {
        rti_guard++;
        rt_watchdog_start();
        rt_unwind_open();
        rti_guard--;
    }
}

RTI_EXPORT int pthread_create(pthread_t *tid, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    before_thread_creation();
    if (!rti_real.pthread_create)
        return EAGAIN; /* only while the real functions are being resolved */
    return rti_real.pthread_create(tid, attr, fn, arg);
}

/* C11 threads: glibc's thrd_create calls its pthread_create internally,
 * not through the symbol above. */
RTI_EXPORT int thrd_create(thrd_t *thr, thrd_start_t fn, void *arg)
{
    before_thread_creation();
    if (!rti_real.thrd_create)
        return thrd_error;
    return rti_real.thrd_create(thr, fn, arg);
}

/* Joining: a wait for a thread to end, in the deadlock watchdog's graph
 * (detect/hang/join.c). A cancelled join is no longer a wait. */
static void join_ended(struct rt_thread *t, int joined)
{
    rti_guard++;
    rt_on_join_end(t, joined);
    rti_guard--;
}

static void join_cancelled(void *arg)
{
    join_ended(arg, 0);
}

/* The tid of a thread not yet joined, 0 if it has ended: glibc's
 * per-thread CPU clock id encodes it as the kernel defines it
 * (MAKE_THREAD_CPUCLOCK: ~tid << 3 | CPUCLOCK_PERTHREAD_MASK | SCHED). */
static int joined_tid(pthread_t thread)
{
    clockid_t clock;
    if (pthread_getcpuclockid(thread, &clock) != 0 || (clock & 7) != 6)
        return 0;
    return ~(clock >> 3);
}

#define JOIN_BODY(thread, timed, real_call)                               \
    uintptr_t pc = RTI_CALLER();                                      \
    struct rt_thread *t = rti_enter();                                \
    if (unlikely(!t))                                                 \
        return rti_resolved() ? (real_call) : ESRCH;                  \
    rt_on_join_begin(t, (uintptr_t)(thread), timed, pc);                 \
    rt_on_join_target(t, joined_tid((pthread_t)(thread)));           \
    rti_leave();                                                      \
    int r;                                                            \
    pthread_cleanup_push(join_cancelled, t);                          \
    r = (real_call);                                                  \
    pthread_cleanup_pop(0);                                           \
    join_ended(t, r == 0);                                            \
    return r

RTI_EXPORT int pthread_join(pthread_t thread, void **retval)
{
    JOIN_BODY(thread, 0, rti_real.pthread_join(thread, retval));
}

RTI_EXPORT int pthread_timedjoin_np(pthread_t thread, void **retval, const struct timespec *abstime)
{
    JOIN_BODY(thread, 1, rti_real.pthread_timedjoin_np(thread, retval, abstime));
}

RTI_EXPORT int pthread_clockjoin_np(pthread_t thread, void **retval, clockid_t clock, const struct timespec *abstime)
{
    JOIN_BODY(thread, 1, rti_real.pthread_clockjoin_np(thread, retval, clock, abstime));
}

/* glibc's thrd_join joins without going through pthread_join. */
RTI_EXPORT int thrd_join(thrd_t thread, int *res)
{
    JOIN_BODY(thread, 0, rti_real.thrd_join(thread, res));
}

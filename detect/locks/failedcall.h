/* failed-call: a lock, condition-variable or semaphore call that failed
 * with an error a correct program does not expect (Helgrind's "Thread #1's
 * call to pthread_cond_timedwait failed with error code 22 (EINVAL)").
 * The results a program meets in normal operation are never reported. */
#ifndef RTDD_FAILEDCALL_H
#define RTDD_FAILEDCALL_H
#include "locks/thread.h"
#include <errno.h>
#include <stdint.h>

/* Which failures are part of a call's normal use (the wrapper says). */
enum {
    RT_CALL_TRY = 1,     /* a trylock's EBUSY, sem_trywait's EAGAIN */
    RT_CALL_TIMED = 2,   /* a timed call's ETIMEDOUT */
    RT_CALL_SIGNALS = 4, /* EINTR: a signal handler interrupted the wait (sem_wait) */
};

/* Is err (an error number, never 0) a normal result of a call with these
 * RT_CALL_* flags? EOWNERDEAD always is: a robust mutex whose owner died
 * is acquired (rtdd models it so). Inline: a trylock loop's EBUSY costs a
 * compare, no call. */
static inline int rt_call_failure_normal(int err, unsigned flags)
{
    return err == EOWNERDEAD || ((flags & RT_CALL_TRY) && (err == EBUSY || err == EAGAIN)) ||
           ((flags & RT_CALL_TIMED) && err == ETIMEDOUT) || ((flags & RT_CALL_SIGNALS) && err == EINTR);
}

/* Thread t's call (its name, "pthread_mutex_lock") on the object at obj
 * (0: none) failed with err, which is not normal for it, and no other
 * check reported on the call: one failed-call report per call site and
 * error. */
void rt_on_call_failed(struct rt_thread *t, const char *call, uintptr_t obj, int err, uintptr_t pc);
/* "EDEADLK" for EDEADLK, NULL for a number the table does not name. */
const char *rt_errno_name(int err);
#endif

/* failed-call (failedcall.h): what the failure means for the program, in
 * one report per call site and error. */
#include "locks/failedcall.h"
#include "locks/lockdesc.h"
#include "locks/locks.h"
#include "report/report.h"
#include "report/unwind.h"
#include <string.h>

static const struct { int err; const char *name, *text; } errors[] = {
    { EINVAL, "EINVAL", "Invalid argument" },
    { EPERM, "EPERM", "Operation not permitted" },
    { EDEADLK, "EDEADLK", "Resource deadlock avoided" },
    { EBUSY, "EBUSY", "Device or resource busy" },
    { EAGAIN, "EAGAIN", "Resource temporarily unavailable" },
    { ETIMEDOUT, "ETIMEDOUT", "Connection timed out" },
    { EINTR, "EINTR", "Interrupted system call" },
    { EOVERFLOW, "EOVERFLOW", "Value too large for defined data type" },
    { ENOTRECOVERABLE, "ENOTRECOVERABLE", "State not recoverable" },
    { EOWNERDEAD, "EOWNERDEAD", "Owner died" },
    { ENOMEM, "ENOMEM", "Cannot allocate memory" },
    { ENOTSUP, "ENOTSUP", "Operation not supported" },
    { ENOSYS, "ENOSYS", "Function not implemented" },
    { ESRCH, "ESRCH", "No such process" },
};

static int errors_index(int err)
{
    for (unsigned i = 0; i < sizeof errors / sizeof *errors; i++)
        if (errors[i].err == err)
            return (int)i;
    return -1;
}

const char *rt_errno_name(int err)
{
    int i = errors_index(err);
    return i < 0 ? NULL : errors[i].name;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What did not happen, in one sentence, by the call's family and error. */
static const char *consequence(const char *call, int err)
{
    int wait = strstr(call, "wait") != NULL, destroy = strstr(call, "destroy") != NULL,
        init = strstr(call, "_init") != NULL, sem = starts(call, "sem_");
    if (destroy)
        return err == EBUSY ? "The object is still in use (locked, or waited on): it was not destroyed, and the "
                              "program goes on as if it were (its memory freed or reused next)."
                            : "The object was not destroyed.";
    if (init)
        return err == EINVAL && sem
                   ? "The semaphore was not initialized (its value is above SEM_VALUE_MAX, or the object is "
                     "invalid): every later call on it uses memory that is no semaphore."
                   : "The object was not initialized (an attribute the call does not support, or no memory): "
                     "every later call on it uses memory that is no lock.";
    switch (err) {
    case EDEADLK:
        return "The calling thread already holds the lock, and the lock (an error-checking mutex) refused to deadlock: "
               "the call did not lock it. Code that goes on as if it did unlocks it once too often later.";
    case EPERM:
        return wait ? "The calling thread does not own the mutex passed to the wait: the wait did not happen, and "
                      "the mutex was neither released nor taken again."
                    : "The calling thread does not own the lock the call needs it to own: the call did nothing.";
    case EAGAIN:
        return "A limit of the lock was reached (a recursive mutex locked too many times, too many readers of an "
               "rwlock): the call did not lock it.";
    case EOVERFLOW:
        return "The semaphore's value would pass SEM_VALUE_MAX: the post was not made, and a waiter it was meant "
               "to wake may wait forever.";
    case ENOTRECOVERABLE:
        return "The robust mutex's owner died and nobody made its state consistent (pthread_mutex_consistent) "
               "before unlocking it: it can never be locked again.";
    case EINVAL:
        return wait ? "An argument is invalid (a timeout whose tv_nsec is not in 0..999999999, an object that is "
                      "not initialized, or two waits on one condition variable with different mutexes): the call "
                      "returned at once, without waiting."
                    : "An argument is invalid (an object that is not initialized or was destroyed, or a timeout "
                      "whose tv_nsec is not in 0..999999999): the call did nothing.";
    default:
        return "The call did nothing.";
    }
}

void rt_on_call_failed(struct rt_thread *t, const char *call, uintptr_t obj, int err, uintptr_t pc)
{
    char comm[32], desc[512], num[48];
    int i = errors_index(err);
    const char *name = i < 0 ? NULL : errors[i].name;
    if (!name) {
        struct rt_buf b;
        rt_buf_init(&b, num, sizeof num);
        rt_buf_printf(&b, "error %d", err);
        name = num;
    }
    rt_thread_comm(t->tid, comm, sizeof comm);
    struct rt_report *r = rt_report_begin(RT_KIND_FAILED_CALL, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: lock or wait call failed");
    rt_stack_id here = rt_stack_capture((unsigned)rt_opt.stack_depth);
    if (obj) {
        rt_lock_describe(rt_locktab_find(obj), obj, desc, sizeof desc);
        rt_report_stack(r, here, "%s/%d's call to %s() on %s failed with %s (%d: %s), at:", comm, t->tid, call, desc,
                        name, err, i < 0 ? "unknown error" : errors[i].text);
    } else {
        rt_report_stack(r, here, "%s/%d's call to %s() failed with %s (%d: %s), at:", comm, t->tid, call, name, err,
                        i < 0 ? "unknown error" : errors[i].text);
    }
    rt_report_text(r, "%s", consequence(call, err));
    rt_report_text(r, "rtdd cannot see whether the program checks the result: if it does not, the synchronization "
                      "it meant did not happen.");
    rt_report_held_locks(r, t, comm);
    /* Once per call site and error. */
    rt_report_key(r, rt_hash64(pc) ^ rt_hash64((uint64_t)(unsigned)err << 1 | 1) ^ 0xfa11);
    rt_report_finish(r);
}

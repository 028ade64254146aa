/* Condition variables: the wait's hidden unlock and relock of the mutex,
 * and cond-misuse (waiting without holding the mutex, or one condvar
 * waited on with two mutexes at once). */
#include "engine.h"
#include "lockdesc.h"
#include "report.h"
#include "runtime.h"
#include "unwind.h"

static const struct rt_held *held_entry(const struct rt_thread *t, uintptr_t addr, unsigned *index)
{
    for (unsigned i = t->nheld; i-- > 0;)
        if (t->held[i].addr == addr) {
            *index = i;
            return &t->held[i];
        }
    return NULL;
}

static void report_cond_misuse(struct rt_thread *t, struct rt_lock *cond, uintptr_t mutex, const char *what,
                               uintptr_t other_addr)
{
    char comm[32], cdesc[512], mdesc[512], odesc[512];
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(cond, cond ? cond->addr : 0, cdesc, sizeof cdesc);
    rt_lock_describe(rt_lock_find(mutex), mutex, mdesc, sizeof mdesc);
    struct rt_report *r = rt_report_begin(RT_KIND_COND_MISUSE, t->tid);
    if (!r)
        return;
    rt_report_headline(r, "WARNING: condition variable misuse");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth), "%s/%d waits on condition variable %s at:",
                    comm, t->tid, cdesc);
    rt_report_text(r, "with mutex %s,", mdesc);
    if (other_addr) {
        rt_lock_describe(rt_lock_find(other_addr), other_addr, odesc, sizeof odesc);
        rt_report_text(r, "%s: %s.", what, odesc);
        rt_report_text(r, "A condition variable must be used with one mutex at a time: a signal may wake a waiter "
                          "whose predicate is protected by the other mutex, and be lost.");
    } else {
        rt_report_text(r, "%s.", what);
    }
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_report_cond_destroy_busy(struct rt_thread *t, struct rt_lock *c, uintptr_t pc)
{
    char comm[32], desc[512];
    (void)pc;
    rt_thread_comm(t->tid, comm, sizeof comm);
    rt_lock_describe(c, c->addr, desc, sizeof desc);
    struct rt_report *r = rt_report_begin(RT_KIND_COND_MISUSE, t->tid);
    if (!r)
        return;
    int waiters = __atomic_load_n(&c->cond_waiters, __ATOMIC_ACQUIRE);
    rt_report_headline(r, "WARNING: condition variable misuse");
    rt_report_stack(r, rt_stack_capture((unsigned)rt_opt.stack_depth),
                    "%s/%d destroys condition variable %s at:", comm, t->tid, desc);
    rt_report_text(r, "while %d thread%s wait%s on it. POSIX leaves this undefined; glibc's pthread_cond_destroy "
                      "waits until every waiter has been woken, so the destroying thread hangs if nobody signals.",
                   waiters, waiters == 1 ? "" : "s", waiters == 1 ? "s" : "");
    rt_report_held_locks(r, t, comm);
    rt_report_finish(r);
}

void rt_on_cond_wait_begin(struct rt_thread *t, uintptr_t cond, uintptr_t mutex, int owned_elsewhere, int timed,
                           int shared, uintptr_t pc)
{
    rt_held_name(t);
    struct rt_lock *c = rt_lock_lookup(t, cond, RT_LOCK_COND, pc);
    unsigned index;
    const struct rt_held *h = held_entry(t, mutex, &index);
    /* The held stack answers, whether the mutex was ever seen or not. */
    if (!h && !t->untracked && !owned_elsewhere)
        report_cond_misuse(t, c, mutex, "but the thread does not hold that mutex", 0);
    if (c && h) {
        /* The first waiter names the mutex; a waiter that finds none named
         * yet (the first is between its count and its store) names it. */
        uintptr_t expected = 0;
        if (__atomic_fetch_add(&c->cond_waiters, 1, __ATOMIC_ACQ_REL) == 0)
            __atomic_store_n(&c->cond_mutex_addr, mutex, __ATOMIC_RELEASE);
        else if (!__atomic_compare_exchange_n(&c->cond_mutex_addr, &expected, mutex, 0, __ATOMIC_ACQ_REL,
                                              __ATOMIC_ACQUIRE) &&
                 expected != mutex)
            report_cond_misuse(t, c, mutex, "while other threads wait on it with a different mutex", expected);
    }
    if (c)
        rt_on_event_wait_begin(t, c, mutex, timed, shared, pc);
    /* The wait releases the mutex inside libc. */
    if (h)
        rt_on_lock_release(t, mutex, pc);
}

void rt_on_cond_wait_end(struct rt_thread *t, uintptr_t cond, uintptr_t mutex, uintptr_t pc)
{
    rt_on_event_wait_end(t);
    struct rt_lock *c = rt_locktab_find(cond); /* a condvar: never lazy */
    if (c && __atomic_load_n(&c->cond_waiters, __ATOMIC_ACQUIRE) > 0 &&
        __atomic_sub_fetch(&c->cond_waiters, 1, __ATOMIC_ACQ_REL) == 0)
        __atomic_store_n(&c->cond_mutex_addr, 0, __ATOMIC_RELEASE);
    /* ...and takes it again: the same checks as a lock call, though the
     * thread can no longer be stopped before it blocks. */
    struct rt_lock *m = rt_lock_lookup(t, mutex, RT_LOCK_MUTEX, pc);
    if (!m)
        return;
    uint64_t chain = rt_on_lock_pre(t, m, 0, pc);
    rt_on_lock_acquired(t, m, 0, chain, pc);
}

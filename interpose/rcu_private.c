/* The runtime's private librtdd_rcu (detect/locks/thread.c reclaims thread
 * records with it). Its objects are built with the pthread functions that
 * librtdd.so interposes renamed to these (rcu_private.syms), so its locks
 * and its callback worker never enter the wrappers: no lock records, no
 * reports, no recursion into the runtime, whatever the guard says. The
 * runtime calls RCU only once it is set up, so the real functions are
 * known by then (only the fork handler's re-inits could come earlier). */
#include "interpose.h"
#include "core/core.h"
#include <errno.h>
#include <signal.h>

RT_HIDDEN int rti_rcu_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
RT_HIDDEN int rti_rcu_mutex_lock(pthread_mutex_t *m);
RT_HIDDEN int rti_rcu_mutex_unlock(pthread_mutex_t *m);
RT_HIDDEN int rti_rcu_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
RT_HIDDEN int rti_rcu_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
RT_HIDDEN int rti_rcu_cond_broadcast(pthread_cond_t *c);
RT_HIDDEN int rti_rcu_thread_create(pthread_t *tid, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
RT_HIDDEN int rti_rcu_timedjoin(pthread_t tid, void **ret, const struct timespec *abstime);
RT_HIDDEN long rti_rcu_syscall(long number, ...);

int rti_rcu_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    if (!rti_real.mutex_init)
        return EAGAIN;
    return rti_real.mutex_init(m, attr);
}

int rti_rcu_mutex_lock(pthread_mutex_t *m)
{
    return rti_real.mutex_lock(m);
}

int rti_rcu_mutex_unlock(pthread_mutex_t *m)
{
    return rti_real.mutex_unlock(m);
}

int rti_rcu_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    if (!rti_real.cond_init)
        return EAGAIN;
    return rti_real.cond_init(c, attr);
}

int rti_rcu_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    return rti_real.cond_wait(c, m);
}

int rti_rcu_cond_broadcast(pthread_cond_t *c)
{
    return rti_real.cond_broadcast(c);
}

struct rcu_start {
    void *(*fn)(void *);
    void *arg;
};

/* The callback worker is a runtime thread like the watchdog: guard always
 * raised, so nothing it does is tracked or reported, and no signal of the
 * program is delivered to it. */
static void *rcu_thread_main(void *p)
{
    struct rcu_start *s = p;
    rti_guard = 1;
    return s->fn(s->arg);
}

/* One small leak per worker start (once per process, once per fork child
 * that reclaims): rt_zalloc has no free. */
int rti_rcu_thread_create(pthread_t *tid, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    struct rcu_start *s = rt_zalloc(sizeof *s);
    if (!s || !rti_real.pthread_create)
        return EAGAIN;
    s->fn = fn;
    s->arg = arg;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = rti_real.pthread_create(tid, attr, rcu_thread_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int rti_rcu_timedjoin(pthread_t tid, void **ret, const struct timespec *abstime)
{
    if (!rti_real.pthread_timedjoin_np)
        return ENOSYS;
    return rti_real.pthread_timedjoin_np(tid, ret, abstime);
}

long rti_rcu_syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long r = rti_vsyscall(number, ap);
    va_end(ap);
    return r;
}

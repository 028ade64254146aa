/* Library life cycle: set-up in a constructor (also run lazily from the
 * first registration, for code that runs before constructors), and a
 * destructor that makes dlclose() safe: the worker is stopped and joined
 * and the thread-exit destructor is detached before the code goes away. */
#include "rcu_internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

RTDD_HIDDEN void rtdd_rcu_registry_init(void);
RTDD_HIDDEN void rtdd_rcu_registry_fini(void);
RTDD_HIDDEN void rtdd_rcu_fork_init(void);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_all(void)
{
    rtdd_rcu_limits_init();
    rtdd_rcu_barrier_init();
    rtdd_rcu_registry_init();
    rtdd_rcu_fork_init();
}

void rtdd_rcu_init_once(void)
{
    pthread_once(&init_once, init_all);
}

__attribute__((constructor)) static void rtdd_rcu_constructor(void)
{
    rtdd_rcu_init_once();
}

__attribute__((destructor)) static void rtdd_rcu_destructor(void)
{
    rtdd_rcu_callbacks_shutdown();
    rtdd_rcu_registry_fini();
}

/* A warning to a stderr whose reader is gone (`prog 2>&1 | head`) must not
 * kill the program with SIGPIPE: blocked around the write, and the one the
 * write raised is taken back (one the program had pending stays). */
void rtdd_rcu_warn_once(int *flag, const char *msg)
{
    if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
        return;
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    int masked = pthread_sigmask(SIG_BLOCK, &pipe_only, &old) == 0;
    int was_pending = !masked || sigpending(&pending) != 0 || sigismember(&pending, SIGPIPE);
    ssize_t rc = write(2, msg, strlen(msg));
    if (rc < 0 && errno == EPIPE && !was_pending) {
        static const struct timespec zero;
        sigtimedwait(&pipe_only, NULL, &zero);
    }
    if (masked)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void rtdd_rcu_get_stats(struct rtdd_rcu_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->grace_periods = rtdd_rcu_gp_count();
    rtdd_rcu_callbacks_stats(out);
    out->read_slow_calls = rtdd_rcu_registry_slow_calls();
    out->registered_threads = rtdd_rcu_registry_count();
    out->membarrier = rtdd_rcu_has_membarrier();
}

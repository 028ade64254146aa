/* A deadlock through a condition variable that does not happen in this
 * run: the reporter waits on `flushed` while holding stats_lock (it gives
 * up after 200 ms this time), and `flushed` is only ever signalled by the
 * flusher, with stats_lock held. Had the reporter waited for that signal,
 * neither could go on: reported before any hang, in the lock-order family
 * (exit 66). */
// expect: cond-lock-order
// log: WARNING: possible circular locking dependency detected through a wait on a condition variable or semaphore
// log: waits on condition variable
// log: while holding stats_lock, at:
// log: stats_lock was taken by cond_lock_order/
// log: holds stats_lock when it does, taken at:
// log: and signalled flushed at:
// log: *** DEADLOCK ***
#include <pthread.h>
#include <time.h>
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER, m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flushed = PTHREAD_COND_INITIALIZER;
static int done, stats;

static void *reporter(void *arg)
{
    (void)arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&stats_lock);
    pthread_mutex_lock(&m);
    while (!done && pthread_cond_timedwait(&flushed, &m, &until) == 0)
        ;
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&stats_lock);
    return NULL;
}

static void *flusher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stats_lock);
    stats++;
    pthread_mutex_lock(&m);
    done = 1;
    pthread_cond_signal(&flushed);
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&stats_lock);
    return NULL;
}

int main(void)
{
    pthread_t r, f;
    pthread_create(&r, NULL, reporter, NULL);
    pthread_join(r, NULL);
    pthread_create(&f, NULL, flusher, NULL);
    pthread_join(f, NULL);
    return 0;
}

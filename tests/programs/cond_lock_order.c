/* A deadlock through a condition variable that does not happen in this
 * run: the reporter waits on `flushed` while holding stats_lock (a third
 * thread wakes it this time), and the flusher, which also signals
 * `flushed`, takes stats_lock on its way to the signal. Had the reporter
 * depended on the flusher's signal, neither could go on: reported before
 * any hang, in the lock-order family (exit 66). */
// expect: cond-lock-order
// log: WARNING: possible circular locking dependency detected through a wait on a condition variable or semaphore
// log: waits on condition variable
// log: while holding stats_lock, at:
// log: stats_lock was taken by cond_lock_order/
// log: took stats_lock on its way to the signal, at:
// log: and then signalled flushed at:
// log: *** DEADLOCK ***
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER, m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flushed = PTHREAD_COND_INITIALIZER;
static int done, in_wait, stats;

static void *reporter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stats_lock);
    pthread_mutex_lock(&m);
    in_wait = 1;
    while (!done)
        pthread_cond_wait(&flushed, &m);
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&stats_lock);
    return NULL;
}

static void *waker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&m); /* free only while the reporter waits */
        if (in_wait)
            break;
        pthread_mutex_unlock(&m);
        usleep(1000);
    }
    done = 1;
    pthread_cond_broadcast(&flushed);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *flusher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stats_lock);
    stats++;
    pthread_mutex_unlock(&stats_lock);
    pthread_mutex_lock(&m);
    pthread_cond_signal(&flushed);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t r, w, f;
    pthread_create(&r, NULL, reporter, NULL);
    pthread_create(&w, NULL, waker, NULL);
    pthread_join(r, NULL);
    pthread_join(w, NULL);
    pthread_create(&f, NULL, flusher, NULL);
    pthread_join(f, NULL);
    return 0;
}

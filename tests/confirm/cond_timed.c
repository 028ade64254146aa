/* A cond-lock-order cycle that always recovers: the reporter waits on
 * `flushed` holding stats_lock with a 200 ms timeout, and gives up; the
 * flusher, 300 ms later, signals it with stats_lock held. rtdd warns (had
 * the wait had no timeout, it would deadlock). Steered, the flusher blocks
 * on stats_lock while the reporter waits, until the timeout ends the wait:
 * a stall, never a deadlock, so never confirmed. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER, m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flushed = PTHREAD_COND_INITIALIZER;
static int done, stats;

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void *reporter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stats_lock);
    pthread_mutex_lock(&m);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    while (!done && pthread_cond_timedwait(&flushed, &m, &until) == 0)
        ;
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&stats_lock);
    return NULL;
}

static void *flusher(void *arg)
{
    (void)arg;
    pause_ms(300);
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
    pthread_create(&f, NULL, flusher, NULL);
    pthread_join(r, NULL);
    pthread_join(f, NULL);
    printf("stats %d\n", stats);
    return 0;
}

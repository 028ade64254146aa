/* A thread pool idle longer than every watchdog timeout: its workers wait
 * on a condition variable holding nothing else, the main thread sleeps,
 * then queues work and shuts the pool down. While starting the pool the
 * main thread waits for the workers holding pool_lock, which no worker
 * takes on its way to the signal. Nothing to report. */
// expect: none
// options: hang_timeout_ms=400:deadlock_timeout_ms=300
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#define WORKERS 4
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER, started = PTHREAD_COND_INITIALIZER;
static int queued, done, stop, running;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    running++;
    pthread_cond_signal(&started);
    for (;;) {
        while (!queued && !stop)
            pthread_cond_wait(&work, &m);
        if (queued) {
            queued--;
            done++;
            continue;
        }
        break;
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    pthread_mutex_lock(&m);
    while (running < WORKERS)
        pthread_cond_wait(&started, &m);
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&pool_lock);
    usleep(1200 * 1000); /* idle: every worker waits on `work` */
    pthread_mutex_lock(&m);
    queued = 100;
    pthread_cond_broadcast(&work);
    pthread_mutex_unlock(&m);
    usleep(100 * 1000);
    pthread_mutex_lock(&m);
    stop = 1;
    pthread_cond_broadcast(&work);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("%d done\n", done);
    return done == 100 ? 0 : 1;
}

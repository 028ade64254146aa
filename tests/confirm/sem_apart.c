/* A cond-lock-order cycle through a semaphore, its halves 200 ms apart: the
 * flusher posts `flushed` holding stats_lock; 200 ms later the reporter
 * takes stats_lock and waits on `flushed` (the count is there: it does not
 * block). rtdd warns; steered (the flusher paused at its lock call until
 * the reporter waits holding stats_lock), the rerun deadlocks. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t flushed;
static int stats;

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void *reporter(void *arg)
{
    (void)arg;
    pause_ms(200);
    pthread_mutex_lock(&stats_lock);
    sem_wait(&flushed);
    printf("stats %d\n", stats);
    pthread_mutex_unlock(&stats_lock);
    return NULL;
}

static void *flusher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stats_lock);
    stats++;
    sem_post(&flushed);
    pthread_mutex_unlock(&stats_lock);
    return NULL;
}

int main(void)
{
    pthread_t r, f;
    sem_init(&flushed, 0, 0);
    pthread_create(&r, NULL, reporter, NULL);
    pthread_create(&f, NULL, flusher, NULL);
    pthread_join(f, NULL);
    pthread_join(r, NULL);
    sem_destroy(&flushed);
    return 0;
}

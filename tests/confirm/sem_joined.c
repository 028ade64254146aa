/* The look-alike of sem_apart.c that cannot deadlock: the reporter starts
 * only once the flusher has posted and ended (pthread_join), so its
 * sem_wait always finds the count. rtdd still warns (distinct threads, the
 * poster holds stats_lock); no steered rerun can close the cycle: the
 * flusher, paused at its lock call, waits for a reporter that does not
 * exist yet. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t flushed;
static int stats;

static void *reporter(void *arg)
{
    (void)arg;
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
    pthread_create(&f, NULL, flusher, NULL);
    pthread_join(f, NULL);
    pthread_create(&r, NULL, reporter, NULL);
    pthread_join(r, NULL);
    sem_destroy(&flushed);
    return 0;
}

/* Correct use of every mutex flavour the foundation tracks: no report. */
// expect: none
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t global = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static long counter;

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&global);
        counter++;
        pthread_mutex_unlock(&global);
        pthread_mutex_lock(&recursive);
        pthread_mutex_lock(&recursive);
        pthread_mutex_unlock(&recursive);
        pthread_mutex_unlock(&recursive);
        if (pthread_mutex_trylock(&global) == 0)
            pthread_mutex_unlock(&global);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    /* Heap locks: unlocked before free, destroyed or not. */
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_t *m = malloc(sizeof *m);
        pthread_mutex_init(m, NULL);
        pthread_mutex_lock(m);
        pthread_mutex_unlock(m);
        if (i & 1)
            pthread_mutex_destroy(m);
        free(m);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    pthread_mutex_timedlock(&global, &ts);
    pthread_mutex_unlock(&global);
    pthread_mutex_clocklock(&global, CLOCK_MONOTONIC, &ts);
    pthread_mutex_unlock(&global);
    /* Address reuse: a new lock at a freed lock's address is a new lock. */
    pthread_mutex_t *a = malloc(sizeof *a);
    pthread_mutex_init(a, NULL);
    pthread_mutex_lock(a);
    pthread_mutex_unlock(a);
    free(a);
    pthread_mutex_t *b = malloc(sizeof *b);
    pthread_mutex_init(b, NULL);
    pthread_mutex_lock(b);
    pthread_mutex_unlock(b);
    free(b);
    return counter == 80000 ? 0 : 1;
}

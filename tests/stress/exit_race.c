/* The process ends (MODE exit, _exit or return) while four threads lock,
 * unlock, allocate and free as fast as they can, two threads sleep holding
 * locks and one is blocked on a held lock. With REPORT=1 a report is issued
 * first, so the exit status must be the runtime's exitcode (for _exit, only
 * _exit(0) is replaced: docs/options.md).
 * Usage: exit_race MODE REPORT DELAY_US */
#include "freers.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t held[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t main_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t ready;

static void *churn(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&ready);
    for (;;) {
        pthread_mutex_t *m = malloc(sizeof *m);
        pthread_mutex_init(m, NULL);
        pthread_mutex_lock(&shared);
        pthread_mutex_lock(m);
        pthread_mutex_unlock(m);
        pthread_mutex_unlock(&shared);
        pthread_mutex_destroy(m);
        free(m);
    }
    return NULL;
}

static void *holder(void *arg)
{
    pthread_mutex_lock(&held[(long)arg]);
    pthread_barrier_wait(&ready);
    for (;;)
        pause();
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&ready);
    pthread_mutex_lock(&held[0]); /* blocks until the process ends */
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *mode = argv[1];
    int report = atoi(argv[2]);
    useconds_t delay = (useconds_t)atoi(argv[3]);
    pthread_t t;
    pthread_barrier_init(&ready, NULL, 8);
    for (long i = 0; i < 2; i++)
        pthread_create(&t, NULL, holder, (void *)i);
    for (int i = 0; i < 4; i++)
        pthread_create(&t, NULL, churn, NULL);
    pthread_create(&t, NULL, waiter, NULL);
    pthread_barrier_wait(&ready);
    if (report)
        free_held_lock(0);
    usleep(delay);
    pthread_mutex_lock(&main_lock); /* main itself exits holding a lock */
    if (!strcmp(mode, "exit"))
        exit(3);
    if (!strcmp(mode, "_exit"))
        _exit(4);
    if (!strcmp(mode, "_exit0"))
        _exit(0);
    return 5;
}

/* One thread takes a lock and blocks in read() on a pipe; forty threads,
 * each holding a lock of its own, block on that lock. The blocked-too-long
 * report lists every thread's locks and waits: all forty, and its closing
 * line (before, the report lost its tail after 48 lines). The main thread then writes to the
 * pipe and the program ends normally. */
// options: hang_timeout_ms=1000
// expect: blocked-too-long
// log: INFO: thread hang_forty_wait/
// log: is not waiting for a lock: it is in read(2) on fd
// log: Locks held and waits of every thread:
// log-count: 40 waits for config_lock (
// log-count: 41 1 lock held by hang_forty_wait/
// log-count: 40 : own_lock, taken at hang_forty_waiters.c
// log: No cycle of waits holds these threads
// exit: 0
#include <pthread.h>
#include <unistd.h>
#include "../../include/rtdd/annotate.h"
#define WAITERS 40
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER, own_lock[WAITERS];
static pthread_barrier_t start;
static int pipefd[2];

static void *holder(void *arg)
{
    (void)arg;
    char c;
    pthread_mutex_lock(&config_lock);
    pthread_barrier_wait(&start);
    ssize_t n = read(pipefd[0], &c, 1); /* blocks until main writes */
    (void)n;
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

static void *waiter(void *arg)
{
    pthread_mutex_t *own = arg;
    pthread_mutex_lock(own);
    pthread_barrier_wait(&start);
    pthread_mutex_lock(&config_lock);
    pthread_mutex_unlock(&config_lock);
    pthread_mutex_unlock(own);
    return NULL;
}

int main(void)
{
    if (pipe(pipefd))
        return 2;
    RTDD_LOCK_NAME(&config_lock, "config_lock");
    pthread_barrier_init(&start, NULL, WAITERS + 1);
    pthread_t h, w[WAITERS];
    pthread_create(&h, NULL, holder, NULL);
    for (int i = 0; i < WAITERS; i++) {
        pthread_mutex_init(&own_lock[i], NULL);
        RTDD_LOCK_NAME(&own_lock[i], "own_lock");
        pthread_create(&w[i], NULL, waiter, &own_lock[i]);
    }
    sleep(3);
    ssize_t n = write(pipefd[1], "x", 1);
    (void)n;
    pthread_join(h, NULL);
    for (int i = 0; i < WAITERS; i++)
        pthread_join(w[i], NULL);
    return 0;
}

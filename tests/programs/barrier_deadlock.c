/* A barrier of count 3 that only two threads reach: both wait forever,
 * and the main thread joins them. Every thread is blocked without a
 * timeout and none is left to reach the barrier: the watchdog says so
 * and the run ends (exit_on_deadlock). */
// expect: deadlock
// options: deadlock_timeout_ms=300
// log: BUG: deadlock detected, all 3 threads blocked, none can wake another
// log: waiting on barrier [
// log: (pthread_barrier_t, initialized at barrier_deadlock.c:26 in main)
// log: in pthread_join, joining barrier_deadloc/
// log: a signal can only come from a thread that runs, and none does
#include <pthread.h>

static pthread_barrier_t bar;

static void *worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    pthread_barrier_init(&bar, NULL, 3);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}

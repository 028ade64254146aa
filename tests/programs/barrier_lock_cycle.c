/* A deadlock through a barrier and a mutex: after a first round, the
 * first worker waits at the barrier holding `state`; the second needs
 * `state` before it reaches the barrier. The main thread sleeps (it is
 * not blocked in a wait rtdd models), so this is a cycle of two threads,
 * not "every thread blocked". */
// expect: deadlock
// options: deadlock_timeout_ms=300
// log: BUG: deadlock detected
// log: waiting on barrier [
// log: which only barrier_lock_cy/
// log: is known to reach, at:
// log: waiting for [
// log: state (pthread_mutex_t, static
#include <pthread.h>
#include <unistd.h>

static pthread_barrier_t bar;
static pthread_mutex_t state = PTHREAD_MUTEX_INITIALIZER;
static volatile int holding;

static void *first(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);
    pthread_mutex_lock(&state);
    holding = 1;
    pthread_barrier_wait(&bar);
    pthread_mutex_unlock(&state);
    return NULL;
}

static void *second(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);
    while (!holding)
        usleep(1000);
    pthread_mutex_lock(&state);
    pthread_barrier_wait(&bar);
    pthread_mutex_unlock(&state);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_barrier_init(&bar, NULL, 2);
    pthread_create(&a, NULL, first, NULL);
    pthread_create(&b, NULL, second, NULL);
    for (;;)
        sleep(1);
}

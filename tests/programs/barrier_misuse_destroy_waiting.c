/* pthread_barrier_destroy while a thread waits on the barrier in a round
 * that is not complete. glibc's destroy then waits for the round to
 * complete, which never happens: a helper thread ends the process once
 * the destroy has started (glibc's destroy moves the barrier's `out`
 * word). The main thread waits until glibc counts the waiter (`in`). */
// expect: barrier-misuse
// log: destroys barrier
// log: while 1 thread waits on it, in a round that is not complete
// log: glibc's pthread_barrier_destroy waits until the round completes
// log: SUMMARY: rtdd: barrier-misuse barrier_misuse_destroy_waiting.c:45 in main
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t bar;

static unsigned word(int i)
{
    return __atomic_load_n(&((unsigned *)&bar)[i], __ATOMIC_ACQUIRE);
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);
    return NULL;
}

static void *ender(void *arg)
{
    (void)arg;
    while (word(4) == 0) /* out */
        usleep(1000);
    exit(0);
}

int main(void)
{
    pthread_t w, e;
    pthread_barrier_init(&bar, NULL, 2);
    pthread_create(&w, NULL, waiter, NULL);
    while (word(0) == 0) /* in: the waiter arrived */
        usleep(1000);
    pthread_create(&e, NULL, ender, NULL);
    pthread_barrier_destroy(&bar); /* never returns */
    return 1;
}

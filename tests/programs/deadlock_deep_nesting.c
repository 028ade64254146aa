/* Two threads each hold 100 mutexes of their own, then take A and B in
 * opposite orders and deadlock. No limit on held locks may hide the waits
 * from the watchdog: it reports the cycle and ends the run. */
// expect: lock-order-inversion deadlock
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: rtdd ends the run here with exit status 66
// no-output: NOT HUNG
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#define NESTED 100
static pthread_mutex_t a_lock = PTHREAD_MUTEX_INITIALIZER, b_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t own[2][NESTED];
static pthread_barrier_t both;
static void *worker(void *arg)
{
    int me = (int)(long)arg;
    for (int i = 0; i < NESTED; i++)
        pthread_mutex_lock(&own[me][i]);
    pthread_mutex_lock(me ? &b_lock : &a_lock);
    pthread_barrier_wait(&both);
    if (me)
        usleep(100 * 1000); /* worker 0 blocks first: worker 1 closes the cycle */
    pthread_mutex_lock(me ? &a_lock : &b_lock);
    return NULL;
}
int main(void)
{
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < NESTED; i++)
            pthread_mutex_init(&own[k][i], NULL);
    pthread_barrier_init(&both, NULL, 2);
    for (long k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    printf("NOT HUNG\n");
    return 0;
}

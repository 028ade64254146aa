/* Thirty threads, one after the other (each starts when the previous one
 * posts its turn), each take lock i and then lock i + 1 (the last: lock
 * 29, then lock 0): a ring of 30 locks that thirty threads running at once
 * could deadlock on. Reported as a
 * lock-order-inversion when the ring closes, with the links a report does
 * not list said with their number. */
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// log: -> ... (13 more locks) ->
// log: 13 more links of the chain, not listed (the cycle has 30 locks; a report lists the first 15 and the last)
// log: (thread 1 stands for the 29 threads that took the chain
// exit: 66
#include <pthread.h>
#include <semaphore.h>
#define N 30
static pthread_mutex_t m[N];
static sem_t turn[N + 1];

static void *link_one(void *arg)
{
    long i = (long)arg;
    sem_wait(&turn[i]);
    pthread_mutex_lock(&m[i]);
    pthread_mutex_lock(&m[(i + 1) % N]);
    pthread_mutex_unlock(&m[(i + 1) % N]);
    pthread_mutex_unlock(&m[i]);
    sem_post(&turn[i + 1]);
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&m[i], NULL);
    for (int i = 0; i <= N; i++)
        sem_init(&turn[i], 0, i == 0);
    for (long i = 0; i < N; i++)
        pthread_create(&t[i], NULL, link_one, (void *)i);
    sem_wait(&turn[N]);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    return 0;
}

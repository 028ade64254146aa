/* A bounded queue of semaphores (free slots, filled slots) and a mutex,
 * two producers and two consumers; a barrier made of a mutex and a
 * condition variable between rounds, and pthread_barrier_wait too.
 * Correct code: nothing to report. */
// expect: none
// options: deadlock_timeout_ms=300
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#define SLOTS 8
#define ITEMS 20000
static sem_t free_slots, filled;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER, bm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bcond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t rounds;
static int queue[SLOTS], head, tail, arrived, generation;
static long sum;

static void cond_barrier(int n)
{
    pthread_mutex_lock(&bm);
    int gen = generation;
    if (++arrived == n) {
        arrived = 0;
        generation++;
        pthread_cond_broadcast(&bcond);
    } else {
        while (gen == generation)
            pthread_cond_wait(&bcond, &bm);
    }
    pthread_mutex_unlock(&bm);
}

static void *producer(void *arg)
{
    (void)arg;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < ITEMS / 2; i++) {
            sem_wait(&free_slots);
            pthread_mutex_lock(&qlock);
            queue[tail++ % SLOTS] = 1;
            pthread_mutex_unlock(&qlock);
            sem_post(&filled);
        }
        cond_barrier(4);
        pthread_barrier_wait(&rounds);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < ITEMS / 2; i++) {
            sem_wait(&filled);
            pthread_mutex_lock(&qlock);
            sum += queue[head++ % SLOTS];
            pthread_mutex_unlock(&qlock);
            sem_post(&free_slots);
        }
        cond_barrier(4);
        pthread_barrier_wait(&rounds);
    }
    return NULL;
}

int main(void)
{
    sem_init(&free_slots, 0, SLOTS);
    sem_init(&filled, 0, 0);
    pthread_barrier_init(&rounds, NULL, 4);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, i < 2 ? producer : consumer, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    sem_destroy(&free_slots);
    sem_destroy(&filled);
    printf("%ld\n", sum);
    return sum == 2L * ITEMS ? 0 : 1;
}

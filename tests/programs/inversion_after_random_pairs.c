/* 1,000 mutexes in one array (adjacent records share lines and buckets)
 * and 100,000 random pairs, always the lower index first: a big acyclic
 * graph, learned through the per-thread caches and the record table. Then
 * one pair the other way round, planted by a second thread once the first
 * is done with its pairs (told by a plain flag, no join: both threads
 * live): the lock-order inversion must still be found among all those
 * edges (the graph is not confused by its size or by the lookup paths). */
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// log: SUMMARY: rtdd: lock-order-inversion inversion_after_random_pairs.c:
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define LOCKS 1000
#define PAIRS 100000
static pthread_mutex_t m[LOCKS];
static int pairs_done;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static void *random_pairs(void *arg)
{
    unsigned seed = 12345;
    (void)arg;
    for (int i = 0; i < PAIRS; i++) {
        unsigned a = next_rand(&seed) % LOCKS, b = next_rand(&seed) % LOCKS;
        if (a == b)
            continue;
        unsigned lo = a < b ? a : b, hi = a < b ? b : a;
        pthread_mutex_lock(&m[lo]);
        pthread_mutex_lock(&m[hi]);
        pthread_mutex_unlock(&m[hi]);
        pthread_mutex_unlock(&m[lo]);
    }
    /* The pair planted below, in its usual order (it is surely among the
     * random ones too). */
    pthread_mutex_lock(&m[17]);
    pthread_mutex_lock(&m[923]);
    pthread_mutex_unlock(&m[923]);
    pthread_mutex_unlock(&m[17]);
    __atomic_store_n(&pairs_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *planted(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&pairs_done, __ATOMIC_ACQUIRE))
        usleep(1000);
    pthread_mutex_lock(&m[923]);
    pthread_mutex_lock(&m[17]);
    pthread_mutex_unlock(&m[17]);
    pthread_mutex_unlock(&m[923]);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < LOCKS; i++)
        pthread_mutex_init(&m[i], NULL);
    pthread_t t[2];
    pthread_create(&t[0], NULL, random_pairs, NULL);
    pthread_create(&t[1], NULL, planted, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return 0;
}

/* A hashed array of locks (memcached's item locks): one thread takes an
 * item's lock, then the stats lock; another takes the stats lock, then an
 * item's lock. This run never takes one item lock both ways, but the hash
 * decides which one a request gets: the array's order against the stats
 * lock is a cycle, found once the array's locks are one node. */
// expect: lock-order-inversion
// log: stands for every lock initialized where it was
// log: taken while holding item_locks+0x
#include <pthread.h>
#define ITEMS 256
static pthread_mutex_t item_locks[ITEMS];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits[ITEMS], total;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITEMS; i += 2) {
        pthread_mutex_lock(&item_locks[i]);
        hits[i]++;
        pthread_mutex_lock(&stats_lock);
        total++;
        pthread_mutex_unlock(&stats_lock);
        pthread_mutex_unlock(&item_locks[i]);
    }
    return NULL;
}

static void *reporter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stats_lock);
    for (int i = 1; i < ITEMS; i += 64) {
        pthread_mutex_lock(&item_locks[i]);
        total += hits[i];
        pthread_mutex_unlock(&item_locks[i]);
    }
    pthread_mutex_unlock(&stats_lock);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < ITEMS; i++)
        pthread_mutex_init(&item_locks[i], NULL);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, reporter, NULL);
    pthread_join(t, NULL);
    return 0;
}

/* A hashed array of locks used as memcached uses its item locks: workers
 * take an item's lock, then the stats lock; a maintainer holds the stats
 * lock and only tries items' locks. The array becomes one node of the
 * order graph and nothing is reported. */
// expect: none
#include <pthread.h>
#define ITEMS 1024
static pthread_mutex_t item_locks[ITEMS];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits[ITEMS], total;

static void *worker(void *arg)
{
    unsigned h = (unsigned)(long)arg;
    for (int n = 0; n < 20000; n++) {
        h = h * 1103515245u + 12345u;
        unsigned i = (h >> 8) % ITEMS;
        pthread_mutex_lock(&item_locks[i]);
        hits[i]++;
        pthread_mutex_lock(&stats_lock);
        total++;
        pthread_mutex_unlock(&stats_lock);
        pthread_mutex_unlock(&item_locks[i]);
    }
    return NULL;
}

static void *maintainer(void *arg)
{
    (void)arg;
    for (int round = 0; round < 50; round++) {
        pthread_mutex_lock(&stats_lock);
        for (int i = round; i < ITEMS; i += 50) {
            if (pthread_mutex_trylock(&item_locks[i]) == 0) {
                hits[i] = 0;
                pthread_mutex_unlock(&item_locks[i]);
            }
        }
        pthread_mutex_unlock(&stats_lock);
    }
    return NULL;
}

int main(void)
{
    for (int i = 0; i < ITEMS; i++)
        pthread_mutex_init(&item_locks[i], NULL);
    pthread_t w[3], m;
    for (long i = 0; i < 3; i++)
        pthread_create(&w[i], NULL, worker, (void *)(i + 1));
    pthread_create(&m, NULL, maintainer, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(w[i], NULL);
    pthread_join(m, NULL);
    return 0;
}

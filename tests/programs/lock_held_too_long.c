/* hold_threshold_ms: a worker holds the cache lock across a slow refill
 * (300 ms of sleep standing for I/O), twice from the same place; another
 * thread waits for the lock meanwhile. One INFO report for the pair of
 * places (taken, released), with the time held; the exit status stays. */
// options: hold_threshold_ms=100
// expect: lock-held-too-long
// log: INFO: lock held for more than 100 ms
// log: held lock [
// log: (hold_threshold_ms=100), taken at:
// log: and released it at:
// log: lock_held_too_long.c:20 in refill_cache
// exit: 0
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int cache;

static void refill_cache(void)
{
    pthread_mutex_lock(&cache_lock);
    usleep(300 * 1000); /* the slow refill, under the lock */
    cache++;
    pthread_mutex_unlock(&cache_lock);
}

static void *reader(void *arg)
{
    (void)arg;
    usleep(50 * 1000);
    pthread_mutex_lock(&cache_lock);
    int c = cache;
    pthread_mutex_unlock(&cache_lock);
    return (void *)(long)c;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    refill_cache();
    refill_cache();
    pthread_join(t, NULL);
    return cache == 2 ? 0 : 1;
}

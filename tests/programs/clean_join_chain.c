/* Joins that wait long but close no cycle stay silent: main joins a worker
 * that waits for a lock a third thread holds while it sleeps, then lets go;
 * and a thread joined while it sleeps. */
// expect: none
// options: deadlock_timeout_ms=100
#include <pthread.h>
#include <threads.h>
#include <time.h>
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER, stats_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held;
static void nap_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}
static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&table_lock);
    pthread_barrier_wait(&held);
    nap_ms(400);
    pthread_mutex_unlock(&table_lock);
    return NULL;
}
static void *waiter(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&held);
    pthread_mutex_lock(&table_lock);
    pthread_mutex_unlock(&table_lock);
    return NULL;
}
static int sleeper(void *arg)
{
    (void)arg;
    nap_ms(300);
    return 0;
}
int main(void)
{
    pthread_t h, w;
    pthread_barrier_init(&held, NULL, 2);
    pthread_mutex_lock(&stats_lock); /* held across the joins: nobody else wants it */
    pthread_create(&h, NULL, holder, NULL);
    pthread_create(&w, NULL, waiter, NULL);
    pthread_join(w, NULL);
    pthread_join(h, NULL);
    thrd_t s;
    thrd_create(&s, sleeper, NULL);
    thrd_join(s, NULL);
    pthread_mutex_unlock(&stats_lock);
    return 0;
}

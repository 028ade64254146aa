/* Producer/consumer with condition variables, timed waits, and a consumer
 * cancelled while waiting (its cleanup handler unlocks). */
// expect: none
#include <pthread.h>
#include <time.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queue, produced, consumed;
static void *producer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&m);
        while (queue == 8)
            pthread_cond_wait(&not_full, &m);
        queue++, produced++;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}
static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&m);
        while (queue == 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            pthread_cond_timedwait(&not_empty, &m, &ts);
        }
        queue--, consumed++;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&m);
    }
    return NULL;
}
static void unlock_it(void *arg) { pthread_mutex_unlock(arg); }
static void *waits_forever(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_cleanup_push(unlock_it, &m);
    for (;;)
        pthread_cond_wait(&not_empty, &m);
    pthread_cleanup_pop(1);
    return NULL;
}
int main(void)
{
    pthread_t p, c, w;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    pthread_create(&w, NULL, waits_forever, NULL);
    usleep(20000);
    pthread_cancel(w);
    pthread_join(w, NULL);
    pthread_mutex_lock(&m); /* the cancelled waiter released it */
    pthread_mutex_unlock(&m);
    return produced == consumed ? 0 : 1;
}

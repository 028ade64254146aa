/* The back-off pattern: in the "wrong" order only trylock is used, and on
 * failure everything is released and retried. Cannot deadlock. */
// expect: none
#include <pthread.h>
#include <sched.h>
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static void *forward(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&a);
        pthread_mutex_lock(&b);
        pthread_mutex_unlock(&b);
        pthread_mutex_unlock(&a);
    }
    return NULL;
}
static void *backward(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        for (;;) {
            pthread_mutex_lock(&b);
            if (pthread_mutex_trylock(&a) == 0)
                break;
            pthread_mutex_unlock(&b);
            sched_yield();
        }
        pthread_mutex_unlock(&a);
        pthread_mutex_unlock(&b);
    }
    return NULL;
}
int main(void)
{
    pthread_t x, y;
    pthread_create(&x, NULL, forward, NULL);
    pthread_create(&y, NULL, backward, NULL);
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    return 0;
}

/* Opposite orders of A and B, but always under the same outer lock G: a
 * gate lock. TSan and Helgrind report this; it cannot deadlock. */
// expect: none
#include <pthread.h>
static pthread_mutex_t g = PTHREAD_MUTEX_INITIALIZER, a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static void *one(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&g);
        pthread_mutex_lock(&a);
        pthread_mutex_lock(&b);
        pthread_mutex_unlock(&b);
        pthread_mutex_unlock(&a);
        pthread_mutex_unlock(&g);
    }
    return NULL;
}
static void *two(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&g);
        pthread_mutex_lock(&b);
        pthread_mutex_lock(&a);
        pthread_mutex_unlock(&a);
        pthread_mutex_unlock(&b);
        pthread_mutex_unlock(&g);
    }
    return NULL;
}
int main(void)
{
    pthread_t x, y;
    pthread_create(&x, NULL, one, NULL);
    pthread_create(&y, NULL, two, NULL);
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    return 0;
}

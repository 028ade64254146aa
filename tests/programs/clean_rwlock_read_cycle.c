/* Readers of a (reader-preferring, glibc default) rwlock in both orders
 * with a mutex: read-read re-entry cannot deadlock. Plus recursive reads. */
// expect: none
#include <pthread.h>
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *one(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_rwlock_rdlock(&rw);
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
        pthread_rwlock_unlock(&rw);
    }
    return NULL;
}
static void *two(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&m);
        pthread_rwlock_rdlock(&rw);
        pthread_rwlock_rdlock(&rw);
        pthread_rwlock_unlock(&rw);
        pthread_rwlock_unlock(&rw);
        pthread_mutex_unlock(&m);
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
    pthread_rwlock_wrlock(&rw);
    pthread_rwlock_unlock(&rw);
    return 0;
}

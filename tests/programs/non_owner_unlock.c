/* A thread unlocks a mutex that another thread holds. */
// expect: non-owner-unlock
// log: (pthread_mutex_t) is held by non_owner_unloc/
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t b;
static void *locker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_barrier_wait(&b);
    pthread_barrier_wait(&b);
    pthread_mutex_unlock(&m);
    return NULL;
}
int main(void)
{
    pthread_t t;
    pthread_barrier_init(&b, NULL, 2);
    pthread_create(&t, NULL, locker, NULL);
    pthread_barrier_wait(&b);
    pthread_mutex_unlock(&m); /* not ours */
    pthread_barrier_wait(&b);
    pthread_join(t, NULL);
    return 0;
}

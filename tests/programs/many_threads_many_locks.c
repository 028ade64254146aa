/* 10,000 short threads, and one thread that holds 5,000 locks at once (no
 * fixed limit: TSan aborts past 64 held locks). */
// expect: none
#include <pthread.h>
#include <stdlib.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int done;
static void *short_thread(void *arg)
{
    pthread_mutex_lock(&m);
    done++;
    pthread_mutex_unlock(&m);
    return arg;
}
int main(void)
{
    for (int round = 0; round < 100; round++) {
        pthread_t t[100];
        for (int i = 0; i < 100; i++)
            if (pthread_create(&t[i], NULL, short_thread, NULL))
                return 1;
        for (int i = 0; i < 100; i++)
            pthread_join(t[i], NULL);
    }
    enum { N = 5000 };
    pthread_mutex_t *locks = malloc(N * sizeof *locks);
    for (int i = 0; i < N; i++) {
        pthread_mutex_init(&locks[i], NULL);
        pthread_mutex_lock(&locks[i]);
    }
    for (int i = N; i-- > 0;)
        pthread_mutex_unlock(&locks[i]);
    free(locks);
    return done == 10000 ? 0 : 1;
}

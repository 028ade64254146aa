/* Three threads close a ring a -> b -> c -> a, each 150 ms after the
 * previous one: never at once in a natural run; steered, all three meet. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t ring[3] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static long moved[3];

static void *stage(void *arg)
{
    long i = (long)arg;
    struct timespec ts = { 0, i * 150 * 1000000L };
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&ring[i]);
    pthread_mutex_lock(&ring[(i + 1) % 3]);
    moved[i]++;
    pthread_mutex_unlock(&ring[(i + 1) % 3]);
    pthread_mutex_unlock(&ring[i]);
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, stage, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("moved %ld\n", moved[0] + moved[1] + moved[2]);
    return 0;
}

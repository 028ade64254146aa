/* main returns while other threads are still locking and allocating. */
// expect: none
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *busy(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&m);
        void *p = malloc(64);
        pthread_mutex_unlock(&m);
        free(p);
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    for (int i = 0; i < 3; i++)
        pthread_create(&t, NULL, busy, NULL);
    usleep(50000);
    return 0;
}

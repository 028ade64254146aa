/* 1,000 threads created and joined, each locking and allocating. */
// expect: none
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void *one(void *arg)
{
    pthread_mutex_t *own = malloc(sizeof *own);
    pthread_mutex_init(own, NULL);
    pthread_mutex_lock(own);
    pthread_mutex_lock(&m);
    done++;
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(own);
    free(own);
    return arg;
}

int main(void)
{
    for (int round = 0; round < 10; round++) {
        pthread_t t[100];
        for (int i = 0; i < 100; i++)
            if (pthread_create(&t[i], NULL, one, NULL) != 0)
                return 1;
        for (int i = 0; i < 100; i++)
            pthread_join(t[i], NULL);
    }
    return done == 1000 ? 0 : 1;
}

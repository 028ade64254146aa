/* The first half's thread is joined before the second half starts: the
 * orders invert, but no schedule can run them at once. rtdd calls the cycle
 * latent; no steered rerun deadlocks it. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t cache = PTHREAD_MUTEX_INITIALIZER, store = PTHREAD_MUTEX_INITIALIZER;
static long n;

static void *fill(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cache);
    pthread_mutex_lock(&store);
    n++;
    pthread_mutex_unlock(&store);
    pthread_mutex_unlock(&cache);
    return NULL;
}

static void *flush(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&store);
    pthread_mutex_lock(&cache);
    n--;
    pthread_mutex_unlock(&cache);
    pthread_mutex_unlock(&store);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, fill, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, flush, NULL);
    pthread_join(t, NULL);
    printf("n %ld\n", n);
    return 0;
}

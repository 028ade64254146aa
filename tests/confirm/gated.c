/* The two orders of a and b are both taken under one gate lock: they can
 * never run at once. rtdd reports nothing, so nothing is rerun. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER, a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static long n;

static void *forward(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gate);
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    n++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&gate);
    return NULL;
}

static void *backward(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 100 * 1000000L };
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&gate);
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    n++;
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&gate);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, forward, NULL);
    pthread_create(&t2, NULL, backward, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("n %ld\n", n);
    return 0;
}

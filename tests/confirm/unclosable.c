/* The second half runs only after the first half's thread has released
 * both locks and said so through a condition variable: a thread paused at
 * the cycle never lets it start, so no rerun can close the cycle. rtdd
 * still warns (distinct threads made the edges, and nothing it models
 * orders them); --confirm says "not confirmed in N reruns". */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int done;
static long n;

static void *first(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    n++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    pthread_mutex_lock(&m);
    done = 1;
    pthread_cond_signal(&done_cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *second(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!done)
        pthread_cond_wait(&done_cv, &m);
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    n++;
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t2, NULL, second, NULL);
    pthread_create(&t1, NULL, first, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("n %ld\n", n);
    return 0;
}

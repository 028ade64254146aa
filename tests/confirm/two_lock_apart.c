/* A two-lock inversion whose halves run 200 ms apart: the natural run never
 * deadlocks (rtdd warns of the cycle); steered, it does. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t accounts = PTHREAD_MUTEX_INITIALIZER, journal = PTHREAD_MUTEX_INITIALIZER;
static long balance, lines;

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void *post(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&accounts);
    pthread_mutex_lock(&journal);
    balance++, lines++;
    pthread_mutex_unlock(&journal);
    pthread_mutex_unlock(&accounts);
    return NULL;
}

static void *audit(void *arg)
{
    (void)arg;
    pause_ms(200);
    pthread_mutex_lock(&journal);
    pthread_mutex_lock(&accounts);
    lines += balance;
    pthread_mutex_unlock(&accounts);
    pthread_mutex_unlock(&journal);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, post, NULL);
    pthread_create(&b, NULL, audit, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("lines %ld\n", lines);
    return 0;
}

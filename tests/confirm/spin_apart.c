/* A spinlock inversion, the halves 200 ms apart. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_spinlock_t left, right;
static long n;

static void *one(void *arg)
{
    (void)arg;
    pthread_spin_lock(&left);
    pthread_spin_lock(&right);
    n++;
    pthread_spin_unlock(&right);
    pthread_spin_unlock(&left);
    return NULL;
}

static void *two(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 200 * 1000000L };
    nanosleep(&ts, NULL);
    pthread_spin_lock(&right);
    pthread_spin_lock(&left);
    n++;
    pthread_spin_unlock(&left);
    pthread_spin_unlock(&right);
    return NULL;
}

int main(void)
{
    pthread_spin_init(&left, PTHREAD_PROCESS_PRIVATE);
    pthread_spin_init(&right, PTHREAD_PROCESS_PRIVATE);
    pthread_t a, b;
    pthread_create(&a, NULL, one, NULL);
    pthread_create(&b, NULL, two, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("n %ld\n", n);
    return 0;
}

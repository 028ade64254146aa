/* A C11 mtx_t inversion, the halves 200 ms apart. */
#include <stdio.h>
#include <threads.h>
#include <time.h>

static mtx_t left, right;
static long n;

static int one(void *arg)
{
    (void)arg;
    mtx_lock(&left);
    mtx_lock(&right);
    n++;
    mtx_unlock(&right);
    mtx_unlock(&left);
    return 0;
}

static int two(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 200 * 1000000L };
    thrd_sleep(&ts, NULL);
    mtx_lock(&right);
    mtx_lock(&left);
    n++;
    mtx_unlock(&left);
    mtx_unlock(&right);
    return 0;
}

int main(void)
{
    mtx_init(&left, mtx_plain);
    mtx_init(&right, mtx_plain);
    thrd_t a, b;
    thrd_create(&a, one, NULL);
    thrd_create(&b, two, NULL);
    thrd_join(a, NULL);
    thrd_join(b, NULL);
    printf("n %ld\n", n);
    return 0;
}

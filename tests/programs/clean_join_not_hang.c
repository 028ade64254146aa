/* Joins are how programs wait for work to end, not hangs: main joins, for
 * longer than hang_timeout_ms, a thread that computes, one blocked in
 * read() on a pipe another thread writes later, one idle on a condition
 * variable another thread signals later, one that sleeps, and one that
 * joins a computing thread itself. No chain of joins ends in a thread
 * blocked on a lock: nothing to report, even with hang_severity=warning
 * (the setting for CI). */
// expect: none
// options: hang_timeout_ms=100:deadlock_timeout_ms=100:hang_severity=warning
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define BUSY_MS 500

static int pipefd[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static volatile unsigned long sink;

static long elapsed_ms(const struct timespec *from)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - from->tv_sec) * 1000 + (now.tv_nsec - from->tv_nsec) / 1000000;
}

static void *compute(void *arg)
{
    (void)arg;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (elapsed_ms(&start) < BUSY_MS)
        for (int i = 0; i < 10000; i++)
            sink += (unsigned long)i * 2654435761u;
    return NULL;
}

static void *read_input(void *arg)
{
    (void)arg;
    char c;
    ssize_t n = read(pipefd[0], &c, 1); /* until the writer writes */
    (void)n;
    return NULL;
}

static void *late_writer(void *arg)
{
    (void)arg;
    usleep(BUSY_MS * 1000);
    ssize_t n = write(pipefd[1], "x", 1);
    (void)n;
    return NULL;
}

static void *idle(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *late_signaller(void *arg)
{
    (void)arg;
    usleep(BUSY_MS * 1000);
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *nap(void *arg)
{
    (void)arg;
    usleep(BUSY_MS * 1000);
    return NULL;
}

static void *join_compute(void *arg)
{
    (void)arg;
    pthread_t t;
    pthread_create(&t, NULL, compute, NULL);
    pthread_join(t, NULL);
    return NULL;
}

static void join_one(void *(*fn)(void *), void *(*helper)(void *))
{
    pthread_t t, h;
    pthread_create(&t, NULL, fn, NULL);
    if (helper)
        pthread_create(&h, NULL, helper, NULL);
    pthread_join(t, NULL);
    if (helper)
        pthread_join(h, NULL);
}

int main(void)
{
    if (pipe(pipefd))
        return 2;
    join_one(compute, NULL);
    join_one(read_input, late_writer);
    join_one(idle, late_signaller);
    join_one(nap, NULL);
    join_one(join_compute, NULL);
    puts("done");
    return 0;
}

/* Micro-benchmarks: one workload per run, printing nanoseconds per
 * operation. The same binary runs natively and under rtdd so that the
 * only difference is the preloaded runtime.
 *   micro WORKLOAD ITERATIONS                                          */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

/* Uncontended lock+unlock of one mutex. */
static void mutex_pair(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&mutex);
        __asm__ volatile("" ::: "memory");
        pthread_mutex_unlock(&mutex);
    }
}

/* malloc+free of 64 bytes, with other locks alive in the process (so the
 * free-side range check is on, as in real programs). */
static void malloc_free_64(long n)
{
    pthread_mutex_lock(&mutex);
    pthread_mutex_unlock(&mutex);
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc(64);
        free(p);
    }
}

static const struct { const char *name; void (*run)(long); } workloads[] = {
    { "mutex_pair", mutex_pair },
    { "malloc_free_64", malloc_free_64 },
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: micro WORKLOAD ITERATIONS\n");
        return 2;
    }
    long n = atol(argv[2]);
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
        if (strcmp(argv[1], workloads[i].name))
            continue;
        workloads[i].run(n / 10); /* warm-up */
        double t0 = now_ns();
        workloads[i].run(n);
        printf("%.3f\n", (now_ns() - t0) / n);
        return 0;
    }
    fprintf(stderr, "micro: unknown workload '%s'\n", argv[1]);
    return 2;
}

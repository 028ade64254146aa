/* GLib's lock, the same way as micro.c's workloads (a separate program:
 * micro.c must not need GLib).
 *   gmutex WORKLOAD ITERATIONS
 *   gmutex_pair   uncontended g_mutex_lock+unlock */
#include <glib.h>
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

static GMutex lock;

static gpointer idle(gpointer arg)
{
    return arg;
}
static volatile long counter;

static void gmutex_pair(long n)
{
    for (long i = 0; i < n; i++) {
        g_mutex_lock(&lock);
        counter++;
        g_mutex_unlock(&lock);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "gmutex_pair")) {
        fprintf(stderr, "usage: gmutex gmutex_pair ITERATIONS\n");
        return 2;
    }
    long n = atol(argv[2]);
    if (n < 10) {
        fprintf(stderr, "gmutex: ITERATIONS must be at least 10\n");
        return 2;
    }
    g_thread_join(g_thread_new("idle", idle, NULL)); /* the program is threaded */
    gmutex_pair(n / 10); /* warm-up */
    double t0 = now_ns();
    gmutex_pair(n);
    printf("%.3f\n", (now_ns() - t0) / n);
    return 0;
}

/* One RCU benchmark binary per flavour (see flavor.h).  Modes, each printing
 * one line "METRIC VALUE UNIT":
 *   read N SECONDS     ns per rcu_read_lock/rcu_dereference/rcu_read_unlock
 *                      with N reader threads while an updater replaces the
 *                      object and calls synchronize_rcu() in a loop
 *   sync SECONDS       mean synchronize_rcu() latency (us) with one reader
 *                      thread running short sections
 *   callrcu COUNT      call_rcu() throughput: COUNT call_rcu(free) from one
 *                      thread plus the rcu_barrier() that reaps them (Mops/s)
 *   flood SECONDS      4 threads call_rcu() small objects for SECONDS; peak
 *                      RSS (MB, getrusage)
 *   plain COUNT        ns per malloc(64)+free+mutex lock/unlock in a program
 *                      that uses RCU (readers, an update, call_rcu) but not
 *                      on these paths: what RCU checking costs the rest */
#include "flavor.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct payload {
    struct rcu_head rh;
    long value;
    char pad[40];
};

static struct payload *shared;
static int stop;
static uint64_t total_reads;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void free_payload(struct rcu_head *rh)
{
    free(rh); /* rh is the first member */
}

static struct payload *new_payload(long v)
{
    struct payload *p = malloc(sizeof(*p));
    if (!p)
        abort();
    p->value = v;
    return p;
}

static void *reader(void *arg)
{
    (void)arg;
    flavor_thread_online();
    uint64_t n = 0;
    long sink = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        for (int i = 0; i < 1024; i++) {
            rcu_read_lock();
            struct payload *p = rcu_dereference(shared);
            sink += p->value;
            rcu_read_unlock();
        }
        n += 1024;
        if (FLAVOR_NEEDS_QS)
            flavor_quiescent();
    }
    __atomic_fetch_add(&total_reads, n, __ATOMIC_RELAXED);
    if (sink == 42)
        fputc(' ', stderr); /* keep the loads */
    flavor_thread_offline();
    return NULL;
}

static uint64_t updates;

static void *updater(void *arg)
{
    (void)arg;
    flavor_thread_online();
    long v = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        struct payload *fresh = new_payload(++v);
        struct payload *old = shared;
        rcu_assign_pointer(shared, fresh);
        synchronize_rcu();
        free(old);
        updates++;
    }
    flavor_thread_offline();
    return NULL;
}

/* RCUBENCH_READER_CPU=N (bench/micro/run.sh): readers on CPUs N, N+1, ...
 * and the updater on the next one, so that runs compared with each other
 * use the same CPUs. */
static void pin(pthread_t t, long cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    pthread_setaffinity_np(t, sizeof set, &set);
}

static int mode_read(int nreaders, double seconds)
{
    shared = new_payload(0);
    pthread_t r[16], u;
    const char *first = getenv("RCUBENCH_READER_CPU");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu0 = first ? atol(first) : -1;
    int pinned = cpu0 >= 0 && ncpu > nreaders;
    pthread_create(&u, NULL, updater, NULL);
    if (pinned)
        pin(u, (cpu0 + nreaders) % ncpu);
    double t0 = now();
    for (int i = 0; i < nreaders; i++) {
        pthread_create(&r[i], NULL, reader, NULL);
        if (pinned)
            pin(r[i], (cpu0 + i) % ncpu);
    }
    usleep((useconds_t)(seconds * 1e6));
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < nreaders; i++)
        pthread_join(r[i], NULL);
    double elapsed = now() - t0;
    pthread_join(u, NULL);
    printf("read%d %.3f ns/pair (updates %llu)\n", nreaders,
           elapsed * 1e9 * nreaders / (double)total_reads, (unsigned long long)updates);
    return 0;
}

static int mode_sync(double seconds)
{
    shared = new_payload(0);
    pthread_t r;
    pthread_create(&r, NULL, reader, NULL);
    flavor_thread_online();
    usleep(10000);
    uint64_t n = 0;
    double busy = 0, end = now() + seconds;
    long v = 0;
    while (now() < end) {
        struct payload *fresh = new_payload(++v);
        struct payload *old = shared;
        rcu_assign_pointer(shared, fresh);
        double t0 = now();
        synchronize_rcu();
        busy += now() - t0;
        free(old);
        n++;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(r, NULL);
    flavor_thread_offline();
    printf("sync %.3f us (%llu grace periods)\n", busy * 1e6 / (double)n, (unsigned long long)n);
    return 0;
}

static int mode_callrcu(long count)
{
    flavor_thread_online();
    double t0 = now();
    for (long i = 0; i < count; i++) {
        call_rcu(&new_payload(i)->rh, free_payload);
        if (FLAVOR_NEEDS_QS && (i & 1023) == 0)
            flavor_quiescent();
    }
    rcu_barrier();
    double elapsed = now() - t0;
    flavor_thread_offline();
    printf("callrcu %.3f Mops/s\n", count / elapsed / 1e6);
    return 0;
}

static uint64_t flood_total;

static void *flooder(void *arg)
{
    (void)arg;
    flavor_thread_online();
    uint64_t n = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        call_rcu(&new_payload((long)n)->rh, free_payload);
        if (FLAVOR_NEEDS_QS && (++n & 1023) == 0)
            flavor_quiescent();
        else if (!FLAVOR_NEEDS_QS)
            n++;
    }
    __atomic_fetch_add(&flood_total, n, __ATOMIC_RELAXED);
    flavor_thread_offline();
    return NULL;
}

static int mode_flood(double seconds)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, flooder, NULL);
    usleep((useconds_t)(seconds * 1e6));
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("flood %.1f MB peak RSS (%.2f M callbacks queued)\n", ru.ru_maxrss / 1024.0,
           flood_total / 1e6);
    fflush(stdout);
    _exit(0); /* a liburcu backlog can take minutes to drain: not measured */
}

static pthread_mutex_t plain_mutex = PTHREAD_MUTEX_INITIALIZER;

static int mode_plain(long count)
{
    flavor_thread_online();
    shared = new_payload(1);
    for (int i = 0; i < 100; i++) { /* RCU in use: sections, dereferences, updates */
        rcu_read_lock();
        struct payload *p = rcu_dereference(shared);
        long v = p->value;
        rcu_read_unlock();
        struct payload *old = shared;
        rcu_assign_pointer(shared, new_payload(v + 1));
        call_rcu(&old->rh, free_payload);
    }
    rcu_barrier();
    double t0 = now();
    for (long i = 0; i < count; i++) {
        void *volatile q = malloc(64);
        free(q);
        pthread_mutex_lock(&plain_mutex);
        pthread_mutex_unlock(&plain_mutex);
    }
    double elapsed = now() - t0;
    flavor_thread_offline();
    printf("plain %.3f ns/op\n", elapsed * 1e9 / count);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "read") == 0)
        return mode_read(atoi(argv[2]), atof(argv[3]));
    if (argc == 3 && strcmp(argv[1], "sync") == 0)
        return mode_sync(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "callrcu") == 0)
        return mode_callrcu(atol(argv[2]));
    if (argc == 3 && strcmp(argv[1], "flood") == 0)
        return mode_flood(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "plain") == 0)
        return mode_plain(atol(argv[2]));
    fprintf(stderr, "usage: %s read N SECONDS | sync SECONDS | callrcu COUNT | flood SECONDS | plain COUNT\n"
                    "(flavour %s)\n", argv[0], FLAVOR_NAME);
    return 2;
}

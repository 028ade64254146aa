/* `rtdd torture`: an rcutorture-style stress test of librtdd_rcu.
 *
 * Writers publish fresh objects from a fixed pool with rcu_assign_pointer()
 * and age each removed object one "pipe" step per grace period, using a mix
 * of synchronize_rcu(), chained call_rcu() (some queued inside read
 * sections) and rcu_barrier().  After PIPE_LEN steps the object is poisoned
 * and returned to the pool.  Readers (threads, signal handlers, short-lived
 * threads that register lazily) check they never see a poisoned object and
 * record the age of the object at the end of their section.  As in
 * rcutorture, any age above 1 means a grace period ended under a reader.
 * Here each object is aged only by grace periods that start after its own
 * removal (rcutorture ages all retired objects on every grace period), so a
 * reader must in fact always see age 0: age 1 is reported as a violation
 * too (it is what a grace period that skips its second phase produces).
 * A final flood phase checks that outstanding callbacks stay under the
 * hard limit.
 * The pool is never freed, so a broken grace period reads poison, not
 * freed memory. */
#include "torture.h"

#include <rtdd/rcu.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PIPE_LEN 10
#define POOL_SIZE 4096
#define MAGIC_LIVE 0x52435521u
#define MAGIC_DEAD 0xdeadbeefu
#define MAX_READERS 256
#define MAX_WRITERS 64
#define FLOOD_THREADS 4
#define FLOOD_SOFT 2000
#define FLOOD_HARD 20000

struct tobj {
    struct rcu_head rh;
    uint32_t magic;
    int pipe;
    struct tobj *free_next;
};

struct options {
    double duration;
    int readers;
    int writers;
};

static struct tobj pool[POOL_SIZE];
static struct tobj *free_list;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tobj *current_obj;
static int stop_main;

/* Results (atomics: signal handlers and many threads add to them). */
static uint64_t pipe_hist[PIPE_LEN + 1];
static uint64_t poison_seen;
static uint64_t signal_reads;
static uint64_t updates;
static uint64_t barrier_errors;
static uint64_t pool_empty;
static uint64_t exiting_threads;

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct tobj *pool_get(void)
{
    pthread_mutex_lock(&pool_lock);
    struct tobj *o = free_list;
    if (o)
        free_list = o->free_next;
    pthread_mutex_unlock(&pool_lock);
    return o;
}

/* Poison first: a reader still holding the object after this is caught. */
static void pool_put(struct tobj *o)
{
    __atomic_store_n(&o->magic, MAGIC_DEAD, __ATOMIC_RELAXED);
    __atomic_store_n(&o->pipe, PIPE_LEN, __ATOMIC_RELAXED);
    pthread_mutex_lock(&pool_lock);
    o->free_next = free_list;
    free_list = o;
    pthread_mutex_unlock(&pool_lock);
}

/* One read-side check; returns the age seen (or -1 if nothing published). */
static int read_once(uint64_t *rng, bool may_sleep)
{
    int age = -1;
    rcu_read_lock();
    struct tobj *o = rcu_dereference(current_obj);
    if (o) {
        uint64_t r = rng ? xorshift(rng) : 0;
        if (r % 8 == 0) { /* nested section on the same object */
            rcu_read_lock();
            if (__atomic_load_n(&o->magic, __ATOMIC_RELAXED) != MAGIC_LIVE)
                __atomic_fetch_add(&poison_seen, 1, __ATOMIC_RELAXED);
            rcu_read_unlock();
        }
        if (r % 64 == 1) {
            for (volatile int i = 0; i < 2000; i++)
                ;
        } else if (may_sleep && r % 4096 == 2) {
            usleep(200 + r % 800); /* a preempted/sleeping reader */
        }
        if (__atomic_load_n(&o->magic, __ATOMIC_RELAXED) != MAGIC_LIVE)
            __atomic_fetch_add(&poison_seen, 1, __ATOMIC_RELAXED);
        age = __atomic_load_n(&o->pipe, __ATOMIC_RELAXED);
        if (age > PIPE_LEN || age < 0)
            age = PIPE_LEN;
    }
    rcu_read_unlock();
    return age;
}

static void *reader_main(void *arg)
{
    uint64_t rng = (uintptr_t)arg * 2654435761u + 1;
    uint64_t local[PIPE_LEN + 1] = {0};
    while (!__atomic_load_n(&stop_main, __ATOMIC_RELAXED)) {
        int age = read_once(&rng, true);
        if (age >= 0)
            local[age]++;
    }
    for (int i = 0; i <= PIPE_LEN; i++)
        __atomic_fetch_add(&pipe_hist[i], local[i], __ATOMIC_RELAXED);
    return NULL;
}

static void signal_reader(int sig)
{
    (void)sig;
    int saved = errno;
    int age = read_once(NULL, false);
    if (age >= 0)
        __atomic_fetch_add(&pipe_hist[age], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&signal_reads, 1, __ATOMIC_RELAXED);
    errno = saved;
}

/* Short-lived readers: lazy registration on first use, release at exit. */
static void *short_reader_main(void *arg)
{
    uint64_t rng = (uintptr_t)arg | 1;
    for (int i = 0; i < 500; i++) {
        int age = read_once(&rng, false);
        if (age >= 0)
            __atomic_fetch_add(&pipe_hist[age], 1, __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&exiting_threads, 1, __ATOMIC_RELAXED);
    return NULL;
}

struct signaller_args {
    pthread_t *readers;
    int nreaders;
};

static void *signaller_main(void *arg)
{
    struct signaller_args *a = arg;
    uint64_t rng = 88172645463325252ull;
    unsigned int n = 0;
    while (!__atomic_load_n(&stop_main, __ATOMIC_RELAXED)) {
        pthread_kill(a->readers[xorshift(&rng) % a->nreaders], SIGUSR1);
        if (++n % 50 == 0) {
            pthread_t t;
            if (pthread_create(&t, NULL, short_reader_main, (void *)(uintptr_t)n) == 0)
                pthread_join(t, NULL);
        }
        usleep(200);
    }
    return NULL;
}

static void advance_cb(struct rcu_head *rh)
{
    struct tobj *o = (struct tobj *)((char *)rh - offsetof(struct tobj, rh));
    int pipe = __atomic_add_fetch(&o->pipe, 1, __ATOMIC_RELAXED);
    if (pipe >= PIPE_LEN)
        pool_put(o);
    else
        call_rcu(&o->rh, advance_cb); /* call_rcu from a callback */
}

struct marker {
    struct rcu_head rh;
    int done;
};

static void marker_cb(struct rcu_head *rh)
{
    struct marker *m = (struct marker *)((char *)rh - offsetof(struct marker, rh));
    __atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
}

static void *writer_main(void *arg)
{
    uint64_t rng = (uintptr_t)arg * 11400714819323198485ull + 7;
    while (!__atomic_load_n(&stop_main, __ATOMIC_RELAXED)) {
        struct tobj *fresh = pool_get();
        if (!fresh) {
            __atomic_fetch_add(&pool_empty, 1, __ATOMIC_RELAXED);
            rcu_barrier();
            usleep(1000);
            continue;
        }
        fresh->pipe = 0;
        fresh->magic = MAGIC_LIVE;
        pthread_mutex_lock(&update_lock);
        struct tobj *old = current_obj;
        rcu_assign_pointer(current_obj, fresh);
        pthread_mutex_unlock(&update_lock);
        __atomic_fetch_add(&updates, 1, __ATOMIC_RELAXED);
        if (!old)
            continue;
        uint64_t r = xorshift(&rng) % 16;
        if (r < 5) {
            for (int i = 1; i <= PIPE_LEN; i++) {
                synchronize_rcu();
                __atomic_store_n(&old->pipe, i, __ATOMIC_RELAXED);
            }
            pool_put(old);
        } else if (r < 15) {
            if (r & 1) { /* legal inside a read section */
                rcu_read_lock();
                call_rcu(&old->rh, advance_cb);
                rcu_read_unlock();
            } else {
                call_rcu(&old->rh, advance_cb);
            }
        } else {
            struct marker m = {.done = 0};
            call_rcu(&old->rh, advance_cb);
            call_rcu(&m.rh, marker_cb);
            rcu_barrier();
            if (!__atomic_load_n(&m.done, __ATOMIC_ACQUIRE))
                __atomic_fetch_add(&barrier_errors, 1, __ATOMIC_RELAXED);
        }
        if (xorshift(&rng) % 8 == 0)
            usleep(xorshift(&rng) % 200);
    }
    return NULL;
}

/* ---- callback flood ---- */

struct flood_obj {
    struct rcu_head rh;
    char payload[48];
};

static int stop_flood;
static int64_t flood_outstanding;
static int64_t flood_max_outstanding;
static uint64_t flood_queued;
static uint64_t flood_invoked;

static void flood_cb(struct rcu_head *rh)
{
    free(rh);
    __atomic_fetch_sub(&flood_outstanding, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&flood_invoked, 1, __ATOMIC_RELAXED);
}

static void *flood_main(void *arg)
{
    (void)arg;
    uint64_t n = 0;
    while (!__atomic_load_n(&stop_flood, __ATOMIC_RELAXED)) {
        struct flood_obj *o = malloc(sizeof(*o));
        if (!o)
            continue;
        memset(o->payload, 0x5a, sizeof(o->payload));
        int64_t out = __atomic_add_fetch(&flood_outstanding, 1, __ATOMIC_RELAXED);
        int64_t seen = __atomic_load_n(&flood_max_outstanding, __ATOMIC_RELAXED);
        while (out > seen && !__atomic_compare_exchange_n(&flood_max_outstanding, &seen, out, true,
                                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
        call_rcu(&o->rh, flood_cb);
        n++;
    }
    __atomic_fetch_add(&flood_queued, n, __ATOMIC_RELAXED);
    return NULL;
}

static long rss_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    size_t len = strlen(field);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, field, len) == 0)
            kb = strtol(line + len, NULL, 10);
    fclose(f);
    return kb;
}

static int run_flood(double seconds)
{
    size_t old_soft = rcu_callback_soft_limit(), old_hard = rcu_callback_hard_limit();
    rcu_set_callback_hard_limit(FLOOD_HARD);
    rcu_set_callback_soft_limit(FLOOD_SOFT);
    long rss_before = rss_kb("VmRSS:");
    pthread_t t[FLOOD_THREADS];
    int started = 0;
    for (int i = 0; i < FLOOD_THREADS; i++)
        if (pthread_create(&t[i], NULL, flood_main, NULL) == 0)
            started++;
    double end = now_sec() + seconds / 2;
    int reclaim_rc = 0;
    while (now_sec() < end)
        usleep(10000);
    reclaim_rc = rcu_reclaim_now(); /* forced reaping under the flood */
    end = now_sec() + seconds / 2;
    while (now_sec() < end)
        usleep(10000);
    long rss_during = rss_kb("VmRSS:");
    __atomic_store_n(&stop_flood, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    rcu_barrier();
    rcu_set_callback_hard_limit(old_hard);
    rcu_set_callback_soft_limit(old_soft);

    /* Each flooder may be counted once while throttled before its enqueue
     * and once more by racing the limit check with the others. */
    int64_t bound = FLOOD_HARD + 2 * started;
    int failures = 0;
    printf("flood: %d threads, %llu callbacks queued, %llu invoked, max outstanding %lld "
           "(hard limit %d, bound %lld), RSS %ld kB -> %ld kB\n",
           started, (unsigned long long)flood_queued, (unsigned long long)flood_invoked,
           (long long)flood_max_outstanding, FLOOD_HARD, (long long)bound, rss_before,
           rss_during);
    if (flood_max_outstanding > bound) {
        printf("!!! flood: outstanding callbacks exceeded the hard limit\n");
        failures++;
    }
    if (flood_invoked != flood_queued) {
        printf("!!! flood: rcu_barrier() returned with %llu callbacks not invoked\n",
               (unsigned long long)(flood_queued - flood_invoked));
        failures++;
    }
    if (reclaim_rc != 0) {
        printf("!!! flood: rcu_reclaim_now() failed\n");
        failures++;
    }
    return failures;
}

/* ---- options ---- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtdd torture [--duration=S] [--readers=N] [--writers=N]\n"
            "\n"
            "Stress-tests the RCU core (librtdd_rcu), rcutorture-style: readers check they\n"
            "never see a reclaimed (poisoned) object and histogram its grace-period age\n"
            "(any age past 0 is a broken grace period: each object ages only by grace\n"
            "periods that begin after its removal); writers mix synchronize_rcu(),\n"
            "call_rcu() and rcu_barrier(); signal-handler and short-lived readers join in;\n"
            "a final callback flood checks that outstanding callbacks stay bounded.\n"
            "\n"
            "  --duration=S   seconds to run, fractions allowed (default 10, max 86400)\n"
            "  --readers=N    reader threads (default 4, 1..%d)\n"
            "  --writers=N    writer threads (default 2, 1..%d)\n"
            "  --help         this text\n"
            "\n"
            "Exit status: 0 no violation, 1 violation found, 2 usage error.\n",
            MAX_READERS, MAX_WRITERS);
}

static bool parse_int(const char *text, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
    opt->duration = 10;
    opt->readers = 4;
    opt->writers = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        const char *val = eq ? eq + 1 : NULL;
        size_t key_len = eq ? (size_t)(eq - a) : strlen(a);
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (val && key_len == 10 && strncmp(a, "--duration", 10) == 0) {
            char *end;
            errno = 0;
            double d = strtod(val, &end);
            if (errno || end == val || *end || !(d > 0) || d > 86400) {
                fprintf(stderr, "rtdd torture: bad --duration '%s': expected seconds in "
                                "(0, 86400]\n", val);
                return 2;
            }
            opt->duration = d;
        } else if (val && key_len == 9 && strncmp(a, "--readers", 9) == 0) {
            if (!parse_int(val, 1, MAX_READERS, &opt->readers)) {
                fprintf(stderr, "rtdd torture: bad --readers '%s': expected an integer in "
                                "1..%d\n", val, MAX_READERS);
                return 2;
            }
        } else if (val && key_len == 9 && strncmp(a, "--writers", 9) == 0) {
            if (!parse_int(val, 1, MAX_WRITERS, &opt->writers)) {
                fprintf(stderr, "rtdd torture: bad --writers '%s': expected an integer in "
                                "1..%d\n", val, MAX_WRITERS);
                return 2;
            }
        } else {
            fprintf(stderr, "rtdd torture: unknown or incomplete option '%s' "
                            "(try 'rtdd torture --help')\n", a);
            return 2;
        }
    }
    return -1;
}

int rtdd_torture_main(int argc, char **argv)
{
    struct options opt;
    int rc = parse_options(argc, argv, &opt);
    if (rc >= 0)
        return rc;
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (int i = 0; i < POOL_SIZE; i++) {
        pool[i].magic = MAGIC_DEAD;
        pool[i].free_next = free_list;
        free_list = &pool[i];
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = signal_reader;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);

    double flood_secs = opt.duration / 4 < 0.3 ? 0.3 : opt.duration / 4;
    double main_secs = opt.duration - flood_secs > 0.2 ? opt.duration - flood_secs : 0.2;
    printf("rtdd torture: %.1f s (%.1f s readers/writers + %.1f s callback flood), "
           "%d readers, %d writers\n", main_secs + flood_secs, main_secs, flood_secs,
           opt.readers, opt.writers);

    struct rtdd_rcu_stats before, after;
    rtdd_rcu_get_stats(&before);
    pthread_t readers[MAX_READERS], writers[MAX_WRITERS], signaller;
    int nr = 0, nw = 0;
    for (int i = 0; i < opt.readers; i++)
        if (pthread_create(&readers[nr], NULL, reader_main, (void *)(uintptr_t)(i + 1)) == 0)
            nr++;
    for (int i = 0; i < opt.writers; i++)
        if (pthread_create(&writers[nw], NULL, writer_main, (void *)(uintptr_t)(i + 1)) == 0)
            nw++;
    if (nr == 0 || nw == 0) {
        fprintf(stderr, "rtdd torture: cannot create threads\n");
        return 1;
    }
    struct signaller_args sargs = {readers, nr};
    bool have_signaller = pthread_create(&signaller, NULL, signaller_main, &sargs) == 0;

    double end = now_sec() + main_secs;
    while (now_sec() < end)
        usleep(20000);
    __atomic_store_n(&stop_main, 1, __ATOMIC_RELAXED);
    if (have_signaller)
        pthread_join(signaller, NULL);
    for (int i = 0; i < nw; i++)
        pthread_join(writers[i], NULL);
    for (int i = 0; i < nr; i++)
        pthread_join(readers[i], NULL);
    rcu_barrier(); /* chains re-queue themselves: drain until all are home */
    for (int i = 0; i < 2 * PIPE_LEN; i++)
        rcu_barrier();
    rtdd_rcu_get_stats(&after);

    uint64_t reads = 0, bad_age = 0;
    printf("Reader Pipe: ");
    for (int i = 0; i <= PIPE_LEN; i++) {
        printf(" %llu", (unsigned long long)pipe_hist[i]);
        reads += pipe_hist[i];
        if (i > 1)
            bad_age += pipe_hist[i];
    }
    printf("\n");
    printf("reads %llu (signal-handler %llu, short-lived threads %llu), updates %llu, "
           "grace periods %llu, callbacks %llu in %llu batches, pool empty %llu\n",
           (unsigned long long)reads, (unsigned long long)signal_reads,
           (unsigned long long)exiting_threads, (unsigned long long)updates,
           (unsigned long long)(after.grace_periods - before.grace_periods),
           (unsigned long long)(after.callbacks_invoked - before.callbacks_invoked),
           (unsigned long long)(after.callback_batches - before.callback_batches),
           (unsigned long long)pool_empty);
    printf("poisoned objects seen %llu, reads past age 1 %llu, reads at age 1 %llu, "
           "barrier errors %llu\n",
           (unsigned long long)poison_seen, (unsigned long long)bad_age,
           (unsigned long long)pipe_hist[1], (unsigned long long)barrier_errors);

    int failures = 0;
    if (poison_seen || bad_age || pipe_hist[1] || barrier_errors) {
        printf("!!! grace-period violation\n");
        failures++;
    }
    if (updates == 0 || reads == 0) {
        printf("!!! no progress: updates %llu, reads %llu\n", (unsigned long long)updates,
               (unsigned long long)reads);
        failures++;
    }
    failures += run_flood(flood_secs);
    printf("rtdd torture: %s\n", failures ? "FAILURE" : "SUCCESS");
    return failures ? 1 : 0;
}

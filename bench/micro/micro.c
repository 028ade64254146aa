/* Micro-benchmarks: one workload per run, printing nanoseconds per
 * operation. The same source runs natively, under `rtdd run`, rebuilt
 * with -fsanitize=thread, and under Helgrind/DRD, so that the only
 * difference is the checking tool.
 *   micro WORKLOAD ITERATIONS
 * Workloads (one "operation" each):
 *   mutex_pair        uncontended pthread_mutex_lock+unlock
 *   mutex_contended   lock+unlock of one mutex by 2 threads (ITERATIONS in total)
 *   nested3           2 threads each take A, B, C in that order and release (one op = 3 locks)
 *   rwlock_read       uncontended pthread_rwlock_rdlock+unlock
 *   spin_pair         uncontended pthread_spin_lock+unlock
 *   malloc_free_64    malloc(64)+free
 *   free_heavy_1000   malloc+free of 16..1008 bytes while 1,000 heap mutexes are held
 *   graph             lock-order graph build: for i < ITERATIONS lock m[i] then m[i+1]
 *                     (one op = one new lock and one new edge; no warm-up)
 *   create_destroy    the shape of ThreadSanitizer's deadlock stress Test14: 4 threads
 *                     each make and destroy 10 padded mutexes per step, never locked
 *   cond_pingpong     2 threads hand a turn back and forth through one mutex and two
 *                     condition variables (one op = a round trip: 2 signals, 2 waits)
 *   sem_pair          uncontended sem_post+sem_wait on one unnamed semaphore
 *   barrier_round     2 threads meet at one pthread_barrier_t (one op = a round: 2 waits)
 *   random_rwlocks    the shape of ThreadSanitizer's real_deadlock_detector_stress_test:
 *                     4 threads, 16K rwlocks made on first use and destroyed at random,
 *                     up to 10 held, always taken in increasing order (read, write,
 *                     or tried), released in random order (one op = one step)
 *   exec_true         posix_spawn of /bin/true and waitpid, one after the other: prints the
 *                     children's CPU time per exec (getrusage RUSAGE_CHILDREN), not wall
 *                     time (under rtdd run the children start with the runtime preloaded)
 *   fork_busy         4 threads lock (own lock, then one of 4 shared ones inside it) and
 *                     allocate without pause while main forks children that take a
 *                     lock of their own, allocate and _exit (one op = fork + waitpid)
 * mutex_contended, nested3 and many_locks also print a second line, the hold
 * time of their (outer) lock sampled inside the program (hold.h). */
#include "hold.h"

#include <pthread.h>
#include <spawn.h>
#include <sys/resource.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define BARRIER() __asm__ volatile("" ::: "memory")

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mtx_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mtx_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mtx_c = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static volatile long shared_counter;

static void mutex_pair(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&mutex);
        BARRIER();
        pthread_mutex_unlock(&mutex);
    }
}

static void *contended_thread(void *arg)
{
    long n = (long)arg;
    int slot = hold_slot();
    for (long i = 0; i < n; i++) {
        int sampled = hold_sampled(i);
        pthread_mutex_lock(&mutex);
        uint64_t t1 = sampled ? hold_ticks() : 0;
        shared_counter++;
        if (sampled)
            hold_record(slot, t1, hold_ticks());
        pthread_mutex_unlock(&mutex);
    }
    return NULL;
}

static void *nested3_thread(void *arg)
{
    long n = (long)arg;
    int slot = hold_slot();
    for (long i = 0; i < n; i++) {
        int sampled = hold_sampled(i);
        pthread_mutex_lock(&mtx_a);
        uint64_t t1 = sampled ? hold_ticks() : 0;
        pthread_mutex_lock(&mtx_b);
        pthread_mutex_lock(&mtx_c);
        shared_counter++;
        pthread_mutex_unlock(&mtx_c);
        pthread_mutex_unlock(&mtx_b);
        if (sampled)
            hold_record(slot, t1, hold_ticks());
        pthread_mutex_unlock(&mtx_a);
    }
    return NULL;
}

static void two_threads(void *(*fn)(void *), long n)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, fn, (void *)(n / 2)))
            abort();
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
}

static void four_threads(void *(*fn)(void *), long n)
{
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, fn, (void *)(n / 4 * 16 + i)))
            abort();
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
}

/* Locks as members of short-lived objects: made and destroyed, unused. */
struct padded_mutex {
    pthread_mutex_t m;
    char pad[64 - sizeof(pthread_mutex_t)];
};

static void *create_destroy_thread(void *arg)
{
    long n = (long)arg / 16;
    struct padded_mutex m[10];
    for (long i = 0; i < n; i++) {
        for (int j = 0; j < 10; j++)
            if (pthread_mutex_init(&m[j].m, NULL))
                abort();
        BARRIER();
        for (int j = 0; j < 10; j++)
            if (pthread_mutex_destroy(&m[j].m))
                abort();
    }
    return NULL;
}

static void create_destroy(long n) { four_threads(create_destroy_thread, n); }

/* Many rwlocks that come and go while threads nest them: a slot's state is
 * a reference count, NOT_MADE, or BUSY while one thread makes or destroys
 * its lock; threads lock in increasing slot order, so there is no cycle. */
#define RW_SLOTS (16 << 10)
#define RW_MAX_HELD 10
enum { SLOT_NOT_MADE = -1, SLOT_BUSY = -2 };
static struct rw_slot {
    int state; /* atomic builtins only: clang refuses them on _Atomic */
    pthread_rwlock_t lock;
} rw_slots[RW_SLOTS];

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Takes a reference on the slot, making its lock if there is none. */
static void slot_get(struct rw_slot *sl)
{
    for (;;) {
        int old = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
        if (old == SLOT_BUSY) {
            sched_yield();
            continue;
        }
        int want = old == SLOT_NOT_MADE ? SLOT_BUSY : old + 1;
        if (!__atomic_compare_exchange_n(&sl->state, &old, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        if (want == SLOT_BUSY) {
            if (pthread_rwlock_init(&sl->lock, NULL))
                abort();
            __atomic_store_n(&sl->state, 1, __ATOMIC_RELEASE);
        }
        return;
    }
}

static void slot_put(struct rw_slot *sl)
{
    if (__atomic_fetch_sub(&sl->state, 1, __ATOMIC_ACQ_REL) <= 0)
        abort();
}

static void *random_rwlocks_thread(void *arg)
{
    long n = (long)arg / 16;
    unsigned seed = 2654435761u * (unsigned)((long)arg % 16 + 1);
    int held[RW_MAX_HELD], nheld = 0;
    for (long i = 0; i < n; i++) {
        unsigned what = next_rand(&seed) % 10;
        if (what < 4 && nheld < RW_MAX_HELD) {
            int top = -1;
            for (int k = 0; k < nheld; k++)
                if (held[k] > top)
                    top = held[k];
            if (top == RW_SLOTS - 1)
                continue;
            int id = top + 1 + (int)(next_rand(&seed) % (unsigned)(RW_SLOTS - top - 1));
            struct rw_slot *sl = &rw_slots[id];
            slot_get(sl);
            int busy = 0;
            switch (next_rand(&seed) % 4) {
            case 0: busy = pthread_rwlock_wrlock(&sl->lock); break;
            case 1: busy = pthread_rwlock_rdlock(&sl->lock); break;
            case 2: busy = pthread_rwlock_trywrlock(&sl->lock); break;
            default: busy = pthread_rwlock_tryrdlock(&sl->lock); break;
            }
            if (busy) {
                slot_put(sl);
                continue;
            }
            held[nheld++] = id;
        } else if (what < 9 && nheld > 0) {
            int k = (int)(next_rand(&seed) % (unsigned)nheld);
            struct rw_slot *sl = &rw_slots[held[k]];
            held[k] = held[--nheld];
            if (pthread_rwlock_unlock(&sl->lock))
                abort();
            slot_put(sl);
        } else {
            struct rw_slot *sl = &rw_slots[next_rand(&seed) % RW_SLOTS];
            int made = 0;
            if (!__atomic_compare_exchange_n(&sl->state, &made, SLOT_BUSY, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                continue; /* in use, or never made */
            if (pthread_rwlock_destroy(&sl->lock))
                abort();
            __atomic_store_n(&sl->state, SLOT_NOT_MADE, __ATOMIC_RELEASE);
        }
    }
    while (nheld > 0) {
        struct rw_slot *sl = &rw_slots[held[--nheld]];
        if (pthread_rwlock_unlock(&sl->lock))
            abort();
        slot_put(sl);
    }
    return NULL;
}

static void random_rwlocks(long n)
{
    static int ready;
    if (!ready++)
        for (int i = 0; i < RW_SLOTS; i++)
            rw_slots[i].state = SLOT_NOT_MADE;
    four_threads(random_rwlocks_thread, n);
}

/* A clean stress of a few hundred locks: each step nests three of 300
 * mutexes, chosen at random, always in increasing order (no cycle), so the
 * lock-order graph keeps learning edges among thousands of pairs and lock
 * sequences. */
#define MANY_LOCKS 300
static pthread_mutex_t many[MANY_LOCKS];
static void *many_locks_thread(void *arg)
{
    long n = (long)arg;
    unsigned s = (unsigned)(uintptr_t)&n;
    int slot = hold_slot();
    for (long i = 0; i < n; i++) {
        unsigned k[3];
        for (int j = 0; j < 3; j++) {
            s = s * 1103515245u + 12345u;
            k[j] = (s >> 8) % MANY_LOCKS;
        }
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++)
                if (k[b] < k[a]) {
                    unsigned x = k[a];
                    k[a] = k[b];
                    k[b] = x;
                }
        if (k[0] == k[1] || k[1] == k[2])
            continue;
        int sampled = hold_sampled(i);
        uint64_t t1 = 0;
        for (int j = 0; j < 3; j++) {
            pthread_mutex_lock(&many[k[j]]);
            if (j == 0 && sampled)
                t1 = hold_ticks();
        }
        BARRIER(); /* no shared write: the two threads may hold disjoint locks */
        for (int j = 3; j-- > 0;) {
            if (j == 0 && sampled)
                hold_record(slot, t1, hold_ticks());
            pthread_mutex_unlock(&many[k[j]]);
        }
    }
    return NULL;
}

/* Lock churn: each step creates ten mutexes, nests them, and destroys them
 * (a lock per object, objects made and dropped by the thousand). */
static void *churn_thread(void *arg)
{
    long n = (long)arg;
    pthread_mutex_t m[10];
    for (long i = 0; i < n; i++) {
        for (int j = 0; j < 10; j++)
            pthread_mutex_init(&m[j], NULL);
        for (int j = 0; j < 10; j++)
            pthread_mutex_lock(&m[j]);
        BARRIER();
        for (int j = 10; j-- > 0;)
            pthread_mutex_unlock(&m[j]);
        for (int j = 0; j < 10; j++)
            pthread_mutex_destroy(&m[j]);
    }
    return NULL;
}

static void mutex_contended(long n) { two_threads(contended_thread, n); }
static void nested3(long n) { two_threads(nested3_thread, n); }
static void lock_churn(long n) { two_threads(churn_thread, n); }
static void many_locks(long n)
{
    static int ready;
    if (!ready++)
        for (int i = 0; i < MANY_LOCKS; i++)
            pthread_mutex_init(&many[i], NULL);
    two_threads(many_locks_thread, n);
}

static void rwlock_read(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_rwlock_rdlock(&rwlock);
        BARRIER();
        pthread_rwlock_unlock(&rwlock);
    }
}

static void spin_pair(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_spin_lock(&spin);
        BARRIER();
        pthread_spin_unlock(&spin);
    }
}

/* Other locks alive in the process, so the free-side check is on. */
static void malloc_free_64(long n)
{
    pthread_mutex_lock(&mutex);
    pthread_mutex_unlock(&mutex);
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc(64);
        free(p);
    }
}

#define HELD 1000
static pthread_mutex_t *held_locks;

static void free_heavy(long n)
{
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc(16 + (size_t)(i & 63) * 16);
        free(p);
    }
}

static void free_heavy_1000(long n)
{
    if (!held_locks) {
        held_locks = malloc(HELD * sizeof *held_locks);
        if (!held_locks)
            abort();
        for (int i = 0; i < HELD; i++) {
            pthread_mutex_init(&held_locks[i], NULL);
            pthread_mutex_lock(&held_locks[i]);
        }
    }
    free_heavy(n);
}

static void free_heavy_done(void)
{
    if (!held_locks)
        return;
    for (int i = HELD - 1; i >= 0; i--)
        pthread_mutex_unlock(&held_locks[i]);
    for (int i = 0; i < HELD; i++)
        pthread_mutex_destroy(&held_locks[i]);
    free(held_locks);
}

static void graph(long n)
{
    pthread_mutex_t *m = calloc((size_t)n + 1, sizeof *m);
    if (!m)
        abort();
    for (long i = 0; i <= n; i++)
        pthread_mutex_init(&m[i], NULL);
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&m[i]);
        pthread_mutex_lock(&m[i + 1]);
        pthread_mutex_unlock(&m[i + 1]);
        pthread_mutex_unlock(&m[i]);
    }
    printf("%.3f\n", (now_ns() - t0) / n);
    for (long i = 0; i <= n; i++)
        pthread_mutex_destroy(&m[i]);
    free(m);
}

/* n distinct mutexes, each initialized, locked and unlocked once: the cost
 * of a lock's first use (ns per mutex, allocation outside the timing). */
static void million(long n)
{
    pthread_mutex_t *m = calloc((size_t)n, sizeof *m);
    if (!m)
        abort();
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        pthread_mutex_init(&m[i], NULL);
        pthread_mutex_lock(&m[i]);
        pthread_mutex_unlock(&m[i]);
    }
    printf("%.3f\n", (now_ns() - t0) / n);
    free(m);
}

/* A threaded program that forks worker processes: a thread keeps taking a
 * lock (held at about half of the forks), the main thread forks n
 * children one after the other, each computes for a few milliseconds (7 ms
 * here; the program of issue 23 took 2.4 s natively for 200) and _exits.
 * Each child tries the lock first: under rtdd one whose fork found it
 * held writes its lock-held-at-fork report at that first use (ns per
 * fork, wait included). */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static int fork_stop; /* atomic: the main thread stops the locker */
static void *fork_locker(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&fork_stop, __ATOMIC_RELAXED)) {
        pthread_mutex_lock(&fork_lock);
        for (volatile int i = 0; i < 2000; i++)
            ;
        pthread_mutex_unlock(&fork_lock);
        for (volatile int i = 0; i < 2000; i++)
            ;
    }
    return NULL;
}

static void fork_children(long n)
{
    pthread_t t;
    __atomic_store_n(&fork_stop, 0, __ATOMIC_RELAXED);
    pthread_create(&t, NULL, fork_locker, NULL);
    for (long i = 0; i < n; i++) {
        pid_t c = fork();
        if (c == 0) {
            if (pthread_mutex_trylock(&fork_lock) == 0)
                pthread_mutex_unlock(&fork_lock);
            for (volatile long k = 0; k < 30000000; k++)
                ;
            _exit(0);
        }
        waitpid(c, NULL, 0);
    }
    __atomic_store_n(&fork_stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
}

/* fork_busy: the forking main thread meets threads that are always inside
 * a lock or the allocator (issue 38: 2-10x native wall under rtdd). The
 * children touch nothing the workers hold: a clean run reports nothing. */
#define FORK_BUSY_THREADS 4
static pthread_mutex_t busy_shared[FORK_BUSY_THREADS] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                                          PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static int busy_stop; /* atomic */

static void *fork_busy_worker(void *arg)
{
    pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
    unsigned k = (unsigned)(uintptr_t)arg;
    while (!__atomic_load_n(&busy_stop, __ATOMIC_RELAXED)) {
        pthread_mutex_lock(&own);
        pthread_mutex_lock(&busy_shared[k++ % FORK_BUSY_THREADS]);
        char *p = malloc(32 + (k % 16) * 32);
        p[0] = (char)k;
        free(p);
        pthread_mutex_unlock(&busy_shared[(k - 1) % FORK_BUSY_THREADS]);
        pthread_mutex_unlock(&own);
    }
    return NULL;
}

static void fork_busy(long n)
{
    pthread_t t[FORK_BUSY_THREADS];
    __atomic_store_n(&busy_stop, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < FORK_BUSY_THREADS; i++)
        pthread_create(&t[i], NULL, fork_busy_worker, (void *)(uintptr_t)i);
    for (long i = 0; i < n; i++) {
        pid_t c = fork();
        if (c == 0) {
            pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
            pthread_mutex_lock(&m);
            free(malloc(100));
            pthread_mutex_unlock(&m);
            _exit(0);
        }
        waitpid(c, NULL, 0);
    }
    __atomic_store_n(&busy_stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < FORK_BUSY_THREADS; i++)
        pthread_join(t[i], NULL);
}

/* exec_true: what every exec'd process pays for the runtime's start-up (a
 * shell, a build, CGI children), as the children's CPU time per exec. */
extern char **environ;
static int exec_true(long n)
{
    char *argv[] = { "true", NULL };
    for (long i = 0; i < n; i++) {
        pid_t pid;
        int status;
        if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) != 0 || waitpid(pid, &status, 0) != pid ||
            !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "micro: /bin/true failed\n");
            return 1;
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
    printf("%.3f\n", cpu_ns / n);
    return 0;
}

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed[2] = { PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER };
static int turn;
static long turn_rounds;

static void take_turns(int me)
{
    pthread_mutex_lock(&turn_lock);
    for (long i = 0; i < turn_rounds; i++) {
        while (turn != me)
            pthread_cond_wait(&turn_changed[me], &turn_lock);
        turn = !me;
        pthread_cond_signal(&turn_changed[!me]);
    }
    pthread_mutex_unlock(&turn_lock);
}

static void *second_player(void *arg)
{
    (void)arg;
    take_turns(1);
    return NULL;
}

static void cond_pingpong(long n)
{
    pthread_t t;
    turn = 0;
    turn_rounds = n;
    pthread_create(&t, NULL, second_player, NULL);
    take_turns(0);
    pthread_join(t, NULL);
}

static void sem_pair(long n)
{
    static sem_t s;
    static int made;
    if (!made++)
        sem_init(&s, 0, 0);
    for (long i = 0; i < n; i++) {
        sem_post(&s);
        BARRIER();
        sem_wait(&s);
    }
}

static pthread_barrier_t round_barrier;

static void *barrier_partner(void *arg)
{
    for (long i = (long)arg; i > 0; i--)
        pthread_barrier_wait(&round_barrier);
    return NULL;
}

static void barrier_round(long n)
{
    pthread_t t;
    pthread_barrier_init(&round_barrier, NULL, 2);
    pthread_create(&t, NULL, barrier_partner, (void *)n);
    for (long i = 0; i < n; i++)
        pthread_barrier_wait(&round_barrier);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&round_barrier);
}

static const struct { const char *name; void (*run)(long); } workloads[] = {
    { "mutex_pair", mutex_pair },
    { "mutex_contended", mutex_contended },
    { "nested3", nested3 },
    { "many_locks", many_locks },
    { "lock_churn", lock_churn },
    { "create_destroy", create_destroy },
    { "random_rwlocks", random_rwlocks },
    { "rwlock_read", rwlock_read },
    { "spin_pair", spin_pair },
    { "malloc_free_64", malloc_free_64 },
    { "free_heavy_1000", free_heavy_1000 },
    { "fork_children", fork_children },
    { "fork_busy", fork_busy },
    { "cond_pingpong", cond_pingpong },
    { "sem_pair", sem_pair },
    { "barrier_round", barrier_round },
};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: micro WORKLOAD ITERATIONS\n");
        return 2;
    }
    long n = atol(argv[2]);
    if (n < 10) {
        fprintf(stderr, "micro: ITERATIONS must be at least 10\n");
        return 2;
    }
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    if (!strcmp(argv[1], "graph")) {
        graph(n);
        return 0;
    }
    if (!strcmp(argv[1], "exec_true"))
        return exec_true(n);
    if (!strcmp(argv[1], "million")) {
        million(n);
        return 0;
    }
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
        if (strcmp(argv[1], workloads[i].name))
            continue;
        workloads[i].run(n / 10); /* warm-up */
        hold_start();
        double t0 = now_ns();
        workloads[i].run(n);
        printf("%.3f\n", (now_ns() - t0) / n);
        hold_print();
        free_heavy_done();
        return 0;
    }
    fprintf(stderr, "micro: unknown workload '%s'\n", argv[1]);
    return 2;
}

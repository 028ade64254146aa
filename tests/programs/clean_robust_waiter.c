/* A robust mutex's owner ends while the next locker is already blocked on
 * it (blocked longer than deadlock_timeout_ms): the kernel hands the
 * mutex to the waiter with EOWNERDEAD. Two waiters: the first makes it
 * consistent, the second then takes it normally. A wait on a robust mutex
 * whose owner is gone is the robust protocol at work, never a deadlock:
 * nothing to report, the native exit status. */
// expect: none
// options: deadlock_timeout_ms=100
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m;
static pthread_barrier_t held;
static int recovered, plain;

/* glibc's robust mutex word: FUTEX_WAITERS is set once a locker sleeps in the kernel. */
#define WAITERS 0x80000000u

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
    nanosleep(&ts, NULL);
}

static void *owner(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_barrier_wait(&held);
    while (!(__atomic_load_n((unsigned *)&m.__data.__lock, __ATOMIC_ACQUIRE) & WAITERS))
        pause_ms(1);
    pause_ms(300); /* past deadlock_timeout_ms, with the waiters blocked */
    return NULL;   /* ends holding m */
}

static void *waiter(void *arg)
{
    (void)arg;
    int r = pthread_mutex_lock(&m);
    if (r == EOWNERDEAD) {
        pthread_mutex_consistent(&m);
        recovered++;
    } else if (r == 0) {
        plain++;
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&m, &a);
    pthread_barrier_init(&held, NULL, 2);
    pthread_t o, w;
    pthread_create(&o, NULL, owner, NULL);
    pthread_barrier_wait(&held);
    pthread_create(&w, NULL, waiter, NULL);
    waiter(NULL); /* main waits too */
    pthread_join(w, NULL);
    pthread_join(o, NULL);
    if (recovered != 1 || plain != 1)
        return 1;
    puts("robust waiter: recovered once, then taken normally");
    return pthread_mutex_destroy(&m) == 0 ? 0 : 2;
}

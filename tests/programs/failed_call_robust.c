/* A robust mutex whose dead owner's successor unlocks it without
 * pthread_mutex_consistent becomes unrecoverable: every later lock and
 * trylock fails with ENOTRECOVERABLE and acquires nothing. EOWNERDEAD (the
 * successor holds it) is a normal result, ENOTRECOVERABLE is a failed-call
 * (one per call site). */
// expect: failed-call failed-call
// log: pthread_mutex_lock() on [0x
// log: pthread_mutex_trylock() on [0x
// log: failed with ENOTRECOVERABLE (131: State not recoverable), at:
// log: it can never be locked again
// no-log: EOWNERDEAD
// options: deadlock_timeout_ms=100
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lost;

static void *dies_holding(void *arg)
{
    pthread_mutex_lock(arg);
    return NULL; /* ends holding it: the robust protocol hands it on */
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&lost, &a);
    pthread_mutexattr_destroy(&a);
    pthread_t t;
    pthread_create(&t, NULL, dies_holding, &lost);
    pthread_join(t, NULL);
    if (pthread_mutex_lock(&lost) != EOWNERDEAD || pthread_mutex_unlock(&lost) != 0)
        return 1; /* no pthread_mutex_consistent: the state is lost for good */
    if (pthread_mutex_lock(&lost) != ENOTRECOVERABLE || pthread_mutex_trylock(&lost) != ENOTRECOVERABLE)
        return 2;
    if (pthread_mutex_destroy(&lost) != 0)
        return 3;
    puts("robust: unrecoverable as documented");
    return 0;
}

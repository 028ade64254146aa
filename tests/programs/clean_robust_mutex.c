/* Robust mutexes, used as designed (compiler-rt's tsan test
 * Linux/mutex_robust): a thread ends holding one; the next locker gets
 * EOWNERDEAD, which means it holds the mutex, makes it consistent and goes
 * on. Correct programs: nothing to report, the native exit status. (One
 * left inconsistent, whose later lockers get ENOTRECOVERABLE, is a
 * failed-call: tests/programs/failed_call_robust.c.) */
// expect: none
// options: deadlock_timeout_ms=100
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m;

static void *dies_holding(void *arg)
{
    pthread_mutex_lock(arg);
    return NULL; /* ends holding it: the robust protocol hands it on */
}

static void robust_init(pthread_mutex_t *mx)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(mx, &a);
    pthread_mutexattr_destroy(&a);
}

static void owner_dies(pthread_mutex_t *mx)
{
    pthread_t t;
    pthread_create(&t, NULL, dies_holding, mx);
    pthread_join(t, NULL);
}

int main(void)
{
    robust_init(&m);

    owner_dies(&m);
    if (pthread_mutex_lock(&m) != EOWNERDEAD)
        return 1;
    /* The lock is ours: repair the state it protects, then say so. */
    if (pthread_mutex_consistent(&m) != 0 || pthread_mutex_unlock(&m) != 0)
        return 2;
    if (pthread_mutex_lock(&m) != 0 || pthread_mutex_unlock(&m) != 0)
        return 3;
    /* The same with a trylock as the next locker. */
    owner_dies(&m);
    if (pthread_mutex_trylock(&m) != EOWNERDEAD || pthread_mutex_consistent(&m) != 0 ||
        pthread_mutex_unlock(&m) != 0)
        return 4;
    if (pthread_mutex_destroy(&m) != 0)
        return 5;
    puts("robust: recovered");
    return 0;
}

/* Robust mutexes, used as designed (compiler-rt's tsan test
 * Linux/mutex_robust): a thread ends holding one; the next locker gets
 * EOWNERDEAD, which means it holds the mutex, makes it consistent and goes
 * on. A second one is left inconsistent: unlocked without
 * pthread_mutex_consistent, it becomes unrecoverable and later lockers get
 * ENOTRECOVERABLE (acquiring nothing). Correct programs: nothing to report,
 * the native exit status. */
// expect: none
// options: deadlock_timeout_ms=100
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m, lost;

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
    robust_init(&lost);

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

    /* ENOTRECOVERABLE: nobody calls pthread_mutex_consistent. */
    owner_dies(&lost);
    if (pthread_mutex_lock(&lost) != EOWNERDEAD || pthread_mutex_unlock(&lost) != 0)
        return 6;
    if (pthread_mutex_lock(&lost) != ENOTRECOVERABLE || pthread_mutex_trylock(&lost) != ENOTRECOVERABLE)
        return 7;
    if (pthread_mutex_destroy(&lost) != 0)
        return 8;
    puts("robust: recovered, and unrecoverable as documented");
    return 0;
}

/* A failing call that another check already reports is not reported
 * again as failed-call: destroying a held mutex (EBUSY: destroy-locked),
 * write-locking an rwlock the thread holds (EDEADLK: recursive-locking),
 * waiting with an error-checking mutex the thread does not hold (EPERM:
 * cond-misuse), unlocking one it does not hold (EPERM: bad-unlock), and
 * locking a destroyed mutex (EINVAL: use-after-destroy). */
// expect: destroy-locked recursive-locking cond-misuse bad-unlock use-after-destroy
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

int main(void)
{
    int failed = 0;
    pthread_mutex_t m;
    pthread_mutex_init(&m, NULL);
    pthread_mutex_lock(&m);
    failed += pthread_mutex_destroy(&m) == EBUSY;
    pthread_mutex_unlock(&m);

    pthread_rwlock_t rw;
    pthread_rwlock_init(&rw, NULL);
    pthread_rwlock_wrlock(&rw);
    failed += pthread_rwlock_wrlock(&rw) == EDEADLK;
    pthread_rwlock_unlock(&rw);
    pthread_rwlock_destroy(&rw);

    pthread_mutexattr_t a;
    pthread_mutex_t em;
    pthread_cond_t cv;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&em, &a);
    pthread_cond_init(&cv, NULL);
    failed += pthread_cond_wait(&cv, &em) == EPERM;
    failed += pthread_mutex_unlock(&em) == EPERM;

    pthread_mutex_destroy(&m);
    failed += pthread_mutex_lock(&m) == EINVAL;
    printf("%d calls failed\n", failed);
    return failed == 5 ? 0 : 1;
}

/* Lock, wait and semaphore calls that fail and whose result the program
 * ignores: each is one report, once per call site (the loop's second
 * EDEADLK is not reported again). A failure another check already names
 * is that check's: sem_init past SEM_VALUE_MAX and sem_post past it are
 * sem-misuse, not failed-call as well. */
// expect: failed-call failed-call sem-misuse sem-misuse
// log: pthread_mutex_lock() on [0x
// log: failed with EDEADLK (35: Resource deadlock avoided), at:
// log: failed with EINVAL (22: Invalid argument), at:
// log: which is past SEM_VALUE_MAX
// log: sem_post fails with EOVERFLOW
// log: returned at once, without waiting
// no-log: ETIMEDOUT
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
    pthread_mutex_lock(&m);
    for (volatile int i = 0; i < 2; i++) /* one call site, run twice */
        pthread_mutex_lock(&m); /* EDEADLK: the program thinks it locked it again */

    /* A timeout whose nanoseconds are out of range: the wait returns EINVAL at once. */
    pthread_cond_t cv;
    pthread_cond_init(&cv, NULL);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec = 1000000000L;
    pthread_cond_timedwait(&cv, &m, &ts);
    pthread_mutex_unlock(&m);

    sem_t s;
    sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1u); /* EINVAL */
    sem_init(&s, 0, SEM_VALUE_MAX);
    sem_post(&s); /* EOVERFLOW: the post is lost */
    sem_destroy(&s);

    pthread_cond_destroy(&cv);
    pthread_mutex_destroy(&m);
    puts("done");
    return 0;
}

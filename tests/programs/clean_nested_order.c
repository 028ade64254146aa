/* Deep nesting in one consistent order from several threads, with spin
 * locks, errorcheck and recursive mutexes. */
// expect: none
#include <errno.h>
#include <pthread.h>
static pthread_mutex_t l[5];
static pthread_spinlock_t spin;
static pthread_mutex_t rec, chk;
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5000; i++) {
        for (int k = 0; k < 5; k++)
            pthread_mutex_lock(&l[k]);
        pthread_spin_lock(&spin);
        pthread_spin_unlock(&spin);
        for (int k = 4; k >= 0; k--)
            pthread_mutex_unlock(&l[k]);
        pthread_mutex_lock(&rec);
        pthread_mutex_lock(&rec);
        pthread_mutex_unlock(&rec);
        pthread_mutex_unlock(&rec);
    }
    return NULL;
}
int main(void)
{
    pthread_mutexattr_t a;
    for (int k = 0; k < 5; k++)
        pthread_mutex_init(&l[k], NULL);
    pthread_spin_init(&spin, 0);
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&chk, &a);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    /* An errorcheck mutex's holder trying it again gets EBUSY, a trylock's
     * normal result: nothing blocks, nothing to report. (Its relock's
     * EDEADLK is a failed-call: tests/programs/failed_call.c.) */
    pthread_mutex_lock(&chk);
    int r = pthread_mutex_trylock(&chk);
    pthread_mutex_unlock(&chk);
    return r == EBUSY ? 0 : 1;
}

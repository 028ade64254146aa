/* Waiting on a condition variable without holding the mutex, and one
 * condition variable waited on with two different mutexes at once. */
// expect: cond-misuse cond-misuse
// log: but the thread does not hold that mutex
// log: while other threads wait on it with a different mutex
#include <pthread.h>
#include <time.h>
#include <unistd.h>
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static void deadline(struct timespec *ts, long ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_nsec += ms * 1000000L;
    ts->tv_sec += ts->tv_nsec / 1000000000L;
    ts->tv_nsec %= 1000000000L;
}
static void *waiter(void *arg)
{
    pthread_mutex_t *m = arg;
    struct timespec ts;
    deadline(&ts, 200);
    pthread_mutex_lock(m);
    pthread_cond_timedwait(&cv, m, &ts);
    pthread_mutex_unlock(m);
    return NULL;
}
int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, waiter, &m1);
    usleep(50000);
    pthread_create(&t2, NULL, waiter, &m2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    /* Not holding the mutex at all. */
    pthread_mutex_t m3;
    pthread_cond_t cv2;
    pthread_mutex_init(&m3, NULL);
    pthread_cond_init(&cv2, NULL);
    struct timespec ts;
    deadline(&ts, 10);
    pthread_mutex_lock(&m3);
    pthread_mutex_unlock(&m3);
    pthread_cond_timedwait(&cv2, &m3, &ts);
    return 0;
}

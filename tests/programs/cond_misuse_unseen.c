/* pthread_cond_timedwait with a statically initialized mutex that was never
 * locked: the thread does not hold it, which its held stack tells whether
 * rtdd saw the mutex before or not. */
// expect: cond-misuse
// log: WARNING: condition variable misuse
// log: but the thread does not hold that mutex.
#include <pthread.h>
#include <time.h>
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;
int main(void)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 10 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&queue_ready, &queue_lock, &until);
    pthread_mutex_unlock(&queue_lock); /* the wait returns with it taken */
    return 0;
}

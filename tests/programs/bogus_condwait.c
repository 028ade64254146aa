/* A condition wait with a misaligned "mutex" that was never one (Helgrind's
 * tc23_bogus_condwait): not a mutex at all, and named so. */
// expect: invalid-lock
// log: WARNING: invalid lock: an object that is not a lock is used as one
// log: as a pthread_mutex_t in a condition wait, at:
// log: its address is not 8-byte aligned, as every pthread_mutex_t is, and it was never initialized as one
// no-log: use of a destroyed lock
#include <pthread.h>
#include <time.h>
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static char buf[64];

int main(void)
{
    pthread_mutex_t *bogus = (pthread_mutex_t *)(buf + 1);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&cv, bogus, &ts);
    return 0;
}

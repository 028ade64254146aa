/* A condition wait with a misaligned "mutex" that was never one (Helgrind's
 * tc23_bogus_condwait): the thread holds no such mutex. */
// expect: cond-misuse
// log: but the thread does not hold that mutex
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

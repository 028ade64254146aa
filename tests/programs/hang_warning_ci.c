/* The same kind of hang with hang_severity=warning (for CI): the report is
 * a WARNING and the exit status becomes exitcode. */
// options: hang_timeout_ms=500:hang_severity=warning
// expect: blocked-too-long
// log: WARNING: thread hang_warning_ci/
// exit: 66
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int holding;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    holding = 1;
    sleep(2); /* long, finite: longer than the timeout */
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, holder, NULL);
    while (!holding)
        usleep(1000);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    return 0;
}

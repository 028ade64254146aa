/* Signal handlers that lock and allocate while the interrupted code is
 * locking and allocating (perhaps inside the runtime): no crash, no report. */
// expect: none
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t main_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t handled;
static void on_alarm(int sig)
{
    (void)sig;
    pthread_mutex_lock(&handler_lock);
    handled++;
    pthread_mutex_unlock(&handler_lock);
}
int main(void)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 200 }, { 0, 200 } };
    setitimer(ITIMER_REAL, &it, NULL);
    for (long i = 0; i < 3000000 && handled < 2000; i++) {
        pthread_mutex_lock(&main_lock);
        free(malloc(32));
        pthread_mutex_unlock(&main_lock);
    }
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    return handled > 0 ? 0 : 1;
}

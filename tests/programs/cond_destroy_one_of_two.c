/* Two threads wait on a condition variable; one signal releases one of
 * them, and the condition is destroyed while the other is still blocked
 * on it (a helper wakes it later, or glibc's pthread_cond_destroy would
 * wait forever). The released waiter is no reason to report; the blocked
 * one is. */
// expect: cond-misuse
// log: destroys condition variable
// log: while 1 thread is blocked on it, not released by any signal or broadcast
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int tickets, waiting;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    waiting++;
    while (!tickets)
        pthread_cond_wait(&cv, &m);
    tickets--;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *late_waker(void *arg)
{
    (void)arg;
    usleep(300000);
    pthread_mutex_lock(&m);
    tickets++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t w[2], k;
    for (int i = 0; i < 2; i++)
        pthread_create(&w[i], NULL, waiter, NULL);
    for (int ready = 0; !ready;) {
        pthread_mutex_lock(&m);
        ready = waiting == 2; /* both are in their waits once m is ours */
        if (ready) {
            tickets = 1;
            pthread_cond_signal(&cv);
        }
        pthread_mutex_unlock(&m);
        if (!ready)
            usleep(1000);
    }
    pthread_create(&k, NULL, late_waker, NULL);
    pthread_cond_destroy(&cv);
    for (int i = 0; i < 2; i++)
        pthread_join(w[i], NULL);
    pthread_join(k, NULL);
    return 0;
}

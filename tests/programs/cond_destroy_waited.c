/* A condition variable destroyed while a thread waits on it: reported
 * before glibc's pthread_cond_destroy blocks (it waits for the waiters to
 * wake; here a helper wakes them after a while). */
// expect: cond-misuse
// log: destroys condition variable
// log: while 1 thread is blocked on it
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int go, waiting;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    waiting = 1;
    while (!go)
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *waker(void *arg)
{
    (void)arg;
    usleep(300000);
    pthread_mutex_lock(&m);
    go = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t w, k;
    pthread_create(&w, NULL, waiter, NULL);
    while (!waiting)
        usleep(1000);
    pthread_mutex_lock(&m); /* the waiter is inside pthread_cond_wait once this is ours */
    pthread_mutex_unlock(&m);
    pthread_create(&k, NULL, waker, NULL);
    pthread_cond_destroy(&cv);
    pthread_join(w, NULL);
    pthread_join(k, NULL);
    return 0;
}

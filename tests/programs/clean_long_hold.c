/* A lock held for a long but finite time below hang_timeout_ms, and a
 * thread pool idle (in pthread_cond_wait, no lock held) far longer than
 * it: no report. */
// options: hang_timeout_ms=1500
// expect: none
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static int stop, holding;

static void *idle_worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&qlock);
    while (!stop)
        pthread_cond_wait(&work, &qlock);
    pthread_mutex_unlock(&qlock);
    return NULL;
}

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    __atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
    usleep(700000);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t w[2], h;
    for (int i = 0; i < 2; i++)
        pthread_create(&w[i], NULL, idle_worker, NULL);
    pthread_create(&h, NULL, holder, NULL);
    while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
        usleep(1000);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    pthread_join(h, NULL);
    sleep(3); /* the pool stays idle well past the timeout */
    pthread_mutex_lock(&qlock);
    stop = 1;
    pthread_cond_broadcast(&work);
    pthread_mutex_unlock(&qlock);
    for (int i = 0; i < 2; i++)
        pthread_join(w[i], NULL);
    return 0;
}

/* The correct form of pth_cond_destroy_busy: the condition is destroyed
 * after its waiter was signalled and left. Then the old waiter idles on
 * another condition well past deadlock_timeout_ms while main sleeps, and
 * main wakes it: no misuse, no deadlock, no hang. */
// options: deadlock_timeout_ms=100
// expect: none
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t s_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_cond, later;
static int s_i;

static void *thread_func(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&s_mutex);
    s_i = 1;
    pthread_cond_signal(&s_cond);
    while (s_i == 1)
        pthread_cond_wait(&s_cond, &s_mutex);
    s_i = 3; /* left the wait on s_cond */
    pthread_cond_signal(&later);
    while (s_i == 3)
        pthread_cond_wait(&later, &s_mutex);
    pthread_mutex_unlock(&s_mutex);
    return NULL;
}

int main(void)
{
    pthread_t threadid;
    pthread_cond_init(&s_cond, 0);
    pthread_cond_init(&later, 0);
    pthread_create(&threadid, 0, thread_func, 0);
    pthread_mutex_lock(&s_mutex);
    while (s_i == 0)
        pthread_cond_wait(&s_cond, &s_mutex);
    s_i = 2;
    pthread_cond_signal(&s_cond);
    while (s_i != 3)
        pthread_cond_wait(&later, &s_mutex);
    pthread_mutex_unlock(&s_mutex);
    pthread_cond_destroy(&s_cond); /* nobody waits on it any more */
    usleep(400000);
    pthread_mutex_lock(&s_mutex);
    s_i = 4;
    pthread_cond_signal(&later);
    pthread_mutex_unlock(&s_mutex);
    pthread_join(threadid, 0);
    pthread_cond_destroy(&later);
    return 0;
}

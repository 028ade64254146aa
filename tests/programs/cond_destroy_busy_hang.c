/* Valgrind's drd test pth_cond_destroy_busy, in its shape: main destroys a
 * condition variable a thread waits on, and signals it only after the
 * destroy. glibc's pthread_cond_destroy waits until the waiter has left, the
 * waiter waits for main's signal: neither can go on. rtdd reports the
 * misuse, and the watchdog, which knows the destroy as a wait (for the
 * waiter), reports the deadlock and ends the run: the hang does not outlive
 * its report. */
// options: deadlock_timeout_ms=300
// expect: cond-misuse deadlock
// log: destroys condition variable
// log: BUG: deadlock detected, all 2 threads blocked, none can wake another
// log: ms in pthread_cond_destroy of condition variable
// log: SUMMARY: rtdd: deadlock cond_destroy_busy_hang.c:
// log: The program cannot go on
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t s_mutex;
static pthread_cond_t s_cond;
static int s_i;

static void *thread_func(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&s_mutex);
    s_i = 1;
    pthread_cond_signal(&s_cond);
    while (s_i == 1)
        pthread_cond_wait(&s_cond, &s_mutex);
    pthread_mutex_unlock(&s_mutex);
    return NULL;
}

int main(void)
{
    pthread_t threadid;
    pthread_mutex_init(&s_mutex, 0);
    pthread_cond_init(&s_cond, 0);
    pthread_create(&threadid, 0, thread_func, 0);
    pthread_mutex_lock(&s_mutex);
    while (s_i == 0)
        pthread_cond_wait(&s_cond, &s_mutex);
    pthread_mutex_unlock(&s_mutex);
    /* The thread is in its wait once s_mutex was ours again. */
    int ret = pthread_cond_destroy(&s_cond); /* glibc: waits for the waiter */
    fprintf(stderr, "pthread_cond_destroy returned %d\n", ret);
    pthread_mutex_lock(&s_mutex);
    s_i = 2;
    pthread_cond_signal(&s_cond);
    pthread_mutex_unlock(&s_mutex);
    pthread_join(threadid, 0);
    return 0;
}

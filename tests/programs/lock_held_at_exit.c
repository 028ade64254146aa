/* Threads that end holding locks: by returning, by pthread_exit, and by
 * being cancelled. */
// expect: lock-held-at-exit lock-held-at-exit lock-held-at-exit
// log: exited still holding lock #0
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER, c = PTHREAD_MUTEX_INITIALIZER;
static void *returns(void *arg) { (void)arg; pthread_mutex_lock(&a); return NULL; }
static void *exits(void *arg) { (void)arg; pthread_mutex_lock(&b); pthread_exit(NULL); }
static void *cancelled(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&c);
    for (;;)
        pause();
    return NULL;
}
int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, returns, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, exits, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, cancelled, NULL);
    usleep(20000);
    pthread_cancel(t);
    pthread_join(t, NULL);
    return 0;
}

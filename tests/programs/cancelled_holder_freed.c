/* A thread is cancelled while it holds a heap mutex (the lock stays
 * locked for good); then the mutex's memory is freed. */
// expect: lock-held-at-exit active-lock-freed
// log: held by a thread that exited (or was cancelled) while holding it
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static pthread_mutex_t *m;
static volatile int locked;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(m);
    locked = 1;
    for (;;)
        pause(); /* a cancellation point */
    return NULL;
}

int main(void)
{
    m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_t t;
    pthread_create(&t, NULL, holder, NULL);
    while (!locked)
        usleep(1000);
    pthread_cancel(t);
    pthread_join(t, NULL);
    free(m);
    return 0;
}

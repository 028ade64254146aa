/* Four threads make the same bad unlock at the same moment; one of them
 * then calls exit(2) at once. The first thread's report is being written
 * while the duplicates return and the process exits: it must still be in
 * the log, and the exit status must be the runtime's exitcode.
 * Usage: duplicate_exit */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t never_locked = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;

static void *unlock_twice(void *arg)
{
    pthread_barrier_wait(&start);
    pthread_mutex_unlock(&never_locked); /* the same bad unlock in every thread */
    if (arg)
        exit(2);
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    pthread_mutex_lock(&never_locked);   /* known to the runtime, then free again */
    pthread_mutex_unlock(&never_locked);
    pthread_barrier_init(&start, NULL, 4);
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, unlock_twice, (void *)(long)(i == 3));
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return 0;
}

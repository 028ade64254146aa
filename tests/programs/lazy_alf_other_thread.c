/* alf_other_thread with pthread_mutex_init: one thread holds the lock of
 * a heap object (it has no lock record yet), another frees the object.
 * The report names the holder and the init site. */
// expect: active-lock-freed
// log: the lock was initialized by thread
// log: is held by lazy_alf_other_
// log: holder+0x
#include <pthread.h>
#include <stdlib.h>

struct obj { char pad[100]; pthread_mutex_t lock; };
static pthread_barrier_t held, freed;
/* A thread's first lock call registers it (the general path, which makes
 * a record): the holder makes that call on another lock first. */
static pthread_mutex_t warm_up = PTHREAD_MUTEX_INITIALIZER;

static void *holder(void *arg)
{
    struct obj *o = arg;
    pthread_mutex_lock(&warm_up);
    pthread_mutex_unlock(&warm_up);
    pthread_mutex_lock(&o->lock);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&freed);
    return NULL;
}

int main(void)
{
    struct obj *o = calloc(1, sizeof *o);
    pthread_mutex_init(&o->lock, NULL);
    pthread_t t;
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&freed, NULL, 2);
    pthread_create(&t, NULL, holder, o);
    pthread_barrier_wait(&held);
    free(o);
    pthread_barrier_wait(&freed);
    pthread_join(t, NULL);
    return 0;
}

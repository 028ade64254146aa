/* The xfrm_policy pattern with a heap object and a static-initialized lock:
 * one thread holds, another frees. */
// expect: active-lock-freed
// log: statically initialized; first used
// log: holder+0x
#include <pthread.h>
#include <stdlib.h>

struct obj { char pad[100]; pthread_mutex_t lock; };
static pthread_barrier_t held, freed;

static void *holder(void *arg)
{
    struct obj *o = arg;
    pthread_mutex_lock(&o->lock);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&freed);
    return NULL;
}

int main(void)
{
    struct obj *o = calloc(1, sizeof *o);
    pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
    o->lock = init;
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

/* Look-alike of destroy_busy_then_free: the refused destroy (EBUSY) is the
 * one bug; the holder then unlocks, the destroy is tried again and
 * succeeds, and only then is the object freed: no lock is freed held. */
// expect: destroy-locked
// log: BUG: destroying a held lock
// log: destroy_busy_then_retry.c:33 in main
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct obj { char pad[100]; pthread_mutex_t lock; };
static pthread_barrier_t held, refused;

static void *holder(void *arg)
{
    struct obj *o = arg;
    pthread_mutex_lock(&o->lock);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&refused);
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

int main(void)
{
    struct obj *o = calloc(1, sizeof *o);
    pthread_mutex_init(&o->lock, NULL);
    pthread_t t;
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&refused, NULL, 2);
    pthread_create(&t, NULL, holder, o);
    pthread_barrier_wait(&held);
    int r1 = pthread_mutex_destroy(&o->lock);
    pthread_barrier_wait(&refused);
    pthread_join(t, NULL);
    int r2 = pthread_mutex_destroy(&o->lock);
    free(o);
    return r1 == EBUSY && r2 == 0 ? 0 : 1;
}

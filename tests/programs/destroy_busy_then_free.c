/* A refcount-release race: one thread still holds an object's mutex when
 * another destroys it (glibc refuses: EBUSY) and frees the object; the
 * holder then unlocks freed memory. The refused destroy must not end
 * rtdd's tracking: the free of the held lock is reported too, and the
 * holder's unlock of the freed memory (as Helgrind and TSan report it). */
// expect: destroy-locked active-lock-freed use-after-destroy
// log: BUG: destroying a held lock
// log: is held by destroy_busy_th/
// log: destroy_busy_then_free.c:40 in main
// log: releases lock [0x
// log: freed while this thread held it, at:
// log: SUMMARY: rtdd: use-after-destroy destroy_busy_then_free.c:26 in holder
#include <errno.h>
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
    pthread_mutex_unlock(&o->lock); /* memory freed meanwhile (the pad keeps malloc's words off it) */
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
    int r = pthread_mutex_destroy(&o->lock);
    free(o);
    pthread_barrier_wait(&freed);
    pthread_join(t, NULL);
    return r == EBUSY ? 0 : 1;
}

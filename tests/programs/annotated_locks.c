/* A library's own spinlock and reader-writer lock, described to rtdd with
 * include/rtdd/annotate.h: a heap object freed while its annotated lock is
 * held is active-lock-freed, like a pthread mutex; two threads taking two
 * annotated locks in opposite orders are a lock-order inversion; a
 * non-recursive annotated lock taken again by its holder is recursive
 * locking (the second attempt spins a bounded time: RTDD_LOCK_TIMED). */
// expect: active-lock-freed lock-order-inversion recursive-locking
// log: (annotated lock, initialized at annotated_locks.c:
// log: cycle: journal_lock -> table_lock -> journal_lock
// log: BUG: annotated_locks/
#include <pthread.h>
#include <stdlib.h>
#include "../../include/rtdd/annotate.h"

struct spinlock { int locked; };

static void spin_init(struct spinlock *s) { s->locked = 0; RTDD_LOCK_CREATE(s, 0); }
static void spin_lock(struct spinlock *s)
{
    RTDD_LOCK_PRE(s, 0);
    while (__atomic_exchange_n(&s->locked, 1, __ATOMIC_ACQUIRE))
        ;
    RTDD_LOCK_POST(s, 0, 1);
}
/* Gives up after a while: the bounded attempt of a timed lock. */
static int spin_lock_bounded(struct spinlock *s)
{
    RTDD_LOCK_PRE(s, RTDD_LOCK_TIMED);
    int ok = 0;
    for (int i = 0; i < 1000 && !ok; i++)
        ok = !__atomic_exchange_n(&s->locked, 1, __ATOMIC_ACQUIRE);
    RTDD_LOCK_POST(s, RTDD_LOCK_TIMED, ok);
    return ok;
}
static void spin_unlock(struct spinlock *s) { RTDD_LOCK_RELEASE(s, 0); __atomic_store_n(&s->locked, 0, __ATOMIC_RELEASE); }

struct record { struct spinlock lock; int value; };
static struct spinlock table_lock, journal_lock;

static void *writer(void *arg)
{
    (void)arg;
    spin_lock(&table_lock);
    spin_lock(&journal_lock);
    spin_unlock(&journal_lock);
    spin_unlock(&table_lock);
    return NULL;
}

static void *flusher(void *arg)
{
    (void)arg;
    spin_lock(&journal_lock);
    spin_lock(&table_lock);
    spin_unlock(&table_lock);
    spin_unlock(&journal_lock);
    return NULL;
}

int main(void)
{
    spin_init(&table_lock);
    spin_init(&journal_lock);
    RTDD_LOCK_NAME(&table_lock, "table_lock");
    RTDD_LOCK_NAME(&journal_lock, "journal_lock");
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, flusher, NULL);
    pthread_join(t, NULL);

    struct record *r = malloc(sizeof *r);
    spin_init(&r->lock);
    spin_lock(&r->lock);
    r->value = 1;
    free(r); /* still locked */

    spin_lock(&table_lock);
    if (spin_lock_bounded(&table_lock)) /* fails: held by this thread */
        spin_unlock(&table_lock);
    spin_unlock(&table_lock);
    return 0;
}

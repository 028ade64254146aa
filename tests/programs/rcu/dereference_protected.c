/* An update path says, with rcu_dereference_protected(), that the updaters'
 * lock protects its load, and one caller forgot to take it (librtdd_rcu
 * reports the false condition at once; the liburcu build has no such
 * macro: its plain rcu_dereference() is judged against the updaters' lock
 * another thread holds). */
// expect: rcu-unprotected-dereference
// log: WARNING: suspicious RCU usage
// log: on the RCU pointer table_head
// log: in table_size_locked
#include "rcu_api.h"
#include <stdlib.h>
struct table { int size; };
static struct table *table_head;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t resized;

__attribute__((noinline)) static int table_size_locked(void)
{
    struct table *t = rcu_dereference_protected(table_head, lockdep_is_held(&table_lock));
    return t ? t->size : 0;
}

__attribute__((noinline)) static void resize(int size)
{
    struct table *fresh = calloc(1, sizeof *fresh), *old;
    fresh->size = size;
    pthread_mutex_lock(&table_lock);
    old = table_head;
    if (table_size_locked() != size) /* right: the lock is held */
        rcu_assign_pointer(table_head, fresh);
    else
        old = fresh;
    pthread_mutex_unlock(&table_lock);
    synchronize_rcu();
    free(old);
}

static void *resizer(void *arg)
{
    test_rcu_online();
    resize(8);
    pthread_barrier_wait(&resized);
    pthread_barrier_wait(&resized);
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t r;
    pthread_barrier_init(&resized, NULL, 2);
    pthread_mutex_lock(&table_lock); /* the main thread is known before the update */
    pthread_mutex_unlock(&table_lock);
    pthread_create(&r, NULL, resizer, NULL);
    pthread_barrier_wait(&resized);
    int size = table_size_locked(); /* BUG: without table_lock */
    pthread_barrier_wait(&resized);
    pthread_join(r, NULL);
    free(table_head);
    return size == 8 ? 0 : 1;
}

/* The pointer lives in a heap object (a table's current bucket array):
 * freeing what it holds is reported when a reader next obtains it, as the
 * table is still in use. Freeing a table together with what it holds, at
 * teardown, is not a bug and is not reported. */
// expect: rcu-freed-while-published
// log: still published in an RCU pointer!
// log: and a reader obtains it afterwards with rcu_dereference(), at:
// log: table_lookup+
// log: in table_clear
#include "rcu_api.h"
#include <stdlib.h>
struct buckets { int n; };
struct table { int id; struct buckets *b; };
static pthread_barrier_t shrunk;

__attribute__((noinline)) static int table_lookup(struct table *t)
{
    rcu_read_lock();
    struct buckets *b = rcu_dereference(t->b);
    int n = b ? 1 : 0; /* b may be freed memory */
    rcu_read_unlock();
    return n;
}

__attribute__((noinline)) static void table_clear(struct table *t)
{
    free(t->b); /* BUG: still published, and stays so */
}

static void *reader(void *arg)
{
    test_rcu_online();
    struct table *t = arg;
    table_lookup(t);
    pthread_barrier_wait(&shrunk);
    pthread_barrier_wait(&shrunk);
    table_lookup(t);
    test_rcu_offline();
    return NULL;
}

int main(void)
{
    pthread_t r;
    pthread_barrier_init(&shrunk, NULL, 2);
    test_rcu_online();
    struct table *t = calloc(1, sizeof *t), *other = calloc(1, sizeof *other);
    rcu_assign_pointer(t->b, calloc(1, sizeof(struct buckets)));
    rcu_assign_pointer(other->b, calloc(1, sizeof(struct buckets)));
    pthread_create(&r, NULL, reader, t);
    pthread_barrier_wait(&shrunk);
    table_clear(t);
    pthread_barrier_wait(&shrunk);
    pthread_join(r, NULL);
    rcu_assign_pointer(t->b, NULL);
    /* Teardown in either order: no reader is left. */
    free(other->b);
    free(other);
    free(t->b);
    free(t);
    test_rcu_offline();
    return 0;
}

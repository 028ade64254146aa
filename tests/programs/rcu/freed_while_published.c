/* Objects freed while an RCU pointer still holds them, so that every
 * later reader gets freed memory: a route freed at once, and a policy
 * handed to call_rcu() without being unpublished first. Reported at the
 * free, while the readers still run, whether or not one of them holds it
 * at that moment. */
// expect: rcu-freed-while-published rcu-freed-while-published
// log: still published in an RCU pointer!
// log: the RCU pointer current_route [
// log: still holds it: every later reader gets freed memory.
// log: published there by
// log: in drop_route
// log: in free_policy
// log: Hint: unpublish it first
#include "rcu_api.h"
#include <stdlib.h>
struct route { int gateway; };
struct policy { int action; struct rcu_head rcu; };
static struct route *current_route;
static struct policy *current_policy;
static pthread_barrier_t ready, done;

static int lookup(void)
{
    rcu_read_lock();
    struct route *r = rcu_dereference(current_route);
    struct policy *p = rcu_dereference(current_policy);
    int v = (r ? r->gateway : 0) + (p ? p->action : 0);
    rcu_read_unlock();
    return v;
}

static void *reader(void *arg)
{
    test_rcu_online();
    int v = lookup();
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&done); /* alive, between lookups */
    test_rcu_offline();
    return (void *)((long)v + (arg != NULL));
}

__attribute__((noinline)) static void drop_route(void)
{
    free(current_route); /* BUG: still published */
}

static void free_policy(struct rcu_head *h)
{
    free(container_of_head(h, struct policy, rcu));
}

int main(void)
{
    pthread_t t;
    pthread_barrier_init(&ready, NULL, 2);
    pthread_barrier_init(&done, NULL, 2);
    test_rcu_online();
    struct route *r = calloc(1, sizeof *r);
    struct policy *p = calloc(1, sizeof *p);
    rcu_assign_pointer(current_route, r);
    rcu_assign_pointer(current_policy, p);
    pthread_create(&t, NULL, reader, NULL);
    pthread_barrier_wait(&ready);
    drop_route();
    call_rcu(&p->rcu, free_policy); /* BUG: never unpublished */
    rcu_barrier_all();
    rcu_assign_pointer(current_route, NULL);
    rcu_assign_pointer(current_policy, NULL);
    pthread_barrier_wait(&done);
    pthread_join(t, NULL);
    test_rcu_offline();
    return 0;
}

/* The updater unpublishes a route and frees it at once, while a reader
 * that obtained it with rcu_dereference() still uses it.
 * A first pass at the call site teaches the runtime the site: with
 * librtdd_rcu.so the second is recorded inline (record mode). */
// expect: rcu-freed-while-referenced
// log: still referenced by an RCU reader!
// log: and obtained this object with rcu_dereference() at:
// log: the object was unpublished with no grace period before this free, at:
// log: Hint: free it with call_rcu(), or after synchronize_rcu().
#include "rcu_api.h"
#include <stdlib.h>
struct route { int dest, gateway; };
static struct route *current_route;
static pthread_barrier_t in_section, freed;
__attribute__((noinline)) static int route_lookup(int wait)
{
    rcu_read_lock();
    struct route *r = rcu_dereference(current_route);
    if (wait) {
        pthread_barrier_wait(&in_section);
        pthread_barrier_wait(&freed);
    }
    int gw = r ? 1 : 0; /* r is dangling here: the bug's consequence */
    rcu_read_unlock();
    return gw;
}
static void *reader(void *arg)
{
    test_rcu_online();
    route_lookup(0);
    route_lookup(1);
    test_rcu_offline();
    return arg;
}
__attribute__((noinline)) static void replace_route(void)
{
    struct route *fresh = calloc(1, sizeof *fresh), *old = current_route;
    rcu_assign_pointer(current_route, fresh);
    free(old); /* BUG: no grace period */
}
int main(void)
{
    pthread_t t;
    pthread_barrier_init(&in_section, NULL, 2);
    pthread_barrier_init(&freed, NULL, 2);
    current_route = calloc(1, sizeof *current_route);
    test_rcu_online();
    pthread_create(&t, NULL, reader, NULL);
    pthread_barrier_wait(&in_section);
    replace_route();
    pthread_barrier_wait(&freed);
    pthread_join(t, NULL);
    synchronize_rcu();
    free(current_route);
    test_rcu_offline();
    return 0;
}

/* The route-update scenario of the freed_* cases: the updater unpublishes
 * the route and frees it at once (no grace period) while the case's reader
 * waits inside route_lookup(1)'s section, between the two barriers. */
#ifndef ROUTE_UPDATE_H
#define ROUTE_UPDATE_H
#include "rcu_api.h"
#include <stdlib.h>
struct route { int dest, gateway; };
static struct route *current_route;
static pthread_barrier_t in_section, freed;
/* The reader's lookup; with wait, it stays in its section while the
 * updater frees the route. */
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
__attribute__((noinline)) static void replace_route(void)
{
    struct route *fresh = calloc(1, sizeof *fresh), *old = current_route;
    rcu_assign_pointer(current_route, fresh);
    free(old); /* BUG: no grace period */
}
static int run_route_update(void *(*reader)(void *))
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
#endif

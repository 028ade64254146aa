/* As freed_while_referenced, but the reader's section is entered and its
 * object obtained at call sites the runtime has never seen called out:
 * with librtdd_rcu.so the thread's first section (another function)
 * attaches its record, and the section at fault is recorded inline from
 * its start. The report still names the section's rcu_read_lock() and
 * rcu_dereference() lines, with their callers taken from another stack
 * through the same function (the barrier wait's). */
// expect: rcu-freed-while-referenced
// log: still referenced by an RCU reader!
// log: freed_at_unseen_sites.c:27
// log: freed_at_unseen_sites.c:28
// log: and obtained this object with rcu_dereference() at:
// log: ] reader+
#include "rcu_api.h"
#include <stdlib.h>
struct route { int dest, gateway; };
static struct route *current_route;
static pthread_barrier_t in_section, freed;
__attribute__((noinline)) static void warm_up(void)
{
    rcu_read_lock();
    (void)rcu_dereference(current_route);
    rcu_read_unlock();
}
__attribute__((noinline)) static int lookup_and_wait(void)
{
    rcu_read_lock();
    struct route *r = rcu_dereference(current_route);
    pthread_barrier_wait(&in_section);
    pthread_barrier_wait(&freed);
    int gw = r ? 1 : 0; /* r is dangling here: the bug's consequence */
    rcu_read_unlock();
    return gw;
}
static void *reader(void *arg)
{
    test_rcu_online();
    warm_up();
    lookup_and_wait();
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

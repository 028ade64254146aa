/* The updater unpublishes a route and frees it at once, while a reader
 * that obtained it with rcu_dereference() still uses it.
 * A first pass at the call site teaches the runtime the site: with
 * librtdd_rcu.so the second is recorded inline (record mode). */
// expect: rcu-freed-while-referenced
// log: still referenced by an RCU reader!
// log: and obtained this object with rcu_dereference() at:
// log: the object was unpublished with no grace period before this free, at:
// log: Hint: free it with call_rcu(), or after synchronize_rcu().
#include "route_update.h"
static void *reader(void *arg)
{
    test_rcu_online();
    route_lookup(0);
    route_lookup(1);
    test_rcu_offline();
    return arg;
}
int main(void)
{
    return run_route_update(reader);
}

/* As freed_while_referenced, but the reader's section is entered and its
 * object obtained at call sites the runtime has never seen called out:
 * with librtdd_rcu.so the thread's first section (another function)
 * attaches its record, and the section at fault is recorded inline from
 * its start. The report still names the section's rcu_read_lock() and
 * rcu_dereference() lines, with their callers taken from another stack
 * through the same function (the barrier wait's). */
// expect: rcu-freed-while-referenced
// log: still referenced by an RCU reader!
// log: route_update.h:15
// log: route_update.h:16
// log: and obtained this object with rcu_dereference() at:
// log: ] reader+
#include "route_update.h"
__attribute__((noinline)) static void warm_up(void)
{
    rcu_read_lock();
    (void)rcu_dereference(current_route);
    rcu_read_unlock();
}
static void *reader(void *arg)
{
    test_rcu_online();
    warm_up();
    route_lookup(1);
    test_rcu_offline();
    return arg;
}
int main(void)
{
    return run_route_update(reader);
}

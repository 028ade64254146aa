/* call_rcu() twice on the same rcu_head: reported, and the second call is
 * not queued (the callback runs once). Both calls are made inside a read
 * section, so that no grace period (and no callback) can come between them
 * however the threads are scheduled. */
// expect: rcu-double-call
// log: BUG: call_rcu() of an rcu_head that is already queued
// log: the same rcu_head is still queued from a call_rcu() at:
// log: SUMMARY: rtdd: rcu-double-call double_call.c:24 in main
#include "rcu_api.h"
#include <stdlib.h>
struct node { int key; struct rcu_head rcu; };
static int freed_count;
static void free_node(struct rcu_head *head)
{
    freed_count++;
    free(container_of_head(head, struct node, rcu));
}
int main(void)
{
    test_rcu_online();
    struct node *n = calloc(1, sizeof *n);
    rcu_read_lock();
    call_rcu(&n->rcu, free_node);
    call_rcu(&n->rcu, free_node);
    rcu_read_unlock();
    rcu_barrier_all();
    test_rcu_offline();
    return freed_count == 1 ? 0 : 1;
}

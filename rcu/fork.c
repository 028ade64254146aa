/* fork(): the child has one thread.  Nothing is locked in the prepare
 * handler on purpose: a reader that forks while a grace period waits for
 * it would deadlock against the grace-period lock.  Instead the child
 * rebuilds every piece of state another thread could have left half-done. */
#include "rcu_internal.h"

#include <pthread.h>

static void after_fork_child(void)
{
    rtdd_rcu_registry_after_fork_child();
    rtdd_rcu_gp_after_fork_child();
    rtdd_rcu_callbacks_after_fork_child();
    rtdd_rcu_barrier_after_fork_child(); /* membarrier registration belongs to the old mm */
}

RTDD_HIDDEN void rtdd_rcu_fork_init(void);
void rtdd_rcu_fork_init(void)
{
    pthread_atfork(NULL, NULL, after_fork_child);
}

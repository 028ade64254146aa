/* Two updaters replace the same RCU pointer, each under its own mutex:
 * the updates do not exclude each other (one can be lost, the old object
 * retired twice). */
// expect: rcu-unlocked-update
// log: WARNING: RCU pointer updated by concurrent updaters with no lock in common
// log: updates the RCU pointer active_policy
// log: with rcu_assign_pointer() holding policy_lock_a
// log: with rcu_assign_pointer() holding policy_lock_b
#include "rcu_api.h"
#include <stdlib.h>
struct policy { int action; };
static struct policy *active_policy;
static pthread_mutex_t policy_lock_a = PTHREAD_MUTEX_INITIALIZER, policy_lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t turn;

__attribute__((noinline)) static void set_policy(pthread_mutex_t *lock, int action)
{
    struct policy *fresh = calloc(1, sizeof *fresh), *old;
    fresh->action = action;
    pthread_mutex_lock(lock);
    old = active_policy;
    rcu_assign_pointer(active_policy, fresh);
    pthread_mutex_unlock(lock);
    synchronize_rcu();
    free(old);
}

static void *admin(void *arg)
{
    test_rcu_online();
    pthread_barrier_wait(&turn);
    set_policy(&policy_lock_b, 2);
    pthread_barrier_wait(&turn);
    pthread_barrier_wait(&turn);
    test_rcu_offline();
    return arg;
}

int main(void)
{
    pthread_t a;
    pthread_barrier_init(&turn, NULL, 2);
    test_rcu_online();
    pthread_create(&a, NULL, admin, NULL);
    set_policy(&policy_lock_a, 1);
    pthread_barrier_wait(&turn);
    pthread_barrier_wait(&turn); /* admin has updated under policy_lock_b */
    set_policy(&policy_lock_a, 3);
    pthread_barrier_wait(&turn);
    pthread_join(a, NULL);
    free(active_policy);
    test_rcu_offline();
    return 0;
}

/* "cfg_lock held -> synchronize_rcu()" on one side and "rcu_read_lock ->
 * cfg_lock" on the other: the grace period waits for the reader, the
 * reader waits for the lock. Reported before anything blocks. */
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// log: rcu_read_lock
#include "rcu_api.h"
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static int config;
__attribute__((noinline)) static void lookup_and_refresh(void)
{
    rcu_read_lock();
    pthread_mutex_lock(&cfg_lock);
    config++;
    pthread_mutex_unlock(&cfg_lock);
    rcu_read_unlock();
}
__attribute__((noinline)) static void replace_config(void)
{
    pthread_mutex_lock(&cfg_lock);
    synchronize_rcu();
    pthread_mutex_unlock(&cfg_lock);
}
int main(void)
{
    test_rcu_online();
    lookup_and_refresh();
    replace_config();
    test_rcu_offline();
    return 0;
}

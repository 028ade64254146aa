/* synchronize_rcu() inside a read-side section: it waits for itself. The
 * report comes before the thread blocks; halt_on_error turns the hang
 * into an exit. */
// expect: rcu-sync-in-reader
// options: halt_on_error=1
// log: BUG: Illegal synchronize_rcu() in RCU read-side critical section!
// log: inside the
#include "rcu_api.h"
__attribute__((noinline)) static void refresh_config(void) { synchronize_rcu(); }
int main(void)
{
    test_rcu_online();
    rcu_read_lock();
    refresh_config();
    rcu_read_unlock();
    test_rcu_offline();
    return 0;
}

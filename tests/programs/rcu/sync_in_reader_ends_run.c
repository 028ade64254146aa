/* synchronize_rcu() inside a read-side section, under the default options:
 * reported before it blocks; the watchdog then sees the thread wait for
 * its own section and ends the run with exitcode. */
// expect: rcu-sync-in-reader deadlock
// log: BUG: Illegal synchronize_rcu() in RCU read-side critical section!
// log: BUG: deadlock detected, 1 thread blocked in a cycle
// log: The thread waits for itself and can never go on (rcu-sync-in-reader reported it when the wait began).
// log: rtdd ends the run here with exit status 66
// no-output: NOT HUNG
#include "rcu_api.h"
#include <stdio.h>
__attribute__((noinline)) static void refresh_config(void) { synchronize_rcu(); }
int main(void)
{
    test_rcu_online();
    rcu_read_lock();
    refresh_config();
    rcu_read_unlock();
    printf("NOT HUNG\n");
    test_rcu_offline();
    return 0;
}

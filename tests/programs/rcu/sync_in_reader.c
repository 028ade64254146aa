/* synchronize_rcu() inside a read-side section: it waits for itself. The
 * report comes before the thread blocks; halt_on_error turns the hang into
 * an exit. A first pass teaches the runtime the call site: with
 * librtdd_rcu.so the second is recorded inline (record mode). */
// expect: rcu-sync-in-reader
// options: halt_on_error=1
// log: BUG: Illegal synchronize_rcu() in RCU read-side critical section!
// log: inside the
// log: SUMMARY: rtdd: rcu-sync-in-reader sync_in_reader.c:11 in refresh_config
#include "rcu_api.h"
__attribute__((noinline)) static void refresh_config(void) { synchronize_rcu(); }
int main(void)
{
    test_rcu_online();
    for (int pass = 0; pass < 2; pass++) {
        rcu_read_lock();
        if (pass)
            refresh_config();
        rcu_read_unlock();
    }
    test_rcu_offline();
    return 0;
}

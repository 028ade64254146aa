// expect: rcu-unbalanced
// log: WARNING: bad rcu_read_unlock() nesting
// log: SUMMARY: rtdd: rcu-unbalanced unbalanced.c:10 in main
#include "rcu_api.h"
int main(void) /* rcu_read_unlock() with no matching rcu_read_lock() */
{
    test_rcu_online();
    rcu_read_lock();
    rcu_read_unlock();
    rcu_read_unlock();
    test_rcu_offline();
    return 0;
}

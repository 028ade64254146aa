/* A thread returns while inside a read-side section. */
// expect: rcu-exit-in-reader
// log: WARNING: thread exited inside an RCU read-side critical section
// log: lookup_route
#include "rcu_api.h"
__attribute__((noinline)) static void lookup_route(void) { rcu_read_lock(); }
static void *reader(void *arg)
{
    test_rcu_online();
    lookup_route(); /* forgets rcu_read_unlock() */
    return arg;
}
int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    pthread_join(t, NULL);
    return 0;
}

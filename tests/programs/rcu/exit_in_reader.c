/* A thread returns while inside a read-side section.
 * A first pass at the call site teaches the runtime the site: with
 * librtdd_rcu.so the second is recorded inline (record mode). */
// expect: rcu-exit-in-reader
// log: WARNING: thread exited inside an RCU read-side critical section
// log: lookup_route
// log: SUMMARY: rtdd: rcu-exit-in-reader exit_in_reader.c:
#include "rcu_api.h"
__attribute__((noinline)) static void lookup_route(int forget)
{
    rcu_read_lock();
    if (!forget)
        rcu_read_unlock();
}
static void *reader(void *arg)
{
    test_rcu_online();
    lookup_route(0);
    lookup_route(1); /* forgets rcu_read_unlock() */
    return arg;
}
int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    pthread_join(t, NULL);
    return 0;
}

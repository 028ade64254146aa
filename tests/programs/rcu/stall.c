/* A reader that stays in its section longer than rcu_stall_timeout_ms holds
 * up synchronize_rcu(): an INFO report names it. A first pass teaches the
 * runtime the call site: with librtdd_rcu.so the second is recorded inline. */
// expect: rcu-stall
// options: rcu_stall_timeout_ms=150
// exit: 0
// log: INFO: rcu detected stall: grace period blocked
// log: blocked by reader
// log: SUMMARY: rtdd: rcu-stall stall.c:37 in main
#include "rcu_api.h"
#include <unistd.h>
static pthread_barrier_t entered;
__attribute__((noinline)) static void slow_reader(int slow)
{
    rcu_read_lock();
    if (slow) {
        pthread_barrier_wait(&entered);
        usleep(600000);
    }
    rcu_read_unlock();
}
static void *reader(void *arg)
{
    test_rcu_online();
    slow_reader(0);
    slow_reader(1);
    test_rcu_offline();
    return arg;
}
int main(void)
{
    pthread_t t;
    pthread_barrier_init(&entered, NULL, 2);
    test_rcu_online();
    pthread_create(&t, NULL, reader, NULL);
    pthread_barrier_wait(&entered);
    synchronize_rcu();
    pthread_join(t, NULL);
    test_rcu_offline();
    return 0;
}

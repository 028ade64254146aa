/* A deadlock through a grace period, under the default options: the reader
 * waits for cfg_lock inside its section while the updater holds cfg_lock in
 * synchronize_rcu(). The order check sees it happening, the watchdog
 * confirms it and ends the run with exitcode. */
// expect: lock-order-inversion deadlock
// log: This deadlock is happening now
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: rtdd ends the run here with exit status 66
// no-output: NOT HUNG
#include "rcu_api.h"
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;
static void *reader(void *arg)
{
    test_rcu_online();
    rcu_read_lock();
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&cfg_lock);
    pthread_mutex_unlock(&cfg_lock);
    rcu_read_unlock();
    test_rcu_offline();
    return arg;
}
int main(void)
{
    pthread_t t;
    pthread_barrier_init(&both, NULL, 2);
    test_rcu_online();
    pthread_create(&t, NULL, reader, NULL);
    pthread_mutex_lock(&cfg_lock);
    pthread_barrier_wait(&both);
    usleep(100 * 1000); /* the reader blocks first: this call closes the cycle */
    synchronize_rcu();
    pthread_mutex_unlock(&cfg_lock);
    pthread_join(t, NULL);
    printf("NOT HUNG\n");
    test_rcu_offline();
    return 0;
}

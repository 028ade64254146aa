/* The same cycle, happening: the reader waits for cfg_lock inside its
 * section, the updater holds cfg_lock in synchronize_rcu(). With order
 * checking off, the watchdog finds the threads blocked in a cycle.
 * A first pass at the call site teaches the runtime the site: with
 * librtdd_rcu.so the second is recorded inline (record mode). */
// expect: deadlock
// options: detect_deadlocks=0:halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
#include "rcu_api.h"
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;
static void *reader(void *arg)
{
    test_rcu_online();
    for (int pass = 0; pass < 2; pass++) {
        rcu_read_lock();
        if (pass) {
            pthread_barrier_wait(&both);
            pthread_mutex_lock(&cfg_lock);
            pthread_mutex_unlock(&cfg_lock);
        }
        rcu_read_unlock();
    }
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
    synchronize_rcu();
    pthread_mutex_unlock(&cfg_lock);
    pthread_join(t, NULL);
    test_rcu_offline();
    return 0;
}

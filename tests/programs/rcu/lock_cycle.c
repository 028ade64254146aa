/* "cfg_lock held -> synchronize_rcu()" against "rcu_read_lock -> cfg_lock":
 * the grace period waits for the reader, the reader for the lock. Reported
 * before anything blocks. A first pass teaches the runtime the call site:
 * with librtdd_rcu.so the second is recorded inline (record mode). The
 * reader is a thread of its own: a deadlock needs two threads (one run
 * before the other here, so this run cannot hang). The reader is still
 * alive when main replaces the config: a thread main had joined could not
 * meet it (latent_join_shutdown.c). */
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// log: rcu_read_lock
// log: SUMMARY: rtdd: lock-order-inversion lock_cycle.c:31 in replace_config
#include "rcu_api.h"
#include <semaphore.h>
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t reader_done, may_exit;
static int config;
__attribute__((noinline)) static void lookup_and_refresh(int refresh)
{
    rcu_read_lock();
    if (refresh) {
        pthread_mutex_lock(&cfg_lock);
        config++;
        pthread_mutex_unlock(&cfg_lock);
    }
    rcu_read_unlock();
}
__attribute__((noinline)) static void replace_config(void)
{
    pthread_mutex_lock(&cfg_lock);
    synchronize_rcu();
    pthread_mutex_unlock(&cfg_lock);
}
static void *reader(void *arg)
{
    test_rcu_online();
    lookup_and_refresh(0);
    lookup_and_refresh(1);
    test_rcu_offline();
    sem_post(&reader_done);
    sem_wait(&may_exit);
    return arg;
}
int main(void)
{
    pthread_t t;
    test_rcu_online();
    sem_init(&reader_done, 0, 0);
    sem_init(&may_exit, 0, 0);
    pthread_create(&t, NULL, reader, NULL);
    sem_wait(&reader_done);
    replace_config();
    sem_post(&may_exit);
    pthread_join(t, NULL);
    test_rcu_offline();
    return 0;
}

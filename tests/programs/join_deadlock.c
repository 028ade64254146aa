/* A thread joins a worker while holding the lock the worker needs to
 * finish: the worker waits for the lock, the joiner for the worker to end.
 * The watchdog follows pthread_join like a lock wait and reports the cycle;
 * halt_on_error turns the hang into an exit. */
// expect: deadlock
// options: halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: (waiting for it to end), at:
// log: cycle: config_lock -> thread join_deadlock -> config_lock
// log: config_lock was taken by join_deadlock/
// log: or for the next one to end
#include <pthread.h>
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int config;
static void *apply_config(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    config++;
    pthread_mutex_unlock(&config_lock);
    return NULL;
}
int main(void)
{
    pthread_t worker;
    pthread_mutex_lock(&config_lock);
    pthread_create(&worker, NULL, apply_config, NULL);
    pthread_join(worker, NULL); /* still holding config_lock */
    pthread_mutex_unlock(&config_lock);
    return config != 1;
}

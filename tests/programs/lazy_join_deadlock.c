/* join_deadlock with a mutex made by pthread_mutex_init and taken alone:
 * the joiner holds it with no lock record yet (detect/locks/lazylock.h); the
 * worker's wait gives it one, and the watchdog names the joiner. */
// expect: deadlock
// options: halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: (waiting for it to end), at:
// log: cycle: config_lock -> thread lazy_join_deadl -> config_lock
// log: config_lock was taken by lazy_join_deadl/
// log: or for the next one to end
#include <pthread.h>
static pthread_mutex_t config_lock;
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
    pthread_mutex_init(&config_lock, NULL); /* no record until needed: the holder is found by address */
    pthread_mutex_lock(&config_lock);
    pthread_create(&worker, NULL, apply_config, NULL);
    pthread_join(worker, NULL); /* still holding config_lock */
    pthread_mutex_unlock(&config_lock);
    return config != 1;
}

/* Two threads really deadlock (ABBA at the same moment). With lock-order
 * checking off, the watchdog finds the cycle of blocked threads after
 * deadlock_timeout_ms and halt_on_error turns the hang into an exit. */
// expect: deadlock
// options: detect_deadlocks=0:halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: was taken by
#include <pthread.h>
static pthread_mutex_t acct_lock = PTHREAD_MUTEX_INITIALIZER, audit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;
static void *transfer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&audit_lock);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&acct_lock);
    return NULL;
}
static void *audit(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&acct_lock);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&audit_lock);
    return NULL;
}
int main(void)
{
    pthread_t a, b;
    pthread_barrier_init(&both, NULL, 2);
    pthread_create(&a, NULL, transfer, NULL);
    pthread_create(&b, NULL, audit, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}

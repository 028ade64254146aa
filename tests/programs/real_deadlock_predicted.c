/* The same real ABBA deadlock with the default options: the acquisition
 * that closes the cycle is reported before it blocks, and halt_on_error=1
 * exits instead of hanging. */
// expect: lock-order-inversion
// options: halt_on_error=1
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

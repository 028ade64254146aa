/* ThreadSanitizer's "false lock-order-inversion for locks taken in a single
 * thread": one thread takes L1 -> L2, releases L1 and takes L1 again under
 * L2; the other threads only ever take one of them. Both edges are the same
 * thread's, so no interleaving can deadlock: latent, exit status 0. */
// expect: latent-lock-order
// log: cycle: l2 -> l1 -> l2
#include <pthread.h>
static pthread_mutex_t l1 = PTHREAD_MUTEX_INITIALIZER, l2 = PTHREAD_MUTEX_INITIALIZER;
static void *only_l1(void *arg)
{
    pthread_mutex_lock(&l1);
    pthread_mutex_unlock(&l1);
    return arg;
}
static void *only_l2(void *arg)
{
    pthread_mutex_lock(&l2);
    pthread_mutex_unlock(&l2);
    return arg;
}
int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, only_l1, NULL);
    pthread_create(&b, NULL, only_l2, NULL);
    pthread_mutex_lock(&l1);
    pthread_mutex_lock(&l2);
    pthread_mutex_unlock(&l1);
    pthread_mutex_lock(&l1);
    pthread_mutex_unlock(&l1);
    pthread_mutex_unlock(&l2);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}

/* ThreadSanitizer's "false positive for lock-order-inversion for lock
 * cycles": thread 1 takes A -> B, releases A, takes C under B; thread 2
 * takes C -> A. The cycle A -> B -> C -> A needs three threads each holding
 * one of its locks, but two of its edges only ever came from thread 1:
 * latent, exit status 0. (cycle3_heap is the true counterpart: three
 * threads, one edge each.) */
// expect: latent-lock-order
// log: INFO: latent circular locking dependency: 3 threads would have to run these paths at once
// log: only 2 distinct threads made its 3 edges
#include <pthread.h>
static pthread_mutex_t A = PTHREAD_MUTEX_INITIALIZER, B = PTHREAD_MUTEX_INITIALIZER, C = PTHREAD_MUTEX_INITIALIZER;
static void *thread1(void *arg)
{
    pthread_mutex_lock(&A);
    pthread_mutex_lock(&B);
    pthread_mutex_unlock(&A);
    pthread_mutex_lock(&C);
    pthread_mutex_unlock(&C);
    pthread_mutex_unlock(&B);
    return arg;
}
static void *thread2(void *arg)
{
    pthread_mutex_lock(&C);
    pthread_mutex_lock(&A);
    pthread_mutex_unlock(&A);
    pthread_mutex_unlock(&C);
    return arg;
}
int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, thread1, NULL);
    pthread_join(t1, NULL);
    pthread_create(&t2, NULL, thread2, NULL);
    pthread_join(t2, NULL);
    return 0;
}

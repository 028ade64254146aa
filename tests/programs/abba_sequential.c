/* One thread takes A then B, later B then A: lockdep's classic ABBA. No
 * interleaving of this program's threads can deadlock (one thread made
 * both edges), so it is latent: one INFO report at exit, exit status 0.
 * Two threads running these paths at once would deadlock: with
 * lock_order_rule=lockdep it is a WARNING (abba_sequential_lockdep). */
// expect: latent-lock-order
// log: INFO: latent circular locking dependency: 2 threads would have to run these paths at once
// log: cycle: beta_lock -> alpha_lock -> beta_lock
// log: only 1 distinct thread made its 2 edges
// log: SUMMARY: rtdd: latent-lock-order abba_sequential.c:22 in main
#include <pthread.h>
pthread_mutex_t alpha_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t beta_lock = PTHREAD_MUTEX_INITIALIZER;
int main(void)
{
    pthread_mutex_lock(&alpha_lock);
    pthread_mutex_lock(&beta_lock);
    pthread_mutex_unlock(&beta_lock);
    pthread_mutex_unlock(&alpha_lock);

    pthread_mutex_lock(&beta_lock);
    pthread_mutex_lock(&alpha_lock);
    pthread_mutex_unlock(&alpha_lock);
    pthread_mutex_unlock(&beta_lock);
    return 0;
}

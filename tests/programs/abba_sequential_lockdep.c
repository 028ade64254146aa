/* abba_sequential under lockdep's rule: every cycle of code paths is a
 * WARNING, whichever threads made its edges. */
// options: lock_order_rule=lockdep
// expect: lock-order-inversion
// log: WARNING: possible circular locking dependency detected
// log: cycle: beta_lock -> alpha_lock -> beta_lock
// log: *** DEADLOCK ***
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

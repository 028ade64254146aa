/* Destroying a mutex that is still locked. */
// expect: destroy-locked
// log: BUG: destroying a held lock
#include <pthread.h>
int main(void)
{
    pthread_mutex_t m;
    pthread_mutex_init(&m, NULL);
    pthread_mutex_lock(&m);
    pthread_mutex_destroy(&m);
    return 0;
}

/* Unlocking a mutex twice. */
// expect: bad-unlock
// log: WARNING: bad unlock balance detected!
// log: no thread holds it
#include <pthread.h>
int main(void)
{
    pthread_mutex_t m;
    pthread_mutex_init(&m, NULL);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}

/* A held mutex is reset by assigning PTHREAD_MUTEX_INITIALIZER over it
 * (Helgrind's tc04_free_lock), then locked again: the reset destroyed a
 * held lock (destroy-locked), it is not a recursive locking. */
// expect: destroy-locked
// log: but the lock's memory was reset to an unlocked state while this thread held it
// no-log: recursive locking
#include <pthread.h>
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER;

int main(void)
{
    pthread_mutex_lock(&outer);
    pthread_mutex_lock(&mx);
    mx = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mx);
    pthread_mutex_unlock(&mx);
    pthread_mutex_unlock(&outer);
    return 0;
}

/* A library whose function returns with the library's own static mutex
 * held (dlclose_held_lock.c closes it then). */
#include <pthread.h>

static pthread_mutex_t library_lock = PTHREAD_MUTEX_INITIALIZER;

void library_enter(void)
{
    pthread_mutex_lock(&library_lock);
}

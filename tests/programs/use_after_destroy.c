/* A mutex destroyed, then locked and unlocked again: glibc refuses both
 * with EINVAL, and the critical section runs unprotected. */
// expect: use-after-destroy use-after-destroy
// log: WARNING: use of a destroyed lock
// log: which was destroyed and not initialized again, at:
// log: it was destroyed by
#include <pthread.h>
static pthread_mutex_t m;
static int counter;

static void retire(void) { pthread_mutex_destroy(&m); }

int main(void)
{
    pthread_mutex_init(&m, NULL);
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    retire();
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    return counter == 2 ? 0 : 1;
}

/* Read-locked, then write-locked by the same thread: a certain hang. */
// expect: recursive-locking
// options: halt_on_error=1
// log: is trying to write-lock
// log: but the thread already holds it for reading
#include <pthread.h>
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
int main(void)
{
    pthread_rwlock_rdlock(&rw);
    pthread_rwlock_wrlock(&rw);
    return 0;
}

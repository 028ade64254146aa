/* Unlocks of locks rtdd never saw taken: a static mutex never locked,
 * zeroed heap memory (judged by the lock word: unlocked), both bad-unlock;
 * and memory that is not a lock at all (glibc refuses it with EINVAL):
 * invalid-lock. */
// expect: bad-unlock bad-unlock invalid-lock
// log: rtdd never saw it locked, and its lock word says it is not locked
// log: as a pthread_mutex_t in pthread_mutex_unlock(), at:
// log: but it is not a lock: pthread_mutex_unlock() failed (EINVAL)
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
static pthread_mutex_t never_locked = PTHREAD_MUTEX_INITIALIZER;

static void unlock_static(void) { pthread_mutex_unlock(&never_locked); }
static void unlock_zeroed(void *p) { pthread_mutex_unlock((pthread_mutex_t *)p); }
static void unlock_garbage(void *p) { pthread_mutex_unlock((pthread_mutex_t *)p); }

int main(void)
{
    unlock_static();
    void *zero = calloc(1, sizeof(pthread_mutex_t));
    unlock_zeroed(zero);
    void *garbage = malloc(sizeof(pthread_mutex_t));
    memset(garbage, 0x5a, sizeof(pthread_mutex_t));
    unlock_garbage(garbage);
    free(zero);
    free(garbage);
    return 0;
}

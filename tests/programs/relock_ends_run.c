/* A thread locks a default mutex it already holds, under the default
 * options: recursive-locking is reported before it blocks; the watchdog
 * then sees the thread wait for itself and ends the run with exitcode. */
// expect: recursive-locking deadlock
// log: WARNING: possible recursive locking detected
// log: BUG: deadlock detected, 1 thread blocked in a cycle
// log: which it holds itself, at:
// log: cycle: config_lock -> config_lock
// log: The thread waits for itself and can never go on (recursive-locking reported it when the wait began).
// log: rtdd ends the run here with exit status 66
// no-output: NOT HUNG
#include <pthread.h>
#include <stdio.h>
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
__attribute__((noinline)) static void reload(void) { pthread_mutex_lock(&config_lock); }
int main(void)
{
    pthread_mutex_lock(&config_lock);
    reload();
    printf("NOT HUNG\n");
    return 0;
}

/* Read-locked, then write-locked by the same thread (an "upgrade"), under
 * the default options: reported before it blocks, then confirmed by the
 * watchdog, which ends the run. */
// expect: recursive-locking deadlock
// log: but the thread already holds it for reading
// log: BUG: deadlock detected, 1 thread blocked in a cycle
// log: rtdd ends the run here with exit status 66
// no-output: NOT HUNG
#include <pthread.h>
#include <stdio.h>
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
int main(void)
{
    pthread_rwlock_rdlock(&table_lock);
    pthread_rwlock_wrlock(&table_lock);
    printf("NOT HUNG\n");
    return 0;
}

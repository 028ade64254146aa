/* Two threads join each other: no lock at all, and both wait forever. The
 * watchdog's graph holds joins as waits, so the cycle is reported. */
// expect: deadlock
// options: halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: cycle: thread join_cycle -> thread join_cycle -> thread join_cycle
#include <pthread.h>
static pthread_t main_thread;
static void *wait_for_main(void *arg)
{
    (void)arg;
    pthread_join(main_thread, NULL);
    return NULL;
}
int main(void)
{
    pthread_t helper;
    main_thread = pthread_self();
    pthread_create(&helper, NULL, wait_for_main, NULL);
    pthread_join(helper, NULL);
    return 0;
}

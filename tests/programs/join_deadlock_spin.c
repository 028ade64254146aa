/* join_deadlock.c with a spinlock and a C11 mutex: the worker spins on the
 * spinlock main holds while main joins it; a second worker would block on
 * the mtx_t. Both first-lock waits (nothing held) reach the watchdog. */
// expect: deadlock
// options: halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: cycle: stats_spin -> thread join_deadlock_s -> stats_spin
#include <pthread.h>
#include <stdlib.h>
#include <threads.h>
static pthread_spinlock_t stats_spin;
static mtx_t log_mtx;
static int count;
static void *add_stats(void *arg)
{
    (void)arg;
    mtx_lock(&log_mtx); /* free: taken and given back */
    mtx_unlock(&log_mtx);
    pthread_spin_lock(&stats_spin);
    count++;
    pthread_spin_unlock(&stats_spin);
    return NULL;
}
int main(void)
{
    pthread_t worker;
    pthread_spin_init(&stats_spin, PTHREAD_PROCESS_PRIVATE);
    mtx_init(&log_mtx, mtx_plain);
    pthread_spin_lock(&stats_spin);
    pthread_create(&worker, NULL, add_stats, NULL);
    pthread_join(worker, NULL); /* still holding stats_spin */
    pthread_spin_unlock(&stats_spin);
    return count != 1;
}

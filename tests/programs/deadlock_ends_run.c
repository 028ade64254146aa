/* A real ABBA deadlock under the default options: the acquisition that
 * closes the cycle finds the other thread already blocked and says the
 * deadlock is happening now; the watchdog confirms it after
 * deadlock_timeout_ms, refers to that report, and ends the run with
 * exitcode instead of leaving the process hung (exit_on_deadlock=1). */
// expect: lock-order-inversion deadlock
// log: This deadlock is happening now: the other threads of the cycle are already blocked on its locks:
// log: and is blocked waiting for
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: This is the deadlock the lock-order-inversion report above showed happening (cycle:
// log: The program cannot go on: rtdd ends the run here with exit status 66
// log: rtdd: summary: pid
// no-output: NOT HUNG
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t acct_lock = PTHREAD_MUTEX_INITIALIZER, audit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;
static void *transfer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&audit_lock);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&acct_lock);
    return NULL;
}
static void *audit(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&acct_lock);
    pthread_barrier_wait(&both);
    usleep(100 * 1000); /* transfer blocks first: this call closes the cycle */
    pthread_mutex_lock(&audit_lock);
    return NULL;
}
int main(void)
{
    pthread_t a, b;
    pthread_barrier_init(&both, NULL, 2);
    pthread_create(&a, NULL, transfer, NULL);
    pthread_create(&b, NULL, audit, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("NOT HUNG\n");
    return 0;
}

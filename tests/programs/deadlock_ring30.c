/* Thirty threads deadlock in one ring: thread i holds lock i and waits for
 * lock i+1 (the last for lock 0). The watchdog's deadlock report is longer
 * than any fixed budget of lines: it must name all thirty waits and who
 * took each lock, the cycle line, and end with the line that says the run
 * ends here (before, it listed 17 holders and lost that line). */
// options: detect_deadlocks=0:deadlock_timeout_ms=300
// expect: deadlock
// log: BUG: deadlock detected, 30 threads blocked in a cycle
// log-count: 30 (pthread_mutex_t, initialized at deadlock_ring30.c
// log-count: 30 was taken by deadlock_ring30/
// log-count: 1 cycle: ring_lock[
// log: -> ring_lock[0]
// log: -> ring_lock[29]
// log: None of these threads can go on: each waits for a lock that the next one holds.
// log: The program cannot go on: rtdd ends the run here with exit status 66
// no-output: NOT HUNG
#include <pthread.h>
#include <stdio.h>
#include "../../include/rtdd/annotate.h"
#define N 30
static pthread_mutex_t ring_lock[N];
static pthread_barrier_t all_hold;

static void *link_of_ring(void *arg)
{
    int i = (int)(long)arg;
    pthread_mutex_lock(&ring_lock[i]);
    pthread_barrier_wait(&all_hold);
    pthread_mutex_lock(&ring_lock[(i + 1) % N]); /* never returns */
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    char name[32];
    pthread_barrier_init(&all_hold, NULL, N);
    for (int i = 0; i < N; i++) {
        pthread_mutex_init(&ring_lock[i], NULL);
        snprintf(name, sizeof name, "ring_lock[%d]", i);
        RTDD_LOCK_NAME(&ring_lock[i], name);
    }
    for (long i = 0; i < N; i++)
        pthread_create(&t[i], NULL, link_of_ring, (void *)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    puts("NOT HUNG");
    return 0;
}

/* join_deadlock.c with C11 threads and mutexes throughout; the worker's
 * wait is a timed one (a minute away), shown like any other. */
// expect: deadlock
// options: halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: cycle: queue_mtx -> thread join_deadlock_m -> queue_mtx
#include <threads.h>
#include <time.h>
static mtx_t queue_mtx;
static int queued;
static int enqueue(void *arg)
{
    (void)arg;
    struct timespec deadline;
    timespec_get(&deadline, TIME_UTC);
    deadline.tv_sec += 60;
    if (mtx_timedlock(&queue_mtx, &deadline) != thrd_success)
        return 1;
    queued++;
    mtx_unlock(&queue_mtx);
    return 0;
}
int main(void)
{
    thrd_t worker;
    mtx_init(&queue_mtx, mtx_timed);
    mtx_lock(&queue_mtx);
    thrd_create(&worker, enqueue, NULL);
    thrd_join(worker, NULL); /* still holding queue_mtx */
    mtx_unlock(&queue_mtx);
    return queued != 1;
}

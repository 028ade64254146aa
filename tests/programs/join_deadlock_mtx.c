/* join_deadlock.c with C11 threads and mutexes throughout. */
// expect: deadlock
// options: halt_on_error=1:deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: cycle: queue_mtx -> thread join_deadlock_m -> queue_mtx
#include <threads.h>
static mtx_t queue_mtx;
static int queued;
static int enqueue(void *arg)
{
    (void)arg;
    mtx_lock(&queue_mtx);
    queued++;
    mtx_unlock(&queue_mtx);
    return 0;
}
int main(void)
{
    thrd_t worker;
    mtx_init(&queue_mtx, mtx_plain);
    mtx_lock(&queue_mtx);
    thrd_create(&worker, enqueue, NULL);
    thrd_join(worker, NULL); /* still holding queue_mtx */
    mtx_unlock(&queue_mtx);
    return queued != 1;
}

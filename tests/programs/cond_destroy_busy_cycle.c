/* A condition destroyed while a worker waits on it, by the only thread that
 * ever signalled it (it woke the worker before): the destroy waits for the
 * worker to leave, the worker for the destroyer's next signal. A cycle of
 * two waits, which the watchdog reports as a deadlock (and ends the run)
 * after the cond-misuse report of the destroy. */
// options: deadlock_timeout_ms=300
// expect: cond-misuse deadlock
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: in pthread_cond_destroy of condition variable
// log: has left, at:
// log: which only cond_destroy_bu/
// log: for the next one to leave its wait on the condition
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static int jobs, waiting;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    for (;;) {
        waiting = 1;
        while (!jobs)
            pthread_cond_wait(&work, &m);
        jobs--; /* one job done; wait for the next */
    }
    return NULL;
}

int main(void)
{
    pthread_t w;
    pthread_create(&w, NULL, worker, NULL);
    for (int done = 0; !done;) {
        pthread_mutex_lock(&m);
        done = waiting && !jobs; /* in its wait, with no job: ours to signal */
        pthread_mutex_unlock(&m);
    }
    pthread_mutex_lock(&m);
    jobs = 1;
    waiting = 0;
    pthread_cond_signal(&work); /* main is the condition's signaller */
    pthread_mutex_unlock(&m);
    for (int done = 0; !done;) {
        pthread_mutex_lock(&m);
        done = waiting && !jobs; /* back in its wait: m was ours again */
        pthread_mutex_unlock(&m);
    }
    pthread_cond_destroy(&work); /* the worker still waits: this waits for it */
    pthread_join(w, NULL);
    return 0;
}

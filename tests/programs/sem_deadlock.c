/* A real deadlock through a semaphore: the worker holds the queue lock
 * while it waits for `ready`; the thread that would post `ready` needs the
 * queue lock first, and the main thread joins the worker. Every thread is
 * blocked without a timeout and none is left to post: the watchdog says
 * so and the run ends (exit_on_deadlock). */
// expect: deadlock
// options: deadlock_timeout_ms=300
// log: BUG: deadlock detected, all 3 threads blocked, none can wake another
// log: blocked
// log: waiting on semaphore
// log: queue_lock (pthread_mutex_t, static, first used at sem_deadlock.c:26 in worker), held by sem_deadlock/
// log: in pthread_join, joining sem_deadlock/
// log: a signal can only come from a thread that runs, and none does
// no-output: NOT HUNG
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t ready;
static volatile int holding;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&queue_lock);
    holding = 1;
    sem_wait(&ready);
    pthread_mutex_unlock(&queue_lock);
    return NULL;
}

static void *feeder(void *arg)
{
    (void)arg;
    while (!holding)
        usleep(1000);
    pthread_mutex_lock(&queue_lock);
    sem_post(&ready);
    pthread_mutex_unlock(&queue_lock);
    return NULL;
}

int main(void)
{
    sem_init(&ready, 0, 0);
    pthread_t w, f;
    pthread_create(&w, NULL, worker, NULL);
    pthread_create(&f, NULL, feeder, NULL);
    pthread_join(w, NULL);
    pthread_join(f, NULL);
    printf("NOT HUNG\n");
    return 0;
}

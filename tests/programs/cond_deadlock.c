/* A real deadlock through a condition variable: the configuration thread
 * holds config_lock while it waits for `applied`; the only thread that has
 * ever signalled `applied` must take config_lock first. The main thread
 * sleeps (not blocked in a wait the runtime follows), so the watchdog's
 * edge "waiter -> the threads that signal its condition" is what closes
 * the cycle: deadlock, and the run ends (exit_on_deadlock). */
// expect: deadlock
// options: deadlock_timeout_ms=300
// log: BUG: deadlock detected, 2 threads blocked in a cycle
// log: waiting on condition variable
// log: which only cond_deadlock/
// log: is known to signal, at:
// log: config_lock was taken by cond_deadlock/
// log: applied was last signalled by cond_deadlock/
// log: or for a condition that only the next one signals
// log: cycle: config_lock -> applied -> config_lock
// no-output: NOT HUNG
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER, m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t applied = PTHREAD_COND_INITIALIZER;
static int generation, waiting;

static void apply_once(void)
{
    pthread_mutex_lock(&config_lock);
    pthread_mutex_unlock(&config_lock);
    pthread_mutex_lock(&m);
    generation++;
    pthread_cond_signal(&applied);
    pthread_mutex_unlock(&m);
}

static void *applier(void *arg)
{
    (void)arg;
    apply_once(); /* the known signaller of `applied` */
    while (!__atomic_load_n(&waiting, __ATOMIC_ACQUIRE))
        usleep(1000);
    usleep(20000);
    apply_once(); /* blocks on config_lock */
    return NULL;
}

static void *reconfigure(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    pthread_mutex_lock(&m);
    int want = generation + 1;
    __atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
    while (generation < want)
        pthread_cond_wait(&applied, &m);
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

int main(void)
{
    pthread_t a, r;
    pthread_create(&a, NULL, applier, NULL);
    usleep(50000); /* the first signal is made */
    pthread_create(&r, NULL, reconfigure, NULL);
    sleep(20);
    printf("NOT HUNG\n");
    return 0;
}

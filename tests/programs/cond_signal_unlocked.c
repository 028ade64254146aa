/* A thread sets the predicate with no lock and signals without the mutex
 * its waiter uses: the waiter may test the predicate, miss the signal, and
 * sleep (a lost wakeup; the waiter here uses timed waits, so it does not
 * hang). The signaller never takes the mutex: reported once per signal
 * site (the loop signals twice), INFO, exit status unchanged. */
// expect: cond-signal-unlocked
// log: INFO: condition variable signalled without the mutex its waiters use
// log: without holding mutex [0x
// log: waited on the condition with it at:
// log: in waiter
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static atomic_int ready, waited;

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!atomic_load(&ready)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 2000000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&cv, &m, &ts);
        atomic_store(&waited, 1);
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    while (!atomic_load(&waited)) /* a wait has named the mutex */
        usleep(1000);
    atomic_store(&ready, 1);
    for (volatile int i = 0; i < 2; i++) /* one call site, run twice */
        pthread_cond_signal(&cv);
    return NULL;
}

int main(void)
{
    pthread_t w, s;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&s, NULL, signaller, NULL);
    pthread_join(s, NULL);
    pthread_join(w, NULL);
    puts("done");
    return 0;
}

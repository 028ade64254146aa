/* Failures that are a call's normal result, which a program checks and
 * handles: a trylock's EBUSY, a timed lock's or wait's ETIMEDOUT, a
 * semaphore wait interrupted by a signal handler (EINTR). None is a
 * failed-call. */
// expect: none
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t s;
static atomic_int held, interrupted;

static void in_ms(struct timespec *ts, long ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_nsec += ms * 1000000L;
    ts->tv_sec += ts->tv_nsec / 1000000000L;
    ts->tv_nsec %= 1000000000L;
}

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_rwlock_wrlock(&rw);
    atomic_store(&held, 1);
    while (atomic_load(&held) == 1)
        usleep(1000);
    pthread_rwlock_unlock(&rw);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void on_usr1(int sig)
{
    (void)sig;
}

static void *sleeper(void *arg)
{
    (void)arg;
    while (sem_wait(&s) == -1)
        if (errno == EINTR)
            atomic_store(&interrupted, 1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    struct timespec ts;
    int busy = 0, timedout = 0;
    pthread_create(&t, NULL, holder, NULL);
    while (!atomic_load(&held))
        usleep(1000);
    busy += pthread_mutex_trylock(&m) == EBUSY;
    busy += pthread_rwlock_tryrdlock(&rw) == EBUSY;
    busy += pthread_rwlock_trywrlock(&rw) == EBUSY;
    in_ms(&ts, 20);
    timedout += pthread_mutex_timedlock(&m, &ts) == ETIMEDOUT;
    in_ms(&ts, 20);
    timedout += pthread_rwlock_timedrdlock(&rw, &ts) == ETIMEDOUT;
    atomic_store(&held, 2);
    pthread_join(t, NULL);

    pthread_mutex_lock(&m);
    in_ms(&ts, 20);
    while (pthread_cond_timedwait(&cv, &m, &ts) != ETIMEDOUT)
        ;
    timedout++;
    pthread_mutex_unlock(&m);

    sem_init(&s, 0, 0);
    in_ms(&ts, 20);
    timedout += sem_timedwait(&s, &ts) == -1 && errno == ETIMEDOUT;

    /* A wait interrupted by a handler: signalled until it says so. */
    struct sigaction sa = { .sa_handler = on_usr1 };
    sigaction(SIGUSR1, &sa, NULL);
    pthread_create(&t, NULL, sleeper, NULL);
    while (!atomic_load(&interrupted)) {
        pthread_kill(t, SIGUSR1);
        usleep(2000);
    }
    sem_post(&s);
    pthread_join(t, NULL);
    sem_destroy(&s);
    pthread_mutex_destroy(&m);
    printf("busy %d, timed out %d\n", busy, timedout);
    return busy == 3 && timedout == 4 ? 0 : 1;
}

/* Two threads fire SIGUSR1/SIGUSR2 at four threads that lock mutexes, a
 * rwlock, a recursive mutex and a condition variable, and allocate, for
 * SECONDS seconds (default 3); the handlers lock and unlock a mutex of
 * their own. No report, no crash, no hang, and every thread finishes. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile sig_atomic_t stop;
static volatile long handled;
static long loops[4];

static void on_signal(int sig)
{
    (void)sig;
    int e = errno;
    pthread_mutex_lock(&handler_lock);
    handled++;
    pthread_mutex_unlock(&handler_lock);
    errno = e;
}

static void *locker(void *arg)
{
    long id = (long)arg;
    struct timespec ts;
    while (!stop) {
        switch (id) {
        case 0:
            pthread_mutex_lock(&a);
            pthread_mutex_lock(&b);
            free(malloc(80));
            pthread_mutex_unlock(&b);
            pthread_mutex_unlock(&a);
            break;
        case 1:
            pthread_rwlock_wrlock(&rw);
            pthread_rwlock_unlock(&rw);
            pthread_rwlock_rdlock(&rw);
            free(calloc(3, 40));
            pthread_rwlock_unlock(&rw);
            break;
        case 2:
            pthread_mutex_lock(&rec);
            pthread_mutex_lock(&rec);
            pthread_mutex_unlock(&rec);
            pthread_mutex_unlock(&rec);
            if (pthread_mutex_trylock(&a) == 0)
                pthread_mutex_unlock(&a);
            break;
        default:
            pthread_mutex_lock(&b);
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&cv, &b, &ts);
            pthread_mutex_unlock(&b);
            break;
        }
        loops[id]++;
    }
    return NULL;
}

static pthread_t lockers[4];
static void *signaller(void *arg)
{
    int sig = (long)arg ? SIGUSR2 : SIGUSR1;
    unsigned n = 0;
    while (!stop) {
        pthread_kill(lockers[n++ % 4], sig);
        if (n % 64 == 0)
            usleep(50);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    pthread_mutexattr_t ra;
    pthread_mutexattr_init(&ra);
    pthread_mutexattr_settype(&ra, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &ra);
    struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    for (long i = 0; i < 4; i++)
        pthread_create(&lockers[i], NULL, locker, (void *)i);
    pthread_t s[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&s[i], NULL, signaller, (void *)i);
    usleep((useconds_t)(seconds * 1e6));
    stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(s[i], NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(lockers[i], NULL);
    printf("signal_storm: %ld signals handled, loops %ld %ld %ld %ld\n", handled, loops[0], loops[1], loops[2],
           loops[3]);
    return handled < 1000 || !loops[0] || !loops[1] || !loops[2] || !loops[3];
}

/* The leader/followers pattern, as redis parks its I/O threads: the main
 * thread (the leader) holds each I/O thread's mutex while it waits for
 * events in epoll_wait; the I/O threads (followers) block on their mutex
 * until the leader hands it over. A client writes an event every 30 ms, so
 * the leader leaves epoll_wait and works a little between waits, the
 * moment a watchdog looking only once could misjudge. After 5 s, three
 * times hang_timeout_ms, the leader releases the followers and the
 * program ends. A server idling is not a hang: nothing to report, even
 * with hang_severity=warning. */
// expect: none
// options: hang_timeout_ms=1500:deadlock_timeout_ms=400:hang_severity=warning
// exit: 0
#include <pthread.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#define FOLLOWERS 2
static pthread_mutex_t io_mutex[FOLLOWERS] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static int events[2];
static volatile int stop_client;

static void *follower(void *arg)
{
    pthread_mutex_t *m = arg;
    pthread_mutex_lock(m); /* parked until the leader lets go */
    pthread_mutex_unlock(m);
    return NULL;
}

static void *client(void *arg)
{
    (void)arg;
    while (!stop_client) {
        if (write(events[1], "x", 1) != 1)
            break;
        usleep(30 * 1000);
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    if (pipe(events))
        return 1;
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = events[0]};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, events[0], &ev))
        return 1;
    for (int i = 0; i < FOLLOWERS; i++)
        pthread_mutex_lock(&io_mutex[i]);
    pthread_t f[FOLLOWERS], c;
    for (int i = 0; i < FOLLOWERS; i++)
        pthread_create(&f[i], NULL, follower, &io_mutex[i]);
    pthread_create(&c, NULL, client, NULL);
    double end = now_s() + 5.0;
    volatile unsigned long work = 0;
    while (now_s() < end) {
        struct epoll_event got;
        if (epoll_wait(ep, &got, 1, 100) == 1) {
            char buf[64];
            if (read(events[0], buf, sizeof buf) <= 0)
                return 1;
            for (int i = 0; i < 200000; i++) /* serve the event */
                work += (unsigned long)i;
        }
    }
    for (int i = 0; i < FOLLOWERS; i++)
        pthread_mutex_unlock(&io_mutex[i]);
    for (int i = 0; i < FOLLOWERS; i++)
        pthread_join(f[i], NULL);
    stop_client = 1;
    pthread_join(c, NULL);
    return 0;
}

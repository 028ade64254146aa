/* Thread A takes a lock, then blocks in read() on a pipe nobody writes
 * yet; threads B and C block on the lock. No cycle of waits exists: after
 * hang_timeout_ms the watchdog says who holds the lock, what the holder is
 * doing (in read(2) on the pipe), and every thread's locks. The main
 * thread then writes to the pipe and the program ends normally. */
// options: hang_timeout_ms=600
// expect: blocked-too-long
// log: INFO: thread hang_pipe_holde/
// log: blocked for more than
// log: is held by hang_pipe_holde/
// log: is not waiting for a lock: it is in read(2) on fd
// log: Locks held and waits of every thread:
// log: lock held by hang_pipe_holde/
// exit: 0
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];
static volatile int holding;

static void *reader(void *arg)
{
    (void)arg;
    char c;
    pthread_mutex_lock(&config_lock);
    holding = 1;
    ssize_t n = read(pipefd[0], &c, 1); /* blocks until main writes */
    (void)n;
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

int main(void)
{
    if (pipe(pipefd))
        return 2;
    pthread_t a, b, c;
    pthread_create(&a, NULL, reader, NULL);
    while (!holding)
        usleep(1000);
    pthread_create(&b, NULL, waiter, NULL);
    pthread_create(&c, NULL, waiter, NULL);
    sleep(2);
    ssize_t n = write(pipefd[1], "x", 1);
    (void)n;
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_join(c, NULL);
    return 0;
}

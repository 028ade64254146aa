/* main joins a worker that is blocked on a lock whose holder blocks in
 * read() on a pipe (a third thread writes it later). The join is part of
 * a hang: its chain ends in a lock wait. Exactly one blocked-too-long
 * report names the chain, from the joiner: main joins the worker, the
 * worker waits for config_lock, the holder is in read(2). The worker's
 * own wait is not reported beside it. */
// options: hang_timeout_ms=300:deadlock_timeout_ms=100
// expect: blocked-too-long
// log: blocked for more than
// log: ms joining hang_join_lock_/
// log: is itself blocked
// log: waiting for config_lock, at:
// log: config_lock is held by hang_join_lock_/
// log: is not waiting for a lock: it is in read(2) on fd
// log: waits in pthread_join
// exit: 0
#include <pthread.h>
#include <unistd.h>
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];
static volatile int holding;

static void *holder(void *arg)
{
    (void)arg;
    char c;
    pthread_mutex_lock(&config_lock);
    holding = 1;
    ssize_t n = read(pipefd[0], &c, 1); /* until the writer writes */
    (void)n;
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

static void *late_writer(void *arg)
{
    (void)arg;
    sleep(2);
    ssize_t n = write(pipefd[1], "x", 1);
    (void)n;
    return NULL;
}

int main(void)
{
    if (pipe(pipefd))
        return 2;
    pthread_t h, w, k;
    pthread_create(&h, NULL, holder, NULL);
    while (!holding)
        usleep(1000);
    pthread_create(&w, NULL, worker, NULL);
    pthread_create(&k, NULL, late_writer, NULL);
    pthread_join(w, NULL);
    pthread_join(h, NULL);
    pthread_join(k, NULL);
    return 0;
}

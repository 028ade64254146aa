/* main holds config_lock and joins a thread that made no lock call (it
 * reads a pipe another thread writes later); a third thread waits for
 * config_lock. The blocked-too-long report follows the chain to the joined
 * thread and names it, with its tid and what it is doing from /proc, as a
 * lock's holder is shown (before: "joining another thread", or "a thread/0"). */
// options: hang_timeout_ms=500
// expect: blocked-too-long
// log: config_lock is held by hang_join_unsee/
// log: is itself blocked
// log: ms joining pipe_reader/
// log: made no lock call rtdd saw: it is in read(2) on fd
// log: waits in pthread_join for pipe_reader/
// no-log: another thread
// no-log: a thread/0
// exit: 0
#include <pthread.h>
#include <unistd.h>
#include "../../include/rtdd/annotate.h"
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];

static void *pipe_reader(void *arg)
{
    (void)arg;
    char c;
    ssize_t n = read(pipefd[0], &c, 1); /* until the late writer writes */
    (void)n;
    return NULL;
}

static void *waiter(void *arg)
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
    RTDD_LOCK_NAME(&config_lock, "config_lock");
    pthread_t r, w, k;
    pthread_create(&r, NULL, pipe_reader, NULL);
    pthread_setname_np(r, "pipe_reader");
    pthread_create(&k, NULL, late_writer, NULL);
    pthread_mutex_lock(&config_lock);
    pthread_create(&w, NULL, waiter, NULL);
    pthread_join(r, NULL);
    pthread_mutex_unlock(&config_lock);
    pthread_join(w, NULL);
    pthread_join(k, NULL);
    return 0;
}

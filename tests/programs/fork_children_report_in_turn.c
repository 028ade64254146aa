/* A threaded program forks four children in turn while another thread
 * holds a lock; each child uses that lock and reports it (INFO), named and
 * placed by the symbolizer: each child dials its parent's helper by name
 * at its first question (symclient.c), the fork itself asks nothing of
 * the helper. Between the first two forks the parent reports too (a bad
 * unlock) on its own connection. Every report must be whole and
 * symbolized, the parent's and each child's. */
// expect: bad-unlock lock-held-at-fork lock-held-at-fork lock-held-at-fork lock-held-at-fork
// exit: 66
// log-count: 4 busy (pthread_mutex_t, static, first used at fork_children_report_in_turn.c:
// log-count: 4 SUMMARY: rtdd: lock-held-at-fork fork_children_report_in_turn.c:34 in child
// log: SUMMARY: rtdd: bad-unlock fork_children_report_in_turn.c:59 in main
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t twice = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held, done;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&busy);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&done);
    pthread_mutex_unlock(&busy);
    return NULL;
}

static void child(void)
{
    /* EBUSY: the parent's holder does not exist here. */
    if (pthread_mutex_trylock(&busy) != EBUSY)
        _exit(3);
    _exit(0);
}

static int fork_one(void)
{
    pid_t pid = fork();
    if (pid == 0)
        child();
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
    pthread_t t;
    int ok = 1;
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&done, NULL, 2);
    pthread_create(&t, NULL, holder, NULL);
    pthread_barrier_wait(&held);
    ok &= fork_one();
    pthread_mutex_lock(&twice);
    pthread_mutex_unlock(&twice);
    pthread_mutex_unlock(&twice);
    for (int i = 0; i < 3; i++)
        ok &= fork_one();
    pthread_barrier_wait(&done);
    pthread_join(t, NULL);
    return ok ? 0 : 1;
}

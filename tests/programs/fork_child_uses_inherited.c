/* fork() while another thread holds a lock, and the child uses that lock:
 * a trylock (EBUSY: it stays locked forever there), then an unlock of what
 * the parent's thread held (an atfork-style recovery). The first use is
 * reported (INFO, once), with the other lock the child inherited locked;
 * INFO does not change the exit status. */
// expect: lock-held-at-fork
// exit: 0
// log: INFO: locks held across fork() by threads that do not exist in the child
// log: tries to take lock [0x
// log: busy (pthread_mutex_t, static, first used at fork_child_uses_inherited.c:
// log: in the child, at:
// log: it was held at the fork by thread
// log: lock [0x
// log: cache (pthread_rwlock_t, static, first used at fork_child_uses_inherited.c:
// log: was held by thread
// log: SUMMARY: rtdd: lock-held-at-fork fork_child_uses_inherited.c:43 in child
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t cache = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held, forked;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&busy);
    pthread_rwlock_wrlock(&cache);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&forked);
    pthread_rwlock_unlock(&cache);
    pthread_mutex_unlock(&busy);
    return NULL;
}

/* The child tries busy while it holds a lock of its own (the nested path
 * of the wrappers; lazy_held_at_exit_and_fork.c tries one holding nothing). */
static int child(void)
{
    pthread_mutex_lock(&own);
    int r = pthread_mutex_trylock(&busy); /* the first use */
    pthread_mutex_unlock(&own);
    if (r != EBUSY)
        return 1;
    return pthread_mutex_unlock(&busy) == 0 && pthread_mutex_trylock(&busy) == 0 ? 0 : 2;
}

int main(void)
{
    pthread_t t;
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&forked, NULL, 2);
    pthread_create(&t, NULL, holder, NULL);
    pthread_barrier_wait(&held);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child());
    int status;
    waitpid(pid, &status, 0);
    pthread_barrier_wait(&forked);
    pthread_join(t, NULL);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* Mutexes made by pthread_mutex_init and held alone (no lock record yet)
 * when a thread exits and when another thread forks (the child then tries
 * the held one): the records they get then name them as any lock's would. */
// expect: lock-held-at-fork lock-held-at-exit
// log: locks (pthread_mutex_t, initialized at lazy_held_at_exit_and_fork.c
// log: it was held at the fork by thread
// log: exited still holding lock #0 [0x
// log: locks+0x28 (pthread_mutex_t, initialized at lazy_held_at_exit_and_fork.c
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
/* Made at one site, so that one line's entry holds both (a line's lazy
 * mutexes share their init site). */
static pthread_mutex_t locks[2];
#define busy locks[0]
#define kept locks[1]
static pthread_barrier_t held, forked;
/* A thread's first lock call registers it (the general path, which makes
 * a record): each thread makes that call on another lock first. */
static pthread_mutex_t warm_up = PTHREAD_MUTEX_INITIALIZER;
static void register_thread(void)
{
    pthread_mutex_lock(&warm_up);
    pthread_mutex_unlock(&warm_up);
}
static void *holder(void *arg)
{
    (void)arg;
    register_thread();
    pthread_mutex_lock(&busy);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&forked);
    pthread_mutex_unlock(&busy);
    return NULL;
}
static void *leaver(void *arg)
{
    (void)arg;
    register_thread();
    pthread_mutex_lock(&kept);
    return NULL;
}
int main(void)
{
    pthread_t t;
    for (int i = 0; i < 2; i++)
        pthread_mutex_init(&locks[i], NULL);
    pthread_barrier_init(&held, NULL, 2);
    pthread_barrier_init(&forked, NULL, 2);
    pthread_create(&t, NULL, holder, NULL);
    pthread_barrier_wait(&held);
    pid_t pid = fork();
    if (pid == 0) /* a use of busy in the child: reported there */
        _exit(pthread_mutex_trylock(&busy) == EBUSY ? 0 : 1);
    int status;
    waitpid(pid, &status, 0);
    pthread_barrier_wait(&forked);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, leaver, NULL);
    pthread_join(t, NULL);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

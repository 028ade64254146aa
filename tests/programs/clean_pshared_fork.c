/* A pre-forking server's accept mutex: a PTHREAD_PROCESS_SHARED mutex (and
 * a process-shared rwlock) in MAP_SHARED memory, held by a thread of the
 * parent while the parent forks; the child takes it and waits until that
 * thread releases it, in the parent. Then the forking thread itself holds
 * one across the fork, and the child waits for the parent to release it.
 * Shared memory is reachable from the other process: none of these locks
 * stays locked in the child, and every wait ends. Nothing to report, the
 * native exit status. */
// expect: none
// options: deadlock_timeout_ms=100
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
    pthread_mutex_t accept_lock;
    pthread_rwlock_t table;
    volatile int waiting; /* the child is about to block (set before its lock call) */
};
static struct shared *sh;
static pthread_barrier_t held;

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
    nanosleep(&ts, NULL);
}

/* Holds the locks in the parent until the child waits, and a while more
 * (past deadlock_timeout_ms). */
static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&sh->accept_lock);
    pthread_rwlock_wrlock(&sh->table);
    pthread_barrier_wait(&held);
    while (!sh->waiting)
        pause_ms(1);
    pause_ms(300);
    pthread_rwlock_unlock(&sh->table);
    pthread_mutex_unlock(&sh->accept_lock);
    return NULL;
}

static int child_status(pid_t pid)
{
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

int main(void)
{
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return 1;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&sh->accept_lock, &ma);
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
    pthread_rwlock_init(&sh->table, &ra);
    pthread_barrier_init(&held, NULL, 2);

    /* Held by another thread of the parent at the fork. */
    pthread_t t;
    pthread_create(&t, NULL, holder, NULL);
    pthread_barrier_wait(&held);
    pid_t pid = fork();
    if (pid == 0) {
        sh->waiting = 1;
        pthread_rwlock_rdlock(&sh->table);
        pthread_rwlock_unlock(&sh->table);
        pthread_mutex_lock(&sh->accept_lock);
        pthread_mutex_unlock(&sh->accept_lock);
        _exit(0);
    }
    int first = child_status(pid);
    pthread_join(t, NULL);

    /* Held by the forking thread itself. */
    sh->waiting = 0;
    pthread_mutex_lock(&sh->accept_lock);
    pid = fork();
    if (pid == 0) {
        sh->waiting = 1;
        pthread_mutex_lock(&sh->accept_lock);
        pthread_mutex_unlock(&sh->accept_lock);
        _exit(0);
    }
    while (!sh->waiting)
        pause_ms(1);
    pause_ms(300);
    pthread_mutex_unlock(&sh->accept_lock);
    int second = child_status(pid);
    printf("children: %d %d\n", first, second);
    return first == 0 && second == 0 ? 0 : 1;
}

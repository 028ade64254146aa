/* A process-shared mutex destroyed, made again in the same memory, and
 * destroyed again by another process (APR's process-shared mutexes across
 * Apache's graceful restarts: the parent remakes the lock, a child of the
 * new generation uses it after the parent destroyed it again). The child
 * inherited the parent's memory of the first destroy, which belongs to
 * the lock's earlier life: its report must not show that stack. */
// expect: use-after-destroy use-after-destroy
// log: WARNING: use of a destroyed lock
// log: it is a process-shared lock, so another process that shares its memory destroyed it
// no-log: first_life_teardown
// no-log: it was destroyed by
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static __attribute__((noinline)) void make_lock(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

static __attribute__((noinline)) void first_life_teardown(pthread_mutex_t *m) { pthread_mutex_destroy(m); }
static __attribute__((noinline)) void second_life_teardown(pthread_mutex_t *m) { pthread_mutex_destroy(m); }

int main(void)
{
    pthread_mutex_t *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int go[2];
    if (m == MAP_FAILED || pipe(go) != 0)
        return 1;
    make_lock(m);
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
    first_life_teardown(m);
    make_lock(m); /* a new life in the same memory */
    pid_t child = fork();
    if (child == 0) {
        char c;
        if (read(go[0], &c, 1) != 1)
            _exit(1);
        pthread_mutex_lock(m); /* EINVAL: the parent destroyed it */
        pthread_mutex_unlock(m);
        return 0;
    }
    second_life_teardown(m);
    if (write(go[1], "x", 1) != 1)
        return 1;
    int st;
    waitpid(child, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1; /* the child's status: rtdd's exitcode if it reported */
}

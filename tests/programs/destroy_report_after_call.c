/* A destroy is judged after the real call returns: writing the report
 * (symbolizing a first one takes a moment) must not delay the call and
 * change what it finds. With halt_on_error the process ends at its first
 * report; the child's robust mutex, held while destroyed (glibc destroys
 * a robust mutex even when held), lives in memory shared with the parent,
 * which then sees whether the destroy ran before the report ended the
 * child: glibc marks a destroyed mutex with kind -1. */
// expect: destroy-locked
// options: halt_on_error=1
// log: BUG: destroying a held lock
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    pthread_mutex_t *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
        pthread_mutex_init(m, &a);
        pthread_mutex_lock(m);
        pthread_mutex_destroy(m); /* destroy-locked: rtdd halts the child here */
        _exit(0);
    }
    int st;
    if (waitpid(child, &st, 0) != child || !WIFEXITED(st))
        return 1;
    /* The destroy ran (kind -1): the child's status (rtdd's exitcode under
     * rtdd, 0 natively); it did not: 1. */
    return m->__data.__kind == -1 ? WEXITSTATUS(st) : 1;
}

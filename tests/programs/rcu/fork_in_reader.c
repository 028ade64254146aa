/* fork() inside a read-side section while a reader thread runs: the child
 * (one thread) ends the section it inherited, reads, waits for a grace
 * period and exits. Nothing to report, and nothing may hang: librtdd_rcu's
 * own fork handler runs in the child before the runtime's, and initializes
 * mutexes there; and it forgets the readers of vanished threads, so the
 * section the reader thread was in at the fork is not left held in the
 * child. (With liburcu it is: there a section held across fork() is an
 * INFO lock-held-at-fork and the child's synchronize_rcu() would wait for
 * it forever, so the liburcu variant stops its reader thread first.) */
// expect: none
// no-output: did not exit cleanly
#include "rcu_api.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static int *shared;
static volatile int stop;
static void *reader(void *arg)
{
    test_rcu_online();
    while (!stop) {
        rcu_read_lock();
        int *p = rcu_dereference(shared);
        if (*p != 1)
            abort();
        rcu_read_unlock();
    }
    test_rcu_offline();
    return arg;
}
static void child(void)
{
    alarm(30);
    int ok = *rcu_dereference(shared) == 1;
    rcu_read_unlock();
    for (int i = 0; i < 100; i++) {
        rcu_read_lock();
        ok &= *rcu_dereference(shared) == 1;
        rcu_read_unlock();
    }
    synchronize_rcu();
    _exit(ok ? 0 : 1);
}
int main(void)
{
    shared = malloc(sizeof *shared);
    *shared = 1;
    test_rcu_online();
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
#ifdef RCU_URCU
    stop = 1;
    pthread_join(t, NULL);
#endif
    alarm(60);
    for (int k = 0; k < 5; k++) {
        rcu_read_lock();
        pid_t pid = fork();
        if (pid == 0)
            child();
        rcu_read_unlock();
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            printf("child %d did not exit cleanly\n", k);
        int *fresh = malloc(sizeof *fresh), *old = shared;
        *fresh = 1;
        rcu_assign_pointer(shared, fresh);
        synchronize_rcu();
        free(old);
    }
    stop = 1;
#ifndef RCU_URCU
    pthread_join(t, NULL);
#endif
    test_rcu_offline();
    free(shared);
    return 0;
}

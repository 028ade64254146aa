/* The only thread waits on a semaphore that a signal handler posts (an
 * alarm a second later): every thread is blocked, but a handler can wake
 * it (sem_post is async-signal-safe), so that is no deadlock. */
// expect: none
// options: deadlock_timeout_ms=200
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static sem_t tick;
static void on_alarm(int sig)
{
    (void)sig;
    sem_post(&tick);
}

int main(void)
{
    sem_init(&tick, 0, 0);
    signal(SIGALRM, on_alarm);
    alarm(1);
    while (sem_wait(&tick) != 0)
        ; /* EINTR */
    printf("woken\n");
    return 0;
}

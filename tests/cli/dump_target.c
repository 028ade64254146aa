/* A program for `rtdd dump` tests (dump.sh), alive until its standard input
 * ends, then exiting 0. It says "ready" on stdout once set up.
 *   wait      a thread holds a lock and reads stdin; another waits for the lock
 *   idle      a thread ran and ended (the watchdog runs); main reads stdin, holds nothing
 *   nothread  main reads stdin, no thread ever made: no watchdog
 *   stuck     a thread writes to stderr until it blocks (a pipe nobody reads): so
 *             does the watchdog when it writes a dump there (log_path=stderr) */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int holding;

static void until_eof(void)
{
    char buf[64];
    while (read(0, buf, sizeof buf) > 0)
        ;
}

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    holding = 1;
    until_eof();
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&config_lock);
    pthread_mutex_unlock(&config_lock);
    return NULL;
}

static void *nothing(void *arg) { return arg; }

static void *flood(void *arg)
{
    static const char line[] = "filling stderr, which nobody reads\n";
    (void)arg;
    for (;;)
        if (write(2, line, sizeof line - 1) < 0)
            return NULL;
}

static void ready(void)
{
    printf("ready\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "wait";
    pthread_t a, b;
    if (!strcmp(mode, "wait")) {
        pthread_create(&a, NULL, holder, NULL);
        while (!holding)
            usleep(1000);
        pthread_create(&b, NULL, waiter, NULL);
        ready();
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    } else if (!strcmp(mode, "idle")) {
        pthread_create(&a, NULL, nothing, NULL);
        pthread_join(a, NULL);
        ready();
        until_eof();
    } else if (!strcmp(mode, "stuck")) {
        pthread_create(&a, NULL, flood, NULL);
        ready();
        until_eof();
    } else {
        ready();
        until_eof();
    }
    return 0;
}

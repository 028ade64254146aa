// A report must add little to the program's memory: symbolizing its frames
// (with libc's debug information, libdw reads megabytes) happens in the
// helper process `rtdd __symbolizer`, not in the program. The program reads
// its own peak RSS (VmHWM) before and after a first report (a bad unlock,
// written before pthread_mutex_unlock returns) and says whether it grew by
// less than 5 MiB. The helper is no child the program can see: wait()
// finds none, and no SIGCHLD arrives, also once the helper has answered.
// expect: bad-unlock
// log: SUMMARY: rtdd: bad-unlock report_memory.c:47 in main
// log: __libc_start_main
// stderr: report_memory: the first report added less than 5 MiB to the peak RSS
// stderr: report_memory: no child to wait for, no SIGCHLD
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static pthread_mutex_t never_locked = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t sigchld;

static void on_sigchld(int sig)
{
    (void)sig;
    sigchld++;
}

static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(void)
{
    signal(SIGCHLD, on_sigchld);
    long before = peak_rss_kb();
    pthread_mutex_unlock(&never_locked); /* the report, symbolized, is written here */
    long after = peak_rss_kb();
    if (before <= 0 || after <= 0)
        fprintf(stderr, "report_memory: no VmHWM in /proc/self/status\n");
    else if (after - before < 5 * 1024)
        fprintf(stderr, "report_memory: the first report added less than 5 MiB to the peak RSS\n");
    else
        fprintf(stderr, "report_memory: the first report added %ld kB to the peak RSS\n", after - before);
    int status;
    if (waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD && !sigchld)
        fprintf(stderr, "report_memory: no child to wait for, no SIGCHLD\n");
    else
        fprintf(stderr, "report_memory: a child or a SIGCHLD the program did not make\n");
    return 0;
}

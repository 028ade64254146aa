/* A program whose reports go to a pipe with no reader: the runtime's
 * failed writes must leave its SIGPIPE state exactly as it was. Modes:
 *   clean    no report: exits 0 (the exit summary is the only write)
 *   report   a bad unlock mid-run, then goes on: exits 0 itself
 *   handler  a SIGPIPE handler installed: the runtime's writes never run it
 *   blocked  SIGPIPE blocked: none is pending after a report, and one the
 *            program raised itself is still pending after the next report
 * handler and blocked write their verdict to the file FILE (argv[2]):
 * their exit status is rtdd's exitcode, as after any report. "ok", or
 * what the runtime disturbed. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t handled;
static void on_pipe(int sig) { (void)sig; handled++; }
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void bad_unlock(void) { pthread_mutex_unlock(&m); }
__attribute__((noinline)) static void bad_unlock_again(void) { pthread_mutex_unlock(&m); }

static int verdict(const char *file, const char *what)
{
    FILE *f = fopen(file, "w");
    if (f) {
        fputs(what, f);
        fclose(f);
    }
    return 0;
}

static int sigpipe_pending(void)
{
    sigset_t s;
    sigpending(&s);
    return sigismember(&s, SIGPIPE);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clean", *file = argc > 2 ? argv[2] : "/dev/null";
    if (!strcmp(mode, "clean"))
        return 0;
    if (!strcmp(mode, "report")) {
        bad_unlock();
        return 0;
    }
    if (!strcmp(mode, "handler")) {
        signal(SIGPIPE, on_pipe);
        bad_unlock();
        return verdict(file, handled ? "the handler ran" : "ok");
    }
    if (!strcmp(mode, "blocked")) {
        sigset_t pipe_only;
        sigemptyset(&pipe_only);
        sigaddset(&pipe_only, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);
        bad_unlock();
        if (sigpipe_pending())
            return verdict(file, "the runtime's SIGPIPE was left pending");
        raise(SIGPIPE);
        bad_unlock_again();
        if (!sigpipe_pending())
            return verdict(file, "the program's own SIGPIPE was taken");
        int sig;
        sigwait(&pipe_only, &sig);
        return verdict(file, sigpipe_pending() ? "two SIGPIPEs pending" : "ok");
    }
    return 2;
}

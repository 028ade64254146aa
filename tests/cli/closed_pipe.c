/* Runs a command with stdout and stderr on a pipe whose reader has gone,
 * as `cmd 2>&1 | head -c0` once head has exited, without the race: the
 * read end is closed before the command starts. SIGPIPE is left at its
 * default (and unblocked), as a shell leaves it. Usage: closed_pipe CMD... */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int p[2];
    if (argc < 2 || pipe(p) != 0)
        return 127;
    close(p[0]);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
        return 127;
    close(p[1]);
    execvp(argv[1], argv + 1);
    return 127;
}

/* measure RESULT_FILE -- COMMAND [ARGS...]
 * Runs COMMAND (stdin/stdout/stderr inherited), waits for it with wait4 and
 * writes one line "WALL_SECONDS MAXRSS_KB EXIT_STATUS USER_SECONDS SYS_SECONDS"
 * to RESULT_FILE. Max RSS is the kernel's ru_maxrss of the child (the largest
 * of the child and the descendants it waited for); user and system time are
 * the child's and its waited-for descendants' (wait4's rusage). Exits with
 * the child's status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[2], "--")) {
        fprintf(stderr, "usage: measure RESULT_FILE -- COMMAND [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("measure: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[3], argv + 3);
        perror("measure: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("measure: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror("measure: result file");
        return 2;
    }
    fprintf(f, "%.6f %ld %d %.6f %.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
            ru.ru_maxrss, code, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
            ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    fclose(f);
    return code;
}

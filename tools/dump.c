/* rtdd dump PID: asks a program running under rtdd for a lock dump (every
 * thread's held locks, waits and state) in its own log; without an answer
 * (no watchdog thread yet: a program that never made a thread), shows what
 * /proc says of each thread. */
#include "cli.h"
#include "hang/lockdump.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void dump_usage(FILE *out)
{
    fprintf(out, "usage: rtdd dump PID\n"
                 "  writes a lock dump of PID (a program run under rtdd) to that program's log:\n"
                 "  every thread's held locks with where they were taken, what it waits for and for how\n"
                 "  long, and what it is doing; safe on a hung or a busy process\n");
}

static int read_small(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

static int runs_rtdd(int pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, "/librtdd.so") != NULL;
    fclose(f);
    return found;
}

/* Without an answer: each thread's name, state and system call from /proc. */
static void proc_threads(int pid)
{
    char path[400];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char comm[64] = "?", sys[256] = "?", wchan[64] = "?";
        snprintf(path, sizeof path, "/proc/%d/task/%s/comm", pid, e->d_name);
        read_small(path, comm, sizeof comm);
        snprintf(path, sizeof path, "/proc/%d/task/%s/syscall", pid, e->d_name);
        read_small(path, sys, sizeof sys);
        snprintf(path, sizeof path, "/proc/%d/task/%s/wchan", pid, e->d_name);
        read_small(path, wchan, sizeof wchan);
        printf("  %s/%s: syscall %s; kernel wait %s\n", comm, e->d_name, sys, wchan);
    }
    closedir(d);
}

int rtdd_dump_main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        dump_usage(stdout);
        return 0;
    }
    char *end;
    long pid = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || pid <= 0 || *end) {
        if (argc == 2)
            fprintf(stderr, "rtdd dump: '%s' is not a process id\n", argv[1]);
        dump_usage(stderr);
        return 2;
    }
    int rt = runs_rtdd((int)pid);
    if (rt == 0) {
        /* `rtdd run` itself: its program is its child. */
        char path[64], kids[256];
        snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", pid, pid);
        long kid = read_small(path, kids, sizeof kids) == 0 ? strtol(kids, NULL, 10) : 0;
        if (kid > 0 && runs_rtdd((int)kid) == 1) {
            pid = kid;
            rt = 1;
        }
    }
    if (rt < 0) {
        fprintf(stderr, "rtdd dump: no process %ld (or it is not yours): %s\n", pid, strerror(errno));
        return 2;
    }
    if (!rt) {
        fprintf(stderr, "rtdd dump: process %ld does not run under rtdd (librtdd.so is not loaded in it)\n", pid);
        return 2;
    }
    char req[64], ans[64];
    snprintf(req, sizeof req, RT_DUMP_REQUEST, (int)pid);
    snprintf(ans, sizeof ans, RT_DUMP_ANSWER, (int)pid);
    unlink(ans);
    int fd = open(req, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "rtdd dump: cannot make the request file %s: %s\n", req, strerror(errno));
        return 1;
    }
    close(fd);
    /* The watchdog looks at least every 500 ms. */
    for (int i = 0; i < 50; i++) {
        char text[1024];
        if (read_small(ans, text, sizeof text) == 0 && text[0]) {
            printf("%s\n", text);
            unlink(ans);
            return 0;
        }
        struct timespec ts = { 0, 100 * 1000000L };
        nanosleep(&ts, NULL);
    }
    unlink(req);
    printf("rtdd dump: process %ld did not answer in 5 s: its watchdog thread is not running (rtdd starts it with "
           "the program's first thread or first lock wait). What /proc says of its threads:\n",
           pid);
    proc_threads((int)pid);
    return 1;
}

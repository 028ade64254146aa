/* rtdd dump PID: asks a program running under rtdd for a lock dump (every
 * thread's held locks, waits and state) in its own log. Each call leaves
 * its own request in the program's request directory (detect/lockdump.h),
 * reached through /proc/PID/root so that a program in another mount
 * namespace (PrivateTmp=, a container) is asked in its own /tmp, and waits
 * for its own answer. Without one it says why, from what /proc shows: the
 * process exited, is stopped, has no watchdog thread, or its watchdog is
 * busy; and what each thread is doing, as the runtime's own dump would. */
#include "cli.h"
#include "hang/lockdump.h"
#include "core/procstate.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 5000 /* the watchdog looks at least every 500 ms; a report may take a while to write */
#define POLL_MS 50

static void dump_usage(FILE *out)
{
    fprintf(out, "usage: rtdd dump PID\n"
                 "  writes a lock dump of PID (a program run under rtdd, or `rtdd run` itself) to that\n"
                 "  program's log: every thread's held locks with where they were taken, what it waits for\n"
                 "  and for how long, and what it is doing; safe on a hung or a busy process, and on one in\n"
                 "  another mount namespace (PrivateTmp=). Exit status: 0 answered, 1 no answer (the\n"
                 "  reason is printed), 2 not a process that can be asked\n");
}

static int read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (n < 0) {
        errno = e;
        return -1;
    }
    buf[n] = 0;
    return 0;
}

/* The answer: a regular file of the program's user (not a fifo that would
 * hold us, not a link), its text made printable. */
static int read_answer(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, cap - 1) : -1;
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    for (char *p = buf; *p; p++)
        if ((*p < ' ' && *p != '\n') || *p == 0x7f)
            *p = '?';
    return 0;
}

/* A pid is digits only and fits a pid_t: "4294967297" is not pid 1. */
static int parse_pid(const char *s, int *pid)
{
    long v = 0;
    if (!*s)
        return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
        if (v > INT_MAX)
            return -1;
    }
    if (v <= 0)
        return -1;
    *pid = (int)v;
    return 0;
}

static int runs_rtdd(int pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, "/librtdd.so") != NULL;
    fclose(f);
    return found;
}

/* A field of /proc/PID/status ("Uid:", "NSpid:"): its text after the tab. */
static int status_field(int pid, const char *field, char *out, size_t cap)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (read_small(path, buf, sizeof buf) < 0)
        return -1;
    size_t n = strlen(field);
    for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, field, n)) {
            line += n;
            line += strspn(line, " \t");
            snprintf(out, cap, "%.*s", (int)strcspn(line, "\n"), line);
            return 0;
        }
    return -1;
}

/* The i-th number of a status field ("Uid:" 1 is the effective uid). */
static long status_number(int pid, const char *field, int i)
{
    char text[256];
    if (status_field(pid, field, text, sizeof text) < 0)
        return -1;
    char *p = text;
    for (int k = 0; k < i; k++)
        strtol(p, &p, 10);
    return strtol(p, NULL, 10);
}

/* The process's own pid, in its pid namespace (the last NSpid). */
static int ns_pid(int pid)
{
    char text[256];
    if (status_field(pid, "NSpid:", text, sizeof text) < 0)
        return pid;
    char *last = strrchr(text, '\t');
    last = last ? last + 1 : text;
    long v = strtol(last, NULL, 10);
    return v > 0 ? (int)v : pid;
}

/* From /proc/PID/stat: its state letter and its start time (which tells a
 * process from a later one that got its pid); state '?' when it is gone. */
struct pstate {
    char state;
    unsigned long long start;
};

static struct pstate proc_state(int pid)
{
    struct pstate s = { '?', 0 };
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (read_small(path, buf, sizeof buf) < 0)
        return s;
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return s;
    s.state = p[2];
    /* Field 22, starttime: the 20th after the name. */
    p += 2;
    for (int field = 3; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (p)
        s.start = strtoull(p + 1, NULL, 10);
    return s;
}

static int gone(int pid, const struct pstate *first)
{
    struct pstate now = proc_state(pid);
    if (now.state == '?' || now.start != first->start)
        return 1;
    /* A zombie leader with threads left is a live process. */
    return (now.state == 'Z' || now.state == 'X') && status_number(pid, "Threads:", 0) <= 1;
}

/* The runtime's watchdog thread (it is named rtdd-watchdog), or 0. */
static int watchdog_tid(int pid)
{
    char path[300], comm[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%s/comm", pid, e->d_name);
        if (read_small(path, comm, sizeof comm) == 0 && !strcmp(comm, "rtdd-watchdog\n"))
            found = atoi(e->d_name);
    }
    closedir(d);
    return found;
}

/* Is it stopped (a stop signal, or a debugger): its watchdog's state, else its leader's. */
static char stopped(int pid, int wd)
{
    char st = wd ? rt_task_state(pid, wd) : proc_state(pid).state;
    return st == 'T' || st == 't' ? st : 0;
}

/* Each thread's name and what it is doing, from /proc: the runtime's own words. */
static void proc_threads(int pid, int wd)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        int tid = atoi(e->d_name);
        char comm[64] = "?", act[256];
        snprintf(path, sizeof path, "/proc/%d/task/%d/comm", pid, tid);
        if (read_small(path, comm, sizeof comm) == 0)
            comm[strcspn(comm, "\n")] = 0;
        rt_task_activity(pid, tid, act, sizeof act);
        printf("  %s/%d%s: %s.\n", comm, tid, tid == wd ? " (rtdd's watchdog)" : "", act);
    }
    closedir(d);
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* The request directory, made if need be: the program's user's, 0700.
 * Made by root for another user only in a shared temporary directory
 * (sticky): the program's own mount namespace is its user's to shape. */
static int make_dir(const char *dir, long uid, long gid)
{
    struct stat st;
    if (geteuid() != (uid_t)uid) {
        char parent[128];
        snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
        if (lstat(parent, &st) != 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & S_ISVTX)) {
            errno = EPERM;
            return -1;
        }
    }
    if (mkdir(dir, 0700) == 0) {
        if (geteuid() != (uid_t)uid && lchown(dir, (uid_t)uid, (gid_t)gid) != 0)
            return -1;
    } else if (errno != EEXIST) {
        return -1;
    }
    if (lstat(dir, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode) || st.st_uid != (uid_t)uid || (st.st_mode & 022)) {
        errno = EEXIST;
        return -1;
    }
    return 0;
}

/* Does it see the files we see? (Unknown: assume not, and go through its root.) */
static int same_mount_ns(int pid)
{
    char mine[64], theirs[64], path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", pid);
    ssize_t a = readlink("/proc/self/ns/mnt", mine, sizeof mine - 1);
    ssize_t b = readlink(path, theirs, sizeof theirs - 1);
    if (a <= 0 || b <= 0)
        return 0;
    mine[a] = theirs[b] = 0;
    return !strcmp(mine, theirs);
}

static void stopped_message(long pid, char st)
{
    printf("rtdd dump: process %ld is %s (state %c): none of its threads runs, rtdd's watchdog included, so it "
           "cannot write a dump. ",
           pid, st == 't' ? "stopped by a debugger" : "stopped", st);
    if (st == 't')
        printf("Let the debugger continue it and ask again.");
    else
        printf("Continue it (kill -CONT %ld) and ask again.", pid);
    printf(" What /proc says of its threads:\n");
}

int rtdd_dump_main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        dump_usage(stdout);
        return 0;
    }
    int pid;
    if (argc != 2 || parse_pid(argv[1], &pid) < 0) {
        if (argc == 2)
            fprintf(stderr, "rtdd dump: '%s' is not a process id\n", argv[1]);
        dump_usage(stderr);
        return 2;
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) {
        fprintf(stderr, "rtdd dump: there is no process %d\n", pid);
        return 2;
    }
    struct pstate first = proc_state(pid);
    if (first.state != '?' && gone(pid, &first)) {
        fprintf(stderr, "rtdd dump: process %d has exited (a zombie its parent has not reaped yet)\n", pid);
        return 2;
    }
    int rt = runs_rtdd(pid), rt_errno = errno;
    if (rt == 0) {
        /* `rtdd run` itself: its program is its child. */
        char path[64], kids[256];
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", pid, pid);
        long kid = read_small(path, kids, sizeof kids) == 0 ? strtol(kids, NULL, 10) : 0;
        if (kid > 0 && kid <= INT_MAX && runs_rtdd((int)kid) == 1) {
            pid = (int)kid;
            rt = 1;
        }
    }
    long uid = status_number(pid, "Uid:", 1), gid = status_number(pid, "Gid:", 1);
    if (rt < 0 && (rt_errno == EACCES || rt_errno == EPERM)) {
        fprintf(stderr, "rtdd dump: process %d is not yours (it runs as uid %ld): only its user or root can ask it "
                        "for a dump\n",
                pid, uid);
        return 2;
    }
    if (rt < 0) {
        fprintf(stderr, "rtdd dump: there is no process %d (%s)\n", pid, strerror(rt_errno));
        return 2;
    }
    if (!rt) {
        fprintf(stderr, "rtdd dump: process %d does not run under rtdd (librtdd.so is not loaded in it)\n", pid);
        return 2;
    }
    first = proc_state(pid); /* of the program, not of `rtdd run` */
    int wd = watchdog_tid(pid);
    char st = stopped(pid, wd);
    if (st) {
        stopped_message(pid, st);
        proc_threads(pid, wd);
        return 1;
    }

    /* The request, in the program's own /tmp. */
    /* In another mount namespace, through its root; in ours, directly (what
     * is left to clean up stays reachable after it exits). */
    char dir[128], req[256], ans[256], id[48], root[64] = "";
    if (!same_mount_ns(pid))
        snprintf(root, sizeof root, "/proc/%d/root", pid);
    snprintf(dir, sizeof dir, "%s" RT_DUMP_DIR, root, ns_pid(pid));
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(id, sizeof id, "%d-%lx", (int)getpid(), (unsigned long)(now.tv_nsec ^ (now.tv_sec << 20)) & 0xffffffffUL);
    snprintf(req, sizeof req, "%s/" RT_DUMP_REQUEST "%s", dir, id);
    snprintf(ans, sizeof ans, "%s/" RT_DUMP_ANSWER "%s", dir, id);
    int fd = -1;
    /* Another caller may remove the directory between our mkdir and our request: again. */
    for (int tries = 0; fd < 0 && tries < 5; tries++) {
        if (make_dir(dir, uid, gid) < 0)
            break;
        fd = open(req, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != ENOENT)
            break;
    }
    if (fd < 0) {
        int e = errno;
        if (gone(pid, &first)) {
            printf("rtdd dump: process %d exited before it was asked\n", pid);
            return 1;
        }
        fprintf(stderr, "rtdd dump: cannot leave a request in process %d's temporary directory (%s): %s\n", pid, dir,
                strerror(e));
        return 2;
    }
    close(fd);

    int answered = 0, why = 0; /* why: 1 exited, 2 stopped */
    char text[1024];
    for (int waited = 0; waited < WAIT_MS; waited += POLL_MS) {
        if (read_answer(ans, text, sizeof text) == 0 && text[0]) {
            answered = 1;
            break;
        }
        if (gone(pid, &first)) {
            why = 1;
            break;
        }
        if (!wd)
            wd = watchdog_tid(pid);
        if ((st = stopped(pid, wd)) != 0) {
            why = 2;
            break;
        }
        sleep_ms(POLL_MS);
    }
    /* Ours to clean up: the answer, or the request no one took; the
     * directory goes with the last caller. */
    unlink(answered ? ans : req);
    rmdir(dir);
    if (answered) {
        text[strcspn(text, "\n")] = 0;
        printf("pid %d: %s\n", pid, text);
        /* A path of its own mount namespace: say how to reach it from here. */
        const char *log = strstr(text, " written to /");
        if (log && root[0])
            printf("pid %d has a mount namespace of its own: while it runs, its log is /proc/%d/root%s here\n", pid,
                   pid, log + 12);
        return strncmp(text, "no lock dump", 12) ? 0 : 1;
    }
    if (why == 1) {
        printf("rtdd dump: process %d exited before it answered\n", pid);
        return 1;
    }
    if (why == 2) {
        stopped_message(pid, st);
        proc_threads(pid, wd);
        return 1;
    }
    if (!wd) {
        printf("rtdd dump: process %d did not answer in %d s: its watchdog thread is not running (rtdd starts it "
               "with the program's first thread or first lock wait). What /proc says of its threads:\n",
               pid, WAIT_MS / 1000);
    } else {
        char act[256];
        rt_task_activity(pid, wd, act, sizeof act);
        printf("rtdd dump: process %d did not answer in %d s: its watchdog thread (rtdd-watchdog/%d) runs but is "
               "busy: %s (a report being written to a log that does not take it, or a long symbolization). What "
               "/proc says of its threads:\n",
               pid, WAIT_MS / 1000, wd, act);
    }
    proc_threads(pid, wd);
    return 1;
}

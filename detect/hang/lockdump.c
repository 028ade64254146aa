#include "hang/lockdump.h"
#include "locks/locks.h"
#include "report/report.h"
#include "core/core.h"
#include <dirent.h>
#include <stdio.h> /* renameat: no stream is used */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KNOWN_TIDS 4096
struct dump {
    struct rt_report *r;
    uint64_t now;
    unsigned threads, nknown;
    unsigned waiting; /* threads shown waiting: the first one's stack is the SUMMARY's */
    int pass;         /* 0: the threads that wait for a lock, listed first; 1: the others */
    int known[KNOWN_TIDS]; /* the registry's threads, to find the others in /proc */
};

static int listed(const struct dump *d, int tid)
{
    for (unsigned k = 0; k < d->nknown; k++)
        if (d->known[k] == tid)
            return 1;
    return 0;
}

static void dump_thread(struct rt_thread *t, void *arg)
{
    struct dump *d = arg;
    struct rt_report *r = d->r;
    char comm[32], desc[512], act[256];
    /* A lock wait first: the SUMMARY names it, whatever the registry's order. */
    if (d->pass == 0 ? !__atomic_load_n(&t->waiting_for, __ATOMIC_ACQUIRE) : listed(d, t->tid))
        return;
    rt_thread_comm(t->tid, comm, sizeof comm);
    d->threads++;
    if (d->nknown < KNOWN_TIDS)
        d->known[d->nknown++] = t->tid;
    struct rt_lock *ev = __atomic_load_n(&t->event_waiting, __ATOMIC_ACQUIRE);
    struct rt_lock *w = __atomic_load_n(&t->waiting_for, __ATOMIC_ACQUIRE);
    uint64_t seq = __atomic_load_n(&t->wait_seq, __ATOMIC_RELAXED);
    d->waiting += w || ev || __atomic_load_n(&t->joining, __ATOMIC_RELAXED);
    if (w) {
        rt_lock_describe(w, __atomic_load_n(&w->addr, __ATOMIC_RELAXED), desc, sizeof desc);
        if (t->wd_seen_seq == seq && d->now >= t->wd_since_ms)
            rt_report_stack(r, t->wait_stack, "%s/%d waits for %s (at least %lu ms), at:", comm, t->tid, desc,
                            (unsigned long)(d->now - t->wd_since_ms));
        else
            rt_report_stack(r, t->wait_stack, "%s/%d waits for %s, at:", comm, t->tid, desc);
    } else if (__atomic_load_n(&t->joining, __ATOMIC_ACQUIRE)) {
        rt_report_stack(r, t->wait_stack, "%s/%d waits in pthread_join, at:", comm, t->tid);
    } else if (ev) {
        rt_lock_describe(ev, __atomic_load_n(&ev->addr, __ATOMIC_RELAXED), desc, sizeof desc);
        rt_report_stack(r, t->wait_stack, "%s/%d %s %s %s, at:", comm, t->tid,
                        t->event_destroy ? "waits in pthread_cond_destroy of" : "waits on",
                        ev->type == RT_LOCK_SEM ? "semaphore" : "condition variable", desc);
    } else {
        rt_thread_activity(t->tid, act, sizeof act);
        rt_report_text(r, "%s/%d waits for no lock: %s.", comm, t->tid, act);
    }
    rt_report_held_locks(r, t, comm);
}

/* Threads of the process the runtime has no record of (no lock call yet,
 * or made before it was set up), by their state in /proc; the watchdog
 * (the caller) aside. */
static void dump_unknown_threads(struct dump *d)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return;
    int self = (int)syscall(SYS_gettid);
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        int tid = atoi(e->d_name);
        unsigned k = 0;
        while (k < d->nknown && d->known[k] != tid)
            k++;
        if (tid <= 0 || tid == self || k < d->nknown)
            continue;
        char comm[32], act[256];
        rt_thread_comm(tid, comm, sizeof comm);
        rt_thread_activity(tid, act, sizeof act);
        rt_report_text(d->r, "%s/%d made no lock call rtdd saw: %s.", comm, tid, act);
        d->threads++;
    }
    closedir(dir);
}

/* The request directory, opened: ours alone (our user's, writable by no
 * one else, not a link), or -1. */
static int open_request_dir(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

#define MAX_REQUESTS 64 /* served at one look; more wait for the next */
#define ID_MAX 48
struct requests {
    unsigned n;
    char id[MAX_REQUESTS][ID_MAX];
};

/* A caller's id: letters, digits and '-' (rtdd dump makes PID-RANDOM). */
static int valid_id(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++)
        if (n + 1 >= ID_MAX || !((id[n] >= '0' && id[n] <= '9') || (id[n] >= 'a' && id[n] <= 'z') ||
                                 (id[n] >= 'A' && id[n] <= 'Z') || id[n] == '-'))
            return 0;
    return n > 0;
}

/* Takes the pending requests: each file is removed (a request is served
 * once), its caller's id kept for the answer. */
static void take_requests(int dfd, struct requests *q)
{
    q->n = 0;
    int fd = dup(dfd);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return;
    }
    const size_t plen = sizeof RT_DUMP_REQUEST - 1;
    for (struct dirent *e; q->n < MAX_REQUESTS && (e = readdir(dir)) != NULL;) {
        if (strncmp(e->d_name, RT_DUMP_REQUEST, plen) || !valid_id(e->d_name + plen) ||
            unlinkat(dfd, e->d_name, 0) != 0)
            continue;
        memcpy(q->id[q->n++], e->d_name + plen, strlen(e->d_name + plen) + 1);
    }
    closedir(dir);
}

/* One answer file per request, complete when it appears (renamed into place). */
static void answer(int dfd, const char *id, const char *text, size_t len)
{
    char tmp[ID_MAX + 8], ans[ID_MAX + 8];
    struct rt_buf b;
    rt_buf_init(&b, tmp, sizeof tmp);
    rt_buf_printf(&b, RT_DUMP_ANSWER_TMP "%s", id);
    rt_buf_init(&b, ans, sizeof ans);
    rt_buf_printf(&b, RT_DUMP_ANSWER "%s", id);
    unlinkat(dfd, tmp, 0);
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    ssize_t n = write(fd, text, len);
    close(fd);
    if (n != (ssize_t)len || renameat(dfd, tmp, dfd, ans) != 0)
        unlinkat(dfd, tmp, 0);
}

/* Writes the dump; returns how many threads it shows, -1 if not written
 * (*why says why). */
static int write_dump(uint64_t now_ms, int pid, const char **why)
{
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_DUMP, pid);
    if (!r) {
        *why = "the runtime is out of memory";
        return -1;
    }
    rt_report_headline(r, "INFO: lock dump of process %d (rtdd dump)", pid);
    static struct dump d; /* the watchdog's alone: 16 KB off its stack */
    d.r = r;
    d.now = now_ms;
    d.threads = d.nknown = d.waiting = 0;
    for (d.pass = 0; d.pass < 2; d.pass++)
        rt_thread_for_each(dump_thread, &d);
    dump_unknown_threads(&d);
    rt_report_text(r, "%u thread%s. Stacks are where each wait began and where each lock was taken; a thread that "
                      "waits for no lock is shown by its state in /proc.",
                   d.threads, d.threads == 1 ? "" : "s");
    if (!d.waiting) {
        /* No wait, no stack: the SUMMARY says so, and names the program. */
        char comm[32];
        rt_thread_comm(pid, comm, sizeof comm);
        rt_report_summary(r, "[no thread waits]", comm);
    }
    rt_report_key(r, rt_hash64(now_ms ^ 0x64756d70)); /* every look that has requests writes one */
    if (!rt_report_finish(r)) {
        *why = "a suppressions line for lock-dump matches it";
        return -1;
    }
    return (int)d.threads;
}

int rt_lockdump_poll(uint64_t now_ms)
{
    char path[64];
    struct rt_buf b;
    int pid = (int)getpid();
    rt_buf_init(&b, path, sizeof path);
    rt_buf_printf(&b, RT_DUMP_DIR, pid);
    int dfd = open_request_dir(path);
    if (dfd < 0)
        return 0;
    static struct requests q; /* the watchdog's alone */
    take_requests(dfd, &q);
    if (q.n) {
        /* One dump for every request pending now; each gets its answer. */
        const char *why = "";
        int threads = write_dump(now_ms, pid, &why);
        char where[600], text[700];
        struct rt_buf t;
        rt_buf_init(&t, text, sizeof text);
        if (threads >= 0) {
            rt_log_describe(where, sizeof where);
            rt_buf_printf(&t, "lock dump of %d thread%s written to %s\n", threads, threads == 1 ? "" : "s", where);
        } else {
            rt_buf_printf(&t, "no lock dump written: %s\n", why);
        }
        for (unsigned i = 0; i < q.n; i++)
            answer(dfd, q.id[i], t.data, t.len);
    }
    close(dfd);
    return (int)q.n;
}

#include "lockdump.h"
#include "engine.h"
#include "lockdesc.h"
#include "log.h"
#include "procstate.h"
#include "report.h"
#include "rt_fmt.h"
#include <dirent.h>
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
    int known[KNOWN_TIDS]; /* the registry's threads, to find the others in /proc */
};

static void dump_thread(struct rt_thread *t, void *arg)
{
    struct dump *d = arg;
    struct rt_report *r = d->r;
    char comm[32], desc[512], act[256];
    rt_thread_comm(t->tid, comm, sizeof comm);
    d->threads++;
    if (d->nknown < KNOWN_TIDS)
        d->known[d->nknown++] = t->tid;
    struct rt_lock *ev = __atomic_load_n(&t->event_waiting, __ATOMIC_ACQUIRE);
    struct rt_lock *w = __atomic_load_n(&t->waiting_for, __ATOMIC_ACQUIRE);
    uint64_t seq = __atomic_load_n(&t->wait_seq, __ATOMIC_RELAXED);
    if (w) {
        rt_lock_describe(w, __atomic_load_n(&w->addr, __ATOMIC_RELAXED), desc, sizeof desc);
        if (t->wd_seen_seq == seq && d->now >= t->wd_since_ms)
            rt_report_stack(r, t->wait_stack, "%s/%d waits for %s (at least %lu ms), at:", comm, t->tid, desc,
                            (unsigned long)(d->now - t->wd_since_ms));
        else
            rt_report_stack(r, t->wait_stack, "%s/%d waits for %s, at:", comm, t->tid, desc);
    } else if (__atomic_load_n(&t->joining, __ATOMIC_ACQUIRE)) {
        rt_report_text(r, "%s/%d waits in pthread_join.", comm, t->tid);
    } else if (ev) {
        rt_lock_describe(ev, __atomic_load_n(&ev->addr, __ATOMIC_RELAXED), desc, sizeof desc);
        rt_report_stack(r, t->wait_stack, "%s/%d waits on %s %s, at:", comm, t->tid,
                        rt_event_noun(ev->type), desc);
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

/* The request must be a plain file of our own user, not a link. */
static int request_pending(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    return st.st_uid == geteuid() || st.st_uid == 0;
}

int rt_lockdump_poll(uint64_t now_ms)
{
    char req[64], ans[64];
    struct rt_buf b;
    int pid = (int)getpid();
    rt_buf_init(&b, req, sizeof req);
    rt_buf_printf(&b, RT_DUMP_REQUEST, pid);
    if (!request_pending(req))
        return 0;
    unlink(req);
    struct rt_report *r = rt_report_begin(RT_KIND_LOCK_DUMP, pid);
    if (!r)
        return 0;
    rt_report_headline(r, "INFO: lock dump of process %d (rtdd dump)", pid);
    static struct dump d; /* the watchdog's alone: 16 KB off its stack */
    d.r = r;
    d.now = now_ms;
    d.threads = d.nknown = 0;
    rt_thread_for_each(dump_thread, &d);
    dump_unknown_threads(&d);
    rt_report_text(r, "%u threads. Stacks are where each wait began and where each lock was taken; a thread that "
                      "waits for no lock is shown by its state in /proc.",
                   d.threads);
    rt_report_key(r, rt_hash64(now_ms ^ 0x64756d70)); /* every request answered */
    rt_report_finish(r);
    char where[600], text[700];
    rt_log_describe(where, sizeof where);
    rt_buf_init(&b, ans, sizeof ans);
    rt_buf_printf(&b, RT_DUMP_ANSWER, pid);
    struct rt_buf t;
    rt_buf_init(&t, text, sizeof text);
    rt_buf_printf(&t, "pid %d: lock dump of %u threads written to %s\n", pid, d.threads, where);
    int fd = open(ans, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ssize_t n = write(fd, t.data, t.len);
        (void)n;
        close(fd);
    }
    return 1;
}

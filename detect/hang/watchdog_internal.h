/* What the watchdog (watchdog.c) hands its report writers
 * (watchdog_report.c): its snapshot of every thread's locks and waits. */
#ifndef RTDD_WATCHDOG_INTERNAL_H
#define RTDD_WATCHDOG_INTERNAL_H
#include "report/report.h"
#include "locks/locks.h"
#include <stddef.h>
#include <stdint.h>

/* What the watchdog knows of one thread, copied in one registry walk. Its
 * held locks are all copied (a pool shared by the snapshot): a wait behind
 * a deep nest of locks is a wait all the same. */
struct snap_lock {
    struct rt_lock *lock;
    uint64_t id;
    uintptr_t addr;
    rt_stack_id stack;
    uint8_t mode;
    unsigned owner; /* its snapshot's index */
};
struct snap {
    struct rt_thread *t;
    int tid;
    struct rt_lock *waiting_for;
    uintptr_t joining; /* else, the pthread_t it waits for in pthread_join */
    struct rt_lock *event; /* else, the condition variable or semaphore it waits on */
    uint64_t event_id;
    uint8_t event_shared;  /* another process may end that wait */
    uint8_t event_destroy; /* the wait is pthread_cond_destroy's, for event's waiters to leave */
    uintptr_t handle;  /* its own pthread_t */
    uint64_t waiting_id, seq, since_ms;
    rt_stack_id wait_stack;
    uint8_t wait_mode, wait_timed, rcu_wait;
    uint64_t rcu_enter_clock, rcu_wait_clock;
    uintptr_t section_pc; /* its first held entry is a read section recorded inline, begun here */
    unsigned held_at, nheld;
    int next;             /* the thread it waits for (itself for a self-deadlock), -1 none */
    uint8_t joined;       /* an untimed pthread_join waits for it to end, directly or through other joins */
    unsigned stamp, pos;  /* cycle search */
};

extern struct snap *wd_snaps;
extern unsigned wd_nsnaps;
extern struct snap_lock *wd_held_pool;
extern unsigned wd_held_used;

/* The thread waits: for a lock, a thread's end, or a condition. */
int wd_waits(const struct snap *s);
/* ...for a lock or a thread's end: what a blocked-too-long report is made
 * for (a wait on a condition is how idle threads look). */
int wd_waits_for_lock(const struct snap *s);
/* The name of what s waits for (a lock, a condition; "" for a join). */
void wd_wait_name(const struct snap *s, char *out, size_t cap);
/* The thread s waits for (its snapshot index), or -1. */
int wd_holder_of(const struct snap *s);
/* The rule for ending a run (watchdog.c, docs/design.md): what makes a
 * wait less than certain to last forever, if anything. */
enum wd_doubt { WD_PROVEN, WD_TIMED, WD_ROBUST, WD_PSHARED };
enum wd_doubt wd_wait_doubt(const struct rt_lock *lock, int timed, int shared);
enum wd_doubt wd_snap_doubt(const struct snap *s);
/* Every deadlock report of the watchdog ends here: the run ends (with
 * exit_on_deadlock) only for a proven one; otherwise the report says why
 * the run goes on. */
void wd_conclude(struct rt_report *r, enum wd_doubt doubt);
int wd_report_deadlock(const unsigned *cycle, unsigned n, uint64_t now);
int wd_report_stall(unsigned waiter, uint64_t blocked_ms);
int wd_report_hang(unsigned i, uint64_t now);
/* Looks where lock waiter i's chain ends and marks its episode when that is
 * a thread idle in poll/select/epoll_wait (the leader/followers pattern). */
void wd_note_idle_leader(unsigned i);
/* Every thread blocked with none left to wake another. */
int wd_report_all_blocked(uint64_t now);
#endif

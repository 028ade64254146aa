/* A thread's state from /proc/self/task/TID: "it is in read(2) on fd 5,
 * sleeping in the kernel's anon_pipe_read", "it is running (...)". A stack
 * of another thread cannot be taken safely; this can. */
#ifndef RTDD_PROCSTATE_H
#define RTDD_PROCSTATE_H
#include <stddef.h>
void rt_thread_activity(int tid, char *out, size_t cap);
/* The same for thread tid of process pid (0: this one): `rtdd dump`'s
 * listing of a process that does not answer says what the runtime would. */
void rt_task_activity(int pid, int tid, char *out, size_t cap);
/* Its state letter in /proc (R, S, D, T stopped, t traced, Z ...); '?'. */
char rt_task_state(int pid, int tid);
/* The process's thread count (/proc/self/status), -1 if unknown. */
int rt_process_threads(void);
/* Is the thread waiting for events in poll, select or epoll_wait (an event
 * loop's idle state)? 0 if not or unknown. */
int rt_thread_awaits_events(int tid);
/* Does the program catch a signal (SigCgt, glibc's own SIGCANCEL and
 * SIGSETXID aside)? A handler may wake a wait: sem_post is async-signal-safe.
 * 1 if unknown. */
int rt_process_catches_signals(void);
#endif

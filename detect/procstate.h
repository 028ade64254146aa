/* A thread's state from /proc/self/task/TID: "it is in read(2) on fd 5,
 * sleeping in the kernel's anon_pipe_read", "it is running (...)". A stack
 * of another thread cannot be taken safely; this can. */
#ifndef RTDD_PROCSTATE_H
#define RTDD_PROCSTATE_H
#include <stddef.h>
void rt_thread_activity(int tid, char *out, size_t cap);
#endif

/* Stack capture with the compiler's unwinder (libgcc_s), libunwind where
 * that cannot be loaded. Only called on slow paths: a report, a call site
 * seen for the first time, a new lock-order edge. */
#ifndef RTDD_UNWIND_H
#define RTDD_UNWIND_H
#include "core/core.h"
#include <stdint.h>

/* Leading frames whose pc lies in [lo, hi) — the runtime's own code — are
 * left out of every captured stack. */
void rt_unwind_set_runtime_range(uintptr_t lo, uintptr_t hi);
void rt_unwind_add_skip_range(uintptr_t lo, uintptr_t hi);
/* Opens the unwinder now (unit tests; else it opens on first need). */
void rt_unwind_init(void);
/* Opens it if not yet: the first capture does, and the runtime calls this
 * before a process's second thread is created (see unwind.c). */
void rt_unwind_open(void);
/* Captures the calling thread's stack, at most max_depth frames (0 in a
 * child forked while another thread's unwind did not finish). */
rt_stack_id rt_stack_capture(unsigned max_depth);
/* The same with libunwind whatever is loaded (the unit tests compare). */
rt_stack_id rt_stack_capture_libunwind(unsigned max_depth);
/* fork: prepare waits (bounded) for other threads' unwinds and holds new
 * ones back until parent/child releases them; see unwind.c. */
void rt_unwind_fork_prepare(void);
void rt_unwind_fork_parent(void);
void rt_unwind_fork_child(void);
#endif

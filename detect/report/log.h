/* Where reports go: stderr, stdout or a file (log_path, %p = pid). */
#ifndef RTDD_LOG_H
#define RTDD_LOG_H
#include <stddef.h>

/* Opens the log named by the option; on failure says why on stderr and
 * falls back to stderr (the program keeps running, nothing is lost). */
void rt_log_open(const char *log_path);
/* Writes buf with one write(2) (looping only on short writes and EINTR).
 * If the log cannot take it (full disk), the text goes to stderr; -1 when
 * neither took it (counted: rt_log_lost). A log file is made by the first
 * write. */
int rt_log_write(const char *buf, size_t len);
/* Where reports go, for people: a path, or "its stderr (log_path=stderr)". */
void rt_log_describe(char *out, size_t cap);
/* Writes that reached neither the log nor stderr; *last_errno says why. */
unsigned long rt_log_lost(int *last_errno);
/* Does the runtime's own log descriptor lie in [lo, hi]? (A close, dup2
 * or close_range of the program is about to take it.) */
int rt_log_fd_in(unsigned lo, unsigned hi);
/* Moves the runtime's own log descriptor out of [lo, hi] first; -1 when
 * there is no room (then call rt_log_reopen once the range is closed). */
int rt_log_move_out_of(unsigned lo, unsigned hi);
void rt_log_reopen(void);
/* In a forked child: a per-pid log is reopened under the new pid. */
void rt_log_after_fork(void);
/* Expands %p and %% in a log_path template. Returns -1 if it does not fit. */
int rt_log_expand_path(const char *tmpl, int pid, char *out, size_t cap);
#endif

/* The runtime's own writes (reports, the exit summary, its messages) must
 * never raise a signal in the program: a report to a pipe whose reader is
 * gone (`prog 2>&1 | head`, a log collector that died) would otherwise kill
 * it with SIGPIPE, or run its SIGPIPE handler inside the runtime. */
#ifndef RTDD_QUIETWRITE_H
#define RTDD_QUIETWRITE_H
#include <stddef.h>

/* Writes all of buf to fd (looping on short writes and EINTR) with SIGPIPE
 * blocked in the calling thread; a SIGPIPE the write raised is taken back
 * before the mask is restored, one the program had pending stays. Returns
 * 0, or -1 with errno set (EPIPE: the reader is gone). Three system calls
 * more than write(2): for the report path only. */
int rt_quiet_write(int fd, const void *buf, size_t len);
#endif

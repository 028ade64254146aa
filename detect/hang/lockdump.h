/* `rtdd dump PID`: the jstack of C programs. The command leaves a request
 * file; the runtime's watchdog thread, at its next look (every 5-500 ms),
 * writes a lock-dump report to the program's log — every thread's held
 * locks with their sites, what it waits for and for how long, where it
 * waits, or what it is doing (from /proc) — and answers with a file that
 * says where the dump went. Both files are the caller's uid's, 0600. */
#ifndef RTDD_LOCKDUMP_H
#define RTDD_LOCKDUMP_H
#include <stdint.h>

#define RT_DUMP_REQUEST "/tmp/rtdd-dump.%d"      /* %d: the program's pid */
#define RT_DUMP_ANSWER "/tmp/rtdd-dump.%d.done"

/* Serves a pending request (the watchdog thread); returns 1 if it did. */
int rt_lockdump_poll(uint64_t now_ms);
#endif

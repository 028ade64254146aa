/* `rtdd dump PID`: the jstack of C programs. Each caller leaves its own
 * request file in the program's request directory; the runtime's watchdog
 * thread, at its next look (every 5-500 ms), writes a lock-dump report to
 * the program's log — every thread's held locks with their sites, what it
 * waits for and for how long, where it waits, or what it is doing (from
 * /proc) — and answers each request pending then with a file of its own
 * that says where the dump went.
 *
 * The directory is in the program's own /tmp: a caller in another mount
 * namespace (systemd's PrivateTmp=, a container) reaches it through
 * /proc/PID/root, as PID is the program's pid in its own pid namespace
 * (NSpid). It must be a directory of the program's user, writable by
 * nobody else (a root caller hands it over): so only that user and root
 * can ask for a dump. */
#ifndef RTDD_LOCKDUMP_H
#define RTDD_LOCKDUMP_H
#include <stdint.h>

#define RT_DUMP_DIR "/tmp/rtdd-dump.%d" /* %d: the program's pid, as it sees it */
#define RT_DUMP_REQUEST "req."          /* + the caller's id: a request */
#define RT_DUMP_ANSWER "ans."           /* + the caller's id: its answer, one line */
#define RT_DUMP_ANSWER_TMP "tmp."       /* written here first, then renamed */

/* Serves the pending requests (the watchdog thread); returns how many. */
int rt_lockdump_poll(uint64_t now_ms);
#endif

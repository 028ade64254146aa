/* The real-deadlock watchdog: threads blocked in lock calls longer than
 * deadlock_timeout_ms are followed through the wait-for graph (thread ->
 * lock -> holders); a cycle is reported as a deadlock. */
#ifndef RTDD_WATCHDOG_H
#define RTDD_WATCHDOG_H
#include <stdint.h>

/* One pass over all threads at time now_ms; reports cycles among threads
 * blocked at least deadlock_timeout_ms. Returns the number of reports. */
int rt_watchdog_scan(uint64_t now_ms);
/* The period between scans. */
unsigned rt_watchdog_period_ms(void);
/* Starts the watchdog thread once per process (through the hook that the
 * preload layer installs; tests drive rt_watchdog_scan directly). Creating
 * a thread allocates, so it must not happen where a signal handler may
 * have interrupted the allocator: rt_watchdog_start is for the program's
 * own thread creations (pthread_create is not async-signal-safe, so that
 * context is safe); rt_watchdog_ensure, called where a thread starts to
 * wait, starts it only as a fallback when no creation was seen (threads
 * made before set-up, or not through pthread_create/thrd_create). */
extern void (*rt_watchdog_start_hook)(void);
void rt_watchdog_start(void);
void rt_watchdog_ensure(void);
void rt_watchdog_after_fork(void);
#endif

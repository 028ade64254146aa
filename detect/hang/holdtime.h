/* hold_threshold_ms: a lock held longer than the threshold is reported at
 * its release (DRD's --exclusive-threshold, the -rt world's latency
 * concern). Entries carry when they were taken only while the option is
 * on, and then the lock fast paths are off: nothing is paid otherwise. */
#ifndef RTDD_HOLDTIME_H
#define RTDD_HOLDTIME_H
#include "locks/locks.h"
#include <stdint.h>
#include <time.h>

static inline uint64_t rt_hold_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* t releases held entry h for the last time (pc: the release's caller):
 * reports it when it was held past the threshold. */
void rt_hold_check(struct rt_thread *t, const struct rt_held *h, uintptr_t pc);
#endif

/* Hold-time sampling for micro.c's contended rows: every HOLD_EVERY-th
 * critical section of a thread is timed from the return of its (outermost)
 * lock call to its unlock call, with the TSC (two rdtsc reads, about 20
 * cycles each, once per 64 sections: well under a nanosecond per operation;
 * clock_gettime where there is no TSC). The ticks are converted to ns with
 * the TSC rate measured against CLOCK_MONOTONIC over the timed run, and the
 * median and 90th percentile of the samples are printed on the second line:
 * "hold MEDIAN_NS P90_NS SAMPLES". What the program sees: its own critical
 * section, and, where the lock is the outer one of a nest, the inner locks'
 * wrappers; the work a lock wrapper does between the real acquisition and
 * its return (or between its call and the real release) is not in it. */
#ifndef BENCH_MICRO_HOLD_H
#define BENCH_MICRO_HOLD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define HOLD_EVERY 64
#define HOLD_THREADS 4
#define HOLD_SAMPLES (1 << 16)

static uint32_t hold_buf[HOLD_THREADS][HOLD_SAMPLES];
static int hold_count[HOLD_THREADS];
static int hold_next_slot; /* atomic builtins only */
static uint64_t hold_t0_ticks;
static double hold_t0_ns;

static inline uint64_t hold_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* A sampling thread's slot (threads beyond HOLD_THREADS share). */
static inline int hold_slot(void)
{
    return __atomic_fetch_add(&hold_next_slot, 1, __ATOMIC_RELAXED) % HOLD_THREADS;
}

static inline int hold_sampled(long i) { return (i % HOLD_EVERY) == 0; }

static inline void hold_record(int slot, uint64_t t1, uint64_t t2)
{
    int n = hold_count[slot];
    if (n < HOLD_SAMPLES) {
        uint64_t d = t2 - t1;
        hold_buf[slot][n] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
        hold_count[slot] = n + 1;
    }
}

static double hold_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Before the timed run: drop the warm-up's samples, start the TSC rate. */
static void hold_start(void)
{
    for (int s = 0; s < HOLD_THREADS; s++)
        hold_count[s] = 0;
    hold_next_slot = 0;
    hold_t0_ns = hold_clock_ns();
    hold_t0_ticks = hold_ticks();
}

static int hold_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* After the timed run: the second output line, when there were samples. */
static void hold_print(void)
{
    double ns_per_tick = (hold_clock_ns() - hold_t0_ns) / (double)(hold_ticks() - hold_t0_ticks);
    long total = 0;
    for (int s = 0; s < HOLD_THREADS; s++)
        total += hold_count[s];
    if (total == 0)
        return;
    uint32_t *all = malloc((size_t)total * sizeof *all);
    if (!all)
        abort();
    long k = 0;
    for (int s = 0; s < HOLD_THREADS; s++)
        for (int i = 0; i < hold_count[s]; i++)
            all[k++] = hold_buf[s][i];
    qsort(all, (size_t)total, sizeof *all, hold_cmp);
    printf("hold %.2f %.2f %ld\n", all[total / 2] * ns_per_tick, all[total * 9 / 10] * ns_per_tick, total);
    free(all);
}

#endif

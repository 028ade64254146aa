/* A filter over 256-byte lines of the address space: byte (line mod 2^23)
 * says a lock record may lie in that line. Bytes are never cleared, so a
 * clear byte proves there is none: free() of ordinary memory costs a load
 * and a test. A byte per line, not a bit: the common question (two adjacent
 * lines) is then one 16-bit load with no shift, and a range of up to
 * eight lines one 64-bit load and a mask; the array has RT_FILTER_PAD
 * bytes more, copies of lines 0..7's, so that those questions never wrap. */
#ifndef RTDD_LINEFILTER_H
#define RTDD_LINEFILTER_H
#include "core/rt_common.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RT_LINE_SHIFT 8
#define RT_FILTER_LINES (1u << 23)
#define RT_FILTER_PAD 8
/* How far before a range an object of interest may start and still reach
 * into it (a lock object). */
#define RT_FILTER_REACH 64

static inline int rt_filter_test(const uint8_t *filter, uintptr_t line)
{
    return __atomic_load_n(&filter[line & (RT_FILTER_LINES - 1)], __ATOMIC_RELAXED);
}

/* Marks the line of addr with bits (a filter's byte may say what kind of
 * object is there); a plain load first keeps marked lines read-only. */
static inline void rt_filter_mark(uint8_t *filter, uintptr_t addr, uint8_t bits)
{
    uintptr_t i = (addr >> RT_LINE_SHIFT) & (RT_FILTER_LINES - 1);
    if ((__atomic_load_n(&filter[i], __ATOMIC_RELAXED) & bits) != bits) {
        if (i < RT_FILTER_PAD)
            __atomic_fetch_or(&filter[RT_FILTER_LINES + i], bits, __ATOMIC_RELEASE);
        __atomic_fetch_or(&filter[i], bits, __ATOMIC_RELEASE);
    }
}

/* A counting filter's byte for addr, moved by delta (+1 or -1); a full
 * count stays full. The caller serializes the changes. */
static inline void rt_filter_count(uint8_t *filter, uintptr_t addr, int delta)
{
    uintptr_t i = (addr >> RT_LINE_SHIFT) & (RT_FILTER_LINES - 1);
    uint8_t c = __atomic_load_n(&filter[i], __ATOMIC_RELAXED);
    if (c == UINT8_MAX)
        return;
    c = (uint8_t)(c + delta);
    if (i < RT_FILTER_PAD)
        __atomic_store_n(&filter[RT_FILTER_LINES + i], c, __ATOMIC_RELEASE);
    __atomic_store_n(&filter[i], c, __ATOMIC_RELEASE);
}

static inline int rt_filter_may_overlap(const uint8_t *filter, uintptr_t start, size_t len)
{
    uintptr_t first = (start - RT_FILTER_REACH) >> RT_LINE_SHIFT, last = (start + len - 1) >> RT_LINE_SHIFT;
    if (last - first > 64)
        return 1;
    for (uintptr_t line = first; line <= last; line++)
        if (rt_filter_test(filter, line))
            return 1;
    return 0;
}

/* The same question for a range of at most RT_SMALL_RANGE bytes: it lies
 * within two adjacent lines, read with one load that does not wait for the
 * length (the caller's length test is a predicted branch, not a data
 * dependency). The bytes change only from 0 to 1: a load that races with
 * a store sees either, as a lone byte load would. */
#define RT_SMALL_RANGE (256 - RT_FILTER_REACH)
static inline int rt_filter_may_overlap_small(const uint8_t *filter, uintptr_t start)
{
    uint16_t two;
    __builtin_memcpy(&two, &filter[((start - RT_FILTER_REACH) >> RT_LINE_SHIFT) & (RT_FILTER_LINES - 1)], sizeof two);
    return two != 0;
}

/* A range of at most RT_MEDIUM_RANGE bytes spans at most eight lines with
 * its reach: one unaligned 64-bit load, the lines beyond it masked off. */
#define RT_MEDIUM_RANGE (6 * 256)
static inline int rt_filter_may_overlap_medium(const uint8_t *filter, uintptr_t start, size_t len)
{
    uintptr_t first = (start - RT_FILTER_REACH) >> RT_LINE_SHIFT;
    unsigned lines = (unsigned)(((start + len - 1) >> RT_LINE_SHIFT) - first) + 1;
    uint64_t eight;
    __builtin_memcpy(&eight, &filter[first & (RT_FILTER_LINES - 1)], sizeof eight);
    return (eight & (~(uint64_t)0 >> (64 - 8 * lines))) != 0;
}
#endif

/* Filters over 256-byte lines of the address space: bit (line mod 2^23)
 * says something of interest (a lock record, an object RCU readers
 * reference) may lie in that line. Bits are never cleared, so a clear bit
 * proves there is nothing: free() of ordinary memory costs a load and a
 * bit test per filter. */
#ifndef RTDD_LINEFILTER_H
#define RTDD_LINEFILTER_H
#include "rt_common.h"
#include <stddef.h>
#include <stdint.h>

#define RT_LINE_SHIFT 8
#define RT_FILTER_BITS (1u << 23)
/* How far before a range an object of interest may start and still reach
 * into it (a lock object; a referenced pointer is the object itself). */
#define RT_FILTER_REACH 64

static inline int rt_filter_test(const uint64_t *bits, uintptr_t line)
{
    uintptr_t bit = line & (RT_FILTER_BITS - 1);
    return (__atomic_load_n(&bits[bit >> 6], __ATOMIC_RELAXED) >> (bit & 63)) & 1;
}

/* Marks the line of addr; a plain load first keeps marked lines read-only. */
static inline void rt_filter_set(uint64_t *bits, uintptr_t addr)
{
    uintptr_t bit = (addr >> RT_LINE_SHIFT) & (RT_FILTER_BITS - 1);
    if (!(__atomic_load_n(&bits[bit >> 6], __ATOMIC_RELAXED) & (1ull << (bit & 63))))
        __atomic_fetch_or(&bits[bit >> 6], 1ull << (bit & 63), __ATOMIC_RELEASE);
}

static inline int rt_filter_may_overlap(const uint64_t *bits, uintptr_t start, size_t len)
{
    uintptr_t first = (start - RT_FILTER_REACH) >> RT_LINE_SHIFT, last = (start + len - 1) >> RT_LINE_SHIFT;
    if (likely(last - first <= 1)) /* small blocks: two tests, no loop */
        return rt_filter_test(bits, first) | rt_filter_test(bits, last);
    if (last - first > 64)
        return 1;
    for (uintptr_t line = first; line <= last; line++)
        if (rt_filter_test(bits, line))
            return 1;
    return 0;
}

/* The same question for a range of at most RT_SMALL_RANGE bytes: it lies
 * within two adjacent lines, whose bits are read from one word without the
 * length (the caller's length test is a predicted branch, not a data
 * dependency). */
#define RT_SMALL_RANGE (256 - RT_FILTER_REACH)
static inline int rt_filter_may_overlap_small(const uint64_t *bits, uintptr_t start)
{
    uintptr_t bit = ((start - RT_FILTER_REACH) >> RT_LINE_SHIFT) & (RT_FILTER_BITS - 1);
    if (unlikely((bit & 63) == 63))
        return rt_filter_test(bits, bit) | rt_filter_test(bits, bit + 1);
    return (__atomic_load_n(&bits[bit >> 6], __ATOMIC_RELAXED) >> (bit & 63)) & 3;
}
#endif

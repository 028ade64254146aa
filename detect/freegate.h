/* What free() must ask, in the one word it loads first. Bits are set, never
 * cleared: when the first lock record is made, when RCU is first seen, and
 * at set-up when the allocator is not glibc's (a block's size then costs a
 * call). 0: free() checks nothing. */
#ifndef RTDD_FREEGATE_H
#define RTDD_FREEGATE_H

#define RT_FREE_LOCKS 1u         /* lock records exist: ask the lock-line filter */
#define RT_FREE_RCU 2u           /* RCU in use: ask the RCU line clocks */
#define RT_FREE_FOREIGN_ALLOC 4u /* sizes from malloc_usable_size, off the leaf */

extern _Atomic unsigned rt_free_checks;

static inline void rt_free_checks_add(unsigned bits)
{
    if ((__atomic_load_n(&rt_free_checks, __ATOMIC_RELAXED) & bits) != bits)
        __atomic_fetch_or(&rt_free_checks, bits, __ATOMIC_RELEASE);
}
#endif

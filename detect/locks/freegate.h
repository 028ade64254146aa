/* What free() must ask, in the one word it loads first. Bits are set, never
 * cleared: when the first lock record is made, when RCU is first seen, at
 * set-up when the allocator is not glibc's (a block's size then costs a
 * call), and when the bootstrap arena first hands out memory (which must
 * never reach the real free). 0: free() checks nothing. */
#ifndef RTDD_FREEGATE_H
#define RTDD_FREEGATE_H

#define RT_FREE_LOCKS 1u         /* lock records exist: ask the lock-line filter */
#define RT_FREE_RCU 2u           /* RCU in use: ask the RCU line clocks */
#define RT_FREE_FOREIGN_ALLOC 4u /* sizes from malloc_usable_size, off the leaf */
#define RT_FREE_ARENA 8u         /* bootstrap-arena blocks exist: test for them */

extern _Atomic unsigned rt_free_checks;

static inline void rt_free_checks_add(unsigned bits)
{
    if ((__atomic_load_n(&rt_free_checks, __ATOMIC_RELAXED) & bits) != bits)
        __atomic_fetch_or(&rt_free_checks, bits, __ATOMIC_RELEASE);
}
#endif

/* Stack depot: stacks are hash-consed into small ids, stored once, never
 * freed, readable without locks. Id 0 means "no stack". */
#ifndef RTDD_STACKDEPOT_H
#define RTDD_STACKDEPOT_H
#include <stdint.h>

typedef uint32_t rt_stack_id;
#define RT_STACK_MAX 128

/* pcs are return addresses (innermost first); frame_sizes may be NULL. */
rt_stack_id rt_stack_intern(const uintptr_t *pcs, const uint32_t *frame_sizes, unsigned depth);
/* Returns the depth and points at the stored arrays, or 0 for an unknown id. */
unsigned rt_stack_get(rt_stack_id id, const uintptr_t **pcs, const uint32_t **frame_sizes);
unsigned rt_stack_count(void);
#endif
